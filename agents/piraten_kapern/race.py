"""Piraten Kapern at two players, solved for the win: the race table and the agent that plays it.

The one-turn oracle (`agents.piraten_kapern.oracle`) maximises a turn's expected points. A player who
wants to win plays differently near the end: far behind he must gamble, far ahead he should
bank, and in the final round only beating the trigger's score counts. This module solves the
whole two-player race.

The state of a turn is ``(a, b)``, both scores in units of 100; ``V[a, b]`` is the mover's chance to
win under optimal play, each turn solved exactly for that utility (`solve_race_turn`) and ``V`` by
Gauss-Seidel sweeps until no value moves by more than `SWEEP_TOLERANCE`. Approximated: the fortune
card drawn from the base deck's composition, scores below `FLOOR` counted as it; base game at two
players only. The table ships as data (`TABLE_PATH`, no pickle), made and checked by
``python -m experiments.kapern_race``; needs numba (the ``fast`` extra). The race, each turn's
outcomes and what is approximated: ``docs/games/piraten_kapern_agents.md``.
"""

from __future__ import annotations

import functools
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.extras import require_agent_extras
from agents.once import once
from agents.piraten_kapern.oracle import (
    TIE_MARGIN,
    _best_option,
    _decide,
    _tables,
    _turn_model,
    chest_dice,
    option_open,
    planned_move,
)
from agents.policy.checkpoint import read_npz
from pirate_envs.core.errors import one_line
from pirate_envs.core.files import write_atomic
from pirate_envs.piraten_kapern.actions import REROLL_OFFSET, REROLL_VECTORS, STOP
from pirate_envs.piraten_kapern.engine import DEFAULT_TARGET
from pirate_envs.piraten_kapern.rules import (
    CARD_INDEX,
    NON_SKULL_FACES,
    NUM_DICE,
    PROMO_CARDS,
    SKULL,
    STANDARD_DECK,
    card_skulls,
    island_penalty,
)

__all__ = [
    "FLOOR",
    "KapernRaceAgent",
    "RaceTable",
    "RaceTurn",
    "bellman_residual",
    "build_race_table",
    "first_seat_shares",
    "load_race_table",
    "read_tables",
    "sampled_states",
    "save_race_table",
    "secant_fixed_point",
    "solve_race_turn",
    "write_tables",
]

#: Scores are multiples of this many points; the race table counts in these units.
UNIT = 100
#: The target in units (the final round starts at 6,000 points).
TARGET = DEFAULT_TARGET // UNIT
#: The lowest score the table tells apart, in units: a lower score counts as this one.
FLOOR = -20
#: The cards of the base deck, in a fixed order, and each one's chance of being drawn.
RACE_CARDS: tuple[str, ...] = tuple(STANDARD_DECK)
CARD_PROBS = np.array([STANDARD_DECK[c] for c in RACE_CARDS], dtype=np.float64) / sum(STANDARD_DECK.values())
#: Value iteration of one turn stops when no state's win probability moves by more than this.
TURN_TOLERANCE = 1e-10
#: The sweeps over the race stop when no ``V[a, b]`` moves by more than this.
SWEEP_TOLERANCE = 1e-8
MAX_SWEEPS = 200
_MAX_TURN_ITERATIONS = 10_000
#: The most skulls an Island turn can end with: eight dice and two on the card.
_MAX_SKULLS = NUM_DICE + max(card_skulls(c) for c in RACE_CARDS)
#: The package's race table.
TABLE_PATH = Path(__file__).with_name("race_2p.npz")
TABLE_FORMAT = "pirate_envs/kapern-race-table/1"


def _units(points: float) -> int:
    """Points as an exact number of `UNIT`s."""
    units, rest = divmod(int(points), UNIT)
    if rest or int(points) != points:
        raise ValueError(f"{points} points are not a multiple of {UNIT}")
    return units


@dataclass(frozen=True)
class _CardArrays:
    """Everything the numba kernels need about the dice and the cards, as flat arrays."""

    kept_ptr: np.ndarray  # (1717,) transitions of kept multiset k: kept_ptr[k]:kept_ptr[k+1]
    next_state: np.ndarray  # the transition's next state
    prob: np.ndarray  # its probability
    plain: np.ndarray  # (1287, w) kept multisets of the re-rolls that take no skull, padded with 1716
    skull: np.ndarray  # (1287, w') kept multisets of the re-rolls that take a skull (the Sorceress)
    first_roll: np.ndarray  # (1287,) probability of each state on the first roll
    dice_skulls: np.ndarray  # (1287,) skull dice of each state
    stop: np.ndarray  # (cards, 1287) points of stopping (a bust state: its bust points), in units
    bust: np.ndarray  # (cards, 1287) the state ends the turn (three skulls, card skulls counted)
    island: np.ndarray  # (cards, 1287) a first roll that goes to the Island of Skulls
    bust_prob: np.ndarray  # (1716,) the chance a re-roll from kept multiset k busts
    chest_points: np.ndarray  # (1716,) the chest's points of the kept multiset's non-skull dice, in units
    penalty: np.ndarray  # (cards, skulls + 1) the Island penalty of ending with that many skulls, in units
    card_skulls: np.ndarray  # (cards,)
    is_chest: np.ndarray  # (cards,)
    is_sorceress: np.ndarray  # (cards,)
    min_points: int  # the lowest and highest points of a turn, in units
    max_points: int


@once
def _arrays() -> _CardArrays:
    t = _tables()
    order = np.argsort(t.trans_kept, kind="stable")
    kept_ptr = np.searchsorted(t.trans_kept[order], np.arange(len(t.kept) + 1))
    models = [_turn_model(card) for card in RACE_CARDS]
    stop = np.array([[_units(p) for p in m.stop] for m in models], dtype=np.int64)
    bust_prob, points = chest_dice()
    chest_points = np.array([_units(p) for p in points], dtype=np.int64)
    penalty = np.array(
        [[_units(island_penalty(k, c)) for k in range(_MAX_SKULLS + 1)] for c in RACE_CARDS], dtype=np.int64
    )
    return _CardArrays(
        kept_ptr=kept_ptr.astype(np.int64),
        next_state=t.trans_state[order].astype(np.int64),
        prob=t.trans_prob[order],
        plain=t.plain_options.kept,
        skull=t.skull_options.kept,
        first_roll=t.first_roll,
        dice_skulls=t.states[:, SKULL].astype(np.int64),
        stop=stop,
        bust=np.array([m.bust for m in models]),
        island=np.array([m.island for m in models]),
        bust_prob=bust_prob,
        chest_points=chest_points,
        penalty=penalty,
        card_skulls=np.array([card_skulls(c) for c in RACE_CARDS], dtype=np.int64),
        is_chest=np.array([c == "treasure_chest" for c in RACE_CARDS]),
        is_sorceress=np.array([c == "sorceress" for c in RACE_CARDS]),
        min_points=int(min(stop.min(), chest_points.min())),
        max_points=int(max(stop.max(), chest_points.max())),
    )


def _shape() -> tuple[int, int]:
    """The race table's shape: mover scores ``FLOOR..TARGET-1``, the other's ``FLOOR..TARGET-1+max``."""
    return TARGET - FLOOR, TARGET + _arrays().max_points - FLOOR


@dataclass(frozen=True, eq=False)
class RaceTable:
    """``values[a - FLOOR, b - FLOOR]``: the mover's win probability at scores ``(a, b)`` (units of 100).

    ``sweeps`` and ``residual`` say how the table was found: the Gauss-Seidel sweeps made and the
    largest change of the last one.
    """

    values: np.ndarray
    sweeps: int
    residual: float

    def win_probability(self, mover_points: int, other_points: int) -> float:
        """The mover's chance to win at these scores (points), both playing optimally."""
        a, b = _index(mover_points, other_points)
        return float(self.values[a, b])

    @property
    def first_player_win(self) -> float:
        """The first player's win probability from 0 : 0 (a shared win counted one half)."""
        return float(self.values[-FLOOR, -FLOOR])


def _index(mover_points: int, other_points: int) -> tuple[int, int]:
    """Table indices of a turn's scores (points); ``ValueError`` outside the race."""
    rows, cols = _shape()
    a = max(_units(mover_points), FLOOR) - FLOOR
    b = max(_units(other_points), FLOOR) - FLOOR
    if a >= rows or b >= cols:
        raise ValueError(
            f"scores ({mover_points}, {other_points}) are not a turn of the two-player race to {DEFAULT_TARGET}"
        )
    return a, b


class _Workspace:
    """Buffers of one solver: the utilities and each card's tables (the warm start of the next solve)."""

    def __init__(self) -> None:
        arr = _arrays()
        n, kept = arr.stop.shape[1], len(arr.bust_prob)
        cards = len(RACE_CARDS)
        self.u_own = np.empty(arr.max_points - arr.min_points + 1)
        self.u_skulls = np.empty(arr.penalty.shape[1])
        self.a = self.b = 0
        self.closed = np.zeros((cards, n))
        self.opened = np.zeros((cards, n))
        self.worth_closed = np.zeros((cards, kept))
        self.worth_open = np.zeros((cards, kept))
        self.island = np.zeros((cards, NUM_DICE + 1))
        self.island_choice = np.zeros((cards, NUM_DICE + 1), dtype=np.int64)
        #: The turn's value iteration stops when no state moves by more than this.
        self.tolerance = TURN_TOLERANCE

    def set_utilities(self, values: np.ndarray, a: int, b: int) -> None:
        """The mover's worth of every outcome at ``(a, b)`` (units; ``values`` the table so far)."""
        from agents.piraten_kapern import race_kernels as kernels

        arr = _arrays()
        kernels.own_utilities(values, a, b, FLOOR, TARGET, arr.min_points, self.u_own)
        self.values, self.a, self.b = values, a, b

    def card_turn(self, c: int) -> float:
        """Card ``c``'s turn at the scores of `set_utilities` (its tables warm-started from the last solve)."""
        from agents.piraten_kapern import race_kernels as kernels

        kernels.island_utilities(self.values, self.a, self.b, FLOOR, TARGET, _arrays().penalty[c], self.u_skulls)
        return self.turn(c)

    def turn(self, c: int) -> float:
        """Card ``c``'s turn for the utilities in ``u_own`` and ``u_skulls`` (see `race_kernels`)."""
        from agents.piraten_kapern import race_kernels as kernels

        arr = _arrays()
        worth, iterations = kernels.card_turn(
            self.u_own,
            self.u_skulls,
            arr.stop[c],
            arr.bust[c],
            arr.island[c],
            arr.card_skulls[c],
            arr.is_chest[c],
            arr.is_sorceress[c],
            arr.min_points,
            arr.dice_skulls,
            arr.first_roll,
            arr.kept_ptr,
            arr.next_state,
            arr.prob,
            arr.plain,
            arr.skull,
            arr.bust_prob,
            arr.chest_points,
            self.tolerance,
            TIE_MARGIN,
            _MAX_TURN_ITERATIONS,
            self.closed[c],
            self.opened[c],
            self.worth_closed[c],
            self.worth_open[c],
            self.island[c],
            self.island_choice[c],
        )
        if iterations > _MAX_TURN_ITERATIONS:  # pragma: no cover - every re-roll risks a skull: it converges
            raise RuntimeError(f"value iteration of {RACE_CARDS[c]}'s turn did not converge")
        return worth

    def state_value(self, values: np.ndarray, a: int, b: int) -> float:
        """``V[a, b]`` from the table so far: the card-weighted worth of the mover's turn."""
        self.set_utilities(values, a, b)
        return float(sum(p * self.card_turn(c) for c, p in enumerate(CARD_PROBS)))


def _levels(states: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """``states`` grouped by ``a + b``, the highest first (a turn mostly raises the sum)."""
    by_sum: dict[int, list[tuple[int, int]]] = {}
    for a, b in states:
        by_sum.setdefault(a + b, []).append((a, b))
    return [by_sum[total] for total in sorted(by_sum, reverse=True)]


class _WarmStore:
    """Each state's tables from its last solve, the next solve's warm start (Gauss-Seidel sweeps move little)."""

    def __init__(self, states: list[tuple[int, int]]) -> None:
        n = _arrays().stop.shape[1]
        self.slot = {state: i for i, state in enumerate(states)}
        self.closed = np.zeros((len(states), len(RACE_CARDS), n))
        self.opened = np.zeros((len(states), n))  # the Sorceress's open table
        self.sorceress = RACE_CARDS.index("sorceress")

    def solve(self, workspace: _Workspace, values: np.ndarray, a: int, b: int) -> float:
        """``V[a, b]`` warm-started from this state's last tables, which it then keeps."""
        i = self.slot[(a, b)]
        workspace.closed[:] = self.closed[i]
        workspace.opened[self.sorceress] = self.opened[i]
        value = workspace.state_value(values, a, b)
        self.closed[i] = workspace.closed
        self.opened[i] = workspace.opened[self.sorceress]
        return value


def build_race_table(
    threads: int = 2, tolerance: float = SWEEP_TOLERANCE, progress: Any = None, start: np.ndarray | None = None
) -> RaceTable:
    """Solve the two-player race (see the module's docstring); ``progress(sweep, change, values)`` after each sweep.

    The states whose turn cannot take the other player below the target (``b`` at least the
    target plus the largest Island penalty) do not depend on the table: they are solved once.
    The others start at 1/2 and are swept in descending ``a + b`` (a turn mostly raises the sum).
    A state depends on its own sum only through ``(b, a)`` (a turn that ends with 0 points; at
    ``a == b``, itself), so each pair is solved together for its fixed point (`_solve_pair`); the
    pairs of one sum side by side in ``threads`` threads (the kernels release the GIL): the
    result does not depend on the threads. While the sweeps still move the table, a turn and a
    pair are solved to a thousandth of the last sweep's change (never finer than `TURN_TOLERANCE`
    and `PAIR_TOLERANCE`). ``start``: the table to start the sweeps from (a table so far).
    """
    from concurrent.futures import ThreadPoolExecutor

    rows, cols = _shape()
    values = np.full((rows, cols), 0.5) if start is None else np.array(start, dtype=np.float64)
    if values.shape != (rows, cols):
        raise ValueError(f"start has shape {values.shape}, the race table {(rows, cols)}")
    cut = TARGET + int(_arrays().penalty.max())  # b >= cut: the game ends after this turn
    fixed = [(a, b) for a in range(FLOOR, TARGET) for b in range(cut, cols + FLOOR)]
    swept = [(a, b) for a in range(FLOOR, TARGET) for b in range(FLOOR, cut)]
    store = _WarmStore(swept)
    spaces = [_Workspace() for _ in range(threads)]

    def solve_fixed(part: int, states: list[tuple[int, int]]) -> None:
        space = spaces[part]
        for a, b in states:
            space.closed[:] = space.opened[:] = 0.0  # a cold start: the same whichever thread solves it
            values[a - FLOOR, b - FLOOR] = space.state_value(values, a, b)

    def solve_pairs(part: int, pairs: list[list[tuple[int, int]]], accuracy: float) -> float:
        spaces[part].tolerance = max(TURN_TOLERANCE, accuracy)
        pair_tolerance = max(PAIR_TOLERANCE, accuracy)
        return max((_solve_pair(spaces[part], store, values, pair, pair_tolerance) for pair in pairs), default=0.0)

    with ThreadPoolExecutor(threads) as pool:
        for level in _levels(fixed):
            list(pool.map(solve_fixed, range(threads), [level[i::threads] for i in range(threads)]))
        parts_by_level = [[pairs[i::threads] for i in range(threads)] for pairs in map(_pairs, _levels(swept))]
        change = 1.0
        for sweep in range(1, MAX_SWEEPS + 1):
            accuracy, change = change / 1000, 0.0
            for parts in parts_by_level:
                change = max(change, *pool.map(solve_pairs, range(threads), parts, [accuracy] * threads))
            if progress is not None:
                progress(sweep, change, values)
            if change <= tolerance:
                return RaceTable(values=values, sweeps=sweep, residual=change)
    raise RuntimeError(f"the race table did not converge in {MAX_SWEEPS} sweeps (last change {change:.3g})")


#: A pair's fixed point is found when its value moves by no more than this; at most this many steps.
PAIR_TOLERANCE = 1e-11
_PAIR_STEPS = 30


def _solve_pair(
    space: _Workspace, store: _WarmStore, values: np.ndarray, pair: list[tuple[int, int]], tolerance: float
) -> float:
    """Solve ``[(a, b), (b, a)]`` (or one state) for its fixed point, the rest of the table held; the largest change.

    With the first state's value set to ``v``, solving the second and then the first gives
    ``f(v)``: increasing in ``v`` with slope below 1 (each value is one minus the other's, weighted
    by the chance of a 0-point turn), or decreasing for a lone ``(a, a)`` (its own partner). The
    secant method finds ``f(v) = v`` to ``tolerance``. A lone state with ``a != b`` depends on no
    state of its sum.
    """
    first, second = pair[0], pair[1] if len(pair) > 1 else None
    index = [(a - FLOOR, b - FLOOR) for a, b in pair]
    before = [values[i] for i in index]

    def f(v: float) -> float:
        values[index[0]] = v
        if second is not None:
            values[index[1]] = store.solve(space, values, *second)
        return store.solve(space, values, *first)

    if second is None and first[0] != first[1]:
        values[index[0]] = f(before[0])
        return abs(values[index[0]] - before[0])
    values[index[0]] = secant_fixed_point(f, before[0], tolerance)
    return max(abs(values[i] - b) for i, b in zip(index, before))


def secant_fixed_point(f: Any, v0: float, tolerance: float) -> float:
    """``f(v)`` at the ``v`` the secant method finds for ``f(v) = v`` (a probability), from ``v0``.

    The last call of ``f`` is at that ``v``, so what ``f`` writes on the way belongs to it; at
    most `_PAIR_STEPS` steps.
    """
    g0 = f(v0) - v0
    v1 = v0 + g0
    for _ in range(_PAIR_STEPS):
        if abs(g0) <= tolerance:
            break
        g1 = f(v1) - v1
        if abs(g1) <= tolerance or g1 == g0:
            v0, g0 = v1, g1
            break
        v0, g0, v1 = v1, g1, min(1.0, max(0.0, v1 - g1 * (v1 - v0) / (g1 - g0)))
    return v0 + g0


def bellman_residual(table: RaceTable, samples: int, seed: int = 0) -> float:
    """The largest difference between ``samples`` of the table's values (drawn with ``seed``) and
    the same states solved again from the table: 0 up to the solver's tolerance for a true solution."""
    space = _Workspace()
    worst = 0.0
    for i, j in sampled_states(table.values.shape, samples, seed):
        space.closed[:] = space.opened[:] = 0.0
        worst = max(worst, abs(space.state_value(table.values, i + FLOOR, j + FLOOR) - table.values[i, j]))
    return worst


def sampled_states(shape: tuple[int, int], samples: int, seed: int) -> list[tuple[int, int]]:
    """``samples`` distinct table indices ``(i, j)`` of a table of ``shape`` (all, where it has fewer),
    drawn with ``seed``: the states a residual check solves again."""
    rows, cols = shape
    drawn = np.random.default_rng(seed).choice(rows * cols, size=min(samples, rows * cols), replace=False)
    return [divmod(int(index), cols) for index in drawn]


def _pairs(level: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The states of one sum as ``[(a, b), (b, a)]`` pairs (``a < b``), or alone when ``(b, a)`` is not among them."""
    members = set(level)
    return [
        [(a, b), (b, a)] if (b, a) in members and a != b else [(a, b)]
        for a, b in level
        if not (a > b and (b, a) in members)
    ]


def save_race_table(table: RaceTable, path: str | Path = TABLE_PATH) -> None:
    """Write ``table`` as a data-only ``.npz`` (atomically: a temporary file, then a rename)."""
    write_tables(path, TABLE_FORMAT, {"values": table.values}, {"sweeps": table.sweeps, "residual": table.residual})


@once
def load_race_table(path: str | Path = TABLE_PATH) -> RaceTable:
    """The race table in ``path`` (the package's by default), loaded without pickle and checked."""
    (values,), sweeps, residual, _ = read_tables(path, TABLE_FORMAT, ("values",), "a race table")
    return RaceTable(values=values, sweeps=sweeps, residual=residual)


def _race_meta(table_format: str) -> dict[str, Any]:
    """What a file of this race's tables must say of itself: its format and the race it solves."""
    return {"format": table_format, "floor": FLOOR, "target": TARGET, "unit": UNIT, "cards": list(RACE_CARDS)}


def write_tables(path: str | Path, table_format: str, tables: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """Write tables of this race's shape and ``meta`` (with the race's `_race_meta`) as a data-only
    ``.npz``, atomically (`pirate_envs.core.files.write_atomic`)."""
    header = {**_race_meta(table_format), **meta}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **tables, meta=np.array(json.dumps(header, sort_keys=True)))
    write_atomic(path, buffer.getvalue())


#: The most bytes the arrays of a tables file may hold (a race table: 0.12 MB; a best response: two).
MAX_TABLES_BYTES = 2**26


def read_tables(
    path: str | Path, table_format: str, names: tuple[str, ...], what: str
) -> tuple[list[np.ndarray], int, float, dict[str, Any]]:
    """The tables ``names`` that `write_tables` wrote to ``path``, their ``sweeps`` and ``residual`` and
    the whole meta, loaded without pickle; ``ValueError`` naming ``what`` unless each is a table of this
    race (its format, race, shape, and values in [0, 1])."""
    try:
        data = read_npz(path, what, MAX_TABLES_BYTES)  # a crafted file: one line, nothing large allocated
        tables = [np.array(data[name], dtype=np.float64) for name in names]
        meta = json.loads(str(data["meta"]))
        sweeps, residual = int(meta["sweeps"]), float(meta["residual"])
    except (KeyError, TypeError, ValueError, OSError) as error:  # not an npz, a missing or odd entry
        raise ValueError(f"{path} is not {what}: {one_line(error)}") from None
    wrong = {k: meta.get(k) for k, v in _race_meta(table_format).items() if meta.get(k) != v}
    if wrong or any(t.shape != _shape() or not np.all((t >= 0) & (t <= 1)) for t in tables):
        raise ValueError(f"{path} is not {what} of this version ({wrong or 'its values'} differ)")
    return tables, sweeps, residual, meta


@dataclass(frozen=True)
class RaceTurn:
    """One turn solved for the win: the mover at ``a``, the other at ``b`` (units), the card drawn.

    ``worth`` is the mover's win probability before the first roll; `best_action` plays it.
    """

    card: str
    worth: float
    u_stop: np.ndarray  # (1287,) the win probability of stopping in each state
    policy: dict[bool, np.ndarray]  # the action per state; True: the Sorceress's re-roll still open
    values: dict[bool, np.ndarray]
    island_choice: np.ndarray  # non-skull dice to re-roll on the Island by skull dice showing (0: stop)

    def best_action(self, showing: tuple[int, ...], option_open: bool = False) -> int:
        """``STOP`` or the re-roll action from these face counts (not on the Island)."""
        return int(self.policy[option_open and self.card == "sorceress"][_tables().state_index(showing)])

    def island_reroll(self, showing: tuple[int, ...]) -> np.ndarray | None:
        """On the Island of Skulls: the dice to re-roll (counts per face), or ``None`` to stop."""
        dice = int(self.island_choice[showing[SKULL]])
        if not dice:
            return None
        reroll = np.zeros(len(showing), dtype=np.int64)
        for face in NON_SKULL_FACES:
            reroll[face] = min(showing[face], dice - int(reroll.sum()))
        return reroll


def solve_race_turn(table: RaceTable, mover_points: int, other_points: int, card: str) -> RaceTurn:
    """The turn of ``card`` at these scores (points), solved for the win against ``table``."""
    return _solve_race_turn(table, *_index(mover_points, other_points), RACE_CARDS.index(card))


@functools.lru_cache(maxsize=256)
def _solve_race_turn(table: RaceTable, a_index: int, b_index: int, c: int) -> RaceTurn:
    arr = _arrays()
    space = _Workspace()  # cold: its tables start at 0
    space.set_utilities(table.values, a_index + FLOOR, b_index + FLOOR)
    worth = space.card_turn(c)
    card = RACE_CARDS[c]
    t = _tables()
    model = _turn_model(card)
    u_stop = space.u_own[arr.stop[c] - arr.min_points]
    always = np.ones(len(u_stop), dtype=bool)
    closed_choice = _best_option(space.worth_closed[c], t.plain_options)
    policy = {False: _decide(u_stop, always, model.bust, [closed_choice])[1]}
    values = {False: space.closed[c].copy()}
    if card == "sorceress":
        choices = [
            _best_option(space.worth_open[c], t.plain_options),
            _best_option(space.worth_closed[c], t.skull_options),
        ]
        policy[True] = _decide(u_stop, always, model.bust, choices)[1]
        values[True] = space.opened[c].copy()
    return RaceTurn(card, worth, u_stop, policy, values, space.island_choice[c].copy())


class KapernRaceAgent:
    """Plays the two-player race solved for the win (`solve_race_turn` against the shipped table).

    Reads only its `pirate_envs.piraten_kapern.view.View` and the mask. Refuses (``ValueError``)
    a game the table was not solved for: more players, another target, fewer dice, a roll limit,
    the promo cards.
    """

    name = "race"
    #: The table sizes it plays (read by `agents.registry.agent_player_counts`).
    player_counts = (2,)
    #: Its turns are solved by numba kernels: without the extra it refuses to build (`agents.extras`).
    extras = (("numba", "fast"),)

    def __init__(self, table: RaceTable | None = None) -> None:
        require_agent_extras(self)
        self.table = table if table is not None else load_race_table()

    def reset(self, seed: int | None = None) -> None:
        """Deterministic: nothing to reset."""

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """The next step of the turn's plan for the win: stop, a re-roll, or a chest move before it."""
        _check_game(view, self.name)
        other = 1 - view.seat
        turn = solve_race_turn(self.table, view.scores[view.seat], view.scores[other], view.card)
        if view.island:
            reroll = turn.island_reroll(tuple(view.showing))
        else:
            action = turn.best_action(tuple(view.showing), option_open(view))
            reroll = None if action == STOP else REROLL_VECTORS[action - REROLL_OFFSET]
        return planned_move(observation, view, reroll, "the race agent")


_PROMO = [CARD_INDEX[card] for card in PROMO_CARDS]


def _check_game(view: Any, agent: str = "race") -> None:
    """``ValueError`` naming ``agent`` unless ``view`` is a turn of the game the race's tables solve."""
    if view.num_players != 2:
        raise ValueError(f"{agent!r} plays two players; this game has {view.num_players}")
    if view.target_score != DEFAULT_TARGET:
        raise ValueError(f"{agent!r} is solved to {DEFAULT_TARGET} points; this game plays to {view.target_score}")
    if sum(view.showing) != NUM_DICE:
        raise ValueError(f"{agent!r} solves the 8-dice game; this game rolls {sum(view.showing)} dice (num_dice)")
    if view.card not in RACE_CARDS or any(view.deck_counts[i] for i in _PROMO):
        raise ValueError(f"{agent!r} is solved for the base deck; this game has the promo cards")


def first_seat_shares(games: int, seed: int = 0, table: RaceTable | None = None) -> np.ndarray:
    """The first seat's win share (1, 1/2 on a shared win, 0; a truncated game 0) in ``games`` games of the race agent
    against itself (seeds ``seed``, ``seed + 1``...): what the table predicts as `RaceTable.first_player_win`,
    up to the deck's memory, which the table ignores."""
    from agents.evaluation.games import play_game  # games are played here only
    from pirate_envs.piraten_kapern_v0 import raw_env

    agent = KapernRaceAgent(table)
    env = raw_env(num_players=2)
    return np.array([play_game(env, [agent, agent], seed + g).win_shares[0] for g in range(games)])
