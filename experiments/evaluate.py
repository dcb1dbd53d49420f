"""Tournaments between agents, seats rotated, with 95% confidence intervals.

    python -m experiments.evaluate --env-id piraten_kapern_v0 --agents oracle heuristic random --games 30

``--agents`` lists one agent per seat (names from ``agents.registry``; a name may repeat).
Game ``g`` seats agent ``k`` at seat ``(k + g) mod n`` so every agent plays every seat. A win
shared by ``w`` players counts ``1/w``; a truncated game counts as no win. Writes
``results.md`` and ``results.json`` to ``--out`` when given.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pirate_envs
from agents.base import Agent
from agents.registry import make_agent
from experiments.cli import parse_args
from experiments.stats import mean_interval, wilson_interval


@dataclass
class EvalArgs:
    """Play a seat-rotated tournament and print win rates and mean scores with 95% intervals."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agents: list[str] = field(
        default_factory=lambda: ["oracle", "heuristic", "random"], metadata={"help": "one agent name per seat"}
    )
    games: int = field(default=30, metadata={"help": "number of games"})
    seed: int = field(default=0, metadata={"help": "seed of the first game (game g uses seed + g)"})
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


@dataclass
class GameRecord:
    """The outcome of one game, per seat."""

    scores: list[float]
    win_shares: list[float]
    truncated: bool


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
    return GameRecord(scores=game.scores().tolist(), win_shares=shares, truncated=game.truncated)


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
        seat_of = [(k + g) % n for k in range(n)]
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


def markdown_table(results: list[AgentResult]) -> str:
    """The results as a markdown table."""
    lines = [
        "| agent | seats played | win rate [95% CI] | mean score [95% CI] |",
        "|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.agent} | {r.seats_played} | {r.win_rate:.3f} [{r.win_low:.3f}, {r.win_high:.3f}] "
            f"| {r.mean_score:.1f} [{r.score_low:.1f}, {r.score_high:.1f}] |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[AgentResult]:
    args = parse_args(EvalArgs, argv)
    results, records = run_tournament(args.env_id, args.agents, args.games, args.seed)
    truncated = sum(r.truncated for r in records)
    header = f"{args.env_id}: {args.games} games, seats rotated, seed {args.seed}, {truncated} truncated"
    table = markdown_table(results)
    print(header)
    print(table)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.md").write_text(f"{header}\n\n{table}\n")
        payload = {"args": asdict(args), "results": [asdict(r) for r in results], "truncated": truncated}
        (out / "results.json").write_text(json.dumps(payload, indent=2))
    return results


if __name__ == "__main__":
    main()
