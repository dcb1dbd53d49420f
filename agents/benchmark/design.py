"""pirate-bench v3's deals per line-up: chosen from measured variance for a stated interval width.

A line-up's estimate is the candidate's win share averaged over a deal's rotations, then over the
deals; its normal 95% interval has half-width ``Z95 * sqrt(variance / deals)``. For the target
half-width `HALF_WIDTH` (±0.03; `SEARCH_HALF_WIDTH`, ±0.05, against the halving search, whose
games cost a thousand times more) a line-up plays ``ceil(SAFETY * (Z95 / half_width) ** 2 * variance)``
deals, within [`MIN_DEALS`, the protocol's ``DEAL_COUNT``].

The variance is the larger of the measured pilot's (`MEASURED_VARIANCE`) and `independent_variance`,
times `SAFETY`; the search line-ups share `SEARCH_SECONDS` of the game's `CPU_BUDGET_S` (`search_cap`),
widening their `planned_half_width`. The counts are part of the protocol (`deals_for`): changing
them is a new version. The formulas and the budget in full: ``docs/benchmark.md`` ("The deals per
line-up in detail").
"""

from __future__ import annotations

import math

import pirate_envs
from agents.evaluation.stats import Z95

#: The target half-width of a line-up's 95% interval on the win rate, and of the line-ups against the halving
#: search (about a CPU-second a Skull King game at four players: at ±0.03 they alone would cost two CPU-hours).
HALF_WIDTH = 0.03
SEARCH_HALF_WIDTH = 0.05
#: Margin over the measured variance.
SAFETY = 1.5
#: The fewest deals of a line-up (the control variates' corrected intervals need about a hundred).
MIN_DEALS = 128
#: The deals of the pilot measurement.
PILOT_DEALS = 32
#: A game's full run for one network candidate fits this many CPU seconds (one CPU-hour) at the measured
#: costs; its halving-search line-ups share `SEARCH_SECONDS` of it (the rest, the margin and the cheap
#: line-ups), each playing at least `MIN_SEARCH_DEALS`.
CPU_BUDGET_S = 3600.0
SEARCH_SECONDS = 2400.0
MIN_SEARCH_DEALS = 32

#: Per-deal variance of the win share over rotations, ``(env_id, players, opponent) -> variance`` (``search``:
#: `agents.benchmark.protocol.SEARCH_OPPONENTS`), measured by ``python benchmarks/bench_protocol_variance.py
#: --opponents random heuristic ppo halving:50 oracle --deals 32``.
MEASURED_VARIANCE: dict[tuple[str, int, str], float] = {
    ("piraten_kapern_v0", 2, "random"): 0.0000,
    ("piraten_kapern_v0", 2, "heuristic"): 0.0766,
    ("piraten_kapern_v0", 2, "ppo"): 0.0000,
    ("piraten_kapern_v0", 2, "search"): 0.0199,
    ("piraten_kapern_v0", 3, "random"): 0.0067,
    ("piraten_kapern_v0", 3, "heuristic"): 0.0752,
    ("piraten_kapern_v0", 3, "ppo"): 0.0000,
    ("piraten_kapern_v0", 3, "search"): 0.0072,
    ("piraten_kapern_v0", 4, "random"): 0.0098,
    ("piraten_kapern_v0", 4, "heuristic"): 0.0514,
    ("piraten_kapern_v0", 4, "ppo"): 0.0000,
    ("piraten_kapern_v0", 4, "search"): 0.0060,
    ("piraten_kapern_v0", 5, "random"): 0.0024,
    ("piraten_kapern_v0", 5, "heuristic"): 0.0405,
    ("piraten_kapern_v0", 5, "ppo"): 0.0000,
    ("piraten_kapern_v0", 5, "search"): 0.0037,
    ("skull_king_v0", 2, "random"): 0.0622,
    ("skull_king_v0", 2, "heuristic"): 0.1264,
    ("skull_king_v0", 2, "ppo"): 0.0000,
    ("skull_king_v0", 2, "search"): 0.1129,
    ("skull_king_v0", 3, "random"): 0.0327,
    ("skull_king_v0", 3, "heuristic"): 0.0665,
    ("skull_king_v0", 3, "ppo"): 0.0000,
    ("skull_king_v0", 3, "search"): 0.0860,
    ("skull_king_v0", 4, "random"): 0.0087,
    ("skull_king_v0", 4, "heuristic"): 0.0461,
    ("skull_king_v0", 4, "ppo"): 0.0000,
    ("skull_king_v0", 4, "search"): 0.0341,
    ("skull_king_v0", 5, "random"): 0.0035,
    ("skull_king_v0", 5, "heuristic"): 0.0364,
    ("skull_king_v0", 5, "ppo"): 0.0000,
    ("skull_king_v0", 5, "search"): 0.0272,
    ("skull_king_v0", 6, "random"): 0.0017,
    ("skull_king_v0", 6, "heuristic"): 0.0551,
    ("skull_king_v0", 6, "ppo"): 0.0000,
    ("piratenpoker_v0", 3, "random"): 0.0000,
    ("piratenpoker_v0", 3, "heuristic"): 0.0125,
    ("piratenpoker_v0", 3, "ppo"): 0.0246,
}


#: CPU seconds a game of each line-up, ``(env_id, players, opponent) -> seconds``, the game's reference network
#: as candidate, one process, numba's compilation left out (``benchmarks/bench_protocol_variance.py``).
MEASURED_SECONDS: dict[tuple[str, int, str], float] = {
    ("piraten_kapern_v0", 2, "random"): 0.0085,
    ("piraten_kapern_v0", 2, "heuristic"): 0.0335,
    ("piraten_kapern_v0", 2, "ppo"): 0.0048,
    ("piraten_kapern_v0", 2, "search"): 0.0061,
    ("piraten_kapern_v0", 3, "random"): 0.0042,
    ("piraten_kapern_v0", 3, "heuristic"): 0.0035,
    ("piraten_kapern_v0", 3, "ppo"): 0.0048,
    ("piraten_kapern_v0", 3, "search"): 0.0034,
    ("piraten_kapern_v0", 4, "random"): 0.0047,
    ("piraten_kapern_v0", 4, "heuristic"): 0.0039,
    ("piraten_kapern_v0", 4, "ppo"): 0.0060,
    ("piraten_kapern_v0", 4, "search"): 0.0039,
    ("piraten_kapern_v0", 5, "random"): 0.0065,
    ("piraten_kapern_v0", 5, "heuristic"): 0.0046,
    ("piraten_kapern_v0", 5, "ppo"): 0.0071,
    ("piraten_kapern_v0", 5, "search"): 0.0044,
    ("skull_king_v0", 2, "random"): 0.0158,
    ("skull_king_v0", 2, "heuristic"): 0.0361,
    ("skull_king_v0", 2, "ppo"): 0.0012,
    ("skull_king_v0", 2, "search"): 0.2257,
    ("skull_king_v0", 3, "random"): 0.0286,
    ("skull_king_v0", 3, "heuristic"): 0.0010,
    ("skull_king_v0", 3, "ppo"): 0.0016,
    ("skull_king_v0", 3, "search"): 0.5378,
    ("skull_king_v0", 4, "random"): 0.0493,
    ("skull_king_v0", 4, "heuristic"): 0.0009,
    ("skull_king_v0", 4, "ppo"): 0.0017,
    ("skull_king_v0", 4, "search"): 1.0070,
    ("skull_king_v0", 5, "random"): 0.0771,
    ("skull_king_v0", 5, "heuristic"): 0.0011,
    ("skull_king_v0", 5, "ppo"): 0.0021,
    ("skull_king_v0", 5, "search"): 1.5491,
    ("skull_king_v0", 6, "random"): 0.0988,
    ("skull_king_v0", 6, "heuristic"): 0.0011,
    ("skull_king_v0", 6, "ppo"): 0.0026,
    ("skull_king_v0", 6, "search"): 2.2134,
    ("piratenpoker_v0", 3, "random"): 0.0038,
    ("piratenpoker_v0", 3, "heuristic"): 0.0033,
    ("piratenpoker_v0", 3, "ppo"): 0.0070,
    ("piratenpoker_v0", 3, "search"): 2.3269,
    ("piratenpoker_v0", 4, "random"): 0.0032,
    ("piratenpoker_v0", 4, "heuristic"): 0.0028,
    ("piratenpoker_v0", 4, "ppo"): 0.0069,
    ("piratenpoker_v0", 4, "search"): 4.4494,
    ("piratenpoker_v0", 5, "random"): 0.0043,
    ("piratenpoker_v0", 5, "heuristic"): 0.0037,
    ("piratenpoker_v0", 5, "ppo"): 0.0098,
    ("piratenpoker_v0", 5, "search"): 6.3314,
    ("lucky_pirate_v0", 2, "random"): 0.0063,
    ("lucky_pirate_v0", 2, "heuristic"): 0.0064,
    ("lucky_pirate_v0", 2, "ppo"): 0.1933,
    ("lucky_pirate_v0", 2, "search"): 8.5593,
    ("lucky_pirate_v0", 3, "random"): 0.0081,
    ("lucky_pirate_v0", 3, "heuristic"): 0.0044,
    ("lucky_pirate_v0", 3, "ppo"): 0.0050,
    ("lucky_pirate_v0", 3, "search"): 2.4116,
    ("lucky_pirate_v0", 4, "random"): 0.0047,
    ("lucky_pirate_v0", 4, "heuristic"): 0.0033,
    ("lucky_pirate_v0", 4, "ppo"): 0.0030,
    ("lucky_pirate_v0", 4, "search"): 1.1440,
    ("lucky_pirate_v0", 5, "random"): 0.0029,
    ("lucky_pirate_v0", 5, "heuristic"): 0.0020,
    ("lucky_pirate_v0", 5, "ppo"): 0.0028,
    ("lucky_pirate_v0", 5, "search"): 1.0422,
    ("lucky_pirate_v0", 6, "random"): 0.0027,
    ("lucky_pirate_v0", 6, "heuristic"): 0.0017,
    ("lucky_pirate_v0", 6, "ppo"): 0.0018,
    ("lucky_pirate_v0", 6, "search"): 0.7293,
}


def independent_variance(players: int) -> float:
    """``1 / (4 n)``: the most per-deal variance of ``n`` independent rotations (``p (1 - p) / n`` at ``p = 1/2``)."""
    return 0.25 / players


def deals_needed(variance: float, half_width: float = HALF_WIDTH, safety: float = SAFETY) -> int:
    """The deals for a normal 95% interval of ``half_width`` at per-deal ``variance`` (times ``safety``)."""
    return math.ceil(safety * (Z95 / half_width) ** 2 * variance)


def design_variance(env_id: str, players: int, opponent: str) -> float:
    """The per-deal variance a line-up is planned for: the measured one or the bound ``1 / (4 n)``, the larger."""
    measured = MEASURED_VARIANCE.get((env_id, players, opponent), 0.0)  # not measured: the bound alone
    return max(measured, independent_variance(players))


def search_cap(env_id: str) -> float:
    """One search line-up's share of `SEARCH_SECONDS`: equal over the game's table sizes."""
    return SEARCH_SECONDS / len(pirate_envs.player_counts(env_id))


def affordable_deals(env_id: str, players: int, opponent: str) -> int | None:
    """The most deals of a search line-up within its `search_cap` at its measured cost (at least
    `MIN_SEARCH_DEALS`); ``None`` where no cost is measured or the line-up is not a search's."""
    if opponent != "search":
        return None
    seconds = MEASURED_SECONDS.get((env_id, players, opponent))
    if seconds is None:
        return None
    return max(MIN_SEARCH_DEALS, math.floor(search_cap(env_id) / (players * seconds)))


def deals_for(env_id: str, players: int, opponent: str, *, halving: bool, most: int) -> int:
    """The deals of one v3 line-up (``opponent``: ``random``, ``heuristic``, ``search`` or ``ppo``), at most
    ``most``; ``halving``: the line-up's search opponent is the halving search (its wider interval, its
    cost capped at its `search_cap`)."""
    variance = design_variance(env_id, players, opponent)
    wide = opponent == "search" and halving
    deals = min(most, max(MIN_DEALS, deals_needed(variance, SEARCH_HALF_WIDTH if wide else HALF_WIDTH)))
    affordable = affordable_deals(env_id, players, opponent) if wide else None
    return deals if affordable is None else min(deals, affordable)


def planned_half_width(env_id: str, players: int, opponent: str, deals: int) -> float:
    """The 95% half-width ``deals`` give at the planned variance (`SAFETY` included): the line-up's stated target."""
    return Z95 * math.sqrt(SAFETY * design_variance(env_id, players, opponent) / deals)


def planned_seconds(env_id: str, plan: list[tuple[int, str, int]]) -> float:
    """The CPU seconds of ``plan`` (``(players, opponent, deals)`` per line-up) at `MEASURED_SECONDS`; ``KeyError``
    for a line-up whose cost is not measured."""
    return sum(deals * players * MEASURED_SECONDS[(env_id, players, opponent)] for players, opponent, deals in plan)


def search_left_out(env_id: str, opponents: tuple[str, ...], *, halving: bool, most: int) -> tuple[int, ...]:
    """The table sizes whose search line-up a full run leaves out: none unless the plan of every line-up
    (``opponents`` at every table size of the game) exceeds `CPU_BUDGET_S`, then the largest first until it fits
    (none where a cost is unknown)."""
    sizes = pirate_envs.player_counts(env_id)
    plan = [(n, o, deals_for(env_id, n, o, halving=halving, most=most)) for n in sizes for o in opponents]
    left_out: list[int] = []
    try:
        while halving and planned_seconds(env_id, plan) > CPU_BUDGET_S and len(left_out) < len(sizes):
            left_out.append(sizes[-1 - len(left_out)])
            plan = [line for line in plan if not (line[1] == "search" and line[0] in left_out)]
    except KeyError:
        return ()
    return tuple(sorted(left_out))


__all__ = [
    "CPU_BUDGET_S",
    "HALF_WIDTH",
    "MEASURED_SECONDS",
    "MEASURED_VARIANCE",
    "MIN_DEALS",
    "MIN_SEARCH_DEALS",
    "SAFETY",
    "SEARCH_HALF_WIDTH",
    "SEARCH_SECONDS",
    "affordable_deals",
    "deals_for",
    "deals_needed",
    "design_variance",
    "independent_variance",
    "planned_half_width",
    "planned_seconds",
    "search_cap",
    "search_left_out",
]
