"""The Skull King heuristic in batched form: `SkullKingHeuristicBatch`.

It chooses, row by row in one numba kernel, exactly what
`agents.skull_king.heuristic.SkullKingHeuristic` chooses: bid the hand's strength, then play
to make the bid exactly (that module's docstring gives the rules of thumb). The one-game heuristic
reads the player's `pirate_envs.skull_king.view.View`; this one reads the same
facts from the observation vector, by piece name, so it serves ``table_layout="seated"`` and
``"max"`` alike.

What it reads, ties and how it is checked: ``docs/guides/batched_agents.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.batched.rows import one_hot_index
from agents.search.play_out_kernel import FusedRollouts, fused_play_out
from agents.skull_king.heuristic import token_strength, win_chances
from pirate_envs.core.kernel_cache import cross_module_kernel
from pirate_envs.core.observation import SEAT_PRESENT
from pirate_envs.skull_king.batched import (
    BID_OFFSET,
    CARD_OFFSET,
    NUM_ACTIONS,
    NUM_KINDS,
    NUM_RANKS,
    NUM_SUIT_CARDS,
    NUM_SUITS,
    NUM_TOKENS,
    PHASE_BID,
    SkullKingState,
    step_kernel,
    trick_winner_kernel,
)
from pirate_envs.skull_king.observation import TRICKS_OBS_SCALE
from pirate_envs.skull_king.rules import MAX_HANDS, MAX_PLAYERS, MIN_PLAYERS

#: Observation pieces the kernel reads: entries of its ``offsets`` array (``-1``: not in the layout).
_PIECES = ("hand", "trick", "led_suit", "leader", "tricks_won", "hand_number", "phase", "bids", SEAT_PRESENT)
O_HAND, O_TRICK, O_LED, O_LEADER, O_TRICKS, O_HAND_NUMBER, O_PHASE, O_BIDS, O_SEAT_PRESENT = range(len(_PIECES))

#: ``CHANCES[n, kind]``: the one-game heuristic's win chance of a card kind at an ``n``-player table.
CHANCES = np.zeros((MAX_PLAYERS + 1, NUM_KINDS), dtype=np.float64)
for _n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
    CHANCES[_n] = win_chances(_n)
#: ``STRENGTH[token]``: the one-game heuristic's rough order of the trick tokens.
STRENGTH = np.array([token_strength(t) for t in range(NUM_TOKENS)], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _choose_bid(row, legal, offsets, n, chances) -> int:
    """The bid action: the hand's expected tricks, rounded half to even, within 0..hand_number."""
    hand_number = one_hot_index(row, offsets[O_HAND_NUMBER], MAX_HANDS) + 1
    expected = 0.0
    for kind in range(NUM_KINDS):
        count = int(row[offsets[O_HAND] + kind])
        if count > 0:
            expected += chances[n, kind] * count
    bid = min(hand_number, max(0, int(np.rint(expected))))
    if legal[BID_OFFSET + bid]:
        return BID_OFFSET + bid
    last = -1
    for action in range(NUM_ACTIONS):
        if legal[action]:
            last = action
    return last


@njit(cache=True, nogil=True, inline="always")
def _choose_card(row, legal, offsets, n, strength, trick) -> int:
    """The card action: play to make the bid exactly (see the one-game heuristic's ``choose_card``)."""
    own_bid = one_hot_index(row, offsets[O_BIDS], MAX_HANDS + 1)
    own_tricks = int(np.rint(row[offsets[O_TRICKS]] / TRICKS_OBS_SCALE))
    wanted = own_bid - own_tricks
    leader_row = one_hot_index(row, offsets[O_LEADER], n)
    position = 0
    for i in range(n):  # the cards so far, in play order from the leader's row
        token = one_hot_index(row, offsets[O_TRICK] + ((leader_row + i) % n) * NUM_TOKENS, NUM_TOKENS)
        if token < 0:
            break
        trick[i] = token
        position += 1
    led = one_hot_index(row, offsets[O_LED], NUM_SUITS)
    last_to_play = position == n - 1
    weakest = best_winner = best_loser = -1  # tokens; ties keep the first in action order
    for token in range(NUM_TOKENS):
        if not legal[CARD_OFFSET + token]:
            continue
        s = strength[token]
        if weakest < 0 or s < strength[weakest]:
            weakest = token
        if position == 0:
            continue
        trick[position] = token
        led_with = led if led >= 0 or token >= NUM_SUIT_CARDS else token // NUM_RANKS
        if trick_winner_kernel(trick, position + 1, led_with) == position:
            if best_winner < 0 or (s < strength[best_winner] if last_to_play else s > strength[best_winner]):
                best_winner = token
        elif best_loser < 0 or s > strength[best_loser]:
            best_loser = token
    if weakest < 0:
        return -1
    if position == 0:  # leading: the strongest card while tricks are wanted, else the weakest
        if wanted <= 0:
            return CARD_OFFSET + weakest
        strongest = -1
        for token in range(NUM_TOKENS):
            if legal[CARD_OFFSET + token] and (strongest < 0 or strength[token] > strength[strongest]):
                strongest = token
        return CARD_OFFSET + strongest
    if wanted > 0:
        return CARD_OFFSET + (best_winner if best_winner >= 0 else weakest)
    return CARD_OFFSET + (best_loser if best_loser >= 0 else weakest)


@cross_module_kernel("pirate_envs", "agents")
def act_kernel(observations, legal, offsets, seated_players, chances, strength, out) -> None:
    """Write the heuristic's action for every row into ``out`` (``-1`` for a row with no legal action).

    ``seated_players``: the number of players of the seated layout (``0`` in the ``"max"`` layout,
    where each row's ``seat_present`` flags count them).
    """
    trick = np.empty(MAX_PLAYERS, dtype=np.int64)
    for r in range(observations.shape[0]):
        row = observations[r]
        n = seated_players
        if n == 0:
            for j in range(MAX_PLAYERS):
                if row[offsets[O_SEAT_PRESENT] + j] > 0.5:
                    n += 1
        if row[offsets[O_PHASE] + PHASE_BID] > 0.5:
            out[r] = _choose_bid(row, legal[r], offsets, n, chances)
        else:
            out[r] = _choose_card(row, legal[r], offsets, n, strength, trick)


@cross_module_kernel("pirate_envs", "agents")
def _choose_rows(act_args, games, observations, masks, out) -> int:
    """`act_kernel` for `fused_play_out` (``games`` unread: nothing is remembered of a game); counts nothing."""
    offsets, seated_players = act_args
    act_kernel(observations, masks.view(np.bool_), offsets, seated_players, CHANCES, STRENGTH, out)
    return 0


@cross_module_kernel("pirate_envs", "agents")
def rollout_kernel(state, act_args, loop):
    """Rollouts of the heuristic on the batched Skull King engine in one call (``loop``: see `fused_play_out`)."""
    return fused_play_out(step_kernel, _choose_rows, state, act_args, loop)


def _count_nothing(count: int) -> None:
    """Skull King's heuristic counts nothing in its rollouts."""


class SkullKingHeuristicBatch:
    """The Skull King heuristic for many rows at once (see the module docstring).

    Built as ``SkullKingHeuristicBatch(env, num_games, seed)``; ``env`` is a raw ``skull_king_v0``
    env of the table (its ``observation_layout`` gives the offsets).
    """

    name = "heuristic"

    def __init__(self, env: Any, num_games: int, seed: int | None = None):
        layout = env.unwrapped.observation_layout
        self.num_games = num_games
        self.observation_size = layout.size
        self.offsets = np.array([layout.piece(p).start if p in layout else -1 for p in _PIECES], dtype=np.int64)
        #: Players of the seated layout; 0 in the ``"max"`` layout (each row's ``seat_present`` says).
        self.seated_players = 0 if SEAT_PRESENT in layout else layout.piece("trick").shape[0]

    def fused_rollouts(self, venv: Any) -> FusedRollouts | None:
        """The heuristic's rollouts on ``venv`` in one compiled call (`agents.search.batched.play_out`);
        ``None`` where ``venv`` is not a batched Skull King engine of this table's layout."""
        if not isinstance(venv.kernel_state, SkullKingState) or venv.observation.shape[1] != self.observation_size:
            return None
        return FusedRollouts(rollout_kernel, (self.offsets, np.int64(self.seated_players)), _count_nothing)

    def reset_games(self, games: np.ndarray) -> None:
        """Nothing is remembered of a game."""

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(M,)`` ``int64`` actions of the heuristic for the rows (``ValueError`` for a row with no legal action)."""
        observations = np.ascontiguousarray(observations, dtype=np.float32)
        legal = np.ascontiguousarray(action_masks).astype(np.bool_, copy=False)
        rows = len(observations)
        if observations.ndim != 2 or observations.shape[1] != self.observation_size:
            raise ValueError(
                f"observations of shape {observations.shape}; expected (rows, {self.observation_size}) for this table"
            )
        if legal.shape != (rows, NUM_ACTIONS) or np.shape(games) != (rows,):
            raise ValueError(
                f"action_masks of shape {legal.shape} and games of shape {np.shape(games)}; "
                f"expected ({rows}, {NUM_ACTIONS}) and ({rows},), one per observation row"
            )
        empty = np.flatnonzero(~legal.any(axis=1))
        if empty.size:
            raise ValueError(
                f"row {int(empty[0])} of action_masks has no legal action: every row needs one "
                "(is it this agent's turn?)"
            )
        out = np.empty(rows, dtype=np.int64)
        act_kernel(observations, legal, self.offsets, self.seated_players, CHANCES, STRENGTH, out)
        return out


__all__ = ["SkullKingHeuristicBatch", "act_kernel", "rollout_kernel"]
