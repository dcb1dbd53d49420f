"""Tournaments between agents, seats rotated, with 95% confidence intervals.

    python -m experiments.evaluate --env-id piraten_kapern_v0 --agents oracle heuristic random --games 30

``--agents`` lists one agent per seat (names from ``agents.registry``, ``ppo:<checkpoint>``
included; a name may repeat). Game ``g`` seats agent ``k`` at seat ``(k + g) mod n`` so every
agent plays every seat. A win shared by ``w`` players counts ``1/w``; a truncated game counts
as no win. With ``--players p`` smaller than the number of agents, every combination of ``p``
agents plays ``--games`` games (a league) and the figures pool over all of them. OpenSkill
ratings (``experiments.ratings``) are fitted on every game. Beside the pooled figures, the
head-to-head matrix gives each agent's win rate in the games it played with each other agent.
Writes ``results.md``, ``results.json`` and ``results.png`` to ``--out`` when given. Bad
arguments (an unknown agent, a player count the game does not allow, an agent that does not
fit the table) end the command before any game with one line and exit status 2.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pirate_envs
from agents.base import Agent
from agents.registry import make_agent
from experiments.cli import check_agents, check_env_id, check_players, games_epilog, parse_args
from experiments.ratings import rate_games
from experiments.stats import mean_interval, wilson_interval


@dataclass
class EvalArgs:
    """Play a seat-rotated tournament and print win rates and mean scores with 95% intervals."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agents: list[str] = field(
        default_factory=lambda: ["oracle", "heuristic", "random"],
        metadata={"help": "one agent name per seat (the names of each game are listed below)"},
    )
    games: int = field(default=30, metadata={"help": "number of games (per pairing in a league)", "min": 1})
    seed: int = field(default=0, metadata={"help": "seed of the first game (game g uses seed + g)", "min": 0})
    players: int = field(
        default=0, metadata={"help": "players per game (0: one seat per agent; fewer: a league)", "min": 0}
    )
    out: str | None = field(default=None, metadata={"help": "folder for results.md and results.json"})


@dataclass
class AgentResult:
    """One agent's tournament figures (a name that sits several seats is pooled)."""

    agent: str
    seats_played: int
    win_rate: float
    win_low: float
    win_high: float
    mean_score: float
    score_low: float
    score_high: float
    rating: float | None = None
    rating_sigma: float | None = None


@dataclass
class GameRecord:
    """The outcome of one game, per seat."""

    scores: list[float]
    win_shares: list[float]
    truncated: bool
    #: The engine's ``truncation_reason`` of a truncated game (``None`` when it gives none).
    truncation_reason: str | None = None


def seating(num_agents: int, game: int) -> list[int]:
    """The seat of each agent in game ``game`` of a rotation: agent ``k`` sits at ``(k + game) % n``."""
    return [(k + game) % num_agents for k in range(num_agents)]


def play_game(env: Any, seat_agents: list[Agent], seed: int) -> GameRecord:
    """Play one game on a raw env; ``seat_agents[s]`` plays seat ``s``."""
    env.reset(seed=seed)
    for s, agent in enumerate(seat_agents):
        agent.reset(seed * 101 + s)
    game = env.game
    while not game.done:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        env.step(seat_agents[seat].act(obs, game.view(seat)))
    n = len(seat_agents)
    shares = [0.0] * n
    if game.terminated:
        winners = game.winners()
        for w in winners:
            shares[w] = 1.0 / len(winners)
    reason = game.truncation_reason if game.truncated else None
    return GameRecord(game.scores().tolist(), shares, game.truncated, reason)


def run_tournament(
    env_id: str, agent_names: list[str], games: int, seed: int = 0, **env_kwargs: Any
) -> tuple[list[AgentResult], list[GameRecord]]:
    """Play ``games`` seat-rotated games; results per distinct agent name."""
    n = len(agent_names)
    env = pirate_envs.make(env_id, raw=True, num_players=n, **env_kwargs)
    lineup = [make_agent(name, env_id, seed=seed + k, env=env) for k, name in enumerate(agent_names)]
    shares: dict[str, list[float]] = {name: [] for name in agent_names}
    scores: dict[str, list[float]] = {name: [] for name in agent_names}
    records = []
    for g in range(games):
        seat_of = seating(n, g)
        seat_agents: list[Agent] = [lineup[0]] * n
        for k, seat in enumerate(seat_of):
            seat_agents[seat] = lineup[k]
        record = play_game(env, seat_agents, seed + g)
        records.append(record)
        for k, name in enumerate(agent_names):
            shares[name].append(record.win_shares[seat_of[k]])
            scores[name].append(record.scores[seat_of[k]])
    results = []
    for name in dict.fromkeys(agent_names):
        p, lo, hi = wilson_interval(sum(shares[name]), len(shares[name]))
        m, mlo, mhi = mean_interval(scores[name])
        results.append(AgentResult(name, len(shares[name]), p, lo, hi, m, mlo, mhi))
    return results, records


def seat_names(agent_names: list[str], records: list[GameRecord]) -> list[list[str]]:
    """The agent name at each seat of each game of :func:`run_tournament`."""
    n = len(agent_names)
    names_by_game = []
    for g in range(len(records)):
        names = [""] * n
        for k, seat in enumerate(seating(n, g)):
            names[seat] = agent_names[k]
        names_by_game.append(names)
    return names_by_game


def summarise(games: list[tuple[list[str], GameRecord]]) -> list[AgentResult]:
    """Win rate, mean score (95% intervals) and OpenSkill rating per agent name, pooled over games."""
    shares: dict[str, list[float]] = {}
    scores: dict[str, list[float]] = {}
    for names, record in games:
        for seat, name in enumerate(names):
            shares.setdefault(name, []).append(record.win_shares[seat])
            scores.setdefault(name, []).append(record.scores[seat])
    ratings = rate_games(games)
    results = []
    for name in shares:
        p, lo, hi = wilson_interval(sum(shares[name]), len(shares[name]))
        m, mlo, mhi = mean_interval(scores[name])
        mu, sigma = ratings.get(name, (None, None))
        results.append(AgentResult(name, len(shares[name]), p, lo, hi, m, mlo, mhi, mu, sigma))
    return results


def run_league(
    env_id: str, agent_names: list[str], players: int, games: int, seed: int = 0, **env_kwargs: Any
) -> tuple[list[AgentResult], list[tuple[list[str], GameRecord]]]:
    """Every combination of ``players`` distinct agents plays ``games`` seat-rotated games.

    Returns the results pooled over all games, and each game's seat names with its record.
    """
    distinct = list(dict.fromkeys(agent_names))
    if not 1 <= players <= len(distinct):
        raise ValueError(f"players must be in 1..{len(distinct)} (the distinct agents), got {players}")
    played: list[tuple[list[str], GameRecord]] = []
    for lineup in itertools.combinations(distinct, players):
        _, records = run_tournament(env_id, list(lineup), games, seed, **env_kwargs)
        played.extend(zip(seat_names(list(lineup), records), records))
    return summarise(played), played


def head_to_head(games: list[tuple[list[str], GameRecord]]) -> dict[str, dict[str, dict[str, float]]]:
    """``matrix[a][b]``: agent ``a``'s win rate (and the number of games) in the games it played with ``b``.

    A name seated several times in one game counts the mean of its seats' win shares.
    """
    totals: dict[str, dict[str, list[float]]] = {}
    for names, record in games:
        share: dict[str, list[float]] = {}
        for seat, name in enumerate(names):
            share.setdefault(name, []).append(record.win_shares[seat])
        for a, shares_a in share.items():
            for b in share:
                if a != b:
                    cell = totals.setdefault(a, {}).setdefault(b, [0.0, 0])
                    cell[0] += sum(shares_a) / len(shares_a)
                    cell[1] += 1
    return {a: {b: {"win_rate": won / n, "games": n} for b, (won, n) in row.items()} for a, row in totals.items()}


def markdown_matrix(matrix: dict[str, dict[str, dict[str, float]]], names: list[str]) -> str:
    """The head-to-head matrix as a markdown table: row agent's win rate against each column agent."""
    lines = ["| win rate of ↓ with → | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        cells = []
        for b in names:
            cell = matrix.get(a, {}).get(b)
            cells.append("" if cell is None else f"{cell['win_rate']:.3f} ({cell['games']})")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_table(results: list[AgentResult]) -> str:
    """The results as a markdown table (with a rating column when rated)."""
    rated = all(r.rating is not None for r in results)
    lines = [
        "| agent | seats played | win rate [95% CI] | mean score [95% CI] |" + (" rating μ ± σ |" if rated else ""),
        "|---|---|---|---|" + ("---|" if rated else ""),
    ]
    for r in results:
        rating = f" {r.rating:.1f} ± {r.rating_sigma:.1f} |" if rated else ""
        lines.append(
            f"| {r.agent} | {r.seats_played} | {r.win_rate:.3f} [{r.win_low:.3f}, {r.win_high:.3f}] "
            f"| {r.mean_score:.1f} [{r.score_low:.1f}, {r.score_high:.1f}] |" + rating
        )
    return "\n".join(lines)


def check_args(args: EvalArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot make a tournament; runs before any game."""
    check_env_id(args.env_id)
    distinct = len(dict.fromkeys(args.agents))
    players = args.players or len(args.agents)
    if args.players and not args.players <= distinct:
        raise ValueError(f"--players {args.players}: a league seats distinct agents, at most {distinct} here")
    check_players(args.env_id, players, "--players" if args.players else "--agents (one seat each)")
    check_agents(args.agents, args.env_id, players, "--agents")


def evaluate(args: EvalArgs) -> tuple[list[AgentResult], list[GameRecord], list[tuple[list[str], GameRecord]]]:
    """Play the tournament (or league) of ``args``: results with ratings, the records, and each game's
    seat names with its record (for :func:`head_to_head`)."""
    players = args.players or len(args.agents)
    if players < len(args.agents):
        results, played = run_league(args.env_id, args.agents, players, args.games, args.seed)
        return results, [record for _, record in played], played
    if players > len(args.agents):
        raise ValueError(f"players must be at most the number of agents ({len(args.agents)}), got {players}")
    _, records = run_tournament(args.env_id, args.agents, args.games, args.seed)
    played = list(zip(seat_names(args.agents, records), records))
    return summarise(played), records, played


def main(argv: list[str] | None = None) -> list[AgentResult]:
    args = parse_args(EvalArgs, argv, epilog=games_epilog(), check=check_args)
    results, records, played = evaluate(args)
    truncated = sum(r.truncated for r in records)
    reasons = Counter(r.truncation_reason or "turn limit" for r in records if r.truncated)
    mode = f"league of {args.players} players" if args.players and args.players < len(args.agents) else "seats rotated"
    header = f"{args.env_id}: {len(records)} games, {mode}, seed {args.seed}, {truncated} truncated"
    if truncated:
        header += " (" + ", ".join(f"{reason}: {k}" for reason, k in sorted(reasons.items())) + ")"
    table = markdown_table(results)
    matrix = head_to_head(played)
    names = [r.agent for r in results]
    if len(names) > 1:
        table += "\n\nHead to head:\n\n" + markdown_matrix(matrix, names)
    print(header)
    print(table)
    if args.out:
        from experiments.plots import tournament_chart

        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.md").write_text(f"{header}\n\n{table}\n")
        payload = {
            "args": asdict(args),
            "results": [asdict(r) for r in results],
            "truncated": truncated,
            "truncation_reasons": reasons,
            "head_to_head": matrix,
        }
        (out / "results.json").write_text(json.dumps(payload, indent=2))
        chance = 1 / (args.players or len(args.agents))
        tournament_chart([asdict(r) for r in results], out / "results.png", header, chance=chance)
        print(f"wrote {out / 'results.md'}, results.json and results.png")
    return results


if __name__ == "__main__":
    main()
