"""Piraten Kapern at two players: the best response to a fixed opponent, solved exactly.

The race (`agents.piraten_kapern.race`) is optimal against an optimal opponent. Against a fixed one,
more can be won: this module finds the most, for an opponent whose turns do not look at the
scores (the one-turn oracle, the heuristic). Its win probability is the ceiling of every player
against that opponent, under the race's two documented approximations (the fortune card of each
turn drawn from the base deck's composition, scores below `agents.piraten_kapern.race.FLOOR` counted as
it).

The opponent's turns are a distribution of outcomes per card (`turn_outcomes`); two tables of the
race's shape, solved together by Gauss-Seidel sweeps, give the best response, which
``KapernRaceAgent(result.race_table())`` plays. Shipped for the oracle and the heuristic
(`SHIPPED`; ``best_response:oracle``, ``best_response:heuristic``, two players only); needs numba
(the ``fast`` extra). The opponent's turns and the game's two tables:
``docs/games/piraten_kapern_agents.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.extras import require_agent_extras
from agents.once import once
from agents.piraten_kapern import race
from agents.piraten_kapern.heuristic import KapernHeuristic
from agents.piraten_kapern.oracle import (
    SORCERESS,
    KapernOracleAgent,
    _tables,
    _turn_model,
    decision_view,
    plan_options,
)
from pirate_envs.piraten_kapern.rules import NUM_DICE, NUM_FACES, SKULL, card_skulls

__all__ = [
    "OPPONENTS",
    "SHIPPED",
    "BestResponse",
    "BestResponseAgent",
    "HeuristicBestResponse",
    "OracleBestResponse",
    "TurnOutcomes",
    "best_response_residual",
    "best_response_shares",
    "load_best_response",
    "save_best_response",
    "shipped_best_response",
    "solve_best_response",
    "turn_outcomes",
]

#: A turn's re-rolls are followed until no more than this much of its probability is still rolling.
MASS_TOLERANCE = 1e-15
_MAX_ROUNDS = 100_000
_P_SKULL = 1.0 / 6.0
Plan = Callable[[Any], Sequence[int] | None]
#: The opponents solved against: each one's agent, whose ``plan`` (the dice to re-roll or ``None``) ignores the scores.
OPPONENTS: dict[str, Callable[[], Any]] = {"oracle": KapernOracleAgent, "heuristic": KapernHeuristic}
BEST_RESPONSE_FORMAT = "pirate_envs/kapern-best-response/1"
#: The solved files the package ships, per opponent (`experiments.kapern_best_response --opponent <name> --out`).
SHIPPED = {name: Path(__file__).with_name(f"best_response_{name}.npz") for name in OPPONENTS}


@dataclass(frozen=True)
class TurnOutcomes:
    """How a score-blind plan's turns end, per card of `agents.piraten_kapern.race.RACE_CARDS`.

    ``own[c, d - min_points]``: the chance of ending with ``d`` points of its own (units, not on
    the Island); ``skulls[c, k]``: of an Island turn ending with ``k`` skulls (card skulls counted).
    """

    own: np.ndarray
    skulls: np.ndarray

    def expected_points(self) -> np.ndarray:
        """Per card, the expected points of a turn in units (the Island worth 0 to the player)."""
        arr = race._arrays()
        return self.own @ np.arange(arr.min_points, arr.max_points + 1)


def turn_outcomes(plan: Plan) -> TurnOutcomes:
    """The exact outcome distribution of ``plan``'s turns (see the module's docstring).

    ``plan(view)`` gives the dice to re-roll or ``None``, from the card, the dice showing, the
    option status and, on the Island, the skull dice showing only; with the Treasure Chest it keeps
    every kept non-skull die on the chest (as `agents.piraten_kapern.oracle.reroll_step` does).
    """
    cards = [_card_outcomes(plan, card) for card in race.RACE_CARDS]
    return TurnOutcomes(own=np.array([own for own, _ in cards]), skulls=np.array([skulls for _, skulls in cards]))


def _card_outcomes(plan: Plan, card: str) -> tuple[np.ndarray, np.ndarray]:
    """One card's ``own`` and ``skulls`` rows (see `TurnOutcomes`)."""
    arr, t, turn = race._arrays(), _tables(), _turn_model(card)
    c = race.RACE_CARDS.index(card)
    n, kept_count = len(t.states), len(t.kept)
    stop = arr.stop[c] - arr.min_points  # the outcome index of stopping (a bust state: its bust)
    own = np.zeros(arr.max_points - arr.min_points + 1)
    # Per option status: each state's kept multiset (-1: the plan stops) and whether the re-roll closes it.
    statuses = (True, False) if turn.has_option else (False,)
    moves: dict[bool, tuple[np.ndarray, np.ndarray]] = {}
    for status in statuses:
        may_stop, keeping, closing = plan_options(card, plan, status)
        kept = np.where(keeping.kept[:, 0] < kept_count, keeping.kept[:, 0], closing.kept[:, 0])
        moves[status] = (np.where(may_stop, -1, kept), keeping.kept[:, 0] >= kept_count)
    mass = {status: np.zeros(n) for status in statuses}
    first = t.first_roll * ~turn.island
    own += np.bincount(stop[turn.bust], weights=first[turn.bust], minlength=len(own))
    mass[statuses[0]] = np.where(turn.bust, 0.0, first)
    for _ in range(_MAX_ROUNDS):
        if sum(m.sum() for m in mass.values()) <= MASS_TOLERANCE:
            break
        carried = {status: np.zeros(n) for status in statuses}
        for status in statuses:
            kept, closes = moves[status]
            stops = kept < 0
            own += np.bincount(stop[stops], weights=mass[status][stops], minlength=len(own))
            for to, rows in ((status, ~stops & ~closes), (False, ~stops & closes)):
                if not rows.any():  # no re-roll of this kind (only the Sorceress has both)
                    continue
                per_kept = np.bincount(kept[rows], weights=mass[status][rows], minlength=kept_count)
                arrived = np.bincount(t.trans_state, weights=t.trans_prob * per_kept[t.trans_kept], minlength=n)
                if card == "treasure_chest":  # a bust scores the kept dice on the chest
                    own += np.bincount(
                        arr.chest_points - arr.min_points, weights=per_kept * arr.bust_prob, minlength=len(own)
                    )
                else:
                    own += np.bincount(stop[turn.bust], weights=arrived[turn.bust], minlength=len(own))
                carried[to] += np.where(turn.bust, 0.0, arrived)
        mass = carried
    else:  # pragma: no cover - every re-roll risks a skull: the mass runs out
        raise RuntimeError(f"{card}: the plan's turns did not end in {_MAX_ROUNDS} rolls")
    return own, _island_outcomes(plan, card, t.first_roll * turn.island, arr.dice_skulls)


def _island_outcomes(plan: Plan, card: str, first: np.ndarray, dice_skulls: np.ndarray) -> np.ndarray:
    """``skulls[k]`` of the Island turns that start with the first-roll mass ``first``."""
    extra = card_skulls(card)
    skulls = np.zeros(race._MAX_SKULLS + 1)
    by_dice = np.bincount(dice_skulls, weights=first, minlength=NUM_DICE + 1)
    for sd in range(NUM_DICE + 1):  # the skull dice only grow: one pass carries every turn to its end
        if not by_dice[sd]:
            continue
        r = _island_reroll(plan, card, sd)
        if r < 2 or r > NUM_DICE - sd:
            skulls[sd + extra] += by_dice[sd]
            continue
        for j in range(r + 1):
            chance = math.comb(r, j) * _P_SKULL**j * (1 - _P_SKULL) ** (r - j)
            if j == 0:
                skulls[sd + extra] += by_dice[sd] * chance
            else:
                by_dice[sd + j] += by_dice[sd] * chance
    return skulls


def _island_reroll(plan: Plan, card: str, skull_dice: int) -> int:
    """How many non-skull dice ``plan`` re-rolls on the Island with ``skull_dice`` skulls showing."""
    counts = [0] * NUM_FACES
    counts[SKULL], counts[0] = skull_dice, NUM_DICE - skull_dice
    view = decision_view(card, tuple(counts), False)._replace(
        island=True, island_skulls=skull_dice + card_skulls(card), sorceress_used=card == SORCERESS
    )
    reroll = plan(view)
    if reroll is None or reroll[SKULL]:
        return 0
    return int(sum(reroll))


@dataclass(frozen=True, eq=False)
class BestResponse:
    """The solved game against one opponent (see the module's docstring); tables as the race's, `FLOOR` first."""

    mover: np.ndarray  # the responder's win probability on his turn at (his score, the opponent's)
    opponent: np.ndarray  # the opponent's win probability on its turn at (its score, the responder's)
    sweeps: int
    residual: float

    @property
    def first_seat(self) -> float:
        """The responder's win probability when he moves first, from 0 : 0 (a shared win one half)."""
        return float(self.mover[-race.FLOOR, -race.FLOOR])

    @property
    def second_seat(self) -> float:
        """His win probability when the opponent moves first."""
        return 1.0 - float(self.opponent[-race.FLOOR, -race.FLOOR])

    @property
    def win_rate(self) -> float:
        """His win probability with the seats rotated (the mean of the two)."""
        return (self.first_seat + self.second_seat) / 2

    def race_table(self) -> race.RaceTable:
        """The table `agents.piraten_kapern.race.KapernRaceAgent` plays the best response from (the opponent's)."""
        return race.RaceTable(values=self.opponent, sweeps=self.sweeps, residual=self.residual)


def _opponent_value(space: Any, outcomes: TurnOutcomes, mover: np.ndarray, m: int, o: int) -> float:
    """``opponent[m, o]``: the expectation of the opponent's outcomes, each worth what the race says."""
    from agents.piraten_kapern import race_kernels as kernels

    arr = race._arrays()
    kernels.own_utilities(mover, m, o, race.FLOOR, race.TARGET, arr.min_points, space.u_own)
    worth = outcomes.own @ space.u_own
    for c in range(len(race.RACE_CARDS)):
        kernels.island_utilities(mover, m, o, race.FLOOR, race.TARGET, arr.penalty[c], space.u_skulls)
        worth[c] += outcomes.skulls[c] @ space.u_skulls
    return float(race.CARD_PROBS @ worth)


def solve_best_response(
    outcomes: TurnOutcomes,
    tolerance: float = race.SWEEP_TOLERANCE,
    progress: Callable[[int, float, BestResponse], None] | None = None,
    start: np.ndarray | None = None,
) -> BestResponse:
    """The responder's best play against an opponent whose turns end as ``outcomes`` say.

    Both tables start at ``start`` (a table of the race's shape; the answer does not depend on
    it), by default the package's race table (1/2 in a race of another shape);
    ``progress(sweep, change, result so far)`` after each sweep. States whose turn ends the game whatever
    happens (the other player at or above the target plus the largest Island penalty) are solved
    once, first; the others keep their turn's tables as the next sweep's warm start, and while
    the sweeps still move the tables a turn and a
    pair are solved to a thousandth of the last sweep's change, as the race's are. When the change
    has shrunk by one steady ratio ``r`` over three sweeps, the tables jump by ``r / (1 - r)`` times
    the last sweep's move (`_steady`): a negative turn (a lost Sea Battle, the other's Island)
    takes the game to a lower sum, which only the next sweep sees, so the sweeps alone converge
    slowly.
    """
    rows, cols = race._shape()
    if start is None:
        start = _race_start((rows, cols))
    first = np.array(start, dtype=np.float64)
    if first.shape != (rows, cols):
        raise ValueError(f"start has shape {first.shape}, the race table {(rows, cols)}")
    mover, opponent = first, first.copy()
    space = race._Workspace()
    cut = race.TARGET + int(race._arrays().penalty.max())
    states = [(a, b) for a in range(race.FLOOR, race.TARGET) for b in range(race.FLOOR, cols + race.FLOOR)]
    store = race._WarmStore([(a, b) for a, b in states if b < cut])
    for a, b in states:
        if b >= cut:  # the game ends with this turn: no other state's value enters
            _solve_state(space, store, outcomes, mover, opponent, a, b, 0.0)
    levels = race._levels(list(store.slot))
    change, ratios, last = 1.0, [], (mover.copy(), opponent.copy())
    for sweep in range(1, race.MAX_SWEEPS + 1):
        accuracy, previous, change = change / 1000, change, 0.0
        space.tolerance = max(race.TURN_TOLERANCE, accuracy)
        for level in levels:
            for a, b in level:
                change = max(change, _solve_state(space, store, outcomes, mover, opponent, a, b, accuracy))
        result = BestResponse(mover=mover, opponent=opponent, sweeps=sweep, residual=change)
        if progress is not None:
            progress(sweep, change, result)
        if change <= tolerance:
            return result
        ratios.append(change / previous)
        if _steady(ratios):  # one geometric mode left: jump towards its limit
            r = ratios[-1]
            for table, before in zip((mover, opponent), last):
                np.clip(table + (table - before) * (r / (1 - r)), 0.0, 1.0, out=table)
            ratios.clear()
        last = (mover.copy(), opponent.copy())
    raise RuntimeError(f"the best response did not converge in {race.MAX_SWEEPS} sweeps (last change {change:.3g})")


def best_response_residual(result: BestResponse, outcomes: TurnOutcomes, samples: int, seed: int = 0) -> float:
    """The largest difference between ``samples`` states of both tables (drawn with ``seed``) and the
    same states solved again from the tables against an opponent whose turns end as ``outcomes`` say:
    0 up to the solver's tolerance for a true solution (as `agents.piraten_kapern.race.bellman_residual`)."""
    space = race._Workspace()
    worst = 0.0
    for i, j in race.sampled_states(result.mover.shape, samples, seed):
        a, b = i + race.FLOOR, j + race.FLOOR
        space.closed[:] = space.opened[:] = 0.0
        mover = space.state_value(result.opponent, a, b)
        opponent = _opponent_value(space, outcomes, result.mover, a, b)
        worst = max(worst, abs(mover - result.mover[i, j]), abs(opponent - result.opponent[i, j]))
    return worst


def _steady(ratios: list[float]) -> bool:
    """Whether the last three sweeps shrank the change by one steady ratio (within 0.05) of 0.2 to 0.98.

    Then the slowest part of the error is taken to shrink by that ratio a sweep and the tables are
    moved to its limit (Aitken's extrapolation): a better start for the sweeps that follow, which
    alone decide when the tables are solved.
    """
    last = ratios[-3:]
    return len(last) == 3 and all(0.2 <= r <= 0.98 for r in last) and max(last) - min(last) <= 0.05


def _race_start(shape: tuple[int, int]) -> np.ndarray:
    """The package's race table, or 1/2 everywhere in a race of another target or floor."""
    try:
        values = race.load_race_table().values  # cached: it may be the package's shape in any race
    except ValueError:
        return np.full(shape, 0.5)
    return values if values.shape == shape else np.full(shape, 0.5)


def _solve_state(
    space: Any, store: Any, outcomes: TurnOutcomes, mover: np.ndarray, opponent: np.ndarray, a: int, b: int,
    accuracy: float,
) -> float:  # fmt: skip
    """Solve ``mover[a, b]`` with its partner ``opponent[b, a]``, or with ``b`` at the target the two
    last turns ``mover[a, b]`` and ``opponent[a, b]``; the largest change."""
    i, j = a - race.FLOOR, b - race.FLOOR
    if b >= race.TARGET:  # the opponent's last turn, and the responder's: neither leads to the other
        before = mover[i, j], opponent[i, j]
        opponent[i, j] = _opponent_value(space, outcomes, mover, a, b)
        if (a, b) in store.slot:
            mover[i, j] = store.solve(space, opponent, a, b)
        else:  # solved once, warm-started from the state solved before it
            mover[i, j] = space.state_value(opponent, a, b)
        return max(abs(mover[i, j] - before[0]), abs(opponent[i, j] - before[1]))
    before = mover[i, j], opponent[j, i]

    def f(v: float) -> float:
        mover[i, j] = v
        opponent[j, i] = _opponent_value(space, outcomes, mover, b, a)
        return store.solve(space, opponent, a, b)

    mover[i, j] = race.secant_fixed_point(f, mover[i, j], max(race.PAIR_TOLERANCE, accuracy))
    return max(abs(mover[i, j] - before[0]), abs(opponent[j, i] - before[1]))


def opponent_plan(name: str) -> Plan:
    """The plan of the opponent ``name`` of `OPPONENTS`."""
    return OPPONENTS[name]().plan


def save_best_response(result: BestResponse, opponent: str, path: str | Path) -> None:
    """Write both tables as a data-only ``.npz`` (atomically: a temporary file, then a rename)."""
    race.write_tables(
        path,
        BEST_RESPONSE_FORMAT,
        {"mover": result.mover, "opponent": result.opponent},
        {"opponent": opponent, "sweeps": result.sweeps, "residual": result.residual, "win_rate": result.win_rate},
    )


def load_best_response(path: str | Path) -> tuple[BestResponse, str]:
    """The tables `save_best_response` wrote, and the opponent's name (loaded without pickle and checked)."""
    what = "a best-response file"
    (mover, opponent), sweeps, residual, meta = race.read_tables(
        path, BEST_RESPONSE_FORMAT, ("mover", "opponent"), what
    )
    name = meta.get("opponent")
    if not isinstance(name, str) or name not in OPPONENTS:
        raise ValueError(
            f"{path} is not {what} of this version (its opponent {name!r} is not one of {tuple(OPPONENTS)})"
        )
    return BestResponse(mover=mover, opponent=opponent, sweeps=sweeps, residual=residual), name


def best_response_shares(result: BestResponse, opponent: str, games: int, seed: int = 0) -> np.ndarray:
    """The best response's win share (1, 1/2 on a shared win, 0) in ``games`` games against ``opponent``
    (seeds ``seed``, ``seed + 1``...; it moves first in the even games): what the solution predicts as
    `BestResponse.win_rate`, up to the deck's memory."""
    from agents.evaluation.games import play_game  # games are played here only
    from pirate_envs.piraten_kapern_v0 import raw_env

    responder, other = race.KapernRaceAgent(result.race_table()), OPPONENTS[opponent]()
    env = raw_env(num_players=2, target_score=race.TARGET * race.UNIT)
    shares = np.empty(games)
    for g in range(games):
        seat = g % 2
        seats = [responder, other] if seat == 0 else [other, responder]
        shares[g] = play_game(env, seats, seed + g).win_shares[seat]
    return shares


@once
def shipped_best_response(opponent: str) -> BestResponse:
    """The shipped solution against ``opponent`` (`SHIPPED`), loaded once and checked to be its own."""
    result, solved_against = load_best_response(SHIPPED[opponent])
    if solved_against != opponent:
        raise ValueError(f"{SHIPPED[opponent].name} is the best response to {solved_against!r}, not {opponent!r}")
    return result


class BestResponseAgent(race.KapernRaceAgent):
    """Plays the shipped best response to `opponent` (the race agent reading its solved table): the most
    any player wins against that opponent at two players. Against any other player it still plays, as
    if facing `opponent`."""

    #: The opponent solved against (a key of `OPPONENTS`).
    opponent = ""

    def __init__(self) -> None:
        require_agent_extras(self)  # before its table is read
        super().__init__(shipped_best_response(self.opponent).race_table())


class OracleBestResponse(BestResponseAgent):
    """The best response to Kapern's one-turn oracle (`agents.piraten_kapern.oracle`)."""

    name = "best_response:oracle"
    opponent = "oracle"


class HeuristicBestResponse(BestResponseAgent):
    """The best response to Kapern's heuristic (`agents.piraten_kapern.heuristic`)."""

    name = "best_response:heuristic"
    opponent = "heuristic"
