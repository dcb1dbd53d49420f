"""pirate-bench v3's deals per line-up: chosen from measured variance for a stated interval width.

A line-up's estimate is the candidate's win share averaged over a deal's rotations, then over the
deals; its normal 95% interval has half-width ``Z95 * sqrt(variance / deals)``. For the target
half-width `HALF_WIDTH` (±0.03; `SEARCH_HALF_WIDTH`, ±0.05, against the halving search, whose
games cost a thousand times more) a line-up plays

    deals = ceil(SAFETY * (Z95 / half_width) ** 2 * variance), within [MIN_DEALS, the protocol's DEAL_COUNT],

where ``variance`` is the larger of

* the per-deal variance measured with the duplicate design (`MEASURED_VARIANCE`: the game's
  reference network as candidate, the first `PILOT_DEALS` published deals,
  ``benchmarks/bench_protocol_variance.py``), and
* `independent_variance`: the largest per-deal variance of a candidate whose ``n`` rotations are
  independent games, ``p (1 - p) / n`` at ``p = 1/2``, ``1 / (4 n)``: another candidate than the
  pilot's can sit nearer 1/2 (the measurement can even be 0: the reference network against copies
  of itself plays every rotation alike, an exact ``1 / n``).

`SAFETY` (1.5) covers the pilot's own noise (the variance of 32 deals is known to about ±25%).
The counts are part of the protocol (`deals_for`): changing them is a new version.
"""

from __future__ import annotations

import math

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


def independent_variance(players: int) -> float:
    """``1 / (4 n)``: the most per-deal variance of ``n`` independent rotations (``p (1 - p) / n`` at ``p = 1/2``)."""
    return 0.25 / players


def deals_needed(variance: float, half_width: float = HALF_WIDTH, safety: float = SAFETY) -> int:
    """The deals for a normal 95% interval of ``half_width`` at per-deal ``variance`` (times ``safety``)."""
    return math.ceil(safety * (Z95 / half_width) ** 2 * variance)


def deals_for(env_id: str, players: int, opponent: str, *, halving: bool, most: int) -> int:
    """The deals of one v3 line-up (``opponent``: ``random``, ``heuristic``, ``search`` or ``ppo``), at most
    ``most``; ``halving``: the line-up's search opponent is the halving search (its wider interval)."""
    measured = MEASURED_VARIANCE.get((env_id, players, opponent), 0.0)  # not measured: the bound alone
    variance = max(measured, independent_variance(players))
    wide = opponent == "search" and halving
    return min(most, max(MIN_DEALS, deals_needed(variance, SEARCH_HALF_WIDTH if wide else HALF_WIDTH)))


__all__ = [
    "HALF_WIDTH",
    "MEASURED_VARIANCE",
    "MIN_DEALS",
    "SAFETY",
    "SEARCH_HALF_WIDTH",
    "deals_for",
    "deals_needed",
    "independent_variance",
]
