"""Lucky Pirate for the batched engine: numba kernels that step many games held in arrays.

This module is the Lucky Pirate backend of `pirate_envs.vector` (read that page first); it
imports numba, so only ``pirate_envs.vector.make`` imports it. The reference engine
(`pirate_envs.lucky_pirate.engine.LuckyPirateEngine`) decides the rules. What may be
played on the pile and what the pile becomes come here as tables computed by the reference
helpers themselves (``rules.can_play`` and ``rules.place`` over every top of the pile that play
can reach from an empty pile); the turn flow (sources, blind down cards, picking up, clearing,
Reverse and Skip, the set-up phase, wins, tournaments, the turn-limit guard, the stranded-First-
Mate check and set-aside games) is mirrored step by step, and the lockstep tests compare every
observation, mask, reward and end with the AEC env. Any difference is a bug of this module.
Every option of the env's ``Config`` is covered, in both reward modes and both observation
layouts (``table_layout``).

Its randomness and state arrays: ``docs/guides/batched.md``, section "Lucky Pirate".
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
    partial_shuffle,
    random_below,
    reset_games,
    step_games,
    win_rewards_from_flags,
    write_outputs,
)
from pirate_envs.core.observation import ObservationLayout
from pirate_envs.lucky_pirate import actions as _actions
from pirate_envs.lucky_pirate import cards as _cards
from pirate_envs.lucky_pirate import engine as _engine
from pirate_envs.lucky_pirate import rules as _rules
from pirate_envs.lucky_pirate import view as _view
from pirate_envs.lucky_pirate.engine import MAX_PLAYERS, LuckyPirateEngine
from pirate_envs.lucky_pirate.observation import Encoder, build_layout, largest_layout

# ----------------------------------------------------------------------------- constants (checked below)
NUM_KINDS = 17
CAPTAIN, KRAKEN, FIRST_MATE, PORTHOLE, WALK_THE_PLANK, MERMAID, PARROT, REVERSE, SKIP = range(8, 17)
MAX_COPIES = 6
MAX_UP_DOWN = 4
TWO_PLAYER_HANDS = 3
EMPTY_SLOT = -1
PILE_TOP_CARDS = 3
RUN_TO_CLEAR = 3
NUM_MODES = 3
NUM_RUN_KINDS = 10
NUM_VALUES = 11
TABLE_WIDTH = 20
PLAY_OFFSET = 0
DOWN_OFFSET = 102
PICK_UP = 106
LAY_UP_OFFSET = 107
NUM_ACTIONS = 124

_SPECIAL_KINDS = (
    "CAPTAIN",
    "KRAKEN",
    "FIRST_MATE",
    "PORTHOLE",
    "WALK_THE_PLANK",
    "MERMAID",
    "PARROT",
    "REVERSE",
    "SKIP",
)
_EXPECTED = {
    "cards.NUM_KINDS": (NUM_KINDS, _cards.NUM_KINDS),
    "cards special kinds": (
        (CAPTAIN, KRAKEN, FIRST_MATE, PORTHOLE, WALK_THE_PLANK, MERMAID, PARROT, REVERSE, SKIP),
        tuple(getattr(_cards, name) for name in _SPECIAL_KINDS),
    ),
    "cards.MAX_COPIES": (MAX_COPIES, _cards.MAX_COPIES),
    "cards.MAX_UP_DOWN": (MAX_UP_DOWN, _cards.MAX_UP_DOWN),
    "cards.TWO_PLAYER_HANDS": (TWO_PLAYER_HANDS, _cards.TWO_PLAYER_HANDS),
    "engine.EMPTY_SLOT": (EMPTY_SLOT, _engine.EMPTY_SLOT),
    "engine.PILE_TOP_CARDS": (PILE_TOP_CARDS, _engine.PILE_TOP_CARDS),
    "rules.RUN_TO_CLEAR": (RUN_TO_CLEAR, _rules.RUN_TO_CLEAR),
    "rules.NUM_MODES": (NUM_MODES, _rules.NUM_MODES),
    "rules.NUM_RUN_KINDS": (NUM_RUN_KINDS, _rules.NUM_RUN_KINDS),
    "cards.MAX_VALUE": (NUM_VALUES - 1, _cards.MAX_VALUE),
    "view table columns": (
        (TABLE_WIDTH, NUM_KINDS, NUM_KINDS + 1, NUM_KINDS + 2),
        (len(_view.TABLE_COLUMNS), _view.HAND_SIZE_COLUMN, _view.DOWN_LEFT_COLUMN, _view.WINS_COLUMN),
    ),
    "actions offsets": (
        (PLAY_OFFSET, DOWN_OFFSET, PICK_UP, LAY_UP_OFFSET, NUM_ACTIONS),
        (_actions.PLAY_OFFSET, _actions.DOWN_OFFSET, _actions.PICK_UP, _actions.LAY_UP_OFFSET, _actions.NUM_ACTIONS),
    ),
}
check_constants("Lucky Pirate", _EXPECTED)

# Per-game scalar fields: columns of the ``game`` array.
(
    F_CURRENT,
    F_DEALER,
    F_DIRECTION,
    F_TOP,
    F_PILE_LEN,
    F_TURNS,
    F_SET_ASIDE,
    F_SETTING_UP,
    F_OVER,
    F_MOVES,
    F_SHOWN,
) = range(11)
NUM_FIELDS = 11
# Per-seat fields: the last axis of the ``seats`` array.
S_HAND, S_UP, S_DOWN, S_WINS, S_TO_LAY = range(5)
NUM_SEAT_FIELDS = 5
# Integer options: entries of the ``params`` array handed to the kernels.
(
    P_N,
    P_UP_DOWN,
    P_FIRST_DEALER,
    P_WINS_TO_WIN,
    P_CHOOSE_UP,
    P_RUN_AGAIN,
    P_PLANK_AGAIN,
    P_CAN_STRAND,
    P_MAX_TURNS,
    P_MAX_SET_ASIDE,
    P_RANDOM_SET_ASIDE_DEALER,
) = range(11)

_OFFSET_PIECES = (
    "hand",
    "players",
    "removed",
    "down_slots",
    "pile_size",
    "run_length",
    "direction",
    "setting_up",
    "pile_top",
    "pile_value",
    "pile_mode",
    "run_kind",
    "to_play",
    "known",
    "pile_cards",
)
#: ``offsets[O_SEAT_PRESENT]``: the ``seat_present`` piece of ``table_layout="max"`` (-1: the seated layout).
O_SEAT_PRESENT = len(_OFFSET_PIECES)
(
    O_HAND,
    O_PLAYERS,
    O_REMOVED,
    O_DOWN_SLOTS,
    O_PILE_SIZE,
    O_RUN_LENGTH,
    O_DIRECTION,
    O_SETTING_UP,
    O_PILE_TOP,
    O_PILE_VALUE,
    O_PILE_MODE,
    O_RUN_KIND,
    O_TO_PLAY,
    O_KNOWN,
    O_PILE_CARDS,
) = range(len(_OFFSET_PIECES))
# Rows of the ``top_info`` table: what the observation shows of a top of the pile.
T_VALUE, T_MODE, T_RUN_KIND, T_RUN_LENGTH = range(4)


# ----------------------------------------------------------------------------- tables from the reference
def reachable_tops(
    rules: _rules.PileRules,
) -> tuple[list[_rules.PileTop], dict[tuple[int, int, int], tuple[int, bool]]]:
    """Every top of the pile that play can reach from an empty pile (the rows of the pile tables, the
    empty pile first) and ``place`` over them: ``(row, kind, count - 1) -> (row of the new top, cleared)``."""
    tops = [_rules.EMPTY_TOP]
    row_of = {_rules.EMPTY_TOP: 0}
    moves: dict[tuple[int, int, int], tuple[int, bool]] = {}
    j = 0
    while j < len(tops):
        for kind in range(NUM_KINDS):
            for count in range(1, MAX_COPIES + 1):
                top, cleared = _rules.place(tops[j], kind, count, rules)
                if top not in row_of:
                    row_of[top] = len(tops)
                    tops.append(top)
                moves[j, kind, count - 1] = (row_of[top], cleared)
        j += 1
    return tops, moves


def pile_tables(rules: _rules.PileRules) -> tuple[np.ndarray, ...]:
    """The pile rules as tables over every top that play can reach from an empty pile (row 0: `reachable_tops`).

    ``playable[top, kind]``: ``can_play``; ``next_top[top, kind, count - 1]`` and
    ``clears[top, kind, count - 1]``: ``place``; ``top_info[top, T_*]``: value, mode, run kind
    and run length of that top.
    """
    tops, moves = reachable_tops(rules)
    next_top = np.zeros((len(tops), NUM_KINDS, MAX_COPIES), dtype=np.int64)
    clears = np.zeros((len(tops), NUM_KINDS, MAX_COPIES), dtype=np.int8)
    for (row, kind, c), (target, cleared) in moves.items():
        next_top[row, kind, c] = target
        clears[row, kind, c] = cleared
    playable = np.array([[_rules.can_play(k, top, rules) for k in range(NUM_KINDS)] for top in tops], dtype=np.int8)
    top_info = np.array([(t.value, int(t.mode), t.run_kind, t.run_length) for t in tops], dtype=np.int64)
    return playable, next_top, clears, top_info


# ----------------------------------------------------------------------------- the kernels' record
class LuckyPirateState(NamedTuple):
    """What the kernels take: the backend's attributes of these names (see ``BatchBackend.State``)."""

    params: np.ndarray
    score_scale: float
    offsets: np.ndarray
    scales: tuple[np.ndarray, np.ndarray, np.ndarray]
    inv_deck: float
    tables: tuple[np.ndarray, ...]
    deck_cards: np.ndarray
    scratch: np.ndarray
    before: np.ndarray
    rng: np.ndarray
    start_state: np.ndarray
    game: np.ndarray
    seats: np.ndarray
    hands: np.ndarray
    ups: np.ndarray
    downs: np.ndarray
    pile: np.ndarray
    pile_counts: np.ndarray
    removed: np.ndarray
    known: np.ndarray
    history: np.ndarray
    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


# ----------------------------------------------------------------------------- kernels: dealing
@inline_kernel
def _next_seat(seat, steps, n):
    """``(seat + steps) mod n``, non-negative for negative steps too."""
    return ((seat + steps) % n + n) % n


@inline_kernel
def _deal(i, dealer, st):
    """Shuffle and deal every card of game ``i`` starting left of ``dealer`` (as ``LuckyPirateEngine._deal``)."""
    params, deck_cards, scratch = st.params, st.deck_cards, st.scratch
    seats, hands, ups, downs, known = st.seats, st.hands, st.ups, st.downs, st.known
    n = params[P_N]
    d = params[P_UP_DOWN]
    choose = params[P_CHOOSE_UP]
    size = deck_cards.shape[0]
    for j in range(size):
        scratch[j] = deck_cards[j]
    for j in range(size - 1, 0, -1):
        r = random_below(st.rng, i, j + 1)
        card = scratch[j]
        scratch[j] = scratch[r]
        scratch[r] = card
    hands_dealt = TWO_PLAYER_HANDS if n == 2 else n
    for h in range(n):  # a third two-player hand is put aside unseen
        seat = (dealer + 1 + h) % n
        hands[i, seat] = 0
        known[i, seat] = 0
        ups[i, seat] = 0
        downs[i, seat] = EMPTY_SLOT
        hand_size = 0
        up_size = 0
        for j, position in enumerate(range(h, size, hands_dealt)):
            card = scratch[position]
            if j < d:
                downs[i, seat, j] = card
            elif j < 2 * d and not choose:
                ups[i, seat, card] += 1
                up_size += 1
            else:
                hands[i, seat, card] += 1
                hand_size += 1
        seats[i, seat, S_HAND] = hand_size
        seats[i, seat, S_UP] = up_size
        seats[i, seat, S_DOWN] = d
        seats[i, seat, S_TO_LAY] = d if choose else 0
    game = st.game
    game[i, F_SETTING_UP] = choose
    game[i, F_PILE_LEN] = 0
    game[i, F_TOP] = 0
    st.pile_counts[i] = 0
    st.removed[i] = 0


@inline_kernel
def _start_game(i, dealer, n, game):
    """The player left of ``dealer`` starts; direction +1; the turn guard counts from zero."""
    game[i, F_DEALER] = dealer
    game[i, F_DIRECTION] = 1
    game[i, F_CURRENT] = (dealer + 1) % n
    game[i, F_TURNS] = 0


@inline_kernel
def _new_game(i, st):
    """Start a new episode in slot ``i`` (as ``LuckyPirateEngine.reset``): the driver's new-game step."""
    game, rng = st.game, st.rng
    st.start_state[i] = rng[i]
    n = st.params[P_N]
    for s in range(n):
        st.seats[i, s, S_WINS] = 0
    game[i, F_SET_ASIDE] = 0
    game[i, F_OVER] = 0
    game[i, F_MOVES] = 0
    game[i, F_SHOWN] = -1
    dealer = st.params[P_FIRST_DEALER]
    if dealer < 0:
        dealer = random_below(rng, i, n)
    _deal(i, dealer, st)
    _start_game(i, dealer, n, game)


# ----------------------------------------------------------------------------- kernels: the turn flow
@inline_kernel
def _set_aside(i, st):
    """End the game unwon: truncate a one-game episode, else deal the next game (or hit the tournament limit)."""
    params, game = st.params, st.game
    if params[P_WINS_TO_WIN] == 1:
        st.truncated[i] = True
        game[i, F_OVER] = 1
        return
    game[i, F_SET_ASIDE] += 1
    if game[i, F_SET_ASIDE] > params[P_MAX_SET_ASIDE]:
        st.truncated[i] = True
        game[i, F_OVER] = 1
        return
    dealer = game[i, F_DEALER]
    if params[P_RANDOM_SET_ASIDE_DEALER]:
        dealer = random_below(st.rng, i, params[P_N])
    _deal(i, dealer, st)
    _start_game(i, dealer, params[P_N], game)


@inline_kernel
def _first_mates_stranded(i, st):
    """Whether nobody can ever win (as ``LuckyPirateEngine.first_mates_stranded``, for rules that strand)."""
    n, hands, ups, downs = st.params[P_N], st.hands, st.ups, st.downs
    if st.game[i, F_SETTING_UP] or st.pile_counts[i, CAPTAIN]:
        return False
    for s in range(n):
        if hands[i, s, CAPTAIN]:
            return False
    for s in range(n):
        blocked_ups = hands[i, s, FIRST_MATE] > 0
        if ups[i, s, CAPTAIN] and not blocked_ups:
            return False
        captain_down = False
        for slot in range(MAX_UP_DOWN):
            if downs[i, s, slot] == CAPTAIN:
                captain_down = True
        if captain_down and not (blocked_ups or ups[i, s, FIRST_MATE]):
            return False
    for s in range(n):
        holds = hands[i, s, FIRST_MATE] > 0 or ups[i, s, FIRST_MATE] > 0
        for slot in range(MAX_UP_DOWN):
            if downs[i, s, slot] == FIRST_MATE:
                holds = True
        if not holds:
            return False
    return True


@inline_kernel
def _pick_up(i, p, st):
    """``p`` takes the pile into the hand, seen by all; the next player starts a new pile."""
    game, hands, known, pile_counts = st.game, st.hands, st.known, st.pile_counts
    for k in range(NUM_KINDS):
        hands[i, p, k] += pile_counts[i, k]
        known[i, p, k] += pile_counts[i, k]
        pile_counts[i, k] = 0
    st.seats[i, p, S_HAND] += game[i, F_PILE_LEN]
    game[i, F_PILE_LEN] = 0
    game[i, F_TOP] = 0
    game[i, F_CURRENT] = _next_seat(p, game[i, F_DIRECTION], st.params[P_N])


@inline_kernel
def _play(i, p, kind, count, st):
    """``p`` puts ``count`` cards of ``kind`` on the pile; whether a game was won (as ``LuckyPirateEngine._play``)."""
    next_top, clears = st.tables[1], st.tables[2]
    params, game, seats, pile_counts = st.params, st.game, st.seats, st.pile_counts
    n = params[P_N]
    length = game[i, F_PILE_LEN]
    for j in range(count):
        st.pile[i, length + j] = kind
    game[i, F_PILE_LEN] = length + count
    pile_counts[i, kind] += count
    if seats[i, p, S_HAND] == 0 and seats[i, p, S_UP] == 0 and seats[i, p, S_DOWN] == 0:
        seats[i, p, S_WINS] += 1  # the game is won; the winner deals the next one of a tournament
        if seats[i, p, S_WINS] >= params[P_WINS_TO_WIN]:
            st.terminated[i] = True
            game[i, F_OVER] = 1
        else:
            _deal(i, p, st)
            _start_game(i, p, n, game)
        return True
    top = game[i, F_TOP]
    direction = game[i, F_DIRECTION]
    if clears[top, kind, count - 1]:
        for k in range(NUM_KINDS):
            st.removed[i, k] += pile_counts[i, k]
            pile_counts[i, k] = 0
        game[i, F_PILE_LEN] = 0
        game[i, F_TOP] = 0
        again = params[P_PLANK_AGAIN] if kind == WALK_THE_PLANK else params[P_RUN_AGAIN]
        game[i, F_CURRENT] = p if again else _next_seat(p, direction, n)
        return False
    game[i, F_TOP] = next_top[top, kind, count - 1]
    if kind == REVERSE and count % 2:
        direction = -direction
        game[i, F_DIRECTION] = direction
    skipped = count if kind == SKIP else 0
    game[i, F_CURRENT] = _next_seat(p, direction * (1 + skipped), n)
    return False


@inline_kernel
def _apply(i, action, st):
    """Apply the legal ``action`` of the player on turn in game ``i`` (as ``LuckyPirateEngine.apply``), then
    write the step's rewards: the driver's apply step (``core.batched.step_games``), its outputs still to write."""
    playable = st.tables[0]
    params, game, seats, hands, ups, downs = st.params, st.game, st.seats, st.hands, st.ups, st.downs
    n = params[P_N]
    for s in range(n):
        st.before[s] = seats[i, s, S_WINS]
    p = game[i, F_CURRENT]
    won = False
    if action < DOWN_OFFSET:
        kind = (action - PLAY_OFFSET) // MAX_COPIES
        count = (action - PLAY_OFFSET) % MAX_COPIES + 1
        if seats[i, p, S_HAND]:
            hands[i, p, kind] -= count
            seats[i, p, S_HAND] -= count
            # the others cannot tell known cards from unseen ones of the kind: known ones go first
            st.known[i, p, kind] = max(0, st.known[i, p, kind] - count)
        else:
            ups[i, p, kind] -= count
            seats[i, p, S_UP] -= count
        won = _play(i, p, kind, count, st)
    elif action < PICK_UP:
        slot = action - DOWN_OFFSET
        kind = downs[i, p, slot]
        downs[i, p, slot] = EMPTY_SLOT
        seats[i, p, S_DOWN] -= 1
        if playable[game[i, F_TOP], kind]:
            won = _play(i, p, kind, 1, st)
        else:  # the revealed card goes into the hand with the pile, seen by all
            hands[i, p, kind] += 1
            st.known[i, p, kind] += 1
            seats[i, p, S_HAND] += 1
            _pick_up(i, p, st)
    elif action == PICK_UP:
        _pick_up(i, p, st)
    else:  # set-up: lay one card face up
        kind = action - LAY_UP_OFFSET
        hands[i, p, kind] -= 1
        seats[i, p, S_HAND] -= 1
        ups[i, p, kind] += 1
        seats[i, p, S_UP] += 1
        seats[i, p, S_TO_LAY] -= 1
        if seats[i, p, S_TO_LAY] == 0:
            game[i, F_CURRENT] = (p + 1) % n
            setting_up = 0
            for s in range(n):
                if seats[i, s, S_TO_LAY]:
                    setting_up = 1
            game[i, F_SETTING_UP] = setting_up
    if not won:  # won (a tournament's next game is dealt): no turn is counted
        game[i, F_TURNS] += 1
        if game[i, F_TURNS] >= params[P_MAX_TURNS] or (
            game[i, F_PILE_LEN] == 0 and params[P_CAN_STRAND] and _first_mates_stranded(i, st)
        ):
            _set_aside(i, st)
    _rewards(i, st)
    return True


# ----------------------------------------------------------------------------- kernels: outputs
@inline_kernel
def _observe(i, seat, st):
    """Write the observation vector of ``seat`` in game ``i`` (as ``observation.Encoder``)."""
    hand_scale, row_scale, removed_scale = st.scales[0], st.scales[1], st.scales[2]
    top_info, offsets, game, seats, ups, downs = st.tables[3], st.offsets, st.game, st.seats, st.ups, st.downs
    known = st.known
    n = st.params[P_N]
    vec = st.observation[i]
    vec[:] = 0.0
    if offsets[O_SEAT_PRESENT] >= 0:
        for row in range(n):
            vec[offsets[O_SEAT_PRESENT] + row] = 1.0
    setting_up = game[i, F_SETTING_UP]
    o_hand, o_removed, o_pile_cards = offsets[O_HAND], offsets[O_REMOVED], offsets[O_PILE_CARDS]
    for k in range(NUM_KINDS):
        vec[o_hand + k] = st.hands[i, seat, k] * hand_scale[k]
        vec[o_removed + k] = st.removed[i, k] * removed_scale[k]
        if o_pile_cards >= 0:  # the option observe_pile (the encoder scales it as the hand)
            vec[o_pile_cards + k] = st.pile_counts[i, k] * hand_scale[k]
    for row in range(n):
        s = (seat + row) % n
        base = offsets[O_PLAYERS] + row * TABLE_WIDTH
        if row == 0 or not setting_up:  # nobody sees the others' up cards before all are laid
            for k in range(NUM_KINDS):
                vec[base + k] = ups[i, s, k] * row_scale[k]
        vec[base + NUM_KINDS] = seats[i, s, S_HAND] * row_scale[NUM_KINDS]
        vec[base + NUM_KINDS + 1] = seats[i, s, S_DOWN] * row_scale[NUM_KINDS + 1]
        vec[base + NUM_KINDS + 2] = seats[i, s, S_WINS] * row_scale[NUM_KINDS + 2]
        if offsets[O_KNOWN] >= 0:  # the option observe_known
            base = offsets[O_KNOWN] + row * NUM_KINDS
            for k in range(NUM_KINDS):
                vec[base + k] = known[i, s, k] * hand_scale[k]  # the encoder scales known as the hand
    for slot in range(MAX_UP_DOWN):
        if downs[i, seat, slot] != EMPTY_SLOT:
            vec[offsets[O_DOWN_SLOTS] + slot] = 1.0
    top = game[i, F_TOP]
    length = game[i, F_PILE_LEN]
    vec[offsets[O_PILE_SIZE]] = length * st.inv_deck
    vec[offsets[O_RUN_LENGTH]] = top_info[top, T_RUN_LENGTH] / RUN_TO_CLEAR
    vec[offsets[O_DIRECTION]] = game[i, F_DIRECTION]
    vec[offsets[O_SETTING_UP]] = setting_up
    for j in range(min(PILE_TOP_CARDS, length)):
        vec[offsets[O_PILE_TOP] + j * NUM_KINDS + st.pile[i, length - 1 - j]] = 1.0
    vec[offsets[O_PILE_VALUE] + top_info[top, T_VALUE]] = 1.0
    vec[offsets[O_PILE_MODE] + top_info[top, T_MODE]] = 1.0
    run_kind = top_info[top, T_RUN_KIND]
    if run_kind >= 0:
        vec[offsets[O_RUN_KIND] + run_kind] = 1.0
    vec[offsets[O_TO_PLAY] + (game[i, F_CURRENT] - seat) % n] = 1.0


@inline_kernel
def _write_mask(i, st):
    """Write the legal actions of the player on turn in game ``i`` (as ``LuckyPirateEngine.legal_mask``)."""
    playable, game, seats, hands, ups, downs = st.tables[0], st.game, st.seats, st.hands, st.ups, st.downs
    row = st.action_mask[i]
    row[:] = 0
    if game[i, F_OVER]:
        return
    p = game[i, F_CURRENT]
    if game[i, F_SETTING_UP]:
        for k in range(NUM_KINDS):
            if hands[i, p, k] > 0:
                row[LAY_UP_OFFSET + k] = 1
        return
    if seats[i, p, S_HAND] == 0 and seats[i, p, S_UP] == 0:  # only down cards: any of them, blind
        for slot in range(MAX_UP_DOWN):
            if downs[i, p, slot] != EMPTY_SLOT:
                row[DOWN_OFFSET + slot] = 1
        return
    from_hand = seats[i, p, S_HAND] > 0
    top = game[i, F_TOP]
    any_play = False
    for k in range(NUM_KINDS):
        if playable[top, k]:
            copies = hands[i, p, k] if from_hand else ups[i, p, k]
            for j in range(copies):
                row[PLAY_OFFSET + k * MAX_COPIES + j] = 1
                any_play = True
    if not any_play:
        row[PICK_UP] = 1


@inline_kernel
def _rewards(i, st):
    """Game ``i``'s rewards of this step: games won since ``before`` (score mode) or the terminal win rewards."""
    n, wins_to_win, score_scale = st.params[P_N], st.params[P_WINS_TO_WIN], st.score_scale
    seats, rewards = st.seats, st.rewards
    if score_scale > 0.0:
        for s in range(n):
            rewards[i, s] = (seats[i, s, S_WINS] - st.before[s]) * score_scale
    elif st.terminated[i]:
        for s in range(n):
            rewards[i, s] = 1.0 if seats[i, s, S_WINS] >= wins_to_win else 0.0
        win_rewards_from_flags(rewards, i, n)


@inline_kernel
def _output(i, st):
    """Game ``i``'s observation, mask and shown seat (the last mover once over, else the player on turn)."""
    game = st.game
    seat = game[i, F_CURRENT]
    if game[i, F_OVER] and game[i, F_SHOWN] >= 0:
        seat = game[i, F_SHOWN]
    st.current_player[i] = seat
    _observe(i, seat, st)
    _write_mask(i, st)


@kernel
def reset_kernel(st):
    """Start a new episode in every slot and write the outputs."""
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


@kernel
def redraw_kernel(rows, seat, seeds, st, unseen):
    """Redraw in games ``rows`` what ``seat`` cannot see (see `LuckyPirateBatch.redraw_hidden`).

    ``unseen``: a ``NUM_KINDS`` scratch. The pool is built in the order of the kinds from what
    ``seat`` sees (the deck less its hand, its up cards, the pile, the removed cards, the others'
    public cards), so that it depends on nothing the seat cannot see.
    """
    params, deck_cards, pool = st.params, st.deck_cards, st.scratch
    seats, hands, ups, downs, known = st.seats, st.hands, st.ups, st.downs, st.known
    n = params[P_N]
    size = deck_cards.shape[0]
    for r in range(rows.shape[0]):
        i = rows[r]
        st.rng[i] = seeds[r]
        setting_up = st.game[i, F_SETTING_UP] != 0
        unseen[:] = 0
        for j in range(size):
            unseen[deck_cards[j]] += 1
        for kind in range(NUM_KINDS):
            unseen[kind] -= hands[i, seat, kind] + ups[i, seat, kind] + st.pile_counts[i, kind] + st.removed[i, kind]
            for s in range(n):
                if s != seat:
                    unseen[kind] -= known[i, s, kind] + (0 if setting_up else ups[i, s, kind])
        count = 0
        for kind in range(NUM_KINDS):
            for _ in range(unseen[kind]):
                pool[count] = kind
                count += 1
        dealt = 0  # the hidden cards in play; the rest of the pool is put aside unseen
        for s in range(n):
            for slot in range(downs.shape[2]):
                if downs[i, s, slot] != EMPTY_SLOT:
                    dealt += 1
            if s != seat:
                dealt += seats[i, s, S_HAND]
                for kind in range(NUM_KINDS):
                    dealt -= known[i, s, kind]
                if setting_up:
                    dealt += seats[i, s, S_UP]
        partial_shuffle(st.rng, i, pool, count, dealt)  # the first ``dealt`` cards are dealt
        at = 0
        for s in range(n):
            if s == seat:
                continue
            held = seats[i, s, S_HAND]
            for kind in range(NUM_KINDS):
                held -= known[i, s, kind]
                hands[i, s, kind] = known[i, s, kind]
            for j in range(at, at + held):
                hands[i, s, pool[j]] += 1
            at += held
            if setting_up:
                ups[i, s] = 0
                for j in range(at, at + seats[i, s, S_UP]):
                    ups[i, s, pool[j]] += 1
                at += seats[i, s, S_UP]
        for s in range(n):
            for slot in range(downs.shape[2]):
                if downs[i, s, slot] != EMPTY_SLOT:
                    downs[i, s, slot] = pool[at]
                    at += 1
        _output(i, st)


# ----------------------------------------------------------------------------- the backend
class LuckyPirateBatch(BatchBackend):
    """The state arrays of ``num_envs`` Lucky Pirate episodes and the kernels that step them (see ``BatchBackend``)."""

    ENGINE = LuckyPirateEngine
    NUM_ACTIONS = NUM_ACTIONS
    MAX_PLAYERS = MAX_PLAYERS
    OFFSET_PIECES = _OFFSET_PIECES
    MOVES_FIELD = F_MOVES
    build_layout = staticmethod(build_layout)
    State = LuckyPirateState
    reset_kernel = staticmethod(reset_kernel)
    step_kernel = staticmethod(step_kernel)
    outputs_kernel = staticmethod(outputs_kernel)
    ROW_ARRAYS = ("seats", "hands", "ups", "downs", "pile", "pile_counts", "removed", "known")
    #: Most moves kept per episode (a one-game episode keeps its whole turn limit up to this).
    MAX_HISTORY = 16384

    def largest_layout(self) -> ObservationLayout:  # type: ignore[override]
        """The largest table's seated layout, with this table's options ``observe_known`` and ``observe_pile``."""
        return largest_layout(self.config.observe_known, self.config.observe_pile)

    def _allocate(self) -> None:
        num, n, config, seated = self.num_envs, self.num_players, self.config, self.seated_layout
        encoder = Encoder(seated, config)  # its float32 scales, so that the products round alike
        players = seated["players"]
        self.scales = (
            encoder.scale[seated["hand"]].copy(),
            encoder.scale[players.start : players.start + TABLE_WIDTH].copy(),
            encoder.scale[seated["removed"]].copy(),
        )
        self.inv_deck = float(encoder.inv_deck)
        self.tables = pile_tables(config.pile_rules)
        reference = LuckyPirateEngine(config)
        self.deck_cards = reference._deck.astype(np.int8)
        self.scratch = np.empty(len(self.deck_cards), dtype=np.int8)  # the kernels' scratch: they allocate nothing
        self.before = np.zeros(n, dtype=np.int64)
        strands = config.first_mate_only_on_captain and not config.first_mate_on_empty_pile
        first_dealer = -1 if config.first_dealer is None else config.first_dealer
        self.params = np.array(
            [n, config.up_down, first_dealer, config.wins_to_win, config.choose_up_cards, config.run_clear_plays_again,
             config.plank_plays_again, strands, config.max_turns, config.max_set_aside_games,
             config.set_aside_dealer == "random"],
            dtype=np.int64,
        )  # fmt: skip
        deck_size = len(self.deck_cards)
        self.game = np.zeros((num, NUM_FIELDS), dtype=np.int64)
        self.seats = np.zeros((num, n, NUM_SEAT_FIELDS), dtype=np.int64)
        self.hands = np.zeros((num, n, NUM_KINDS), dtype=np.int8)
        self.ups = np.zeros((num, n, NUM_KINDS), dtype=np.int8)
        self.downs = np.full((num, n, MAX_UP_DOWN), EMPTY_SLOT, dtype=np.int8)
        self.pile = np.zeros((num, deck_size), dtype=np.int8)
        self.pile_counts = np.zeros((num, NUM_KINDS), dtype=np.int8)
        self.removed = np.zeros((num, NUM_KINDS), dtype=np.int8)
        self.known = np.zeros((num, n, NUM_KINDS), dtype=np.int8)
        #: Moves kept per episode: a one-game episode's turn limit, else ``MAX_HISTORY``.
        self.history_size = min(config.max_turns, self.MAX_HISTORY) if config.wins_to_win == 1 else self.MAX_HISTORY
        self.history = np.zeros((num, self.history_size), dtype=np.int8)
        self.redraw_unseen = np.zeros(NUM_KINDS, dtype=np.int64)  # redraw_kernel's scratch
        #: Row of each top of the pile in the pile tables (built by the first load).
        self._top_rows: dict[_rules.PileTop, int] | None = None

    def redraw_hidden(self, rows: np.ndarray, seat: int, seeds: np.ndarray) -> np.ndarray:
        """Redeal every card ``seat`` has not seen, as the reference engine's ``resample_hidden`` does.

        The pool is the deck less what the seat sees: the other hands' cards that were not taken in
        public (``known`` stays), every down card (the seat's own too), during the set-up the up
        cards the others have laid, and the cards put aside unseen. It is shuffled and dealt back,
        every hand, set of up cards and down slot keeping its size; what is left is put aside. The
        later games of a tournament are dealt from the row's new stream. Always succeeds.
        """
        with compile_notice("the batched lucky_pirate engine's redraw kernel", redraw_kernel):
            redraw_kernel(rows, seat, seeds, self.state, self.redraw_unseen)
        self.redrawn.update(rows.tolist())
        return np.zeros(len(rows), dtype=np.bool_)

    def load_row(self, index: int, engine: LuckyPirateEngine, stream: SplitMix64Stream) -> None:
        """Write ``engine``'s episode into game ``index`` (nothing is drawn ahead: ``stream`` is left as it is).

        The cards put aside unseen (a two-player deal's third hand) are not kept by the kernels.
        """
        top = self._top_row(engine.top)
        game, pile = self.game[index], engine.pile
        game[F_CURRENT], game[F_DEALER], game[F_DIRECTION] = engine.current_player, engine.dealer, engine.direction
        game[F_TOP], game[F_PILE_LEN], game[F_TURNS] = top, len(pile), engine.guard.turns
        game[F_SET_ASIDE], game[F_SETTING_UP] = len(engine.set_aside_games), engine.setting_up
        game[F_OVER], game[F_SHOWN] = 0, -1
        seats = self.seats[index]
        seats[:, S_HAND], seats[:, S_UP], seats[:, S_DOWN] = engine.hand_size, engine.up_size, engine.down_left
        seats[:, S_WINS], seats[:, S_TO_LAY] = engine.wins, engine.to_lay
        self.hands[index] = engine.hands
        self.ups[index] = engine.ups
        self.downs[index] = EMPTY_SLOT
        for seat, slots in enumerate(engine.downs):
            self.downs[index, seat, : len(slots)] = slots
        self.pile[index] = 0
        self.pile[index, : len(pile)] = pile
        self.pile_counts[index] = engine.pile_counts
        self.removed[index] = engine.removed
        self.known[index] = engine.known

    def _top_row(self, top: _rules.PileTop) -> int | None:
        """The row of ``top`` in the pile tables (``None``: play cannot reach it from an empty pile)."""
        if self._top_rows is None:
            self._top_rows = {top: row for row, top in enumerate(reachable_tops(self.config.pile_rules)[0])}
        return self._top_rows.get(top)

    def check_engine(self, position: int, engine: object) -> None:
        """`BatchBackend.check_engine`, and a top of the pile the tables hold (a chosen ``pile`` may not be)."""
        super().check_engine(position, engine)
        if self._top_row(engine.top) is None:  # type: ignore[attr-defined]
            raise ValueError(
                f"engines[{position}]'s pile top {engine.top} cannot be reached by play from an empty pile; "  # type: ignore[attr-defined]
                "its row cannot hold it"
            )

    def reference_engine(self, index: int) -> LuckyPirateEngine:
        """A reference engine whose ``reset`` starts game ``index`` with its very dealers and deals."""
        engine = LuckyPirateEngine(self.config)
        engine.pinned_chance = SplitMix64Stream(int(self.start_state[index]))
        return engine


__all__ = ["LuckyPirateBatch", "pile_tables", "reachable_tops"]
