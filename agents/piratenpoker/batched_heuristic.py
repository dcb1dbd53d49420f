"""The Piratenpoker heuristic in batched form: `PiratenpokerHeuristicBatch`.

It chooses, row by row in one numba kernel, exactly what
`agents.piratenpoker.heuristic.PiratenpokerHeuristic` chooses: cheap bids until round 3,
sharks kept, negative cards sent to the leader (that module's docstring gives the rules of
thumb). The one-game heuristic reads the player's `pirate_envs.piratenpoker.view.View`;
this one reads the same facts from the observation vector, by piece name, so it serves
``table_layout="seated"`` and ``"max"`` alike.

What it reads, ties and fallbacks, and how it is checked: ``docs/guides/batched_agents.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.batched.rows import one_hot_index
from agents.piratenpoker.heuristic import (
    CHEAP_VALUE,
    GIFT_BID_TARGET,
    KEEP_FOR_LOOT,
    LOOT_BID_MARGIN,
    STRENGTH_SCALE,
    UNWANTED_WEIGHT,
)
from agents.search.play_out_kernel import FusedRollouts, fused_play_out
from pirate_envs.core.kernel_cache import cross_module_kernel
from pirate_envs.core.observation import SEAT_PRESENT
from pirate_envs.piratenpoker.batched import (
    ADD,
    BACK_SIDE,
    COLOUR_MULTIPLIER,
    COMMIT,
    DECK_SIZE,
    GIVE,
    KEEP,
    LOOT,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_FRONTS,
    NUM_KINDS,
    PASS,
    PHASE_BID,
    PHASE_GIFT,
    PHASE_PICK_LOOT,
    RECIPIENT,
    ROUND_BELOW_DECK,
    ROUND_LOOT,
    ROUND_OVERBOARD,
    T_COLOUR,
    T_NEGATIVE,
    T_POINTS,
    T_SHARK,
    T_VALUE,
    PiratenpokerState,
    _final_score,
    _rule_tables,
    step_kernel,
)
from pirate_envs.piratenpoker.engine import NUM_PHASES, ROUNDS_PER_GAME
from pirate_envs.piratenpoker.observation import CARD_SCALE

#: Observation pieces the kernel reads: entries of its ``offsets`` array (``-1``: not in the layout).
_PIECES = (
    "hand",
    "bid",
    "own_status",
    "phase",
    "round",
    "pending",
    "face_up",
    "last_winner",
    "last_round",
    "scores",
    "last_passed",
    "displayed",
    SEAT_PRESENT,
)
(
    O_HAND,
    O_BID,
    O_STATUS,
    O_PHASE,
    O_ROUND,
    O_PENDING,
    O_FACE_UP,
    O_LAST_WINNER,
    O_LAST_ROUND,
    O_SCORES,
    O_LAST_PASSED,
    O_DISPLAYED,
    O_SEAT_PRESENT,
) = range(len(_PIECES))
#: The one-game heuristic's integer constants: entries of the kernel's ``tuning`` array.
TUNING = np.array([CHEAP_VALUE, GIFT_BID_TARGET, KEEP_FOR_LOOT, LOOT_BID_MARGIN, STRENGTH_SCALE], dtype=np.int64)
U_CHEAP, U_GIFT_TARGET, U_KEEP, U_MARGIN, U_STRENGTH_SCALE = range(len(TUNING))
#: The rule tables (``T_*`` rows) of the batched engine.
TABLES = _rule_tables()


# ----------------------------------------------------------------------------- reading a row
@njit(cache=True, nogil=True, inline="always")
def _count(value: float, scale: float) -> int:
    """The integer that the observation wrote as ``count * scale`` (rounded to the nearest)."""
    return int(np.floor(value / scale + 0.5))


@njit(cache=True, nogil=True, inline="always")
def _gain(tables, own, base, kind) -> int:
    """How much displaying loot ``kind`` would change the final score ``base`` of the loot ``own[0, 0]``."""
    own[0, 0, kind] += 1
    gained = _final_score(0, 0, tables, own) - base
    own[0, 0, kind] -= 1
    return gained


@njit(cache=True, nogil=True, inline="always")
def _stable_sort(items, length, tables, descending) -> None:
    """Sort ``items[:length]`` (poker kinds) by card value in place, keeping the order of equal values."""
    for i in range(1, length):
        item = items[i]
        value = tables[T_VALUE, item]
        j = i - 1
        while j >= 0 and (tables[T_VALUE, items[j]] < value if descending else tables[T_VALUE, items[j]] > value):
            items[j + 1] = items[j]
            j -= 1
        items[j + 1] = item


# ----------------------------------------------------------------------------- decisions
@njit(cache=True, nogil=True, inline="always")
def _bid(row, offsets, n, tables, tuning, full, bid, own, base, face_up, target, kinds) -> int:
    """The bid action: the next card of the planned bid, ``commit``, or ``pass`` (``_plan_bid``)."""
    cheap_value = tuning[U_CHEAP]
    num_kinds = 0  # the hand at the round's start, one entry per card, by kind
    for k in range(NUM_KINDS):
        target[k] = 0
        for _ in range(full[k]):
            kinds[num_kinds] = k
            num_kinds += 1
    chosen = 0
    rnd = one_hot_index(row, offsets[O_ROUND], ROUNDS_PER_GAME)
    has_negative = False
    for j in range(NUM_KINDS):
        negative = tables[T_NEGATIVE, j]
        if negative >= 0 and own[0, 0, negative] > 0:
            has_negative = True
    if rnd == ROUND_LOOT:
        colour = 0
        while colour < NUM_COLOURS - 1 and face_up[colour] < 0:
            colour += 1
        worth = _gain(tables, own, base, colour * 2 * NUM_FRONTS + face_up[colour])
        total = 0
        num_rest = 0
        for j in range(num_kinds):
            k = kinds[j]
            if tables[T_COLOUR, k] == colour or tables[T_VALUE, k] <= cheap_value:
                target[k] += 1
                chosen += 1
                total += tables[T_VALUE, k] * (COLOUR_MULTIPLIER if tables[T_COLOUR, k] == colour else 1)
            else:
                kinds[num_rest] = k  # the rest, in kind order (num_rest <= j)
                num_rest += 1
        _stable_sort(kinds, num_rest, tables, True)
        for j in range(num_rest):
            if total >= tuning[U_MARGIN] + worth:
                break
            target[kinds[j]] += 1
            chosen += 1
            total += tables[T_VALUE, kinds[j]]
    elif rnd == ROUND_BELOW_DECK and has_negative:
        _stable_sort(kinds, num_kinds, tables, False)
        keep = tuning[U_KEEP]
        stop = max(num_kinds - keep, 0) if keep > 0 else 0  # Python's [:-keep]
        total = 0
        for j in range(stop):
            if total >= tuning[U_GIFT_TARGET]:
                break
            target[kinds[j]] += 1
            chosen += 1
            total += tables[T_VALUE, kinds[j]]
    else:
        for k in range(NUM_KINDS):
            if tables[T_VALUE, k] <= cheap_value:
                target[k] = full[k]
                chosen += full[k]
    if chosen == 0:
        pass_available = row[offsets[O_STATUS]] > 0.5
        if pass_available and not _everybody_passed_last_time(row, offsets, n, rnd):
            return PASS
        cheapest = -1
        for k in range(NUM_KINDS):
            if full[k] > 0 and (cheapest < 0 or tables[T_VALUE, k] < tables[T_VALUE, cheapest]):
                cheapest = k
        if cheapest >= 0:
            target[cheapest] = 1
    for k in range(NUM_KINDS):
        if target[k] > bid[k]:
            return ADD + k
    return COMMIT


@njit(cache=True, nogil=True, inline="always")
def _everybody_passed_last_time(row, offsets, n, rnd) -> bool:
    """Whether this round was just restarted because every player passed."""
    if one_hot_index(row, offsets[O_LAST_ROUND], ROUNDS_PER_GAME) != rnd:
        return False
    if one_hot_index(row, offsets[O_LAST_WINNER], n) >= 0:
        return False
    passed = 0
    for r in range(n):
        if row[offsets[O_LAST_PASSED] + r] > 0.5:
            passed += 1
    return passed == n


@njit(cache=True, nogil=True, inline="always")
def _pick_loot(row, legal, offsets, tables, tuning, unwanted_weight, full, own, base, face_up) -> int:
    """The loot colour: round 1 the best overboard gift, round 2 the less wanted card goes below deck."""
    overboard = one_hot_index(row, offsets[O_ROUND], ROUNDS_PER_GAME) == ROUND_OVERBOARD
    best = -1
    best_value = 0.0
    for c in range(NUM_COLOURS):
        if not legal[LOOT + c]:
            continue
        front = c * 2 * NUM_FRONTS + face_up[c]
        wanted = _gain(tables, own, base, front)
        if overboard:
            back = front + BACK_SIDE * NUM_FRONTS
            gift = _gain(tables, own, base, back) if tables[T_SHARK, back] else -tables[T_POINTS, back]
            value = gift - unwanted_weight * wanted
            better = best < 0 or value > best_value
        else:
            strength = 0
            for k in range(NUM_KINDS):
                if tables[T_COLOUR, k] == c:
                    strength += tables[T_VALUE, k] * full[k]
            value = wanted * (1 + strength / tuning[U_STRENGTH_SCALE])
            better = best < 0 or value < best_value
        if better:
            best = c
            best_value = value
    return LOOT + best


@njit(cache=True, nogil=True, inline="always")
def _gift(legal, tables) -> int:
    """The most negative displayed card that may be given, or ``keep``."""
    best = -1
    for j in range(KEEP - GIVE):
        points = tables[T_POINTS, tables[T_NEGATIVE, j]]
        if legal[GIVE + j] and (best < 0 or points < tables[T_POINTS, tables[T_NEGATIVE, best]]):
            best = j
    return KEEP if best < 0 else GIVE + best


@njit(cache=True, nogil=True, inline="always")
def _recipient(row, legal, offsets, n, tables) -> int:
    """A positive card (a shark) to itself when allowed, else to the opponent with the highest score."""
    pending = one_hot_index(row, offsets[O_PENDING], NUM_KINDS)
    if legal[RECIPIENT] and tables[T_POINTS, pending] > 0:
        return RECIPIENT
    leader = 1
    for r in range(2, n):
        if row[offsets[O_SCORES] + r] > row[offsets[O_SCORES] + leader]:
            leader = r
    return RECIPIENT + leader


@cross_module_kernel("pirate_envs", "agents")
def choose_kernel(observations, masks, offsets, rows_per_seat, card_scale, tables, tuning, unwanted_weight,
                  actions) -> int:  # fmt: skip
    """Write the one-game heuristic's action of every row into ``actions``; return how many fell back.

    ``rows_per_seat``: the rows of the per-seat pieces (the players of the seated layout; the
    ``"max"`` layout counts them per row in ``seat_present``); ``card_scale``: the observation's
    factor of card counts. A row's fallback is the first legal
    action, taken when its own choice is not legal.
    """
    full = np.zeros(NUM_KINDS, dtype=np.int64)
    bid = np.zeros(NUM_KINDS, dtype=np.int64)
    target = np.zeros(NUM_KINDS, dtype=np.int64)
    kinds = np.zeros(DECK_SIZE, dtype=np.int64)
    own = np.zeros((1, 1, NUM_KINDS), dtype=np.int64)
    face_up = np.zeros(NUM_COLOURS, dtype=np.int64)
    fallbacks = 0
    for i in range(observations.shape[0]):
        row = observations[i]
        legal = masks[i]
        n = rows_per_seat
        if offsets[O_SEAT_PRESENT] >= 0:
            n = 0
            for r in range(rows_per_seat):
                if row[offsets[O_SEAT_PRESENT] + r] > 0.5:
                    n += 1
        for k in range(NUM_KINDS):
            bid[k] = _count(row[offsets[O_BID] + k], card_scale)
            full[k] = _count(row[offsets[O_HAND] + k], card_scale) + bid[k]
            own[0, 0, k] = _count(row[offsets[O_DISPLAYED] + k], card_scale)
        for c in range(NUM_COLOURS):
            face_up[c] = one_hot_index(row, offsets[O_FACE_UP] + c * NUM_FRONTS, NUM_FRONTS)
        base = _final_score(0, 0, tables, own)
        phase = one_hot_index(row, offsets[O_PHASE], NUM_PHASES)
        if phase == PHASE_BID:
            action = _bid(row, offsets, n, tables, tuning, full, bid, own, base, face_up, target, kinds)
        elif phase == PHASE_PICK_LOOT:
            action = _pick_loot(row, legal, offsets, tables, tuning, unwanted_weight, full, own, base, face_up)
        elif phase == PHASE_GIFT:
            action = _gift(legal, tables)
        else:
            action = _recipient(row, legal, offsets, n, tables)
        if not legal[action]:
            fallbacks += 1
            action = 0
            while not legal[action]:
                action += 1
        actions[i] = action
    return fallbacks


@cross_module_kernel("pirate_envs", "agents")
def _choose_rows(act_args, games, observations, masks, out) -> int:
    """`choose_kernel` for `fused_play_out` (``games`` unread: nothing is remembered of a game); its fallbacks."""
    offsets, rows_per_seat, tables, tuning, unwanted_weight = act_args
    return choose_kernel(observations, masks, offsets, rows_per_seat, CARD_SCALE, tables, tuning, unwanted_weight, out)


@cross_module_kernel("pirate_envs", "agents")
def rollout_kernel(state, act_args, loop):
    """Rollouts of the heuristic on the batched Piratenpoker engine in one call (``loop``: see `fused_play_out`)."""
    return fused_play_out(step_kernel, _choose_rows, state, act_args, loop)


class PiratenpokerHeuristicBatch:
    """`agents.piratenpoker.heuristic.PiratenpokerHeuristic` for many rows at once.

    ``env``: a raw Piratenpoker env of the table played (its ``observation_layout`` places the
    pieces read). ``num_games`` and ``seed`` are accepted for the protocol: nothing is
    remembered of a game and nothing is drawn.
    """

    name = "piratenpoker_heuristic"

    def __init__(self, env: Any, num_games: int, seed: int | None = None):
        layout = env.observation_layout
        self.size = layout.size
        self.num_games = int(num_games)
        self.seed = seed
        self.offsets = np.array([layout.piece(p).start if p in layout else -1 for p in _PIECES], dtype=np.int64)
        self.rows_per_seat = layout.piece("scores").size
        self.fallbacks = 0  # rows whose own choice was illegal and took the first legal action

    def fused_rollouts(self, venv: Any) -> FusedRollouts | None:
        """The heuristic's rollouts on ``venv`` in one compiled call (`agents.search.batched.play_out`);
        ``None`` where ``venv`` is not a batched Piratenpoker engine of this table's layout."""
        if not isinstance(venv.kernel_state, PiratenpokerState) or venv.observation.shape[1] != self.size:
            return None
        act_args = (self.offsets, self.rows_per_seat, TABLES, TUNING, float(UNWANTED_WEIGHT))
        return FusedRollouts(rollout_kernel, act_args, self._add_fallbacks)

    def _add_fallbacks(self, count: int) -> None:
        self.fallbacks += count

    def reset_games(self, games: np.ndarray) -> None:
        """Nothing is remembered of a game."""

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The one-game heuristic's action for every row (``ValueError`` for a row with no legal action)."""
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        mask = np.asarray(action_masks)
        mask = np.ascontiguousarray(mask.view(np.int8) if mask.dtype == np.bool_ else mask, dtype=np.int8)
        if obs.ndim != 2 or obs.shape[1] != self.size:
            raise ValueError(f"observations of shape {obs.shape}: expected (M, {self.size}) for this table's layout")
        if mask.shape != (len(obs), NUM_ACTIONS):
            raise ValueError(f"action_masks of shape {mask.shape}: expected ({len(obs)}, {NUM_ACTIONS})")
        if len(np.asarray(games)) != len(obs):
            raise ValueError(f"games has {len(np.asarray(games))} entries: expected one per row ({len(obs)})")
        if not mask.any(axis=1).all():
            raise ValueError("a row of action_masks has no legal action: is it this agent's turn?")
        actions = np.empty(len(obs), dtype=np.int64)
        self.fallbacks += choose_kernel(
            obs, mask, self.offsets, self.rows_per_seat, CARD_SCALE, TABLES, TUNING, float(UNWANTED_WEIGHT), actions
        )
        return actions


__all__ = ["PiratenpokerHeuristicBatch", "choose_kernel", "rollout_kernel"]
