"""Piratenpoker for the batched engine: numba kernels that step many games held in arrays.

This module is the Piratenpoker backend of `pirate_envs.vector` (read that page first); it
imports numba, so only ``pirate_envs.vector.make`` imports it. The reference engine
(`pirate_envs.piratenpoker.engine.PiratenpokerEngine`) decides the rules; the kernels
here mirror it step by step (the bids built card by card, the reveal and its tie rules, the
three rounds, the gifts, the refills and reshuffles, the end when a stack is empty and the
``max_games`` guard), and the lockstep tests compare every observation, mask, reward and end
with the AEC env. Any difference is a bug of this module. The card tables (values, colours,
loot points, sharks, negative kinds) come from the reference modules.

Its randomness and state arrays: ``docs/guides/batched.md``, section "Piratenpoker".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pirate_envs.core.batched import (
    BatchBackend,
    SplitMix64Stream,
    check_constants,
    compile_notice,
    inline_kernel,
    kernel,
    random_below,
    reset_games,
    splitmix64_next,
    win_rewards_from_flags,
    write_outputs,
)
from pirate_envs.piratenpoker import actions as _actions
from pirate_envs.piratenpoker import cards as _cards
from pirate_envs.piratenpoker.engine import (
    BELOW_DECK_ROUND,
    LOOT_ROUND,
    NUM_PHASES,
    OVERBOARD_ROUND,
    ROUNDS_PER_GAME,
    Phase,
    PiratenpokerEngine,
)
from pirate_envs.piratenpoker.observation import build_layout, largest_layout, piece_scales
from pirate_envs.piratenpoker.rules import MAX_PLAYERS

# ----------------------------------------------------------------------------- constants (checked below)
NUM_COLOURS = 3
NUM_KINDS = 24  # poker kinds, and displayed loot kinds
NUM_FRONTS = 4
DECK_SIZE = 84
MAX_HAND = 6
BACK_SIDE = 1
COLOUR_MULTIPLIER = 2
SET_SIZE = 3
SET_BONUS = 5
ADD, COMMIT, PASS, LOOT, GIVE, KEEP, RECIPIENT, NUM_ACTIONS = 0, 24, 25, 26, 29, 38, 39, 44
PHASE_BID, PHASE_PICK_LOOT, PHASE_GIFT, PHASE_RECIPIENT, PHASE_OVER = 0, 1, 2, 3, 4
ROUND_OVERBOARD, ROUND_BELOW_DECK, ROUND_LOOT = 0, 1, 2
#: Base of a bid's strength key: card values (doubled: up to 16) are its digits.
_DIGIT = 17

_EXPECTED = {
    "cards.NUM_COLOURS": (NUM_COLOURS, _cards.NUM_COLOURS),
    "cards.NUM_POKER_KINDS": (NUM_KINDS, _cards.NUM_POKER_KINDS),
    "cards.NUM_DISPLAYED_KINDS": (NUM_KINDS, _cards.NUM_DISPLAYED_KINDS),
    "cards.NUM_FRONTS": (NUM_FRONTS, _cards.NUM_FRONTS),
    "cards.DECK_SIZE": (DECK_SIZE, _cards.DECK_SIZE),
    "cards.HAND_SIZE": (MAX_HAND, _cards.HAND_SIZE),
    "cards.BACK_SIDE": (BACK_SIDE, _cards.BACK_SIDE),
    "cards.COLOUR_MULTIPLIER": (COLOUR_MULTIPLIER, _cards.COLOUR_MULTIPLIER),
    "cards.SET_SIZE": (SET_SIZE, _cards.SET_SIZE),
    "cards.SET_BONUS": (SET_BONUS, _cards.SET_BONUS),
    "cards.MAX_VALUE": (_DIGIT - 1, _cards.MAX_VALUE * _cards.COLOUR_MULTIPLIER),
    "cards.displayed_kind": (
        [c * 2 * NUM_FRONTS + s * NUM_FRONTS + f for c in range(3) for s in range(2) for f in range(NUM_FRONTS)],
        [_cards.displayed_kind(c, s, f) for c in range(3) for s in range(2) for f in range(NUM_FRONTS)],
    ),
    "actions offsets": (
        (ADD, COMMIT, PASS, LOOT, GIVE, KEEP, RECIPIENT, NUM_ACTIONS),
        tuple(
            getattr(_actions, name)
            for name in ("ADD", "COMMIT", "PASS", "LOOT", "GIVE", "KEEP", "RECIPIENT", "NUM_ACTIONS")
        ),
    ),
    "engine.Phase": (
        (PHASE_BID, PHASE_PICK_LOOT, PHASE_GIFT, PHASE_RECIPIENT, PHASE_OVER, NUM_PHASES),
        (Phase.BID, Phase.PICK_LOOT, Phase.GIFT, Phase.RECIPIENT, Phase.OVER, 4),
    ),
    "engine rounds": (
        (ROUND_OVERBOARD, ROUND_BELOW_DECK, ROUND_LOOT, 3),
        (OVERBOARD_ROUND, BELOW_DECK_ROUND, LOOT_ROUND, ROUNDS_PER_GAME),
    ),
}
check_constants("Piratenpoker", _EXPECTED)
#: Entries of the scoring helpers' scratch ``work``: the rank keys of every seat, or one key per
#: seat followed by a bid's histogram of card values.
WORK_SIZE = max(MAX_PLAYERS * (1 + NUM_KINDS), MAX_PLAYERS + _DIGIT)

# Per-game scalar fields: columns of the ``game`` array.
(
    F_ROUND,
    F_PHASE,
    F_CURRENT,
    F_CHOOSER,
    F_PENDING,
    F_MAY_SELF,
    F_GIFTS,
    F_GAMES,
    F_LAST_WINNER,
    F_LAST_ROUND,
    F_DRAW_LEN,
    F_MOVES,
    F_SHOWN,
) = range(13)
NUM_FIELDS = 13
# Per-seat fields: the last axis of the ``seats`` array.
S_HAND_SIZE, S_BID_LEN, S_COMMITTED, S_PASSED, S_PASS_AVAILABLE, S_LAST_PASSED, S_SCORE = range(7)
NUM_SEAT_FIELDS = 7
# Options: entries of the ``options`` array handed to the kernels.
(
    C_PLAYERS,
    C_HAND_SIZE,
    C_MAX_GAMES,
    C_OVERBOARD_ANY,
    C_BELOW_DECK_GIFTS,
    C_TIED_UNDER_STACK,
    C_PASS_SITS_OUT,
    C_PASS_CAN_WIN,
    C_LOOT_PER_COLOUR,
) = range(9)
# Rule tables: rows of the ``tables`` array handed to the kernels (see ``_rule_tables``).
T_VALUE, T_COLOUR, T_POINTS, T_SHARK, T_FRONT_GROUP, T_POINT_RANK, T_NEGATIVE = range(7)
# Steps of the game flow run by ``_advance`` (the reference's chain of calls, as a loop).
DO_START_GAME, DO_START_ROUND, DO_NEXT_BIDDER = 0, 1, 2

# Observation pieces: entries of the ``offsets`` and ``scales`` arrays handed to the kernels.
_OFFSET_PIECES = (
    "hand",
    "bid",
    "own_status",
    "phase",
    "round",
    "chooser",
    "pending",
    "face_up",
    "stack_tops",
    "last_winner",
    "last_round",
    "stack_sizes",
    "stack_contents",
    "draw_size",
    "scores",
    "pass_available",
    "hand_sizes",
    "last_passed",
    "games_played",
    "discard",
    "displayed",
    "last_bids",
)
(
    O_HAND,
    O_BID,
    O_STATUS,
    O_PHASE,
    O_ROUND,
    O_CHOOSER,
    O_PENDING,
    O_FACE_UP,
    O_STACK_TOPS,
    O_LAST_WINNER,
    O_LAST_ROUND,
    O_STACK_SIZES,
    O_STACK_CONTENTS,
    O_DRAW_SIZE,
    O_SCORES,
    O_PASS_AVAILABLE,
    O_HAND_SIZES,
    O_LAST_PASSED,
    O_GAMES,
    O_DISCARD,
    O_DISPLAYED,
    O_LAST_BIDS,
) = range(len(_OFFSET_PIECES))
O_SEAT_PRESENT = len(_OFFSET_PIECES)  # -1 in the seated layout


# ----------------------------------------------------------------------------- the kernels' record
class PiratenpokerState(NamedTuple):
    """What the kernels take: the backend's attributes of these names (see ``BatchBackend.State``)."""

    options: np.ndarray
    score_scale: float
    tables: np.ndarray
    deck_cards: np.ndarray
    loot_fronts: np.ndarray
    offsets: np.ndarray
    scales: np.ndarray
    rng: np.ndarray
    start_state: np.ndarray
    before: np.ndarray
    work: np.ndarray
    game: np.ndarray
    seats: np.ndarray
    hands: np.ndarray
    bids: np.ndarray
    last_bids: np.ndarray
    discard: np.ndarray
    displayed: np.ndarray
    draw: np.ndarray
    face_up: np.ndarray
    stacks: np.ndarray
    stack_len: np.ndarray
    history: np.ndarray
    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


# ----------------------------------------------------------------------------- tables from the reference
def _rule_tables() -> np.ndarray:
    """The card tables of the reference, one row each (``T_*``), as ``int64``.

    Poker kind ``k``: ``value``, ``colour``. Displayed kind ``k``: ``points``, ``shark``,
    ``front_group`` (the index of its front value among the fronts' values, -1 for a back: sets
    of three equal fronts count colour-blind), ``point_rank`` (rank of its points among the
    distinct points, highest first: the final ranking's tie-break) and ``negative`` (the give
    actions' kinds in order, padded with -1).
    """
    points = list(_cards.DISPLAYED_POINTS)
    front_values = sorted({p for p, front in zip(points, _cards.IS_FRONT) if front})
    distinct = sorted(set(points), reverse=True)
    negative = list(_cards.NEGATIVE_KINDS) + [-1] * (NUM_KINDS - len(_cards.NEGATIVE_KINDS))
    return np.array(
        [
            _cards.KIND_VALUE,
            _cards.KIND_COLOUR,
            points,
            [int(s) for s in _cards.IS_SHARK],
            [front_values.index(p) if front else -1 for p, front in zip(points, _cards.IS_FRONT)],
            [distinct.index(p) for p in points],
            negative,
        ],
        dtype=np.int64,
    )


# ----------------------------------------------------------------------------- kernels: chance
@inline_kernel
def _shuffle(rng, i, items, length):
    """Shuffle ``items[:length]`` in place from game ``i``'s stream (as ``SplitMix64Stream.shuffle``)."""
    for j in range(length - 1, 0, -1):
        r = random_below(rng, i, j + 1)
        item = items[j]
        items[j] = items[r]
        items[r] = item


@inline_kernel
def _weighted_choice(rng, i, weights):
    """An index drawn by ``weights`` from game ``i``'s stream, as `PileHistory.sample_world` draws one (no
    draw for one weight; the uniform is the stream's top 32 bits over 2**32, as there)."""
    if weights.shape[0] == 1:
        return 0
    total = 0.0
    for k in range(weights.shape[0]):
        total += weights[k]
    target = np.float64(splitmix64_next(rng, i) >> np.uint64(32)) / 4294967296.0 * total
    cumulative = 0.0
    for k in range(weights.shape[0]):
        cumulative += weights[k]
        if target < cumulative:
            return k
    return weights.shape[0] - 1


@inline_kernel
def _lay_out(counts, items):
    """Write each index ``k`` of ``counts`` ``counts[k]`` times into ``items``, in order; how many written."""
    written = 0
    for k in range(counts.shape[0]):
        for _ in range(counts[k]):
            items[written] = k
            written += 1
    return written


@inline_kernel
def _draw_card(i, rng, game, draw, discard):
    """The top card of game ``i``'s draw pile, first refilled from the shuffled discard if empty; -1: none."""
    length = game[i, F_DRAW_LEN]
    if length == 0:
        for k in range(NUM_KINDS):
            for _ in range(discard[i, k]):
                draw[i, length] = k
                length += 1
            discard[i, k] = 0
        _shuffle(rng, i, draw[i], length)
        if length == 0:
            return -1
    length -= 1
    game[i, F_DRAW_LEN] = length
    return draw[i, length]


# ----------------------------------------------------------------------------- kernels: scoring
@inline_kernel
def _final_score(i, s, tables, displayed):
    """Seat ``s``'s total of displayed loot with the set bonuses (as ``rules.final_score``)."""
    total = 0
    sharks = 0
    for k in range(NUM_KINDS):
        count = displayed[i, s, k]
        if count:
            total += tables[T_POINTS, k] * count
            if tables[T_SHARK, k]:
                sharks += count
    sets = sharks // SET_SIZE
    for front in range(NUM_FRONTS):  # one pass per front group: no array to count them in
        in_group = 0
        for k in range(NUM_KINDS):
            if not tables[T_SHARK, k] and tables[T_FRONT_GROUP, k] == front:
                in_group += displayed[i, s, k]
        sets += in_group // SET_SIZE
    return total + SET_BONUS * sets


@inline_kernel
def _rescore(i, s, tables, seats, displayed):
    seats[i, s, S_SCORE] = _final_score(i, s, tables, displayed)


@inline_kernel
def _rank_keys(i, n, tables, seats, displayed, keys):
    """``keys[s]``: the final score, then how many loot cards of each point value, highest first."""
    keys[:] = 0
    for s in range(n):
        keys[s, 0] = seats[i, s, S_SCORE]
        for k in range(NUM_KINDS):
            keys[s, 1 + tables[T_POINT_RANK, k]] += displayed[i, s, k]


@inline_kernel
def _key_compare(keys, a, b):
    """-1, 0 or 1 as seat ``a``'s rank key is below, equal to or above seat ``b``'s (lexicographic)."""
    for j in range(keys.shape[1]):
        if keys[a, j] != keys[b, j]:
            return 1 if keys[a, j] > keys[b, j] else -1
    return 0


@inline_kernel
def _win_rewards(i, n, tables, work, seats, displayed, rewards):
    """The terminal zero-sum rewards from the final ranking (as ``rules.final_winners`` and ``win_rewards``)."""
    keys = work[: n * (1 + NUM_KINDS)].reshape((n, 1 + NUM_KINDS))
    _rank_keys(i, n, tables, seats, displayed, keys)
    best = 0
    for s in range(1, n):
        if _key_compare(keys, s, best) > 0:
            best = s
    for s in range(n):
        rewards[i, s] = 1.0 if _key_compare(keys, s, best) == 0 else 0.0
    win_rewards_from_flags(rewards, i, n)


# ----------------------------------------------------------------------------- kernels: the game flow
@inline_kernel
def _bid_key(i, s, doubled, tables, work, bids):
    """A bid's strength as one integer ordered as ``rules.bid_strength``: the total, then the values high to low."""
    histogram = work[MAX_PLAYERS : MAX_PLAYERS + _DIGIT]  # after _bid_winner's keys
    histogram[:] = 0
    total = 0
    for k in range(NUM_KINDS):
        count = bids[i, s, k]
        if count:
            value = tables[T_VALUE, k]
            if tables[T_COLOUR, k] == doubled:
                value *= COLOUR_MULTIPLIER
            histogram[value] += count
            total += value * count
    key = total
    digits = 0
    for value in range(_DIGIT - 1, 0, -1):
        for _ in range(histogram[value]):
            key = key * _DIGIT + value
            digits += 1
    for _ in range(digits, MAX_HAND):
        key *= _DIGIT
    return key


@inline_kernel
def _bid_winner(i, n, doubled, pass_can_win, tables, work, seats, bids):
    """The round's winner (as ``rules.bid_winner``): the best bid no other bid equals; -1 if none."""
    keys = work[:n]
    for s in range(n):
        keys[s] = _bid_key(i, s, doubled, tables, work, bids)
    best = -1
    for s in range(n):
        unique = True
        for t in range(n):
            if t != s and keys[t] == keys[s]:
                unique = False
        if unique and (pass_can_win or seats[i, s, S_BID_LEN] > 0) and (best < 0 or keys[s] > keys[best]):
            best = s
    return best


@inline_kernel
def _has_choice(cards_in_hand, holds_pass, options):
    """Whether a seat with these cards and Pass has a choice at his turn to bid (else he bids nothing)."""
    if options[C_PASS_SITS_OUT]:
        return holds_pass
    return cards_in_hand > 0 or holds_pass


@inline_kernel
def _put_under_stack(i, colour, face_up, stacks, stack_len):
    stacks[i, colour, stack_len[i, colour]] = face_up[i, colour]
    stack_len[i, colour] += 1
    face_up[i, colour] = -1


@inline_kernel
def _reveal(i, n, options, tables, work, game, seats, bids, last_bids, discard, displayed, face_up, stacks, stack_len):
    """Reveal every bid and act on the winner (as ``PiratenpokerEngine._reveal``); whether a new game is due."""
    rnd = game[i, F_ROUND]
    doubled = -1
    if rnd == ROUND_LOOT:
        for c in range(NUM_COLOURS - 1, -1, -1):
            if face_up[i, c] >= 0:
                doubled = c
    winner = _bid_winner(i, n, doubled, options[C_PASS_CAN_WIN], tables, work, seats, bids)
    for s in range(n):
        for k in range(NUM_KINDS):
            count = bids[i, s, k]
            last_bids[i, s, k] = count
            discard[i, k] += count
            bids[i, s, k] = 0
        seats[i, s, S_BID_LEN] = 0
        seats[i, s, S_LAST_PASSED] = seats[i, s, S_PASSED]
        seats[i, s, S_PASSED] = 0
    game[i, F_LAST_WINNER] = winner
    game[i, F_LAST_ROUND] = rnd
    if winner < 0:  # all tied: the game ends at once
        for c in range(NUM_COLOURS):
            if face_up[i, c] >= 0:
                if options[C_TIED_UNDER_STACK]:
                    _put_under_stack(i, c, face_up, stacks, stack_len)
                else:
                    face_up[i, c] = -1
        return True
    if rnd == ROUND_LOOT:
        colour = doubled
        displayed[i, winner, colour * 2 * NUM_FRONTS + face_up[i, colour]] += 1
        face_up[i, colour] = -1
        _rescore(i, winner, tables, seats, displayed)
        return True
    game[i, F_PHASE] = PHASE_PICK_LOOT
    game[i, F_CHOOSER] = winner
    game[i, F_CURRENT] = winner
    return False


@inline_kernel
def _advance(i, todo, seat, options, tables, work, rng, game, seats, hands, bids, last_bids, discard, displayed, draw,
             face_up, stacks, stack_len, terminated, truncated):  # fmt: skip
    """Run the game flow from ``todo`` (a new game, a new round, or the next bidder from ``seat``) to a decision."""
    n = options[C_PLAYERS]
    while True:
        if todo == DO_START_GAME:  # as PiratenpokerEngine._start_game
            empty = False
            for c in range(NUM_COLOURS):
                if stack_len[i, c] == 0:
                    empty = True
            if empty:
                terminated[i] = True
            elif game[i, F_GAMES] >= options[C_MAX_GAMES]:
                truncated[i] = True
            if terminated[i] or truncated[i]:
                game[i, F_PHASE] = PHASE_OVER
                return
            game[i, F_GAMES] += 1
            for s in range(n):
                while seats[i, s, S_HAND_SIZE] < options[C_HAND_SIZE]:
                    kind = _draw_card(i, rng, game, draw, discard)
                    if kind < 0:
                        break
                    hands[i, s, kind] += 1
                    seats[i, s, S_HAND_SIZE] += 1
                seats[i, s, S_PASS_AVAILABLE] = 1
            for c in range(NUM_COLOURS):
                face_up[i, c] = stacks[i, c, 0]
                length = stack_len[i, c] - 1
                for j in range(length):
                    stacks[i, c, j] = stacks[i, c, j + 1]
                stack_len[i, c] = length
            game[i, F_ROUND] = ROUND_OVERBOARD
            todo = DO_START_ROUND
        if todo == DO_START_ROUND:  # as _start_round
            game[i, F_PHASE] = PHASE_BID
            game[i, F_CHOOSER] = -1
            for s in range(n):
                seats[i, s, S_COMMITTED] = 0
            seat = 0
        for s in range(seat, n):  # as _next_bidder
            if _has_choice(seats[i, s, S_HAND_SIZE], seats[i, s, S_PASS_AVAILABLE] != 0, options):
                game[i, F_CURRENT] = s
                return
            seats[i, s, S_COMMITTED] = 1
        if not _reveal(i, n, options, tables, work, game, seats, bids, last_bids, discard, displayed, face_up, stacks,
                       stack_len):  # fmt: skip
            return
        todo = DO_START_GAME


@inline_kernel
def _offer_gift(i, options, tables, game, displayed):
    """Round 2: the winner may give a negative card while he holds one and has gifts left; whether he may."""
    game[i, F_PENDING] = -1
    if game[i, F_GIFTS] < options[C_BELOW_DECK_GIFTS]:
        chooser = game[i, F_CHOOSER]
        for j in range(NUM_KINDS):
            kind = tables[T_NEGATIVE, j]
            if kind >= 0 and displayed[i, chooser, kind] > 0:
                game[i, F_PHASE] = PHASE_GIFT
                return True
    return False


@inline_kernel
def _give(i, kind, to_self, game):
    game[i, F_PENDING] = kind
    game[i, F_MAY_SELF] = to_self
    game[i, F_PHASE] = PHASE_RECIPIENT


@inline_kernel
def _apply(i, action, options, tables, work, rng, game, seats, hands, bids, last_bids, discard, displayed, draw,
           face_up, stacks, stack_len, terminated, truncated):  # fmt: skip
    """Apply the legal ``action`` of the seat on turn in game ``i`` (as ``PiratenpokerEngine.apply``).

    Every action but a card added to a bid, which ``_add_to_bid`` applies with its outputs.
    """
    phase = game[i, F_PHASE]
    next_round = False
    if phase == PHASE_BID:
        p = game[i, F_CURRENT]
        if action == PASS:
            seats[i, p, S_PASS_AVAILABLE] = 0
            seats[i, p, S_PASSED] = 1
        seats[i, p, S_COMMITTED] = 1
        _advance(i, DO_NEXT_BIDDER, p + 1, options, tables, work, rng, game, seats, hands, bids, last_bids, discard,
                 displayed, draw, face_up, stacks, stack_len, terminated, truncated)  # fmt: skip
        return
    chooser = game[i, F_CHOOSER]
    if phase == PHASE_PICK_LOOT:
        colour = action - LOOT
        if game[i, F_ROUND] == ROUND_OVERBOARD:
            kind = colour * 2 * NUM_FRONTS + BACK_SIDE * NUM_FRONTS + face_up[i, colour]
            face_up[i, colour] = -1
            if options[C_OVERBOARD_ANY]:
                _give(i, kind, 1, game)
            elif tables[T_SHARK, kind]:  # the winner keeps a shark ...
                displayed[i, chooser, kind] += 1
                _rescore(i, chooser, tables, seats, displayed)
                next_round = True
            else:  # ... and gives a negative card to another player
                _give(i, kind, 0, game)
        else:
            _put_under_stack(i, colour, face_up, stacks, stack_len)
            game[i, F_GIFTS] = 0
            next_round = not _offer_gift(i, options, tables, game, displayed)
    elif phase == PHASE_GIFT:
        if action == KEEP:
            next_round = True
        else:
            kind = tables[T_NEGATIVE, action - GIVE]
            displayed[i, chooser, kind] -= 1
            _rescore(i, chooser, tables, seats, displayed)
            _give(i, kind, 0, game)
    else:
        target = (chooser + action - RECIPIENT) % options[C_PLAYERS]
        displayed[i, target, game[i, F_PENDING]] += 1
        _rescore(i, target, tables, seats, displayed)
        if game[i, F_ROUND] == ROUND_BELOW_DECK:
            game[i, F_GIFTS] += 1
            next_round = not _offer_gift(i, options, tables, game, displayed)
        else:
            next_round = True
    if next_round:  # as _next_round
        game[i, F_PENDING] = -1
        game[i, F_ROUND] += 1
        _advance(i, DO_START_ROUND, 0, options, tables, work, rng, game, seats, hands, bids, last_bids, discard,
                 displayed, draw, face_up, stacks, stack_len, terminated, truncated)  # fmt: skip


@inline_kernel
def _new_game(i, options, tables, work, deck_cards, loot_fronts, rng, start_state, game, seats, hands, bids, last_bids,
              discard, displayed, draw, face_up, stacks, stack_len, terminated, truncated):  # fmt: skip
    """Start a new game ``i`` (as ``PiratenpokerEngine.reset``): shuffle and deal, shuffle the loot, first game."""
    start_state[i] = rng[i]
    n = options[C_PLAYERS]
    game[i] = 0
    game[i, F_CHOOSER] = -1
    game[i, F_PENDING] = -1
    game[i, F_LAST_WINNER] = -1
    game[i, F_LAST_ROUND] = -1
    game[i, F_SHOWN] = -1
    seats[i] = 0
    hands[i] = 0
    bids[i] = 0
    last_bids[i] = 0
    discard[i] = 0
    displayed[i] = 0
    face_up[i] = -1
    terminated[i] = False
    truncated[i] = False
    for j in range(DECK_SIZE):
        draw[i, j] = deck_cards[j]
    _shuffle(rng, i, draw[i], DECK_SIZE)
    game[i, F_DRAW_LEN] = DECK_SIZE
    for s in range(n):  # deal from the top, seat 0 first
        seats[i, s, S_PASS_AVAILABLE] = 1
        for _ in range(options[C_HAND_SIZE]):
            kind = _draw_card(i, rng, game, draw, discard)
            hands[i, s, kind] += 1
            seats[i, s, S_HAND_SIZE] += 1
    size = options[C_LOOT_PER_COLOUR]
    for c in range(NUM_COLOURS):
        for j in range(size):
            stacks[i, c, j] = loot_fronts[j]
        _shuffle(rng, i, stacks[i, c], size)
        stack_len[i, c] = size
    _advance(i, DO_START_GAME, 0, options, tables, work, rng, game, seats, hands, bids, last_bids, discard, displayed,
             draw, face_up, stacks, stack_len, terminated, truncated)  # fmt: skip


# ----------------------------------------------------------------------------- kernels: outputs
@inline_kernel
def _observe(i, seat, options, offsets, scales, game, seats, hands, bids, last_bids, discard, displayed, face_up,
             stacks, stack_len, obs):  # fmt: skip
    """Write the observation vector of ``seat`` in game ``i`` (as ``observation.Encoder``).

    Offsets and scales are read into locals once: the compiler cannot tell that the writes to
    ``obs`` leave them unchanged, and would read them again after every write.
    """
    n = options[C_PLAYERS]
    vec = obs[i]
    vec[:] = 0.0
    o_hand, o_bid, o_discard = offsets[O_HAND], offsets[O_BID], offsets[O_DISCARD]
    card_scale, discard_scale = scales[O_HAND], scales[O_DISCARD]
    for k in range(NUM_KINDS):
        vec[o_hand + k] = hands[i, seat, k] * card_scale
        vec[o_bid + k] = bids[i, seat, k] * card_scale
        vec[o_discard + k] = discard[i, k] * discard_scale
    o_status = offsets[O_STATUS]
    vec[o_status] = seats[i, seat, S_PASS_AVAILABLE]
    vec[o_status + 1] = seats[i, seat, S_COMMITTED]
    vec[o_status + 2] = seats[i, seat, S_PASSED]
    phase = game[i, F_PHASE]
    if phase < NUM_PHASES:
        vec[offsets[O_PHASE] + phase] = 1.0
    vec[offsets[O_ROUND] + game[i, F_ROUND]] = 1.0
    if game[i, F_CHOOSER] >= 0:
        vec[offsets[O_CHOOSER] + (game[i, F_CHOOSER] - seat) % n] = 1.0
    if game[i, F_PENDING] >= 0:
        vec[offsets[O_PENDING] + game[i, F_PENDING]] = 1.0
    if game[i, F_LAST_WINNER] >= 0:
        vec[offsets[O_LAST_WINNER] + (game[i, F_LAST_WINNER] - seat) % n] = 1.0
    if game[i, F_LAST_ROUND] >= 0:
        vec[offsets[O_LAST_ROUND] + game[i, F_LAST_ROUND]] = 1.0
    o_face_up, o_tops, o_sizes, o_contents = (
        offsets[O_FACE_UP],
        offsets[O_STACK_TOPS],
        offsets[O_STACK_SIZES],
        offsets[O_STACK_CONTENTS],
    )
    sizes_scale, contents_scale = scales[O_STACK_SIZES], scales[O_STACK_CONTENTS]
    for c in range(NUM_COLOURS):
        if face_up[i, c] >= 0:
            vec[o_face_up + c * NUM_FRONTS + face_up[i, c]] = 1.0
        length = stack_len[i, c]
        if length:
            vec[o_tops + c * NUM_FRONTS + stacks[i, c, 0]] = 1.0
        vec[o_sizes + c] = length * sizes_scale
        contents = o_contents + c * NUM_FRONTS
        for j in range(length):
            vec[contents + stacks[i, c, j]] += 1.0
        for f in range(NUM_FRONTS):
            vec[contents + f] *= contents_scale
    vec[offsets[O_DRAW_SIZE]] = game[i, F_DRAW_LEN] * scales[O_DRAW_SIZE]
    vec[offsets[O_GAMES]] = game[i, F_GAMES] * scales[O_GAMES]
    o_scores, o_pass, o_hand_sizes, o_last_passed = (
        offsets[O_SCORES],
        offsets[O_PASS_AVAILABLE],
        offsets[O_HAND_SIZES],
        offsets[O_LAST_PASSED],
    )
    o_displayed, o_last_bids, o_present = offsets[O_DISPLAYED], offsets[O_LAST_BIDS], offsets[O_SEAT_PRESENT]
    scores_scale, hand_sizes_scale = scales[O_SCORES], scales[O_HAND_SIZES]
    displayed_scale, last_bids_scale = scales[O_DISPLAYED], scales[O_LAST_BIDS]
    for row in range(n):
        s = (seat + row) % n
        vec[o_scores + row] = seats[i, s, S_SCORE] * scores_scale
        if seats[i, s, S_PASS_AVAILABLE] or seats[i, s, S_PASSED]:
            vec[o_pass + row] = 1.0
        in_hand = seats[i, s, S_HAND_SIZE] + seats[i, s, S_BID_LEN]
        vec[o_hand_sizes + row] = in_hand * hand_sizes_scale
        vec[o_last_passed + row] = seats[i, s, S_LAST_PASSED]
        shown = o_displayed + row * NUM_KINDS
        last = o_last_bids + row * NUM_KINDS
        for k in range(NUM_KINDS):
            vec[shown + k] = displayed[i, s, k] * displayed_scale
            vec[last + k] = last_bids[i, s, k] * last_bids_scale
        if o_present >= 0:
            vec[o_present + row] = 1.0


@inline_kernel
def _write_mask(i, options, tables, game, seats, hands, displayed, face_up, mask):
    """Write the legal actions of the seat on turn in game ``i`` (as ``PiratenpokerEngine.legal_mask``)."""
    row = mask[i]
    row[:] = 0
    phase = game[i, F_PHASE]
    if phase == PHASE_BID:
        p = game[i, F_CURRENT]
        for k in range(NUM_KINDS):
            if hands[i, p, k] > 0:
                row[ADD + k] = 1
        if seats[i, p, S_BID_LEN] > 0:
            row[COMMIT] = 1
        elif seats[i, p, S_PASS_AVAILABLE]:
            row[PASS] = 1
    elif phase == PHASE_PICK_LOOT:
        for c in range(NUM_COLOURS):
            if face_up[i, c] >= 0:
                row[LOOT + c] = 1
    elif phase == PHASE_GIFT:
        chooser = game[i, F_CHOOSER]
        for j in range(KEEP - GIVE):
            if displayed[i, chooser, tables[T_NEGATIVE, j]] > 0:
                row[GIVE + j] = 1
        row[KEEP] = 1
    elif phase == PHASE_RECIPIENT:
        for r in range(1, options[C_PLAYERS]):
            row[RECIPIENT + r] = 1
        row[RECIPIENT] = game[i, F_MAY_SELF]


@inline_kernel
def _rewards(i, n, score_scale, before, tables, work, seats, displayed, rewards, terminated):
    """Game ``i``'s rewards of this step: score changes (score mode) or the terminal win rewards."""
    if score_scale > 0.0:
        for s in range(n):
            rewards[i, s] = (seats[i, s, S_SCORE] - before[s]) * score_scale
    elif terminated[i]:
        _win_rewards(i, n, tables, work, seats, displayed, rewards)


@inline_kernel
def _add_to_bid(i, kind, offsets, scales, game, seats, hands, bids, obs, mask):
    """Bid one card of ``kind`` from the hand of the seat on turn, and update the outputs in place.

    The seat stays on turn, its hand size (hand and bid) and everything else it sees stay as they
    were: only these two counts of its observation and three entries of its mask change, so the
    rest of ``_output`` is not rewritten.
    """
    p = game[i, F_CURRENT]
    hands[i, p, kind] -= 1
    bids[i, p, kind] += 1
    seats[i, p, S_HAND_SIZE] -= 1
    seats[i, p, S_BID_LEN] += 1
    obs[i, offsets[O_HAND] + kind] = hands[i, p, kind] * scales[O_HAND]
    obs[i, offsets[O_BID] + kind] = bids[i, p, kind] * scales[O_HAND]
    mask[i, ADD + kind] = 1 if hands[i, p, kind] > 0 else 0
    mask[i, COMMIT] = 1
    mask[i, PASS] = 0


@inline_kernel
def _output(i, options, tables, offsets, scales, game, seats, hands, bids, last_bids, discard, displayed, face_up,
            stacks, stack_len, obs, mask, shown):  # fmt: skip
    """Game ``i``'s observation, mask and shown seat (the last mover once over, else the seat on turn)."""
    seat = game[i, F_CURRENT]
    if game[i, F_PHASE] == PHASE_OVER and game[i, F_SHOWN] >= 0:
        seat = game[i, F_SHOWN]
    shown[i] = seat
    _observe(i, seat, options, offsets, scales, game, seats, hands, bids, last_bids, discard, displayed, face_up,
             stacks, stack_len, obs)  # fmt: skip
    _write_mask(i, options, tables, game, seats, hands, displayed, face_up, mask)


# ----------------------------------------------------------------------------- batch kernels
@inline_kernel
def _start(i, st):
    """The driver's new-game step (``core.batched.reset_games``): `_new_game` on the record's arrays."""
    _new_game(i, st.options, st.tables, st.work, st.deck_cards, st.loot_fronts, st.rng, st.start_state, st.game,
              st.seats, st.hands, st.bids, st.last_bids, st.discard, st.displayed, st.draw, st.face_up, st.stacks,
              st.stack_len, st.terminated, st.truncated)  # fmt: skip


@inline_kernel
def _write(i, st):
    """The driver's output step: `_output` on the record's arrays."""
    _output(i, st.options, st.tables, st.offsets, st.scales, st.game, st.seats, st.hands, st.bids, st.last_bids,
            st.discard, st.displayed, st.face_up, st.stacks, st.stack_len, st.observation, st.action_mask,
            st.current_player)  # fmt: skip


@kernel
def reset_kernel(st):
    """Start a new game in every slot and write the outputs."""
    reset_games(st, _start, _write)


@kernel
def step_kernel(actions, st):
    """Apply one (checked, legal) action per game; a game that ended on the last step starts anew instead.

    A negative action: the game waits (nothing of it changes; its rewards row is zero). The loop is
    ``core.batched.step_games``'s, written out: through the driver (its steps taking the record,
    or the record's arrays) the step ran 6-10% slower at 3-5 players, with the same code but for
    the compiler's choices (more spills); with the arrays unpacked once here, it runs as fast as
    the kernel before the record.
    """
    options, score_scale, tables, deck_cards, loot_fronts, offsets, scales, rng, start_state = (
        st.options, st.score_scale, st.tables, st.deck_cards, st.loot_fronts, st.offsets, st.scales, st.rng,
        st.start_state)  # fmt: skip
    before, work, game, seats, hands, bids, last_bids, discard, displayed, draw, face_up, stacks, stack_len = (
        st.before, st.work, st.game, st.seats, st.hands, st.bids, st.last_bids, st.discard, st.displayed, st.draw,
        st.face_up, st.stacks, st.stack_len)  # fmt: skip
    history, obs, mask, shown, rewards, terminated, truncated = (
        st.history,
        st.observation,
        st.action_mask,
        st.current_player,
        st.rewards,
        st.terminated,
        st.truncated,
    )
    n = options[C_PLAYERS]
    capacity = history.shape[1]
    for i in range(game.shape[0]):
        rewards[i] = 0.0
        action = actions[i]
        if action < 0:  # waits
            continue
        if terminated[i] or truncated[i]:
            _new_game(i, options, tables, work, deck_cards, loot_fronts, rng, start_state, game, seats, hands, bids,
                      last_bids, discard, displayed, draw, face_up, stacks, stack_len, terminated,
                      truncated)  # fmt: skip
        else:
            for s in range(n):
                before[s] = seats[i, s, S_SCORE]
            moves = game[i, F_MOVES]
            if moves < capacity:
                history[i, moves] = action
            game[i, F_MOVES] = moves + 1
            game[i, F_SHOWN] = game[i, F_CURRENT]
            if game[i, F_PHASE] == PHASE_BID and action < COMMIT:  # most moves: the same seat bids on
                _add_to_bid(i, action, offsets, scales, game, seats, hands, bids, obs, mask)
                continue
            _apply(i, action, options, tables, work, rng, game, seats, hands, bids, last_bids, discard, displayed, draw,
                   face_up, stacks, stack_len, terminated, truncated)  # fmt: skip
            _rewards(i, n, score_scale, before, tables, work, seats, displayed, rewards, terminated)
        _output(i, options, tables, offsets, scales, game, seats, hands, bids, last_bids, discard, displayed,
                face_up, stacks, stack_len, obs, mask, shown)  # fmt: skip


@kernel
def outputs_kernel(rows, st):
    """Write the outputs of the games ``rows`` (after a load)."""
    write_outputs(rows, st, _write)


@kernel
def redraw_kernel(rows, seat, states, choices, choice_count, weights, unseen, held, known_bottom, st, pool, dealt,
                  fronts):  # fmt: skip
    """Redraw in games ``rows`` what ``seat`` cannot see, given the pile attributions each row may take
    (see `PiratenpokerBatch.redraw_hidden`, which checks that the attributions fit the rows).

    Row ``rows[r]`` draws one of the attributions ``choices[r] .. choices[r] + choice_count[r] - 1`` by their
    ``weights`` from its stream (seeded ``states[r]``; no draw where there is one), as
    `PileHistory.sample_world` draws its last: attribution ``w`` gives ``unseen[w, p]``, the cards of
    pile ``p`` the seat has not seen (per kind), and ``held[w, p, s]``, how many of them seat ``s``
    holds; the last pile's rest is the draw pile. ``known_bottom[r, c]``: the cards seen going under
    stack ``c``. ``pool``: a deck-sized scratch; ``dealt``: a ``(players, kinds)`` one; ``fronts``: one
    count per loot front.
    """
    options, game, seats, hands, bids, draw, stacks, stack_len, rng = (
        st.options, st.game, st.seats, st.hands, st.bids, st.draw, st.stacks, st.stack_len, st.rng)  # fmt: skip
    n = options[C_PLAYERS]
    piles = unseen.shape[1]
    for r in range(rows.shape[0]):
        i = rows[r]
        rng[i] = states[r]
        w = choices[r] + _weighted_choice(rng, i, weights[choices[r] : choices[r] + choice_count[r]])
        current, bidding = game[i, F_CURRENT], game[i, F_PHASE] == PHASE_BID
        dealt[:] = 0
        for p in range(piles):  # each pile's unseen cards shuffled and dealt back, as many to each seat as he holds
            count = _lay_out(unseen[w, p], pool)
            _shuffle(rng, i, pool, count)
            for s in range(n):
                if s == seat:
                    continue
                for _ in range(held[w, p, s]):
                    count -= 1
                    dealt[s, pool[count]] += 1
            if p == piles - 1:  # the rest of the current pile is the draw pile
                for j in range(count):
                    draw[i, j] = pool[j]
        for s in range(n):
            if s == seat:
                continue
            in_hand = seats[i, s, S_HAND_SIZE] + seats[i, s, S_BID_LEN]
            size = seats[i, s, S_BID_LEN]
            if bidding:  # his hidden choice of this round, within what is public
                held_pass = seats[i, s, S_PASS_AVAILABLE] != 0 or seats[i, s, S_PASSED] != 0
                if s == current and seats[i, s, S_COMMITTED] == 0:  # building his bid: 0..all cards so far
                    size = random_below(rng, i, in_hand + 1)
                elif seats[i, s, S_COMMITTED] == 0 or not _has_choice(in_hand, held_pass, options):
                    size = 0
                else:  # 0: the Pass
                    low = 0 if held_pass else 1
                    size = low + random_below(rng, i, in_hand + 1 - low)
                    seats[i, s, S_PASSED] = 1 if size == 0 else 0
                    seats[i, s, S_PASS_AVAILABLE] = 1 if held_pass and size > 0 else 0
            count = _lay_out(dealt[s], pool)
            _shuffle(rng, i, pool, count)
            hands[i, s, :] = 0
            bids[i, s, :] = 0
            for j in range(count):
                if j < size:
                    bids[i, s, pool[j]] += 1
                else:
                    hands[i, s, pool[j]] += 1
            seats[i, s, S_BID_LEN] = size
            seats[i, s, S_HAND_SIZE] = in_hand - size
        for c in range(NUM_COLOURS):  # the top card's back is face up; the cards seen going under stay
            hidden_end = stack_len[i, c] - known_bottom[r, c]
            if hidden_end > 2:  # blind to the true order: the hidden cards laid out by front first, then shuffled
                fronts[:] = 0
                for j in range(1, hidden_end):
                    fronts[stacks[i, c, j]] += 1
                _lay_out(fronts, stacks[i, c, 1:hidden_end])
                _shuffle(rng, i, stacks[i, c, 1:hidden_end], hidden_end - 1)
        _write(i, st)


# ----------------------------------------------------------------------------- the backend
class PiratenpokerBatch(BatchBackend):
    """The state arrays of ``num_envs`` Piratenpoker games and the kernels that step them (see ``BatchBackend``)."""

    ENGINE = PiratenpokerEngine
    NUM_ACTIONS = NUM_ACTIONS
    MAX_PLAYERS = MAX_PLAYERS
    OFFSET_PIECES = _OFFSET_PIECES
    MOVES_FIELD = F_MOVES
    build_layout = staticmethod(build_layout)
    largest_layout = staticmethod(largest_layout)
    State = PiratenpokerState
    reset_kernel = staticmethod(reset_kernel)
    step_kernel = staticmethod(step_kernel)
    outputs_kernel = staticmethod(outputs_kernel)
    ROW_ARRAYS = (
        "seats", "hands", "bids", "last_bids", "discard", "displayed", "draw", "face_up", "stacks", "stack_len",
    )  # fmt: skip
    #: Moves kept per game (a random episode of the default game takes a few hundred moves).
    HISTORY_SIZE = 8192

    def _allocate(self) -> None:
        num, n, config, seated = self.num_envs, self.num_players, self.config, self.seated_layout
        if config.poker_copies != _cards.DEFAULT_POKER_COPIES:
            raise ValueError(f"poker_copies={config.poker_copies}: the batched engine plays the full deck only")
        seated_scales = piece_scales(seated, config)
        # every piece has one scale (checked): the reference's factor of its first index
        self.scales = np.array([seated_scales[seated.piece(name).start] for name in _OFFSET_PIECES], dtype=np.float32)
        for name, scale in zip(_OFFSET_PIECES, self.scales):
            if not (seated_scales[seated[name]] == scale).all():
                raise RuntimeError(f"observation piece {name!r} has more than one scale: update the batched kernels")
        self.options = np.array(
            [
                n,
                config.hand_size,
                config.max_games,
                config.overboard_gift == "any",
                config.below_deck_gifts,
                config.all_tied_loot == "under_stack",
                config.pass_sits_out,
                config.pass_can_win,
                len(config.loot_fronts),
            ],
            dtype=np.int64,
        )
        self.tables = _rule_tables()
        self.deck_cards = np.repeat(np.arange(NUM_KINDS), _cards.DECK_COUNTS).astype(np.int8)
        self.loot_fronts = np.array([_cards.FRONT_INDEX[f] for f in config.loot_fronts], dtype=np.int8)
        loot = len(config.loot_fronts)
        self.game = np.zeros((num, NUM_FIELDS), dtype=np.int64)
        self.seats = np.zeros((num, n, NUM_SEAT_FIELDS), dtype=np.int64)
        self.hands = np.zeros((num, n, NUM_KINDS), dtype=np.int8)
        self.bids = np.zeros((num, n, NUM_KINDS), dtype=np.int8)
        self.last_bids = np.zeros((num, n, NUM_KINDS), dtype=np.int8)
        self.discard = np.zeros((num, NUM_KINDS), dtype=np.int8)
        self.displayed = np.zeros((num, n, NUM_KINDS), dtype=np.int8)  # at most 3 x 20 loot cards
        self.draw = np.zeros((num, DECK_SIZE), dtype=np.int8)
        self.face_up = np.zeros((num, NUM_COLOURS), dtype=np.int8)
        self.stacks = np.zeros((num, NUM_COLOURS, loot), dtype=np.int8)
        self.stack_len = np.zeros((num, NUM_COLOURS), dtype=np.int64)
        self.history = np.zeros((num, self.HISTORY_SIZE), dtype=np.int8)
        # the kernels' scratch (they allocate nothing): the scores before a step, and the rank keys and
        # bid histograms of the scoring helpers
        self.before = np.zeros(n, dtype=np.int64)
        self.work = np.zeros(WORK_SIZE, dtype=np.int64)
        self.redraw_pool = np.zeros(DECK_SIZE, dtype=np.int8)  # redraw_kernel's scratch
        self.redraw_dealt = np.zeros((n, NUM_KINDS), dtype=np.int64)
        self.redraw_fronts = np.zeros(NUM_FRONTS, dtype=np.int64)

    def redraw_hidden(self, rows: np.ndarray, seat: int, seeds: np.ndarray) -> np.ndarray:
        """Redraw what ``seat`` cannot see, as the reference engine's ``resample_hidden`` does.

        Which pile each of the others' cards came from is weighed from the pile history, which
        the kernels do not keep: a row's engine is the one it was loaded from while it has not
        moved since, else its start with its moves replayed (`start_engine`; a row redrawn before
        has neither: ``RuntimeError``). Per engine, the attributions the history leaves the seat are
        weighed in Python (`PileHistory.final_attributions`, the end of `PileHistory.sample_world`'s
        forward pass, cached); per row, the kernel draws one by its weight from the row's stream
        (the cards each seat revealed from each pile, which the rest of `sample_world` draws, are
        not needed here), then deals each pile's unseen cards back, as many to each other seat as the attribution
        leaves him, the rest of the current pile to the draw pile; splits each seat's cards into
        hand and bid (while bidding, the bid's size and the Pass redrawn within what is public);
        and shuffles the hidden part of each loot stack. Always succeeds.
        """
        n = self.num_players
        engines = [self._position_engine(row) for row in rows.tolist()]
        tables: dict[int, int] = {}  # id(engine) -> its table of attributions (copies of a row share one)
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        table_of = np.zeros(len(rows), dtype=np.int64)
        first_row: list[int] = []
        for r, engine in enumerate(engines):
            if id(engine) not in tables:
                tables[id(engine)] = len(parts)
                parts.append(engine.piles.final_attributions(seat))
                first_row.append(int(rows[r]))
            table_of[r] = tables[id(engine)]
        piles = max(part[0].shape[1] for part in parts)
        sizes = np.array([len(part[2]) for part in parts], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        unseen = np.zeros((int(sizes.sum()), piles, NUM_KINDS), dtype=np.int64)
        held = np.zeros((int(sizes.sum()), piles, n), dtype=np.int64)
        for (part_unseen, part_held, _), start, size in zip(parts, starts, sizes):  # padded in front: the last
            unseen[start : start + size, piles - part_unseen.shape[1] :] = part_unseen  # pile is every world's
            held[start : start + size, piles - part_held.shape[1] :] = part_held  # current one
        weights = np.concatenate([part[2] for part in parts])
        self._check_attributions(np.repeat(first_row, sizes), seat, unseen, held)
        states = np.asarray(seeds, dtype=np.uint64).copy()
        known_bottom = np.array([engine.known_bottom for engine in engines], dtype=np.int64)
        with compile_notice("the batched piratenpoker engine's redraw kernel", redraw_kernel):
            redraw_kernel(rows, seat, states, starts[table_of], sizes[table_of], weights, unseen, held, known_bottom,
                          self.state, self.redraw_pool, self.redraw_dealt, self.redraw_fronts)  # fmt: skip
        self.redrawn.update(rows.tolist())
        return np.zeros(len(rows), dtype=np.bool_)

    def _position_engine(self, row: int) -> PiratenpokerEngine:
        """An engine at game ``row``'s position (its pile history included): see `redraw_hidden`."""
        if row in self.redrawn:
            raise RuntimeError(
                f"game {row}'s hidden cards were redrawn already: no engine holds the history of its piles; "
                "redraw copies of a game loaded or played in the batch"
            )
        loaded = self.loaded.get(row)
        if loaded is not None and self.game[row, F_MOVES] == 0:
            return loaded
        engine = self.start_engine(row)
        for action in self.moves(row):
            engine.apply(action)
        return engine

    def _check_attributions(self, rows: np.ndarray, seat: int, unseen: np.ndarray, held: np.ndarray) -> None:
        """``RuntimeError`` unless each row's attribution deals every other seat his cards and the draw pile its."""
        others = np.arange(self.num_players) != seat
        in_hand = self.seats[rows, :, S_HAND_SIZE] + self.seats[rows, :, S_BID_LEN]
        rest = unseen[:, -1].sum(axis=1) - held[:, -1][:, others].sum(axis=1)
        fits = (held.sum(axis=1)[:, others] == in_hand[:, others]).all(axis=1) & (rest == self.game[rows, F_DRAW_LEN])
        if not fits.all():
            row = int(rows[np.flatnonzero(~fits)[0]])
            raise RuntimeError(f"game {row}: the pile history of its engine does not fit its cards (a bug)")

    def load_row(self, index: int, engine: PiratenpokerEngine, stream: SplitMix64Stream) -> None:
        """Write ``engine``'s episode into game ``index`` (nothing is drawn ahead: ``stream`` is left as it is).

        The draw pile keeps its order (a reshuffle draws from the row's stream); what only the
        engine's ``resample_hidden`` needs (the history of the draw piles, the cards seen going
        under a stack) is not kept by the kernels.
        """
        game = self.game[index]
        game[F_ROUND], game[F_PHASE], game[F_CURRENT] = engine.round, int(engine.phase), engine.current_player
        game[F_CHOOSER], game[F_PENDING], game[F_MAY_SELF] = engine.chooser, engine.pending, engine.may_give_to_self
        game[F_GIFTS], game[F_GAMES] = engine.gifts, engine.games_played
        game[F_LAST_WINNER], game[F_LAST_ROUND] = engine.last_winner, engine.last_round
        game[F_DRAW_LEN], game[F_SHOWN] = len(engine.draw), -1
        seats = self.seats[index]
        seats[:, S_HAND_SIZE] = engine.hand_size
        seats[:, S_BID_LEN] = [len(bid) for bid in engine.bid_names]
        seats[:, S_COMMITTED], seats[:, S_PASSED] = engine.committed, engine.passed
        seats[:, S_PASS_AVAILABLE], seats[:, S_LAST_PASSED] = engine.pass_available, engine.last_passed
        seats[:, S_SCORE] = engine.scores()
        self.hands[index] = engine.hands
        self.bids[index] = engine.bids
        self.last_bids[index] = engine.last_bids
        self.discard[index] = engine.discard
        self.displayed[index] = engine.displayed
        self.draw[index] = 0
        self.draw[index, : len(engine.draw)] = engine.draw
        self.face_up[index] = engine.face_up
        self.stacks[index] = 0
        for colour, stack in enumerate(engine.stacks):
            self.stacks[index, colour, : len(stack)] = stack
        self.stack_len[index] = [len(stack) for stack in engine.stacks]

    def reference_engine(self, index: int) -> PiratenpokerEngine:
        """A reference engine at the start of game ``index``; every ``reset`` starts it again (stream pinned)."""
        engine = PiratenpokerEngine(self.config)
        engine.pinned_chance = SplitMix64Stream(int(self.start_state[index]))
        engine.reset(engine.pinned_chance)
        return engine


__all__ = ["PiratenpokerBatch"]
