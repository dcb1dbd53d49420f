"""Tournaments between agents, seats rotated, with 95% confidence intervals.

    python -m experiments.evaluate --env-id piraten_kapern_v0 --agents oracle heuristic random --games 30

``--agents`` lists one agent per seat (names from ``agents.registry``, ``ppo:<checkpoint>``
included; a name may repeat). Game ``g`` seats agent ``k`` at seat ``(k + g) mod n`` so every
agent plays every seat. A win shared by ``w`` players counts ``1/w``; a truncated game counts
as no win. With ``--players p`` smaller than the number of agents, every combination of ``p``
agents plays ``--games`` games (a league) and the figures pool over all of them. OpenSkill
ratings (``experiments.ratings``) are fitted on every game. Beside the pooled figures, the
head-to-head matrix gives each agent's win rate in the games it played with each other agent.
Writes ``results.md``, ``results.json`` and ``results.png`` to ``--out`` when given.

``--duplicate`` plays every deal once per rotation of the agents over the seats, with the same
seed (the same cards and dice): game ``g`` uses seed ``seed + g // n`` and rotation ``g mod n``,
so the luck of the deal cancels. Its intervals are taken over deals (the mean of an agent's
seats in each deal, a normal interval over the deals) rather than over single games (Wilson).
``--workers`` plays games in parallel processes (the figures are the same as with one);
``--progress`` shows games done, rate and time left on stderr. ``--save-games DIR`` writes one
JSON record per game (``env_id``, ``env_kwargs``, ``seed``, ``actions`` in order, ``agents`` by
seat, final ``scores``), each written atomically, that :func:`replay` plays back exactly. Bad
arguments (an unknown agent, a player count the game does not allow, an agent that does not
fit the table) end the command before any game with one line and exit status 2.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
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
    duplicate: bool = field(
        default=False,
        metadata={"help": "play every deal once per rotation of the agents (same seed); games: a multiple of n"},
    )
    workers: int = field(default=1, metadata={"help": "processes playing games in parallel", "min": 1})
    progress: bool = field(default=True, metadata={"help": "show games done, rate and time left on stderr"})
    save_games: str | None = field(default=None, metadata={"help": "folder for one JSON record per game"})


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
    #: The seed the game was dealt with.
    seed: int | None = None
    #: Every action in order (the game replays from ``seed`` and these).
    actions: list[int] = field(default_factory=list)


def seating(num_agents: int, game: int) -> list[int]:
    """The seat of each agent in game ``game`` of a rotation: agent ``k`` sits at ``(k + game) % n``."""
    return [(k + game) % num_agents for k in range(num_agents)]


def deal_of(game: int, num_agents: int, duplicate: bool) -> tuple[int, int]:
    """``(seed offset, rotation)`` of game ``game``: one deal per game, or one per ``n`` rotations."""
    return (game // num_agents if duplicate else game), game % num_agents


def play_game(env: Any, seat_agents: list[Agent], seed: int) -> GameRecord:
    """Play one game on a raw env; ``seat_agents[s]`` plays seat ``s``."""
    env.reset(seed=seed)
    for s, agent in enumerate(seat_agents):
        agent.reset(seed * 101 + s)
    game = env.game
    actions = []
    while not game.done:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        action = int(seat_agents[seat].act(obs, game.view(seat)))
        actions.append(action)
        env.step(action)
    n = len(seat_agents)
    shares = [0.0] * n
    if game.terminated:
        winners = game.winners()
        for w in winners:
            shares[w] = 1.0 / len(winners)
    reason = game.truncation_reason if game.truncated else None
    return GameRecord(game.scores().tolist(), shares, game.truncated, reason, seed, actions)


@dataclass(frozen=True)
class Job:
    """One game to play: the lineup (agent ``k`` is ``lineup[k]``), its seed and its rotation."""

    env_id: str
    lineup: tuple[str, ...]
    seed: int
    rotation: int
    env_kwargs: tuple[tuple[str, Any], ...] = ()

    def seat_names(self) -> list[str]:
        """The agent name at each seat."""
        names = [""] * len(self.lineup)
        for k, seat in enumerate(seating(len(self.lineup), self.rotation)):
            names[seat] = self.lineup[k]
        return names


def tournament_jobs(
    env_id: str, agent_names: list[str], games: int, seed: int = 0, duplicate: bool = False, **env_kwargs: Any
) -> list[Job]:
    """The ``games`` seat-rotated games of one lineup (deals repeated per rotation with ``duplicate``)."""
    n = len(agent_names)
    if duplicate and games % n:
        raise ValueError(f"--duplicate plays each deal once per rotation: games must be a multiple of {n}, not {games}")
    kwargs = tuple(sorted(env_kwargs.items()))
    jobs = []
    for g in range(games):
        offset, rotation = deal_of(g, n, duplicate)
        jobs.append(Job(env_id, tuple(agent_names), seed + offset, rotation, kwargs))
    return jobs


#: Per process and :func:`play_jobs` call: the env and agents of each lineup, built once.
_TABLES: dict[tuple[str, tuple[str, ...], tuple[tuple[str, Any], ...]], tuple[Any, list[Agent]]] = {}


def play_job(job: Job) -> GameRecord:
    """Play one job (agents and env are built once per lineup and process, then reset per game)."""
    key = (job.env_id, job.lineup, job.env_kwargs)
    if key not in _TABLES:
        env = pirate_envs.make(job.env_id, raw=True, num_players=len(job.lineup), **dict(job.env_kwargs))
        agents = [make_agent(name, job.env_id, seed=k, env=env) for k, name in enumerate(job.lineup)]
        _TABLES[key] = env, agents
    env, agents = _TABLES[key]
    seat_agents: list[Agent] = [agents[0]] * len(agents)
    for k, seat in enumerate(seating(len(agents), job.rotation)):
        seat_agents[seat] = agents[k]
    return play_game(env, seat_agents, job.seed)


def play_jobs(jobs: list[Job], workers: int = 1, progress: bool = False) -> list[GameRecord]:
    """Every job's record, in order; ``workers`` processes; a progress line on stderr if asked.

    The agents are built afresh for each call (an agent file rewritten between calls is reread).
    """
    _TABLES.clear()
    try:
        if workers > 1:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                return list(_with_progress(pool.imap(play_job, jobs), len(jobs), progress))
        return list(_with_progress(map(play_job, jobs), len(jobs), progress))
    finally:
        _TABLES.clear()


def _with_progress(records: Iterable[GameRecord], total: int, show: bool, every: float = 5.0) -> Iterator[GameRecord]:
    """Pass ``records`` through, writing ``done/total, rate, time left`` to stderr at most every ``every`` s."""
    start = last = time.monotonic()
    for done, record in enumerate(records, 1):
        now = time.monotonic()
        if show and (now - last >= every or done == total):
            rate = done / max(now - start, 1e-9)
            left = (total - done) / rate
            print(f"\r{done}/{total} games, {rate:.2f} games/s, about {left:.0f} s left", end="", file=sys.stderr)
            if done == total:
                print(file=sys.stderr)
            last = now
        yield record


def run_tournament(
    env_id: str,
    agent_names: list[str],
    games: int,
    seed: int = 0,
    duplicate: bool = False,
    workers: int = 1,
    progress: bool = False,
    **env_kwargs: Any,
) -> tuple[list[AgentResult], list[GameRecord]]:
    """Play ``games`` seat-rotated games; results per distinct agent name."""
    jobs = tournament_jobs(env_id, agent_names, games, seed, duplicate, **env_kwargs)
    records = play_jobs(jobs, workers, progress)
    return summarise(list(zip(seat_names(agent_names, records), records)), duplicate), records


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


def summarise(games: list[tuple[list[str], GameRecord]], duplicate: bool = False) -> list[AgentResult]:
    """Win rate, mean score (95% intervals) and OpenSkill rating per agent name, pooled over games.

    With ``duplicate``, the intervals are over deals: the games of one lineup with one seed form
    a deal, and each agent's figure in a deal is the mean over its seats there.
    """
    shares: dict[str, list[float]] = {}
    scores: dict[str, list[float]] = {}
    deals: dict[str, dict[tuple, list[tuple[float, float]]]] = {}
    for names, record in games:
        deal = (tuple(sorted(names)), record.seed)
        for seat, name in enumerate(names):
            shares.setdefault(name, []).append(record.win_shares[seat])
            scores.setdefault(name, []).append(record.scores[seat])
            deals.setdefault(name, {}).setdefault(deal, []).append((record.win_shares[seat], record.scores[seat]))
    ratings = rate_games(games)
    results = []
    for name in shares:
        if duplicate:
            per_deal = [(sum(w for w, _ in seats) / len(seats), sum(s for _, s in seats) / len(seats))
                        for seats in deals[name].values()]
            p, lo, hi = mean_interval([w for w, _ in per_deal])
            lo, hi = max(0.0, lo), min(1.0, hi)
            m, mlo, mhi = mean_interval([s for _, s in per_deal])
        else:
            p, lo, hi = wilson_interval(sum(shares[name]), len(shares[name]))
            m, mlo, mhi = mean_interval(scores[name])
        mu, sigma = ratings.get(name, (None, None))
        results.append(AgentResult(name, len(shares[name]), p, lo, hi, m, mlo, mhi, mu, sigma))
    return results


def run_league(
    env_id: str,
    agent_names: list[str],
    players: int,
    games: int,
    seed: int = 0,
    duplicate: bool = False,
    workers: int = 1,
    progress: bool = False,
    **env_kwargs: Any,
) -> tuple[list[AgentResult], list[tuple[list[str], GameRecord]]]:
    """Every combination of ``players`` distinct agents plays ``games`` seat-rotated games.

    Returns the results pooled over all games, and each game's seat names with its record.
    """
    distinct = list(dict.fromkeys(agent_names))
    if not 1 <= players <= len(distinct):
        raise ValueError(f"players must be in 1..{len(distinct)} (the distinct agents), got {players}")
    jobs = [
        job
        for lineup in itertools.combinations(distinct, players)
        for job in tournament_jobs(env_id, list(lineup), games, seed, duplicate, **env_kwargs)
    ]
    records = play_jobs(jobs, workers, progress)
    played = [(job.seat_names(), record) for job, record in zip(jobs, records)]
    return summarise(played, duplicate), played


def save_games(folder: str | Path, env_id: str, played: list[tuple[list[str], GameRecord]], **env_kwargs: Any) -> None:
    """One JSON record per game in ``folder`` (``game_000000.json`` ...), each written atomically."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for index, (names, record) in enumerate(played):
        payload = {
            "env_id": env_id,
            "env_kwargs": {**env_kwargs, "num_players": len(names)},
            "seed": record.seed,
            "actions": record.actions,
            "agents": names,
            "scores": record.scores,
            "win_shares": record.win_shares,
            "truncated": record.truncated,
        }
        write_atomically(out / f"game_{index:06d}.json", json.dumps(payload))


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def replay(record: dict[str, Any]) -> list[float]:
    """Play a saved game record's actions through the raw env from its seed; the final scores."""
    env = pirate_envs.make(record["env_id"], raw=True, **record["env_kwargs"])
    env.reset(seed=record["seed"])
    for action in record["actions"]:
        env.step(action)
    if not env.game.done:
        raise ValueError(f"record of seed {record['seed']}: not over after its {len(record['actions'])} actions")
    return env.game.scores().tolist()


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
    if args.duplicate and args.games % players:
        raise ValueError(f"--duplicate plays each deal once per rotation: --games must be a multiple of {players}")
    check_players(args.env_id, players, "--players" if args.players else "--agents (one seat each)")
    check_agents(args.agents, args.env_id, players, "--agents")


def evaluate(args: EvalArgs) -> tuple[list[AgentResult], list[GameRecord], list[tuple[list[str], GameRecord]]]:
    """Play the tournament (or league) of ``args``: results with ratings, the records, and each game's
    seat names with its record (for :func:`head_to_head`)."""
    players = args.players or len(args.agents)
    options = {"duplicate": args.duplicate, "workers": args.workers, "progress": args.progress}
    if players < len(args.agents):
        results, played = run_league(args.env_id, args.agents, players, args.games, args.seed, **options)
        return results, [record for _, record in played], played
    if players > len(args.agents):
        raise ValueError(f"players must be at most the number of agents ({len(args.agents)}), got {players}")
    results, records = run_tournament(args.env_id, args.agents, args.games, args.seed, **options)
    return results, records, list(zip(seat_names(args.agents, records), records))


def main(argv: list[str] | None = None) -> list[AgentResult]:
    args = parse_args(EvalArgs, argv, epilog=games_epilog(), check=check_args)
    results, records, played = evaluate(args)
    truncated = sum(r.truncated for r in records)
    reasons = Counter(r.truncation_reason or "turn limit" for r in records if r.truncated)
    mode = f"league of {args.players} players" if args.players and args.players < len(args.agents) else "seats rotated"
    if args.duplicate:
        mode += ", duplicate deals (intervals over deals)"
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
    if args.save_games:
        save_games(args.save_games, args.env_id, played)
        print(f"wrote {len(played)} game records to {args.save_games}")
    if args.out:
        from experiments.plots import tournament_chart

        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_atomically(out / "results.md", f"{header}\n\n{table}\n")
        payload = {
            "args": asdict(args),
            "results": [asdict(r) for r in results],
            "truncated": truncated,
            "truncation_reasons": reasons,
            "head_to_head": matrix,
        }
        write_atomically(out / "results.json", json.dumps(payload, indent=2))
        chance = 1 / (args.players or len(args.agents))
        tournament_chart([asdict(r) for r in results], out / "results.png", header, chance=chance)
        print(f"wrote {out / 'results.md'}, results.json and results.png")
    return results


if __name__ == "__main__":
    main()
