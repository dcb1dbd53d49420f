"""Piraten Kapern for the batched engine: numba kernels that step many games held in arrays.

This module is the Piraten Kapern backend of `pirate_envs.vector` (read that page first);
it imports numba, so only ``pirate_envs.vector.make`` imports it. The reference engine
(`pirate_envs.piraten_kapern.engine.KapernEngine`) decides the rules. Its scoring comes
here as tables computed by the reference helpers themselves (``score_counts``,
``disqualified_score``, ``objects_points``, ``island_penalty``, the re-roll table of
``actions.py``); the turn flow (rolls, busts, the Island of Skulls, the chest, the final round,
the turn limit) is mirrored step by step, and the lockstep tests compare every observation,
mask, reward and end with the AEC env. Any difference is a bug of this module.

Its randomness and state arrays: ``docs/guides/batched.md``, section "Piraten Kapern".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pirate_envs.core.batched import (
    BatchBackend,
    SplitMix64Stream,
    check_constants,
    inline_kernel,
    kernel,
    random_below,
    reset_games,
    step_games,
    win_rewards_from_flags,
    write_outputs,
)
from pirate_envs.core.observation import ObservationLayout
from pirate_envs.piraten_kapern import actions as _actions
from pirate_envs.piraten_kapern import engine as _engine
from pirate_envs.piraten_kapern import rules as _rules
from pirate_envs.piraten_kapern.dice import count_vectors
from pirate_envs.piraten_kapern.engine import MAX_PLAYERS, Config, KapernEngine
from pirate_envs.piraten_kapern.observation import (
    DECK_SCALE,
    MAX_OBSERVED_ROLLS,
    POINTS_SCALE,
    ROLLS_SCALE,
    build_layout,
    largest_layout,
)

# ----------------------------------------------------------------------------- constants (checked below)
NUM_FACES = 6
NUM_DICE = 8
SABRE = 4
SKULL = 5
NUM_CARDS = 13
TREASURE_CHEST, SORCERESS, STORM, PEACE = 0, 2, 11, 12
ISLAND_SKULLS = 4
DISQUALIFYING_SKULLS = 3
MIN_REROLL = 2
MAX_CHEST_MOVES = 16
STOP = 0
REROLL_OFFSET = 1
CHEST_PUT_OFFSET = 2074
CHEST_TAKE_OFFSET = 2079
NUM_ACTIONS = 2084
PHASE_ROLLING, PHASE_ISLAND, PHASE_OVER = 0, 1, 2

_EXPECTED = {
    "rules.NUM_FACES": (NUM_FACES, _rules.NUM_FACES),
    "rules.NUM_DICE": (NUM_DICE, _rules.NUM_DICE),
    "rules.SABRE": (SABRE, _rules.SABRE),
    "rules.SKULL": (SKULL, _rules.SKULL),
    "rules.NON_SKULL_FACES": ((0, 1, 2, 3, 4), _rules.NON_SKULL_FACES),
    "rules.CARDS": (
        NUM_CARDS,
        len(_rules.CARDS),
    ),
    "rules.CARD_INDEX": (
        (TREASURE_CHEST, SORCERESS, STORM, PEACE),
        tuple(_rules.CARD_INDEX[c] for c in ("treasure_chest", "sorceress", "storm", "peace")),
    ),
    "rules.ISLAND_SKULLS": (ISLAND_SKULLS, _rules.ISLAND_SKULLS),
    "rules.DISQUALIFYING_SKULLS": (DISQUALIFYING_SKULLS, _rules.DISQUALIFYING_SKULLS),
    "actions.MIN_REROLL": (MIN_REROLL, _actions.MIN_REROLL),
    "engine.MAX_CHEST_MOVES_PER_ROLL": (MAX_CHEST_MOVES, _engine.MAX_CHEST_MOVES_PER_ROLL),
    "actions offsets": (
        (STOP, REROLL_OFFSET, CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, NUM_ACTIONS),
        tuple(
            getattr(_actions, name)
            for name in ("STOP", "REROLL_OFFSET", "CHEST_PUT_OFFSET", "CHEST_TAKE_OFFSET", "NUM_ACTIONS")
        ),
    ),
}
check_constants("Kapern", _EXPECTED)

# Per-game scalar fields: columns of the ``game`` array.
(
    F_CURRENT,
    F_PHASE,
    F_CARD,
    F_ROLLS,
    F_SORCERESS_USED,
    F_CHEST_MOVES,
    F_ISLAND,
    F_ISLAND_SKULLS,
    F_TURN_POINTS,
    F_TRIGGER,
    F_TURNS,
    F_DECK_LEN,
    F_MOVES,
    F_SHOWN,
) = range(14)
NUM_FIELDS = 14

_OFFSET_PIECES = (
    "on_turn",
    "card",
    "dice",
    "chest",
    "rolls",
    "sorceress_available",
    "island",
    "skulls",
    "turn_points",
    "scores",
    "final_round",
    "final_turn_left",
    "deck_left",
)
(
    O_ON_TURN,
    O_CARD,
    O_DICE,
    O_CHEST,
    O_ROLLS,
    O_SORCERESS,
    O_ISLAND,
    O_SKULLS,
    O_TURN_POINTS,
    O_SCORES,
    O_FINAL_ROUND,
    O_FINAL_LEFT,
    O_DECK,
) = range(len(_OFFSET_PIECES))
#: ``offsets[O_SEAT_PRESENT]``: the ``seat_present`` piece of ``table_layout="max"`` (-1: the seated layout).
O_SEAT_PRESENT = len(_OFFSET_PIECES)


# ----------------------------------------------------------------------------- tables from the reference
def _rule_tables(num_dice: int = NUM_DICE) -> tuple[np.ndarray, ...]:
    """The scoring and action tables of a game of ``num_dice`` dice, computed by the reference helpers.

    ``vector_id[c0..c5]``: the row of a count vector of at most eight dice (-1 if none);
    ``stop_points[card, row]``: ``score_counts`` (``num_dice`` dice); ``bust_points[card, row]``:
    ``disqualified_score``; ``chest_points[row]``: ``objects_points`` with the Treasure Chest;
    ``island_penalty[card, skulls]``; ``card_skulls[card]``; ``sea_battle[card]``;
    ``reroll_index[c0..c4, skull]``: the re-roll row of that vector (-1 if none).
    """
    vectors = [v for n in range(NUM_DICE + 1) for v in count_vectors(n)]
    vector_id = np.full((NUM_DICE + 1,) * NUM_FACES, -1, dtype=np.int16)
    for row, v in enumerate(vectors):
        vector_id[v] = row
    stop_points = np.zeros((NUM_CARDS, len(vectors)), dtype=np.int32)
    bust_points = np.zeros((NUM_CARDS, len(vectors)), dtype=np.int32)
    chest_points = np.zeros(len(vectors), dtype=np.int32)
    for row, v in enumerate(vectors):
        if v[SKULL] == 0:
            chest_points[row] = _rules.objects_points(v, "treasure_chest")
        if sum(v) == num_dice:
            for card_index, card in enumerate(_rules.CARDS):
                stop_points[card_index, row] = _rules.score_counts(v, card, num_dice)
                bust_points[card_index, row] = _rules.disqualified_score(v, card)
    max_skulls = NUM_DICE + max(_rules.card_skulls(c) for c in _rules.CARDS)
    island_penalty = np.array(
        [[_rules.island_penalty(s, card) for s in range(max_skulls + 1)] for card in _rules.CARDS], dtype=np.int32
    )
    card_skulls = np.array([_rules.card_skulls(c) for c in _rules.CARDS], dtype=np.int64)
    sea_battle = np.array([c in _rules.SEA_BATTLES for c in _rules.CARDS], dtype=np.bool_)
    reroll_index = np.full((NUM_DICE + 1,) * 5 + (2,), -1, dtype=np.int16)
    for row, v in enumerate(_actions.REROLL_TUPLES):
        reroll_index[v] = row
    return vector_id, stop_points, bust_points, chest_points, island_penalty, card_skulls, sea_battle, reroll_index


# ----------------------------------------------------------------------------- the kernels' record
class KapernState(NamedTuple):
    """What the kernels take: the backend's attributes of these names (see ``BatchBackend.State``)."""

    num_players: int
    target_score: int
    max_turns: int
    num_dice: int
    max_rolls: int
    score_scale: float
    offsets: np.ndarray
    tables: tuple[np.ndarray, ...]
    deck_cards: np.ndarray
    rng: np.ndarray
    game: np.ndarray
    free: np.ndarray
    chest: np.ndarray
    scores: np.ndarray
    final_left: np.ndarray
    deck: np.ndarray
    deck_counts: np.ndarray
    start_state: np.ndarray
    rolled: np.ndarray
    before: np.ndarray
    history: np.ndarray
    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


# ----------------------------------------------------------------------------- kernels: chance
@inline_kernel
def _roll(rng, i, n, rolled):
    """Roll ``n`` dice of game ``i`` into ``rolled`` (counts per face)."""
    rolled[:] = 0
    for _ in range(n):
        rolled[random_below(rng, i, NUM_FACES)] += 1


@kernel
def _shuffle_deck(i, rng, deck_cards, game, deck, deck_counts):
    """A full fresh fortune deck for game ``i``, shuffled as ``SplitMix64Stream.shuffle``."""
    size = deck_cards.shape[0]
    for j in range(size):
        deck[i, j] = deck_cards[j]
    for j in range(size - 1, 0, -1):
        r = random_below(rng, i, j + 1)
        card = deck[i, j]
        deck[i, j] = deck[i, r]
        deck[i, r] = card
    game[i, F_DECK_LEN] = size
    deck_counts[i] = 0
    for j in range(size):
        deck_counts[i, deck[i, j]] += 1


# ----------------------------------------------------------------------------- kernels: the turn flow
@inline_kernel
def _showing_row(i, free, chest, vector_id):
    """The table row of the dice showing in game ``i``."""
    return vector_id[
        free[i, 0] + chest[i, 0],
        free[i, 1] + chest[i, 1],
        free[i, 2] + chest[i, 2],
        free[i, 3] + chest[i, 3],
        free[i, 4] + chest[i, 4],
        free[i, 5] + chest[i, 5],
    ]


@inline_kernel
def _finish_turn(i, own, others, st):
    """Score the turn, run the final round and the turn limit; whether the next turn is due."""
    n, game, scores, final_left = st.num_players, st.game, st.scores, st.final_left
    player = game[i, F_CURRENT]
    for s in range(n):
        scores[i, s] += own if s == player else others
    game[i, F_TURN_POINTS] = 0
    trigger = game[i, F_TRIGGER]
    if trigger >= 0:
        final_left[i, player] = 0
        if scores[i, trigger] < st.target_score:
            game[i, F_TRIGGER] = -1
            trigger = -1
            final_left[i] = 0
        else:
            left = False
            for s in range(n):
                if final_left[i, s]:
                    left = True
            if not left:
                st.terminated[i] = True
                game[i, F_PHASE] = PHASE_OVER
                return False
    if trigger < 0 and scores[i, player] >= st.target_score:
        game[i, F_TRIGGER] = player
        for s in range(n):
            final_left[i, s] = s != player
    game[i, F_TURNS] += 1
    if game[i, F_TURNS] >= st.max_turns:
        st.truncated[i] = True
        game[i, F_PHASE] = PHASE_OVER
        return False
    game[i, F_CURRENT] = (player + 1) % n
    return True


@inline_kernel
def _end_island_turn(i, st):
    """The opponents lose the Island penalty (none under Peace with a sabre showing)."""
    island_penalty = st.tables[4]
    card = st.game[i, F_CARD]
    penalty = island_penalty[card, st.game[i, F_ISLAND_SKULLS]]
    if card == PEACE and st.free[i, SABRE] > 0:
        penalty = 0
    return _finish_turn(i, 0, -penalty, st)


@inline_kernel
def _end_turn(i, busted, st):
    """The player scores his dice (busted: the chest's dice with the Treasure Chest, else the bust points)."""
    vector_id, stop_points, bust_points, chest_points = st.tables[0], st.tables[1], st.tables[2], st.tables[3]
    free, chest = st.free, st.chest
    card = st.game[i, F_CARD]
    if not busted:
        points = stop_points[card, _showing_row(i, free, chest, vector_id)]
    elif card == TREASURE_CHEST:
        points = chest_points[vector_id[chest[i, 0], chest[i, 1], chest[i, 2], chest[i, 3], chest[i, 4], chest[i, 5]]]
    else:
        points = bust_points[card, _showing_row(i, free, chest, vector_id)]
    return _finish_turn(i, points, 0, st)


@inline_kernel
def _bust(i, st):
    """Three or more skulls: the turn ends (After the Storm scores it as an Island turn)."""
    if st.game[i, F_CARD] == STORM:
        st.game[i, F_ISLAND_SKULLS] = st.free[i, SKULL]
        return _end_island_turn(i, st)
    return _end_turn(i, True, st)


@inline_kernel
def _may_reroll(i, st):
    """Whether game ``i``'s turn may roll again: After the Storm allows one re-roll, ``max_rolls`` caps the rolls."""
    rolls = st.game[i, F_ROLLS]
    if st.game[i, F_CARD] == STORM and rolls >= 2:
        return False
    return st.max_rolls == 0 or rolls < st.max_rolls


@inline_kernel
def _check_island_over(i, new_skulls, st):
    """End the Island turn when a roll brings no skull, fewer than two dice are left, or no re-roll is allowed."""
    if new_skulls == 0 or st.num_dice - st.free[i, SKULL] < MIN_REROLL or not _may_reroll(i, st):
        return _end_island_turn(i, st)
    st.game[i, F_TURN_POINTS] = 0
    return False


@inline_kernel
def _start_turn(i, st):
    """Draw a fortune card and make the first roll; whether the turn ended on it (the next one is due)."""
    vector_id, stop_points, card_skulls, sea_battle = st.tables[0], st.tables[1], st.tables[5], st.tables[6]
    game, free, chest, deck, rolled = st.game, st.free, st.chest, st.deck, st.rolled
    if game[i, F_DECK_LEN] == 0:
        _shuffle_deck(i, st.rng, st.deck_cards, game, deck, st.deck_counts)
    top = game[i, F_DECK_LEN] - 1
    card = deck[i, top]
    game[i, F_DECK_LEN] = top
    st.deck_counts[i, card] -= 1
    game[i, F_CARD] = card
    _roll(st.rng, i, st.num_dice, rolled)
    for f in range(NUM_FACES):
        free[i, f] = rolled[f]
        chest[i, f] = 0
    game[i, F_ROLLS] = 1
    game[i, F_SORCERESS_USED] = 0
    game[i, F_CHEST_MOVES] = 0
    game[i, F_ISLAND] = 0
    game[i, F_ISLAND_SKULLS] = 0
    skulls = rolled[SKULL] + card_skulls[card]
    if skulls >= ISLAND_SKULLS and not sea_battle[card]:
        game[i, F_PHASE] = PHASE_ISLAND
        game[i, F_ISLAND] = 1
        game[i, F_ISLAND_SKULLS] = skulls
        return _check_island_over(i, skulls, st)
    if skulls >= DISQUALIFYING_SKULLS:
        return _bust(i, st)
    game[i, F_PHASE] = PHASE_ROLLING
    game[i, F_TURN_POINTS] = stop_points[card, _showing_row(i, free, chest, vector_id)]
    return False


@inline_kernel
def _start_turns(i, due, st):
    """Start turns while one is due (a turn may end on its first roll)."""
    while due:
        due = _start_turn(i, st)


@kernel
def _start_game(i, st):
    """Start a new game ``i`` (as ``KapernEngine.reset``): shuffle, then the first turns."""
    game = st.game
    st.start_state[i] = st.rng[i]
    st.scores[i] = 0
    st.final_left[i] = 0
    game[i, F_CURRENT] = 0
    game[i, F_PHASE] = PHASE_ROLLING
    game[i, F_TURN_POINTS] = 0
    game[i, F_TRIGGER] = -1
    game[i, F_TURNS] = 0
    game[i, F_MOVES] = 0
    game[i, F_SHOWN] = -1
    st.terminated[i] = False
    st.truncated[i] = False
    _shuffle_deck(i, st.rng, st.deck_cards, game, st.deck, st.deck_counts)
    _start_turns(i, True, st)


@inline_kernel
def _apply(i, action, st):
    """Apply the legal ``action`` of the player on turn in game ``i`` (as ``KapernEngine.apply``), then write
    the step's rewards: the driver's apply step (``core.batched.step_games``), its outputs still to write."""
    vector_id, stop_points, card_skulls, reroll_vectors = st.tables[0], st.tables[1], st.tables[5], st.tables[8]
    game, free, chest, rolled = st.game, st.free, st.chest, st.rolled
    for s in range(st.num_players):
        st.before[s] = st.scores[i, s]
    due = False
    if action == STOP:
        due = _end_island_turn(i, st) if game[i, F_PHASE] == PHASE_ISLAND else _end_turn(i, False, st)
    elif action >= CHEST_TAKE_OFFSET:
        face = action - CHEST_TAKE_OFFSET
        chest[i, face] -= 1
        free[i, face] += 1
        game[i, F_CHEST_MOVES] += 1
    elif action >= CHEST_PUT_OFFSET:
        face = action - CHEST_PUT_OFFSET
        free[i, face] -= 1
        chest[i, face] += 1
        game[i, F_CHEST_MOVES] += 1
    else:
        counts = reroll_vectors[action - REROLL_OFFSET]
        if counts[SKULL]:
            game[i, F_SORCERESS_USED] = 1
        total = 0
        for f in range(NUM_FACES):
            total += counts[f]
        _roll(st.rng, i, total, rolled)
        for f in range(NUM_FACES):
            free[i, f] += rolled[f] - counts[f]
        game[i, F_ROLLS] += 1
        game[i, F_CHEST_MOVES] = 0
        card = game[i, F_CARD]
        if game[i, F_PHASE] == PHASE_ISLAND:
            game[i, F_ISLAND_SKULLS] += rolled[SKULL]
            due = _check_island_over(i, rolled[SKULL], st)
        elif free[i, SKULL] + card_skulls[card] >= DISQUALIFYING_SKULLS:
            due = _bust(i, st)
        else:
            game[i, F_TURN_POINTS] = stop_points[card, _showing_row(i, free, chest, vector_id)]
    if due:  # a turn ended
        _start_turns(i, due, st)
    _rewards(i, st)
    return True


# ----------------------------------------------------------------------------- kernels: outputs
@inline_kernel
def _observe(i, seat, st):
    """Write the observation vector of ``seat`` in game ``i`` (as ``observation.Encoder``, either layout)."""
    n, offsets, game, free, chest, scores = st.num_players, st.offsets, st.game, st.free, st.chest, st.scores
    card_skulls = st.tables[5]
    vec = st.observation[i]
    vec[:] = 0.0
    if offsets[O_SEAT_PRESENT] >= 0:
        for row in range(n):
            vec[offsets[O_SEAT_PRESENT] + row] = 1.0
    card = game[i, F_CARD]
    vec[offsets[O_ON_TURN] + (game[i, F_CURRENT] - seat) % n] = 1.0
    vec[offsets[O_CARD] + card] = 1.0
    for f in range(NUM_FACES):
        vec[offsets[O_DICE] + f] = free[i, f] / NUM_DICE
        vec[offsets[O_CHEST] + f] = chest[i, f] / NUM_DICE
    vec[offsets[O_ROLLS]] = min(game[i, F_ROLLS], MAX_OBSERVED_ROLLS_K) / ROLLS_SCALE_K
    if card == SORCERESS and not game[i, F_SORCERESS_USED]:
        vec[offsets[O_SORCERESS]] = 1.0
    island = game[i, F_ISLAND]
    vec[offsets[O_ISLAND]] = island
    skulls = game[i, F_ISLAND_SKULLS] if island else free[i, SKULL] + card_skulls[card]
    vec[offsets[O_SKULLS]] = skulls / NUM_DICE
    vec[offsets[O_TURN_POINTS]] = game[i, F_TURN_POINTS] / POINTS_SCALE_K
    for row in range(n):
        s = (seat + row) % n
        vec[offsets[O_SCORES] + row] = scores[i, s] / st.target_score
        vec[offsets[O_FINAL_LEFT] + row] = st.final_left[i, s]
    if game[i, F_TRIGGER] >= 0:
        vec[offsets[O_FINAL_ROUND]] = 1.0
    for c in range(NUM_CARDS):
        vec[offsets[O_DECK] + c] = st.deck_counts[i, c] / DECK_SCALE_K


@inline_kernel
def _write_mask(i, st):
    """Write the legal actions of the player on turn in game ``i`` (as ``KapernEngine.legal_mask``)."""
    reroll_index, game, free, chest = st.tables[7], st.game, st.free, st.chest
    row = st.action_mask[i]
    row[:] = 0
    phase = game[i, F_PHASE]
    if phase == PHASE_OVER:
        return
    row[STOP] = 1
    card = game[i, F_CARD]
    if not _may_reroll(i, st):
        return
    skull_ok = 1 if (phase == PHASE_ROLLING and card == SORCERESS and not game[i, F_SORCERESS_USED]
                     and free[i, SKULL] > 0) else 0  # fmt: skip
    for c0 in range(free[i, 0] + 1):
        for c1 in range(free[i, 1] + 1):
            for c2 in range(free[i, 2] + 1):
                for c3 in range(free[i, 3] + 1):
                    for c4 in range(free[i, 4] + 1):
                        for sk in range(skull_ok + 1):
                            index = reroll_index[c0, c1, c2, c3, c4, sk]
                            if index >= 0:
                                row[REROLL_OFFSET + index] = 1
    if phase == PHASE_ROLLING and card == TREASURE_CHEST and game[i, F_CHEST_MOVES] < MAX_CHEST_MOVES:
        for f in range(SKULL):
            row[CHEST_PUT_OFFSET + f] = 1 if free[i, f] > 0 else 0
            row[CHEST_TAKE_OFFSET + f] = 1 if chest[i, f] > 0 else 0


@inline_kernel
def _rewards(i, st):
    """Game ``i``'s rewards of this step: score changes since ``before`` (score mode) or the terminal win rewards."""
    n, scores, rewards = st.num_players, st.scores, st.rewards
    if st.score_scale > 0.0:
        for s in range(n):
            rewards[i, s] = (scores[i, s] - st.before[s]) * st.score_scale
    elif st.terminated[i]:
        best = scores[i, 0]
        for s in range(1, n):
            best = max(best, scores[i, s])
        for s in range(n):
            rewards[i, s] = 1.0 if scores[i, s] == best else 0.0
        win_rewards_from_flags(rewards, i, n)


@inline_kernel
def _output(i, st):
    """Game ``i``'s observation, mask and shown seat (the last mover once over, else the player on turn)."""
    game = st.game
    seat = game[i, F_CURRENT]
    if game[i, F_PHASE] == PHASE_OVER and game[i, F_SHOWN] >= 0:
        seat = game[i, F_SHOWN]
    st.current_player[i] = seat
    _observe(i, seat, st)
    _write_mask(i, st)


#: The kernels' phase of each of the engine's.
_PHASES = {
    _engine.Phase.ROLLING: PHASE_ROLLING,
    _engine.Phase.ISLAND: PHASE_ISLAND,
    _engine.Phase.GAME_OVER: PHASE_OVER,
}

# Observation scales as kernel constants (checked equal to the encoder's below).
ROLLS_SCALE_K = 10.0
POINTS_SCALE_K = 1000.0
DECK_SCALE_K = 4.0
MAX_OBSERVED_ROLLS_K = 50
if (ROLLS_SCALE_K, POINTS_SCALE_K, DECK_SCALE_K, MAX_OBSERVED_ROLLS_K) != (
    ROLLS_SCALE,
    POINTS_SCALE,
    DECK_SCALE,
    MAX_OBSERVED_ROLLS,
):
    raise RuntimeError("the batched Kapern kernels are out of date with the observation scales")


# ----------------------------------------------------------------------------- batch kernels
@inline_kernel
def _new_game(i, st):
    """The driver's new-game step (``core.batched``): start game ``i``; its rewards are the score changes of
    the turns that ended in it (score mode)."""
    st.before[:] = 0
    _start_game(i, st)
    _rewards(i, st)


@kernel
def reset_kernel(st):
    """Start a new game in every slot and write the outputs (rewards: the score changes of turns ended in it)."""
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


# ----------------------------------------------------------------------------- the backend
class KapernBatch(BatchBackend):
    """The state arrays of ``num_envs`` Piraten Kapern games and the kernels that step them (see ``BatchBackend``)."""

    ENGINE = KapernEngine
    NUM_ACTIONS = NUM_ACTIONS
    MAX_PLAYERS = MAX_PLAYERS
    OFFSET_PIECES = _OFFSET_PIECES
    MOVES_FIELD = F_MOVES
    largest_layout = staticmethod(largest_layout)
    State = KapernState
    reset_kernel = staticmethod(reset_kernel)
    step_kernel = staticmethod(step_kernel)
    outputs_kernel = staticmethod(outputs_kernel)
    ROW_ARRAYS = ("free", "chest", "scores", "final_left", "deck", "deck_counts")
    #: Moves kept per game (random play runs to the 1000-turn limit in a few thousand moves).
    HISTORY_SIZE = 8192

    @staticmethod
    def build_layout(config: Config) -> ObservationLayout:
        return build_layout(config.num_players)

    def _allocate(self) -> None:
        num, n, config = self.num_envs, self.num_players, self.config
        self.target_score = config.target_score
        self.max_turns = config.max_turns
        self.num_dice, self.max_rolls = config.num_dice, config.max_rolls
        self.tables = (*_rule_tables(config.num_dice), np.asarray(_actions.REROLL_VECTORS, dtype=np.int64))
        self.deck_cards = np.array([_rules.CARD_INDEX[card] for card in KapernEngine(config).deck_cards], dtype=np.int8)
        self.game = np.zeros((num, NUM_FIELDS), dtype=np.int64)
        self.free = np.zeros((num, NUM_FACES), dtype=np.int64)
        self.chest = np.zeros((num, NUM_FACES), dtype=np.int64)
        self.scores = np.zeros((num, n), dtype=np.int64)
        self.final_left = np.zeros((num, n), dtype=np.int8)
        self.deck = np.zeros((num, len(self.deck_cards)), dtype=np.int8)
        self.deck_counts = np.zeros((num, NUM_CARDS), dtype=np.int8)
        self.history = np.zeros((num, self.HISTORY_SIZE), dtype=np.int16)
        self.rolled = np.zeros(NUM_FACES, dtype=np.int64)  # the kernels' scratch: they allocate nothing
        self.before = np.zeros(n, dtype=np.int64)

    def load_row(self, index: int, engine: KapernEngine, stream: SplitMix64Stream) -> None:
        """Write ``engine``'s game into game ``index`` (nothing is drawn ahead: ``stream`` is left as it is)."""
        turn, game = engine.turn, self.game[index]
        game[F_CURRENT], game[F_PHASE] = engine.current_player, _PHASES[engine.phase]
        game[F_CARD], game[F_ROLLS] = _rules.CARD_INDEX[turn.card], turn.rolls
        game[F_SORCERESS_USED], game[F_CHEST_MOVES] = turn.sorceress_used, turn.chest_moves
        game[F_ISLAND], game[F_ISLAND_SKULLS] = turn.island, turn.island_skulls
        game[F_TURN_POINTS] = engine.turn_points
        game[F_TRIGGER] = -1 if engine.final_trigger is None else engine.final_trigger
        game[F_TURNS], game[F_DECK_LEN], game[F_SHOWN] = engine.guard.turns, len(engine.deck), -1
        self.free[index] = turn.free
        self.chest[index] = turn.chest
        self.scores[index] = engine.scores()
        self.final_left[index] = engine.final_turns_left
        self.deck[index] = 0
        self.deck[index, : len(engine.deck)] = [_rules.CARD_INDEX[card] for card in engine.deck]
        self.deck_counts[index] = engine.deck_counts()

    def reference_engine(self, index: int) -> KapernEngine:
        """A reference engine whose ``reset`` starts game ``index`` with its very cards and dice (its stream pinned)."""
        engine = KapernEngine(self.config)
        engine.pinned_chance = SplitMix64Stream(int(self.start_state[index]))
        return engine


__all__ = ["KapernBatch"]
