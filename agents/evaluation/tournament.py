"""Tournaments and leagues: the seat-rotated games of a lineup, played and summarised.

`run_tournament` plays one lineup's games; `run_league` plays every combination of ``players``
distinct agents and pools the figures. `TournamentPlan` holds everything one evaluation needs
(a command builds it once from its arguments); `play_tournament` plays it, a tournament or a
league as its table size says, and `TournamentOutcome.summary` is the header line and the
markdown tables that ``experiments.evaluate`` prints and saves. `outcome_of_records` makes the
same outcome from saved game records (`agents.evaluation.records.load_records`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from agents.evaluation.games import GameRecord, Job, play_jobs, seat_names, tournament_jobs
from agents.evaluation.records import RecordSet, whole_deals
from agents.evaluation.summary import (
    COPIES_NOTE,
    COPIES_PER_GAME,
    AgentResult,
    head_to_head,
    markdown_matrix,
    markdown_table,
    summarise,
)

#: Called with each game's seat names and record as the game ends (`play_tournament`).
OnGame = Callable[[list[str], GameRecord], Any]


def _each_record(on_game: OnGame | None) -> Callable[[Job, GameRecord], Any] | None:
    """``on_game`` as `play_jobs`' ``on_record`` (the job's seat names for the job)."""
    return None if on_game is None else lambda job, record: on_game(job.seat_names(), record)


def run_tournament(
    env_id: str,
    agent_names: list[str],
    games: int,
    seed: int = 0,
    duplicate: bool = False,
    workers: int = 1,
    progress: bool = False,
    on_game: OnGame | None = None,
    **env_kwargs: Any,
) -> tuple[list[AgentResult], list[GameRecord]]:
    """Play ``games`` seat-rotated games; results per distinct agent name (``on_game``: `play_tournament`)."""
    jobs = tournament_jobs(env_id, agent_names, games, seed, duplicate, **env_kwargs)
    records = play_jobs(jobs, workers, progress, _each_record(on_game))
    return summarise(list(zip(seat_names(agent_names, records), records)), duplicate), records


def run_league(
    env_id: str,
    agent_names: list[str],
    players: int,
    games: int,
    seed: int = 0,
    duplicate: bool = False,
    workers: int = 1,
    progress: bool = False,
    on_game: OnGame | None = None,
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
    records = play_jobs(jobs, workers, progress, _each_record(on_game))
    played = [(job.seat_names(), record) for job, record in zip(jobs, records)]
    return summarise(played, duplicate), played


@dataclass(frozen=True)
class TournamentPlan:
    """One evaluation: the lineup (agent ``k`` is ``lineup[k]``, copies written out), the seats of a
    table (fewer than the lineup: a league of every ``players`` distinct agents), and how to play."""

    env_id: str
    lineup: tuple[str, ...]
    players: int
    games: int
    seed: int = 0
    duplicate: bool = False
    workers: int = 1
    progress: bool = False
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def league(self) -> bool:
        """Whether the plan is a league (fewer seats than agents)."""
        return self.players < len(self.lineup)


@dataclass(frozen=True)
class TournamentOutcome:
    """The figures of a played `TournamentPlan` and each game's seat names with its record."""

    plan: TournamentPlan
    results: list[AgentResult]
    played: list[tuple[list[str], GameRecord]]

    @property
    def records(self) -> list[GameRecord]:
        """The game records, in the order played."""
        return [record for _, record in self.played]

    @cached_property
    def truncation_reasons(self) -> Counter[str]:
        """How many games were truncated, by the engine's reason (``turn limit`` when it gives none)."""
        return Counter(r.truncation_reason or "turn limit" for r in self.records if r.truncated)

    @cached_property
    def head_to_head(self) -> dict[str, dict[str, dict[str, float]]]:
        """Each agent's win rate (and games) in the games it played with each other agent (`head_to_head`)."""
        return head_to_head(self.played)

    def header(self) -> str:
        """One line: the game, the games played, the lineup or league, the seed and the truncated games."""
        plan, records = self.plan, self.records
        truncated = sum(self.truncation_reasons.values())
        mode = f"league of {plan.players} players" if plan.league else f"seats rotated: {lineup_words(plan.lineup)}"
        if plan.duplicate:
            mode += ", duplicate deals (intervals over deals)"
        header = f"{plan.env_id}: {len(records)} games, {mode}, seed {plan.seed}, {truncated} truncated"
        if truncated:
            header += " (" + ", ".join(f"{reason}: {k}" for reason, k in sorted(self.truncation_reasons.items())) + ")"
        return header

    def tables(self) -> str:
        """The results table (with the copies note where it applies) and the head-to-head matrix, markdown."""
        table = markdown_table(self.results)
        if any(r.interval == COPIES_PER_GAME for r in self.results):
            table += "\n\n" + COPIES_NOTE
        names = [r.agent for r in self.results]
        if len(names) > 1:
            table += "\n\nHead to head:\n\n" + markdown_matrix(self.head_to_head, names)
        return table


def play_tournament(plan: TournamentPlan, on_game: OnGame | None = None) -> TournamentOutcome:
    """Play ``plan``: one seat-rotated tournament of its lineup, or a league when its table is smaller.

    ``on_game(seat_names, record)`` hears each game as it ends, in the order played (a run stopped
    part-way has told it every game it finished).
    """
    options = {"duplicate": plan.duplicate, "workers": plan.workers, "progress": plan.progress, "on_game": on_game}
    lineup = list(plan.lineup)
    if plan.league:
        results, played = run_league(
            plan.env_id, lineup, plan.players, plan.games, plan.seed, **options, **plan.env_kwargs
        )
        return TournamentOutcome(plan, results, played)
    results, records = run_tournament(plan.env_id, lineup, plan.games, plan.seed, **options, **plan.env_kwargs)
    return TournamentOutcome(plan, results, list(zip(seat_names(lineup, records), records)))


def lineup_words(lineup: tuple[str, ...] | list[str]) -> str:
    """A lineup in the ``--agents`` spelling, copies counted: ``ppo:skull_king_v0 heuristicx5``."""
    counts = Counter(lineup)
    return " ".join(name if counts[name] == 1 else f"{name}x{counts[name]}" for name in counts)


@dataclass(frozen=True)
class RecordsOutcome:
    """Saved games summarised as one evaluation (`outcome_of_records`), and the seeds of the deals left out."""

    outcome: TournamentOutcome
    left_out: list[int]


def outcome_of_records(records: RecordSet, duplicate: bool = False) -> RecordsOutcome:
    """The figures of saved games as if played by one plan, and the seeds of the deals left out.

    Records of one line-up make a tournament (its line-up: the first record's seating), of
    several line-ups of distinct agents a league. With ``duplicate`` only the deals played in
    every rotation count (`whole_deals`; the others' seeds are returned). ``ValueError`` for
    records of several table sizes, line-ups that make no league, or no whole deal.
    """
    played, left_out = whole_deals(records.played) if duplicate else (records.played, [])
    if not played:
        raise ValueError("--duplicate: no deal has a game in every rotation among the records")
    sizes = sorted({len(names) for names, _ in played})
    if len(sizes) > 1:
        raise ValueError(f"records of tables of {sizes} players: summarise one table size at a time")
    players = sizes[0]
    lineups = {tuple(sorted(names)) for names, _ in played}
    lineup = list(played[0][0]) if len(lineups) == 1 else list(dict.fromkeys(n for names, _ in played for n in names))
    if len(lineups) > 1 and (len(lineup) <= players or any(len(set(names)) < players for names, _ in played)):
        raise ValueError("records of several line-ups that are no league (every table of distinct agents)")
    seed = min(record.seed or 0 for _, record in played)
    plan = TournamentPlan(
        records.env_id, tuple(lineup), players, len(played), seed, duplicate, env_kwargs=records.env_kwargs
    )
    return RecordsOutcome(TournamentOutcome(plan, summarise(played, duplicate), played), left_out)
