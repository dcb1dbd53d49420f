"""Lucky Pirate's heuristic in batched form: `agents.lucky_pirate.heuristic.LuckyPirateHeuristic`
choosing for many rows of observations and action masks in one compiled call.

It reads the action mask for its fixed preference order (`PREFERENCE`) and the whole observation row
as the memory of positions seen (a random legal action on a repeated position, from its own
generator), one memory per slot of ``games``: give every (game, seat) its own slot to choose
exactly as one heuristic per seat does. What it reads, the memory, its hashes, the differences
and how it is checked: ``docs/guides/batched_agents.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.lucky_pirate.heuristic import LAY_UP_FIRST, MAX_REMEMBERED, NUMBERS_LOW_TO_HIGH, SPECIALS_CHEAPEST_FIRST
from agents.search.play_out_kernel import FusedRollouts, fused_play_out
from pirate_envs.core.kernel_cache import cross_module_kernel
from pirate_envs.lucky_pirate.actions import DOWN_OFFSET, LAY_UP_OFFSET, NUM_ACTIONS, PICK_UP, play_action
from pirate_envs.lucky_pirate.batched import LuckyPirateState, step_kernel
from pirate_envs.lucky_pirate.cards import MAX_COPIES
from pirate_envs.lucky_pirate.observation import OPTION_PIECES

#: The one-game heuristic's choice is the first legal action of this order.
PREFERENCE: np.ndarray = np.array(
    [
        *(LAY_UP_OFFSET + kind for kind in LAY_UP_FIRST),
        *(play_action(kind, count) for kind in NUMBERS_LOW_TO_HIGH for count in range(MAX_COPIES, 0, -1)),
        *(play_action(kind, 1) for kind in SPECIALS_CHEAPEST_FIRST),
        *range(DOWN_OFFSET, PICK_UP),
        PICK_UP,
    ],
    dtype=np.int64,
)
#: Hash-table size the memory starts with (a power of two; it doubles as needed).
_MIN_CAPACITY = 1 << 12
_EMPTY = -1


@njit(cache=True, nogil=True, inline="always")
def _mix(z: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a bijection of 64-bit words with full avalanche."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def _lane(h: np.uint64, word: np.uint64) -> np.uint64:
    """One word into one lane of `_row_hash`: a multiply and a shift, each a bijection of the lane."""
    h = (h ^ word) * np.uint64(0x9E3779B97F4A7C15)
    return h ^ (h >> np.uint64(29))


@njit(cache=True, nogil=True)  # reads nothing outside this file: keyed by it alone
def _row_hash(words: np.ndarray, row: int) -> np.uint64:
    """64-bit hash of the float32 bit patterns of row ``row`` (equal bytes, equal hash).

    The words go two to a 64-bit word into four independent lanes (so the processor works on four
    at once), which `_mix` folds together at the end: about nine times faster than one `_mix` a
    word in a single chain (`benchmarks/bench_position_hash.py`)."""
    a = np.uint64(0x243F6A8885A308D3)
    b = np.uint64(0x13198A2E03707344)
    c = np.uint64(0xA4093822299F31D0)
    d = np.uint64(0x082EFA98EC4E6C89)
    n = words.shape[1]
    high = np.uint64(32)
    j = 0
    while j + 8 <= n:
        a = _lane(a, np.uint64(words[row, j]) | (np.uint64(words[row, j + 1]) << high))
        b = _lane(b, np.uint64(words[row, j + 2]) | (np.uint64(words[row, j + 3]) << high))
        c = _lane(c, np.uint64(words[row, j + 4]) | (np.uint64(words[row, j + 5]) << high))
        d = _lane(d, np.uint64(words[row, j + 6]) | (np.uint64(words[row, j + 7]) << high))
        j += 8
    while j < n:
        a = _lane(a, np.uint64(words[row, j]))
        j += 1
    return _mix(_mix(_mix(_mix(a ^ np.uint64(n)) ^ b) ^ c) ^ d)


@njit(cache=True, nogil=True, inline="always")
def _must_grow(used: int, incoming: int, capacity: int) -> bool:
    """Whether the table must grow before ``incoming`` more entries: it stays at most half full."""
    return 2 * (used + incoming) > capacity


@njit(cache=True, nogil=True, inline="always")
def _probe_start(h: np.uint64, slot: int, epoch: int, capacity: int) -> int:
    """First table index to probe for the key ``(slot, epoch, h)``."""
    key = _mix(h ^ _mix(np.uint64(slot) * np.uint64(0x100000001B3) + np.uint64(epoch)))
    return np.int64(key & np.uint64(capacity - 1))


@njit(cache=True, nogil=True)  # reads nothing outside this file: keyed by it alone
def _remember(slot, epoch, h, owners, epochs, hashes) -> bool:
    """Insert ``(slot, epoch, h)`` into the table; ``True`` if it was there already."""
    capacity = owners.shape[0]
    k = _probe_start(h, slot, epoch, capacity)
    while owners[k] != _EMPTY:
        if owners[k] == slot and epochs[k] == epoch and hashes[k] == h:
            return True
        k = (k + 1) & (capacity - 1)
    owners[k] = slot
    epochs[k] = epoch
    hashes[k] = h
    return False


@njit(cache=True, nogil=True)  # reads nothing outside this file: keyed by it alone
def _rehash_kernel(owners, epochs, hashes, slot_epoch, new_owners, new_epochs, new_hashes) -> int:
    """Copy the live entries (those of each slot's current epoch) into the new table; returns their number."""
    live = 0
    for k in range(owners.shape[0]):
        slot = owners[k]
        if slot != _EMPTY and epochs[k] == slot_epoch[slot]:
            _remember(slot, epochs[k], hashes[k], new_owners, new_epochs, new_hashes)
            live += 1
    return live


@njit(cache=True, nogil=True)  # reads nothing outside this file: keyed by it alone
def _act_kernel(
    games,
    words,
    masks,
    uniforms,
    preference,
    max_remembered,
    slot_epoch,
    slot_count,
    owners,
    epochs,
    hashes,
    actions,
    repeated,
) -> int:
    """Choose ``actions[j]`` for every row in order (see the module docstring); returns the entries added."""
    added = 0
    num_actions = masks.shape[1]
    for j in range(games.shape[0]):
        slot = games[j]
        if slot_count[slot] >= max_remembered:  # the memory is full: start afresh
            slot_epoch[slot] += 1
            slot_count[slot] = 0
        seen = _remember(slot, slot_epoch[slot], _row_hash(words, j), owners, epochs, hashes)
        if not seen:
            slot_count[slot] += 1
            added += 1
        repeated[j] = seen
        legal = 0
        for a in range(num_actions):
            legal += masks[j, a] != 0
        if seen and legal > 1:  # the k-th legal action, k uniform in 0..legal-1
            k = min(np.int64(uniforms[j] * legal), legal - 1)
            for a in range(num_actions):
                if masks[j, a] != 0:
                    if k == 0:
                        actions[j] = a
                        break
                    k -= 1
        else:
            actions[j] = -1  # stays -1 when no preferred action is legal (a set without its single card)
            for a in preference:
                if masks[j, a] != 0:
                    actions[j] = a
                    break
    return added


@cross_module_kernel("pirate_envs", "agents")
def _choose_rows(act_args, games, observations, masks, out) -> int:
    """`act_batch`'s choice for `fused_play_out`: the entries added, or -1 where the table must grow first."""
    rng, columns, words, slot_epoch, slot_count, owners, epochs, hashes, repeated, used = act_args
    rows = games.shape[0]
    if _must_grow(used[0], rows, owners.shape[0]):  # Python rehashes (`LuckyPirateHeuristicBatch._rehash`)
        return -1
    bits = observations.view(np.uint32)
    for j in range(rows):
        for c in range(columns.shape[0]):
            words[j, c] = bits[j, columns[c]]
    added = _act_kernel(
        games, words[:rows], masks, rng.random(rows), PREFERENCE, MAX_REMEMBERED, slot_epoch, slot_count, owners,
        epochs, hashes, out, repeated[:rows],
    )  # fmt: skip
    used[0] += added
    return added


@cross_module_kernel("pirate_envs", "agents")
def rollout_kernel(state, act_args, loop):
    """Rollouts of the heuristic on the batched Lucky Pirate engine in one call (``loop``: see `fused_play_out`)."""
    return fused_play_out(step_kernel, _choose_rows, state, act_args, loop)


class LuckyPirateHeuristicBatch:
    """The Lucky Pirate heuristic for rows of many games (see the module docstring).

    ``env``: a raw Lucky Pirate env of the table played (its observation size is checked);
    ``num_games``: the number of slots; ``seed``: the draws on repeated positions.
    After each ``act_batch``, ``last_repeated`` flags the rows that were positions seen before.
    """

    name = "lucky_pirate_heuristic"

    def __init__(self, env: Any, num_games: int, seed: int | None = None):
        if isinstance(num_games, bool) or not isinstance(num_games, int | np.integer) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        self.num_games = int(num_games)
        layout = env.unwrapped.observation_layout
        self.observation_size = len(layout)
        #: The columns that make a position: all but the pieces of the options ``observe_known`` and
        #: ``observe_pile`` (``None``: all).
        optional = [np.arange(layout.size)[layout[name]] for name in OPTION_PIECES if name in layout]
        self._position_columns = np.setdiff1d(np.arange(layout.size), np.concatenate(optional)) if optional else None
        self.rng = np.random.default_rng(seed)
        self._slot_epoch = np.zeros(self.num_games, dtype=np.int64)
        self._slot_count = np.zeros(self.num_games, dtype=np.int64)
        self._new_table(_MIN_CAPACITY)
        self._used = 0  # table entries taken, stale ones (of cleared slots) included
        self.last_repeated = np.zeros(0, dtype=bool)

    def _new_table(self, capacity: int) -> None:
        self._owners = np.full(capacity, _EMPTY, dtype=np.int64)
        self._epochs = np.zeros(capacity, dtype=np.int64)
        self._hashes = np.zeros(capacity, dtype=np.uint64)

    def reset_games(self, games: np.ndarray) -> None:
        """The slots ``games`` start new games: forget the positions they have seen."""
        slots = self._checked_slots(games)
        self._slot_epoch[slots] += 1  # their entries go stale and are dropped at the next rehash
        self._slot_count[slots] = 0

    def fused_rollouts(self, venv: Any) -> FusedRollouts | None:
        """The heuristic's rollouts on ``venv`` in one compiled call (`agents.search.batched.play_out`), choosing
        as `act_batch` (the same draws, the same memory); ``None`` where ``venv`` is not a batched Lucky
        Pirate engine of this table's layout. ``last_repeated`` is left as the last `act_batch` set it."""
        if not isinstance(venv.kernel_state, LuckyPirateState) or venv.observation.shape[1] != self.observation_size:
            return None
        num = venv.num_envs
        columns = np.arange(self.observation_size) if self._position_columns is None else self._position_columns
        act_args = (
            self.rng, columns.astype(np.int64), np.empty((num, columns.size), dtype=np.uint32), self._slot_epoch,
            self._slot_count, self._owners, self._epochs, self._hashes, np.empty(num, dtype=np.bool_),
            np.array([self._used], dtype=np.int64),
        )  # fmt: skip
        return FusedRollouts(rollout_kernel, act_args, self._add_used, refill=self._rehash)

    def _add_used(self, added: int) -> None:
        self._used += added

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(M,)`` ``int64`` actions: the one-game heuristic's choice for each row."""
        slots = self._checked_slots(games)
        rows = np.ascontiguousarray(observations, dtype=np.float32)
        masks = np.ascontiguousarray(action_masks)
        if rows.ndim != 2 or rows.shape != (len(slots), self.observation_size):
            raise ValueError(
                f"observations must have shape ({len(slots)}, {self.observation_size}) (one row per game "
                f"slot given), got {rows.shape}"
            )
        if masks.ndim != 2 or masks.shape != (len(slots), NUM_ACTIONS):
            raise ValueError(f"action_masks must have shape ({len(slots)}, {NUM_ACTIONS}), got {masks.shape}")
        empty = np.flatnonzero(~masks.any(axis=1))
        if empty.size:
            raise ValueError(
                f"rows {empty[:10].tolist()} of action_masks have no legal action: is it this agent's turn?"
            )
        positions = rows if self._position_columns is None else np.ascontiguousarray(rows[:, self._position_columns])
        if _must_grow(self._used, len(slots), len(self._owners)):
            self._rehash(len(slots))
        actions = np.empty(len(slots), dtype=np.int64)
        self.last_repeated = np.empty(len(slots), dtype=bool)
        self._used += _act_kernel(
            slots,
            positions.view(np.uint32),
            masks.view(np.int8) if masks.dtype == np.bool_ else masks,
            self.rng.random(len(slots)),
            PREFERENCE,
            MAX_REMEMBERED,
            self._slot_epoch,
            self._slot_count,
            self._owners,
            self._epochs,
            self._hashes,
            actions,
            self.last_repeated,
        )
        unplayable = np.flatnonzero(actions < 0)
        if unplayable.size:  # the one-game heuristic raises here too
            raise ValueError(
                f"rows {unplayable[:10].tolist()} of action_masks allow only sets of a special card without the "
                "single card, which no Lucky Pirate position does"
            )
        return actions

    def _rehash(self, incoming: int) -> None:
        """Drop stale entries and size the table for the live ones plus ``incoming`` at most half full."""
        live = int(self._slot_count.sum())
        capacity = _MIN_CAPACITY
        while capacity < 4 * (live + incoming):
            capacity *= 2
        owners, epochs, hashes = self._owners, self._epochs, self._hashes
        self._new_table(capacity)
        self._used = _rehash_kernel(owners, epochs, hashes, self._slot_epoch, self._owners, self._epochs, self._hashes)

    def _checked_slots(self, games: np.ndarray) -> np.ndarray:
        slots = np.asarray(games)
        if slots.ndim != 1 or not (slots.size == 0 or slots.dtype.kind in "iu"):
            raise ValueError(f"games must be a 1-d array of integer slots, got shape {slots.shape} {slots.dtype}")
        if slots.size and (slots.min() < 0 or slots.max() >= self.num_games):
            bad = slots[(slots < 0) | (slots >= self.num_games)]
            raise ValueError(f"game slot {int(bad[0])} is out of range: valid slots are 0..{self.num_games - 1}")
        return slots.astype(np.int64, copy=False)


__all__ = ["PREFERENCE", "LuckyPirateHeuristicBatch", "rollout_kernel"]
