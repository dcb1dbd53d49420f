"""Skull King for the batched engine: numba kernels that step many games held in arrays.

This module is the Skull King backend of `pirate_envs.vector` (read that page first); it
imports numba, so only ``pirate_envs.vector.make`` imports it. The reference engine
(`pirate_envs.skull_king.engine.SkullKingEngine`) decides the rules; the kernels here
mirror it step for step, and the lockstep tests play both on the same deals and compare every
observation, mask, reward and end. Any difference is a bug of this module.

Its randomness and state arrays: ``docs/guides/batched.md``, section "Skull King".
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from pirate_envs.core.batched import (
    BatchBackend,
    SplitMix64Stream,
    check_constants,
    compile_notice,
    inline_kernel,
    kernel,
    partial_shuffle,
    random_below,
    reset_games,
    shuffle_kernel,
    step_games,
    win_rewards_from_flags,
    write_outputs,
)
from pirate_envs.skull_king import actions as _actions
from pirate_envs.skull_king import cards as _cards
from pirate_envs.skull_king import rules as _rules
from pirate_envs.skull_king.engine import Phase, SkullKingEngine
from pirate_envs.skull_king.observation import SCORE_OBS_SCALE, TRICKS_OBS_SCALE, build_layout, largest_layout
from pirate_envs.skull_king.rules import MAX_PLAYERS

# ----------------------------------------------------------------------------- constants (checked below)
NUM_SUITS = 4
NUM_RANKS = 13
NUM_SUIT_CARDS = 52
TRUMP_SUIT = 3
ESCAPE = 52
PIRATE = 53
MERMAID = 54
SKULL_KING = 55
SCARY_MARY = 56
NUM_KINDS = 57
MARY_PIRATE = 56
MARY_ESCAPE = 57
NUM_TOKENS = 58
DECK_SIZE = 66
BID_OFFSET = 0
CARD_OFFSET = 11
MAX_BID = 10
NUM_ACTIONS = 69
PHASE_BID, PHASE_PLAY, PHASE_DONE = 0, 1, 2
POINTS_PER_TRICK_BID = 20
PENALTY_PER_TRICK_MISSED = 10
ZERO_BID_POINTS_PER_HAND = 10
PIRATE_CAUGHT_BONUS = 30
SKULL_KING_CAUGHT_BONUS = 50

_EXPECTED = {
    "cards.NUM_SUITS": (NUM_SUITS, _cards.NUM_SUITS),
    "cards.NUM_RANKS": (NUM_RANKS, _cards.NUM_RANKS),
    "cards.NUM_SUIT_CARDS": (NUM_SUIT_CARDS, _cards.NUM_SUIT_CARDS),
    "cards.TRUMP_SUIT": (TRUMP_SUIT, _cards.TRUMP_SUIT),
    "cards.ESCAPE": (ESCAPE, _cards.ESCAPE),
    "cards.PIRATE": (PIRATE, _cards.PIRATE),
    "cards.MERMAID": (MERMAID, _cards.MERMAID),
    "cards.SKULL_KING": (SKULL_KING, _cards.SKULL_KING),
    "cards.SCARY_MARY": (SCARY_MARY, _cards.SCARY_MARY),
    "cards.NUM_KINDS": (NUM_KINDS, _cards.NUM_KINDS),
    "cards.MARY_PIRATE": (MARY_PIRATE, _cards.MARY_PIRATE),
    "cards.MARY_ESCAPE": (MARY_ESCAPE, _cards.MARY_ESCAPE),
    "cards.NUM_TOKENS": (NUM_TOKENS, _cards.NUM_TOKENS),
    "cards.DECK_SIZE": (DECK_SIZE, _cards.DECK_SIZE),
    "cards.NO_SUIT": (-1, _cards.NO_SUIT),
    "cards.BONUS_PIRATE_TOKENS": ({PIRATE, MARY_PIRATE, MARY_ESCAPE}, set(_cards.BONUS_PIRATE_TOKENS)),
    "cards.KIND_OF_TOKEN": (list(range(NUM_KINDS)) + [SCARY_MARY], _cards.KIND_OF_TOKEN.tolist()),
    "actions.BID_OFFSET": (BID_OFFSET, _actions.BID_OFFSET),
    "actions.CARD_OFFSET": (CARD_OFFSET, _actions.CARD_OFFSET),
    "actions.MAX_BID": (MAX_BID, _actions.MAX_BID),
    "actions.NUM_ACTIONS": (NUM_ACTIONS, _actions.NUM_ACTIONS),
    "engine.Phase": ((PHASE_BID, PHASE_PLAY, PHASE_DONE), (Phase.BID, Phase.PLAY, Phase.DONE)),
    "rules.POINTS_PER_TRICK_BID": (POINTS_PER_TRICK_BID, _rules.POINTS_PER_TRICK_BID),
    "rules.PENALTY_PER_TRICK_MISSED": (PENALTY_PER_TRICK_MISSED, _rules.PENALTY_PER_TRICK_MISSED),
    "rules.ZERO_BID_POINTS_PER_HAND": (ZERO_BID_POINTS_PER_HAND, _rules.ZERO_BID_POINTS_PER_HAND),
    "rules.PIRATE_CAUGHT_BONUS": (PIRATE_CAUGHT_BONUS, _rules.PIRATE_CAUGHT_BONUS),
    "rules.SKULL_KING_CAUGHT_BONUS": (SKULL_KING_CAUGHT_BONUS, _rules.SKULL_KING_CAUGHT_BONUS),
}
check_constants("Skull King", _EXPECTED)

# Per-game scalar fields: columns of the ``game`` array.
F_HAND, F_PHASE, F_DEALER, F_LEADER, F_CURRENT, F_LED, F_TRICK_LEN, F_TRICKS_DONE, F_MOVES, F_SHOWN = range(10)
NUM_FIELDS = 10
# Per-seat fields: the last axis of the ``seats`` array.
S_BID, S_TRICKS, S_BONUS, S_SCORE = range(4)
NUM_SEAT_FIELDS = 4

# Observation offsets: entries of the ``offsets`` array handed to the kernels (from the layout).
_OFFSET_PIECES = (
    "hand",
    "played",
    "trick",
    "led_suit",
    "leader",
    "tricks_won",
    "voids",
    "hand_number",
    "phase",
    "dealer",
    "bids",
    "bids_revealed",
    "scores",
    "hands_left",
)
(
    O_HAND,
    O_PLAYED,
    O_TRICK,
    O_LED,
    O_LEADER,
    O_TRICKS,
    O_VOIDS,
    O_HAND_NUMBER,
    O_PHASE,
    O_DEALER,
    O_BIDS,
    O_REVEALED,
    O_SCORES,
    O_HANDS_LEFT,
) = range(len(_OFFSET_PIECES))
#: ``offsets[O_SEAT_PRESENT]``: the ``seat_present`` piece of ``table_layout="max"`` (-1: the seated layout).
O_SEAT_PRESENT = len(_OFFSET_PIECES)


# ----------------------------------------------------------------------------- rules (mirroring rules.py)
@inline_kernel
def _highest_of_suit(trick: np.ndarray, length: int, suit: int) -> int:
    """Index of the highest card of ``suit`` in ``trick[:length]``, or -1 if it holds none."""
    best = -1
    best_token = -1
    for j in range(length):
        t = trick[j]
        if t < NUM_SUIT_CARDS and t // NUM_RANKS == suit and t > best_token:
            best = j
            best_token = t
    return best


@kernel
def trick_winner_kernel(trick: np.ndarray, length: int, led: int) -> int:
    """Index in play order of the winning token of ``trick[:length]`` (as ``rules.winner_of_tokens``)."""
    king = -1
    mermaid = -1
    pirate = -1
    for j in range(length):
        t = trick[j]
        if t == SKULL_KING and king < 0:
            king = j
        elif t == MERMAID and mermaid < 0:
            mermaid = j
        elif (t == PIRATE or t == MARY_PIRATE) and pirate < 0:  # noqa: SIM109 (plain compares compile best)
            pirate = j
    if king >= 0:
        return mermaid if mermaid >= 0 else king
    if pirate >= 0:
        return pirate
    if mermaid >= 0:
        return mermaid
    best = _highest_of_suit(trick, length, TRUMP_SUIT)
    if best < 0 and led >= 0:
        best = _highest_of_suit(trick, length, led)
    if best >= 0:
        return best
    return 0


@kernel
def trick_bonus_kernel(trick: np.ndarray, length: int) -> int:
    """The bonus earned by the winner of ``trick[:length]`` (as ``rules.bonus_of_tokens``)."""
    king = False
    mermaid = False
    pirates = 0
    for j in range(length):
        t = trick[j]
        if t == SKULL_KING:
            king = True
        elif t == MERMAID:
            mermaid = True
        elif t == PIRATE or t == MARY_PIRATE or t == MARY_ESCAPE:  # noqa: SIM109
            pirates += 1
    if not king:
        return 0
    if mermaid:
        return SKULL_KING_CAUGHT_BONUS
    return PIRATE_CAUGHT_BONUS * pirates


@kernel
def hand_score_kernel(bid: int, tricks: int, hand_number: int, bonus: int) -> int:
    """One seat's score for a hand (as ``rules.hand_score``, without its argument checks)."""
    if bid == 0:
        points = ZERO_BID_POINTS_PER_HAND * hand_number
        return points if tricks == 0 else -points
    if tricks == bid:
        return POINTS_PER_TRICK_BID * bid + bonus
    return -PENALTY_PER_TRICK_MISSED * abs(tricks - bid)


# ----------------------------------------------------------------------------- the kernels' record
class SkullKingState(NamedTuple):
    """What the kernels take: the backend's attributes of these names (see ``BatchBackend.State``)."""

    num_players: int
    num_hands: int
    first_dealer: int
    score_scale: float
    offsets: np.ndarray
    scales: np.ndarray
    deck: np.ndarray
    scratch: np.ndarray
    rng: np.ndarray
    game: np.ndarray
    seats: np.ndarray
    hands: np.ndarray
    played: np.ndarray
    trick: np.ndarray
    voids: np.ndarray
    deals: np.ndarray
    history: np.ndarray
    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


# ----------------------------------------------------------------------------- game transitions
@inline_kernel
def _start_hand(i, k, st):
    """Deal hand ``k`` of game ``i`` from its pre-dealt cards and ask for bids left of the dealer."""
    n, game, seats, hands, deals = st.num_players, st.game, st.seats, st.hands, st.deals
    game[i, F_HAND] = k
    dealer = (st.first_dealer + k - 1) % n
    game[i, F_DEALER] = dealer
    leader = (dealer + 1) % n
    game[i, F_LEADER] = leader
    game[i, F_CURRENT] = leader
    game[i, F_PHASE] = PHASE_BID
    game[i, F_LED] = -1
    game[i, F_TRICK_LEN] = 0
    game[i, F_TRICKS_DONE] = 0
    hands[i] = 0
    st.played[i] = 0
    st.voids[i] = 0
    for s in range(n):
        seats[i, s, S_BID] = -1
        seats[i, s, S_TRICKS] = 0
        seats[i, s, S_BONUS] = 0
        for j in range(k):
            hands[i, s, deals[i, k - 1, s * k + j]] += 1


@inline_kernel
def _deal_hand(i, k, st):
    """Deal hand ``k`` of game ``i`` into ``deals[i, k - 1]``: ``n * k`` cards of a fresh deck (a partial shuffle)."""
    deck, scratch = st.deck, st.scratch
    size = deck.shape[0]  # the config's deck (a short deck has fewer cards)
    for j in range(size):
        scratch[j] = deck[j]
    dealt = st.num_players * k
    partial_shuffle(st.rng, i, scratch, size, dealt)
    for j in range(dealt):
        st.deals[i, k - 1, j] = scratch[j]


@inline_kernel
def _new_game(i, st):
    """Deal every hand of a new game ``i`` (partial Fisher-Yates shuffles of the deck) and start hand 1."""
    n = st.num_players
    for k in range(1, st.num_hands + 1):
        _deal_hand(i, k, st)
    for s in range(n):
        st.seats[i, s, S_SCORE] = 0
    st.game[i, F_MOVES] = 0
    st.game[i, F_SHOWN] = -1
    _start_hand(i, 1, st)


@inline_kernel
def _settle_hand(i, st):
    """Score the hand; deal the next one or end the game (``terminated``)."""
    n, score_scale, game, seats, rewards = st.num_players, st.score_scale, st.game, st.seats, st.rewards
    k = game[i, F_HAND]
    for s in range(n):
        points = hand_score_kernel(seats[i, s, S_BID], seats[i, s, S_TRICKS], k, seats[i, s, S_BONUS])
        seats[i, s, S_SCORE] += points
        if score_scale > 0.0:
            rewards[i, s] = points * score_scale
    if k < st.num_hands:
        _start_hand(i, k + 1, st)
        return
    game[i, F_PHASE] = PHASE_DONE
    st.terminated[i] = True
    if score_scale <= 0.0:  # win mode: zero-sum terminal rewards (as core.rewards.win_rewards)
        best = seats[i, 0, S_SCORE]
        for s in range(1, n):
            best = max(best, seats[i, s, S_SCORE])
        for s in range(n):
            rewards[i, s] = 1.0 if seats[i, s, S_SCORE] == best else 0.0
        win_rewards_from_flags(rewards, i, n)


@inline_kernel
def _apply(i, action, st):
    """Apply the legal ``action`` of the seat on turn in game ``i``, with the rewards and the end it brings.

    The driver's apply step (``core.batched.step_games``): returns ``True``, the outputs still to write.
    """
    n, game, seats, trick = st.num_players, st.game, st.seats, st.trick
    seat = game[i, F_CURRENT]
    nxt = (seat + 1) % n
    if game[i, F_PHASE] == PHASE_BID:
        seats[i, seat, S_BID] = action - BID_OFFSET
        if nxt == game[i, F_LEADER]:  # everybody has bid: the bids are revealed together
            game[i, F_PHASE] = PHASE_PLAY
        game[i, F_CURRENT] = nxt
        return True
    token = action - CARD_OFFSET
    kind = token if token < SCARY_MARY else SCARY_MARY
    st.hands[i, seat, kind] -= 1
    st.played[i, kind] += 1
    length = game[i, F_TRICK_LEN]
    trick[i, length] = token
    length += 1
    game[i, F_TRICK_LEN] = length
    if token < NUM_SUIT_CARDS:
        suit = token // NUM_RANKS
        led = game[i, F_LED]
        if led < 0:
            game[i, F_LED] = suit
        elif suit != led:
            st.voids[i, seat, led] = 1
    if length < n:
        game[i, F_CURRENT] = nxt
        return True
    winner = (game[i, F_LEADER] + trick_winner_kernel(trick[i], length, game[i, F_LED])) % n
    seats[i, winner, S_TRICKS] += 1
    seats[i, winner, S_BONUS] += trick_bonus_kernel(trick[i], length)
    game[i, F_TRICK_LEN] = 0
    game[i, F_LED] = -1
    game[i, F_LEADER] = winner
    game[i, F_CURRENT] = winner
    game[i, F_TRICKS_DONE] += 1
    if game[i, F_TRICKS_DONE] >= game[i, F_HAND]:
        _settle_hand(i, st)
    return True


# ----------------------------------------------------------------------------- observation and mask
@inline_kernel
def _observe(i, seat, st):
    """Write the observation vector of ``seat`` in game ``i`` (as ``observation.Encoder``, in either table layout)."""
    n, offsets, scales, game, seats = st.num_players, st.offsets, st.scales, st.game, st.seats
    hands, played = st.hands, st.played
    vec = st.observation[i]
    vec[:] = 0.0
    if offsets[O_SEAT_PRESENT] >= 0:
        for row in range(n):
            vec[offsets[O_SEAT_PRESENT] + row] = 1.0
    o_hand = offsets[O_HAND]
    o_played = offsets[O_PLAYED]
    for kind in range(NUM_KINDS):
        vec[o_hand + kind] = hands[i, seat, kind]
        vec[o_played + kind] = played[i, kind]
    first_row = (game[i, F_LEADER] - seat) % n
    vec[offsets[O_LEADER] + first_row] = 1.0
    for j in range(game[i, F_TRICK_LEN]):
        vec[offsets[O_TRICK] + ((first_row + j) % n) * NUM_TOKENS + st.trick[i, j]] = 1.0
    led = game[i, F_LED]
    if led >= 0:
        vec[offsets[O_LED] + led] = 1.0
    phase = game[i, F_PHASE]
    revealed = phase != PHASE_BID
    hand_number = game[i, F_HAND]
    vec[offsets[O_HAND_NUMBER] + hand_number - 1] = 1.0
    vec[offsets[O_PHASE] + phase] = 1.0
    vec[offsets[O_HANDS_LEFT] + st.num_hands - hand_number] = 1.0
    vec[offsets[O_DEALER] + (game[i, F_DEALER] - seat) % n] = 1.0
    if revealed:
        vec[offsets[O_REVEALED]] = 1.0
    for row in range(n):
        s = (seat + row) % n
        tricks = seats[i, s, S_TRICKS]
        if tricks:
            vec[offsets[O_TRICKS] + row] = tricks * scales[1]
        for suit in range(NUM_SUITS):
            if st.voids[i, s, suit]:
                vec[offsets[O_VOIDS] + row * NUM_SUITS + suit] = 1.0
        vec[offsets[O_SCORES] + row] = seats[i, s, S_SCORE] * scales[0]
        bid = seats[i, s, S_BID]
        if bid >= 0 and (revealed or s == seat):
            vec[offsets[O_BIDS] + row * (MAX_BID + 1) + bid] = 1.0


@inline_kernel
def _write_mask(i, st):
    """Write the legal actions of the seat on turn in game ``i`` (as ``SkullKingEngine.legal_mask``)."""
    game, hands = st.game, st.hands
    row = st.action_mask[i]
    row[:] = 0
    phase = game[i, F_PHASE]
    if phase == PHASE_BID:
        for b in range(game[i, F_HAND] + 1):
            row[BID_OFFSET + b] = 1
    elif phase == PHASE_PLAY:
        seat = game[i, F_CURRENT]
        led = game[i, F_LED]
        holds_led = False
        if led >= 0:
            for rank in range(NUM_RANKS):
                if hands[i, seat, led * NUM_RANKS + rank] > 0:
                    holds_led = True
                    break
        for token in range(NUM_TOKENS):
            kind = token if token < SCARY_MARY else SCARY_MARY
            if hands[i, seat, kind] > 0 and (not holds_led or token >= NUM_SUIT_CARDS or token // NUM_RANKS == led):
                row[CARD_OFFSET + token] = 1


@inline_kernel
def _output(i, st):
    """Write game ``i``'s observation, mask and shown seat (the actor after the end, else the seat on turn)."""
    game = st.game
    seat = game[i, F_SHOWN] if game[i, F_PHASE] == PHASE_DONE else game[i, F_CURRENT]
    st.current_player[i] = seat
    _observe(i, seat, st)
    _write_mask(i, st)


# ----------------------------------------------------------------------------- batch kernels
@kernel
def reset_kernel(st):
    """Start a new game in every slot and write the outputs."""
    reset_games(st, _new_game, _output)


@kernel
def step_kernel(actions, st):
    """Apply one (checked, legal) action per game; a game that ended on the last step starts anew instead.

    A negative action: the game waits (nothing of it changes; its rewards row is zero).
    """
    step_games(actions, st, _new_game, _apply, _output, F_MOVES, F_SHOWN, F_CURRENT)


@kernel
def outputs_kernel(rows, st):
    """Write the outputs of the games ``rows`` (after a load)."""
    write_outputs(rows, st, _output)


@inline_kernel
def _cards_held(hands, i, s):
    """The cards seat ``s`` of game ``i`` holds."""
    held = 0
    for kind in range(NUM_KINDS):
        held += hands[i, s, kind]
    return held


@kernel
def redraw_kernel(rows, seat, seeds, tries, st, unseen, pool, failed):
    """Redraw in games ``rows`` what ``seat`` cannot see (see `SkullKingBatch.redraw_hidden`).

    ``unseen``: a ``NUM_KINDS`` scratch, ``pool``: a deck-sized one; ``failed[r]`` is set where no
    deal respecting the public voids came within ``tries`` shuffles (that row keeps its cards).
    """
    n, game, seats, hands, voids, deals, rng = st.num_players, st.game, st.seats, st.hands, st.voids, st.deals, st.rng
    deck = st.deck
    size = deck.shape[0]
    for r in range(rows.shape[0]):
        i = rows[r]
        rng[i] = seeds[r]
        failed[r] = False
        unseen[:] = 0
        for j in range(size):
            unseen[deck[j]] += 1
        for kind in range(NUM_KINDS):
            unseen[kind] -= hands[i, seat, kind] + st.played[i, kind]
        count = 0
        for kind in range(NUM_KINDS):
            for _ in range(unseen[kind]):
                pool[count] = kind
                count += 1
        dealt = 0  # the cards the other seats hold; the rest of the pool stays undealt
        for s in range(n):
            if s != seat:
                dealt += _cards_held(hands, i, s)
        found = False
        for _ in range(tries):
            partial_shuffle(rng, i, pool, count, dealt)  # the first ``dealt`` cards are dealt
            found = True
            start = 0
            for s in range(n):
                if s == seat:
                    continue
                held = _cards_held(hands, i, s)
                for j in range(start, start + held):
                    if pool[j] < NUM_SUIT_CARDS and voids[i, s, pool[j] // NUM_RANKS] != 0:
                        found = False
                start += held
            if found:
                break
        if not found:
            failed[r] = True
            continue
        start = 0
        for s in range(n):
            if s == seat:
                continue
            held = _cards_held(hands, i, s)
            hands[i, s, :] = 0
            for j in range(start, start + held):
                hands[i, s, pool[j]] += 1
            start += held
        k = game[i, F_HAND]
        if game[i, F_PHASE] == PHASE_BID:  # bids made but not yet shown: any of 0..k
            for s in range(n):
                if s != seat and seats[i, s, S_BID] >= 0:
                    seats[i, s, S_BID] = random_below(rng, i, k + 1)
        for hand in range(k):  # the deals so far held the true cards: unknown here
            for j in range(deals.shape[2]):
                deals[i, hand, j] = 0
        for later in range(k + 1, st.num_hands + 1):  # every later hand dealt anew, as a new game deals
            _deal_hand(i, later, st)
        _output(i, st)


#: Shuffles `SkullKingBatch.redraw_hidden` tries before it gives a row up (many public voids late in a hand).
REDRAW_TRIES = 1000


# ----------------------------------------------------------------------------- the backend
class SkullKingBatch(BatchBackend):
    """The state arrays of ``num_envs`` Skull King games and the kernels that step them (see ``BatchBackend``)."""

    ENGINE = SkullKingEngine
    NUM_ACTIONS = NUM_ACTIONS
    MAX_PLAYERS = MAX_PLAYERS
    OFFSET_PIECES = _OFFSET_PIECES
    MOVES_FIELD = F_MOVES
    build_layout = staticmethod(build_layout)
    largest_layout = staticmethod(largest_layout)
    State = SkullKingState
    reset_kernel = staticmethod(reset_kernel)
    step_kernel = staticmethod(step_kernel)
    outputs_kernel = staticmethod(outputs_kernel)
    ROW_ARRAYS = ("seats", "hands", "played", "trick", "voids", "deals")

    def _allocate(self) -> None:
        num, n, h = self.num_envs, self.num_players, self.config.num_hands
        self.num_hands = h
        self.first_dealer = self.config.first_dealer
        self.scales = np.array([SCORE_OBS_SCALE, TRICKS_OBS_SCALE], dtype=np.float64)
        self.deck = self.config.deck.astype(np.int8)  # the full deck, or the config's short deck
        self.scratch = np.empty(len(self.deck), dtype=np.int8)  # the kernels' scratch: they allocate nothing
        self.game = np.zeros((num, NUM_FIELDS), dtype=np.int32)
        self.seats = np.zeros((num, n, NUM_SEAT_FIELDS), dtype=np.int32)
        self.hands = np.zeros((num, n, NUM_KINDS), dtype=np.int8)
        self.played = np.zeros((num, NUM_KINDS), dtype=np.int8)
        self.trick = np.zeros((num, n), dtype=np.int8)
        self.voids = np.zeros((num, n, NUM_SUITS), dtype=np.int8)
        self.deals = np.zeros((num, h, n * h), dtype=np.int8)
        max_moves = n * h + n * h * (h + 1) // 2  # every bid and every card of a game
        self.history = np.zeros((num, max_moves), dtype=np.int8)
        # Skull King has no turn limit: ``truncated`` is never set
        self.redraw_unseen = np.zeros(NUM_KINDS, dtype=np.int64)  # redraw_kernel's scratch
        self.redraw_pool = np.zeros(len(self.deck), dtype=np.int8)

    def redraw_hidden(self, rows: np.ndarray, seat: int, seeds: np.ndarray) -> np.ndarray:
        """Redraw the other seats' cards, their bids not yet shown and every later hand (see the base).

        The cards ``seat`` has not seen (the deck less its hand and the cards played this hand) are
        dealt anew to the other seats, each keeping its number of cards and getting no card of a
        suit it showed void in: uniformly over such deals, by rejection (`REDRAW_TRIES` shuffles);
        bids made but not shown become uniform over ``0..k``; every later hand is dealt from a
        shuffled deck; the deals of the hands so far are zeroed.
        """
        failed = np.zeros(len(rows), dtype=np.bool_)
        with compile_notice("the batched skull_king engine's redraw kernel", redraw_kernel):
            redraw_kernel(rows, seat, seeds, REDRAW_TRIES, self.state, self.redraw_unseen, self.redraw_pool, failed)
        self.redrawn.update(rows[~failed].tolist())
        return failed

    def load_row(self, index: int, engine: SkullKingEngine, stream: SplitMix64Stream) -> None:
        """Write ``engine``'s game into game ``index``; deal its later hands now from ``stream``.

        The later hands are the engine's pending ``deals`` (a reset option), then one
        ``stream.permutation`` of the deck per hand: what the engine drawing from ``stream`` deals.
        The deals of the hands played so far are unknown here and left zero.
        """
        k, n = engine.hand_number, self.num_players
        game = self.game[index]
        game[F_HAND], game[F_PHASE], game[F_DEALER] = k, int(engine.phase), engine.dealer
        game[F_LEADER], game[F_CURRENT], game[F_LED] = engine.leader, engine.current_player, engine.led_suit
        game[F_TRICK_LEN], game[F_TRICKS_DONE], game[F_SHOWN] = len(engine.trick), engine.tricks_done, -1
        self.seats[index] = np.array([engine.bids, engine.tricks_won, engine.bonuses, engine.score]).T
        self.hands[index] = engine.hands
        self.played[index] = engine.played
        self.trick[index] = 0
        self.trick[index, : len(engine.trick)] = engine.trick
        self.voids[index] = np.array(engine.voids, dtype=np.int8)
        deals = self.deals[index]
        deals[:] = 0
        pending = list(engine._pending_deals)
        state = np.array([stream.state], dtype=np.uint64)  # the stream, drawn by a kernel (as fast as a deal)
        for later in range(k + 1, self.config.num_hands + 1):
            if pending:  # per-seat kind counts: the cards of each seat in turn
                counts = pending.pop(0)
                cards = np.concatenate([np.repeat(np.arange(NUM_KINDS), counts[s]) for s in range(n)])
            else:  # stream.permutation(deck), the engine's draw
                cards = self.deck.copy()
                shuffle_kernel(state, 0, cards)
            deals[later - 1, : n * later] = cards[: n * later]
        stream.state = int(state[0])

    def reset_options(self, index: int) -> dict[str, Any]:
        """Reset options that make the reference engine deal game ``index``'s cards: ``{"deals": ...}``."""
        n, h = self.num_players, self.config.num_hands
        names = _cards.KIND_NAMES
        deals = self.deals[index]
        hands = [[[names[c] for c in deals[k - 1, s * k : (s + 1) * k]] for s in range(n)] for k in range(1, h + 1)]
        return {"deals": hands}

    def reference_engine(self, index: int) -> SkullKingEngine:
        """A new reference engine: reset with `reset_options` it deals game ``index``'s cards."""
        return SkullKingEngine(self.config)


__all__ = [
    "SkullKingBatch",
    "hand_score_kernel",
    "trick_bonus_kernel",
    "trick_winner_kernel",
]
