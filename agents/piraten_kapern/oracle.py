"""Exact one-turn oracle for Piraten Kapern: the policy that maximises a turn's expected points.

A state is the multiset of the eight dice plus whether the card's one-off option is open; a
re-roll's worth depends only on the dice kept, so value iteration over 1,287 states solves a turn,
each card its own way; ties go to stopping. The state, the value iteration and each card:
``docs/games/piraten_kapern_agents.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.once import once
from pirate_envs.piraten_kapern.actions import (
    CHEST_PUT_OFFSET,
    CHEST_TAKE_OFFSET,
    REROLL_OFFSET,
    REROLL_VECTORS,
    STOP,
    reroll_action,
)
from pirate_envs.piraten_kapern.dice import count_vectors, roll_probability
from pirate_envs.piraten_kapern.engine import DEFAULT_TARGET
from pirate_envs.piraten_kapern.rules import (
    CARDS,
    DISQUALIFYING_SKULLS,
    ISLAND_SKULLS,
    NON_SKULL_FACES,
    NUM_DICE,
    NUM_FACES,
    PROMO_CARDS,
    SEA_BATTLES,
    SKULL,
    card_skulls,
    check_card,
    objects_points,
    score_counts,
)
from pirate_envs.piraten_kapern.view import View


def expected_points_of_moves(view: Any, actions: Sequence[int]) -> list[float]:
    """Expected points of the turn after each of ``actions`` (legal in the Kapern ``view``), played on optimally.

    The one-turn oracle's values (`solve_turn`): stopping is worth the
    points showing (`score_counts`, the oracle's stop value); a re-roll, the worth of the dice
    it keeps in the option status it leaves (the Sorceress's skull re-roll and the Storm's
    re-roll close the option); a Treasure Chest re-roll counts a bust at the dice actually on
    the chest, not the kept dice the oracle would have put there first; a chest move, the
    state's optimal value (the oracle moves the dice it wants for free). On the Island of Skulls
    every move is worth 0 to the player.
    """
    from agents.piraten_kapern.lookahead import _PLACE, _kept_tables  # P(bust) per kept multiset: exact dice tables
    from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, REROLL_OFFSET, REROLL_VECTORS, STOP
    from pirate_envs.piraten_kapern.rules import NUM_FACES, SKULL, objects_points, score_counts

    if view.island:
        return [0.0] * len(actions)
    solution = solve_turn(view.card)
    showing = np.asarray(view.showing)
    is_open = option_open(view)
    points = []
    for action in actions:
        if action == STOP:
            points.append(float(score_counts(tuple(showing.tolist()), view.card)))
            continue
        if action >= CHEST_PUT_OFFSET:
            points.append(solution.state_value(tuple(showing.tolist()), is_open))
            continue
        rerolled = REROLL_VECTORS[action - REROLL_OFFSET]
        kept = showing - rerolled
        closes = view.card == STORM or (view.card == SORCERESS and rerolled[SKULL] > 0)
        worth = solution.kept_value(tuple(kept.tolist()), is_open and not closes)
        if view.card == TREASURE_CHEST:  # the oracle's worth counts the kept dice on the chest
            index, _, bust = _kept_tables(view.card)
            code = int(kept @ _PLACE)
            protected = kept * (np.arange(NUM_FACES) != SKULL)
            worth += bust[index[code]] * (objects_points(view.chest, view.card) - objects_points(protected, view.card))
        points.append(float(worth))
    return points


__all__ = [
    "KapernOracleAgent",
    "TurnSolution",
    "decision_view",
    "expected_points_of_moves",
    "optimal_turn_value",
    "oracle_plan",
    "plan_options",
    "planned_move",
    "policy_turn_value",
    "reroll_step",
    "sample_turn_scores",
    "solve_turn",
]

#: Cards with a one-off option: the Sorceress's skull re-roll, the single After the Storm re-roll.
SORCERESS, STORM, TREASURE_CHEST = "sorceress", "storm", "treasure_chest"
#: Value iteration stops when no state value moves by more than this many points.
TOLERANCE = 1e-10
MAX_ITERATIONS = 10_000
#: A re-roll must beat stopping by more than this to be chosen (ties go to stopping).
TIE_MARGIN = 1e-7
_RADIX = NUM_DICE + 1  # counts per face are 0..8: a multiset's code is its base-9 number
_PLACE = _RADIX ** np.arange(NUM_FACES)


def _count_vectors(total: int) -> np.ndarray:
    """All per-face count vectors of ``total`` dice, in a fixed order."""
    return np.array(count_vectors(total), dtype=np.int64).reshape(-1, NUM_FACES)


def _codes(vectors: np.ndarray) -> np.ndarray:
    """Base-9 code of each count vector (rows of ``vectors``)."""
    return vectors @ _PLACE


def _multinomial_probs(outcomes: np.ndarray) -> np.ndarray:
    """Probability of each count vector when rolling ``outcomes.sum(1)`` fair dice."""
    return np.array([roll_probability(tuple(row.tolist())) for row in outcomes])


@dataclass(frozen=True)
class Options:
    """Legal re-rolls per state, padded: action ids (-1 = none) and the kept multiset of each."""

    actions: np.ndarray  # (1287, width)
    kept: np.ndarray  # (1287, width); the padding points at a dummy kept slot worth -inf


@dataclass(frozen=True)
class _Tables:
    """Card-independent dice tables: states, kept multisets, transitions, legal re-rolls."""

    states: np.ndarray  # (1287, 6) count vectors of the eight dice
    kept: np.ndarray  # (1716, 6) count vectors of 0..7 kept dice
    state_of_code: np.ndarray  # base-9 code -> state index (-1 elsewhere)
    kept_of_code: np.ndarray  # base-9 code -> kept index (-1 elsewhere)
    trans_kept: np.ndarray  # transition entries: kept index,
    trans_state: np.ndarray  # ... next state index,
    trans_prob: np.ndarray  # ... probability
    first_roll: np.ndarray  # (1287,) probability of each state on the first roll
    plain_options: Options  # per state, the legal re-rolls that take no skull
    skull_options: Options  # per state, the legal re-rolls that take one skull (Sorceress)
    no_options: Options  # no re-roll at all

    def state_index(self, counts: Sequence[int]) -> int:
        """Index of the state with these eight face counts."""
        return _lookup(self.state_of_code, counts, "eight dice")

    def kept_index(self, counts: Sequence[int]) -> int:
        """Index of the kept multiset with these face counts (0..7 dice)."""
        return _lookup(self.kept_of_code, counts, "0..7 kept dice")


def _lookup(index_of_code: np.ndarray, counts: Sequence[int], what: str) -> int:
    if len(counts) != NUM_FACES or min(counts) < 0 or max(counts) > NUM_DICE:
        raise ValueError(f"counts={tuple(counts)} must be {NUM_FACES} face counts of {what}")
    index = int(index_of_code[int(np.dot(counts, _PLACE))])
    if index < 0:
        raise ValueError(f"counts={tuple(counts)} must be {NUM_FACES} face counts of {what}")
    return index


def _padded(rows: list[tuple[np.ndarray, np.ndarray]], dummy_kept: int) -> Options:
    """Pad per-state (actions, kept indices) lists into arrays (-1 action, ``dummy_kept``)."""
    width = max(1, max(len(actions) for actions, _ in rows))
    actions = np.full((len(rows), width), -1, dtype=np.int64)
    kept = np.full((len(rows), width), dummy_kept, dtype=np.int64)
    for i, (a, k) in enumerate(rows):
        actions[i, : len(a)] = a
        kept[i, : len(k)] = k
    return Options(actions, kept)


@once
def _tables() -> _Tables:
    states = _count_vectors(NUM_DICE)
    kept = np.concatenate([_count_vectors(n) for n in range(NUM_DICE)])
    state_of_code = np.full(_RADIX**NUM_FACES, -1, dtype=np.int64)
    state_of_code[_codes(states)] = np.arange(len(states))
    kept_of_code = np.full(_RADIX**NUM_FACES, -1, dtype=np.int64)
    kept_of_code[_codes(kept)] = np.arange(len(kept))

    trans_kept, trans_state, trans_prob = [], [], []
    for rolled in range(1, NUM_DICE + 1):
        outcomes = _count_vectors(rolled)
        probs = _multinomial_probs(outcomes)
        sources = np.flatnonzero(kept.sum(axis=1) == NUM_DICE - rolled)
        nxt = kept[sources][:, None, :] + outcomes[None, :, :]
        trans_kept.append(np.repeat(sources, len(outcomes)))
        trans_state.append(state_of_code[_codes(nxt)].ravel())
        trans_prob.append(np.tile(probs, len(sources)))
    first_roll = np.zeros(len(states))
    outcomes = _count_vectors(NUM_DICE)
    first_roll[state_of_code[_codes(outcomes)]] = _multinomial_probs(outcomes)

    # Legal re-rolls per state: every re-roll vector that fits in the dice showing.
    fits = np.ones((len(REROLL_VECTORS), len(states)), dtype=bool)
    for face in range(NUM_FACES):
        fits &= REROLL_VECTORS[:, face, None] <= states[None, :, face]
    kept_code = _codes(states)[None, :] - _codes(REROLL_VECTORS)[:, None]  # codes are linear
    takes_skull = REROLL_VECTORS[:, SKULL] > 0
    plain, skull = [], []
    for s in range(len(states)):
        for rows, out in ((fits[:, s] & ~takes_skull, plain), (fits[:, s] & takes_skull, skull)):
            vectors = np.flatnonzero(rows)
            out.append((REROLL_OFFSET + vectors, kept_of_code[kept_code[vectors, s]]))
    return _Tables(
        states=states,
        kept=kept,
        state_of_code=state_of_code,
        kept_of_code=kept_of_code,
        trans_kept=np.concatenate(trans_kept),
        trans_state=np.concatenate(trans_state),
        trans_prob=np.concatenate(trans_prob),
        first_roll=first_roll,
        plain_options=_padded(plain, len(kept)),
        skull_options=_padded(skull, len(kept)),
        no_options=_padded([(np.empty(0, np.int64), np.empty(0, np.int64))] * len(states), len(kept)),
    )


@dataclass(frozen=True)
class TurnSolution:
    """The solved turn of one card.

    ``values[open]``, ``policy[open]``: per state, the optimal value and action (``STOP`` or a
    re-roll action id of the dice showing), where ``open`` says whether the card's one-off
    option (Sorceress skull re-roll, Storm re-roll) is still available; other cards use
    ``open=False`` only. ``kept_values[open]`` is the worth of re-rolling to a kept multiset
    when the next state has that option status.
    """

    card: str
    stop: np.ndarray
    values: dict[bool, np.ndarray]
    policy: dict[bool, np.ndarray]
    kept_values: dict[bool, np.ndarray]
    turn_value: float

    def state_value(self, counts: Sequence[int], option_open: bool = False) -> float:
        """Optimal expected points from the eight face ``counts`` (the turn not over)."""
        return float(self.values[option_open][_tables().state_index(counts)])

    def kept_value(self, kept: Sequence[int], option_open: bool = False) -> float:
        """Expected points of re-rolling all dice but ``kept`` (then playing optimally)."""
        return float(self.kept_values[option_open][_tables().kept_index(kept)])

    def best_action(self, counts: Sequence[int], option_open: bool = False) -> int:
        """The optimal action (``STOP`` or a re-roll action id) from these face counts."""
        return int(self.policy[option_open][_tables().state_index(counts)])


def _kept_worth(values: np.ndarray, bust_bonus: np.ndarray) -> np.ndarray:
    """Expected worth of each kept multiset: ``T @ values`` plus the chest's bust bonus."""
    t = _tables()
    weights = t.trans_prob * values[t.trans_state]
    return np.bincount(t.trans_kept, weights=weights, minlength=len(t.kept)) + bust_bonus


def _best_option(kept_worth: np.ndarray, options: Options) -> tuple[np.ndarray, np.ndarray]:
    """Per state, the best re-roll action among ``options`` and its worth (-inf if none)."""
    worth = np.append(kept_worth, -np.inf)[options.kept]
    best = worth.argmax(axis=1)
    rows = np.arange(len(worth))
    return options.actions[rows, best], worth[rows, best]


def _decide(
    stop: np.ndarray, may_stop: np.ndarray, bust: np.ndarray, choices: list[tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    """Values and actions: stopping (where allowed) or the best re-roll of each choice block."""
    action = np.full(len(stop), STOP, dtype=np.int64)
    value = np.where(may_stop, stop, -np.inf)
    for act, worth in choices:
        better = worth > value + TIE_MARGIN
        action = np.where(better, act, action)
        value = np.where(better, worth, value)
    action[bust] = STOP  # the turn is over: a bust state is worth its bust value
    value[bust] = stop[bust]
    return value, action


@dataclass(frozen=True)
class _TurnModel:
    """What a card makes of the dice states: stop and bust values, the chest's bust bonus."""

    card: str
    stop: np.ndarray  # (1287,) points of stopping; for a bust state, its bust value
    bust: np.ndarray  # (1287,) three skulls or more (card skulls included)
    island: np.ndarray  # (1287,) a first roll that goes to the Island of Skulls
    bust_bonus: np.ndarray  # (1716,) P(bust) x the chest's points, per kept multiset

    @property
    def has_option(self) -> bool:
        """Whether the card has a one-off option (its tables ``open`` and ``closed``)."""
        return self.card in (SORCERESS, STORM)

    def options(self, option_open: bool) -> tuple[Options, Options]:
        """Legal re-rolls per state: (those keeping the option status, those closing it)."""
        t = _tables()
        if self.card == STORM:  # the single re-roll closes the option; then none is left
            return t.no_options, t.plain_options if option_open else t.no_options
        return t.plain_options, t.skull_options if option_open else t.no_options


@once
def chest_dice() -> tuple[np.ndarray, np.ndarray]:
    """Per kept multiset (`_Tables.kept`), under the Treasure Chest: the chance that re-rolling the
    other dice busts, and the points of the kept non-skull dice on the chest (what that bust scores)."""
    t = _tables()
    bust = t.states[:, SKULL] + card_skulls(TREASURE_CHEST) >= DISQUALIFYING_SKULLS
    bust_prob = np.bincount(t.trans_kept, weights=t.trans_prob * bust[t.trans_state], minlength=len(t.kept))
    points = np.array([objects_points(k * (np.arange(NUM_FACES) != SKULL), TREASURE_CHEST) for k in t.kept])
    return bust_prob, points


@once
def _turn_model(card: str) -> _TurnModel:
    check_card(card)
    t = _tables()
    skulls = t.states[:, SKULL] + card_skulls(card)
    bust = skulls >= DISQUALIFYING_SKULLS
    stop = np.array([score_counts(s, card) for s in t.states], dtype=np.float64)
    bust_bonus = np.zeros(len(t.kept))
    if card == TREASURE_CHEST:
        bust_prob, chest_points = chest_dice()
        bust_bonus = bust_prob * chest_points
    island = skulls >= ISLAND_SKULLS if card not in SEA_BATTLES else np.zeros(len(stop), dtype=bool)
    return _TurnModel(card=card, stop=stop, bust=bust, island=island, bust_bonus=bust_bonus)


def _iterate(
    turn: _TurnModel, may_stop: np.ndarray, options: Options, extra: tuple[np.ndarray, np.ndarray] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Value iteration of one table from ``V = stop``: values, actions and kept-multiset worths.

    ``options`` are the re-rolls that keep the table's option status, ``extra`` the best
    re-roll (action, worth) per state that closes it.
    """
    value = turn.stop
    for _ in range(MAX_ITERATIONS):
        kept_worth = _kept_worth(value, turn.bust_bonus)
        choices = [_best_option(kept_worth, options)] + ([extra] if extra else [])
        new_value, action = _decide(turn.stop, may_stop, turn.bust, choices)
        if np.max(np.abs(new_value - value)) <= TOLERANCE:
            return new_value, action, _kept_worth(new_value, turn.bust_bonus)
        value = new_value
    raise RuntimeError("value iteration did not converge")  # pragma: no cover


def _solve(turn: _TurnModel, choose: Callable[[bool], tuple[np.ndarray, Options, Options]]) -> TurnSolution:
    """Solve the closed table, then the open one; ``choose(open)`` gives (may_stop, options, closing)."""
    values, policy, kept_values = {}, {}, {}
    for option_open in (False, True) if turn.has_option else (False,):
        may_stop, options, closing = choose(option_open)
        extra = _best_option(kept_values[False], closing) if option_open else None
        values[option_open], policy[option_open], kept_values[option_open] = _iterate(turn, may_stop, options, extra)
    first = values[turn.has_option].copy()  # a bust state's value is its bust value
    first[turn.island] = 0.0
    return TurnSolution(
        card=turn.card,
        stop=turn.stop,
        values=values,
        policy=policy,
        kept_values=kept_values,
        turn_value=float(_tables().first_roll @ first),
    )


@once
def solve_turn(card: str) -> TurnSolution:
    """Solve the turn of ``card`` exactly (cached)."""
    turn = _turn_model(card)
    always = np.ones(len(turn.stop), dtype=bool)
    return _solve(turn, lambda option_open: (always, *turn.options(option_open)))


def policy_turn_value(card: str, plan: Callable[[View], Sequence[int] | None]) -> float:
    """Exact expected points of a turn played by ``plan``: the dice to re-roll, or ``None`` to stop.

    ``plan`` must depend only on the card, the dice showing and the option status (Sorceress
    used, Storm re-roll made), and with the Treasure Chest it must keep every kept non-skull die
    on the chest (as `reroll_step` does). An illegal re-roll counts as stopping. The
    Island of Skulls is worth 0 whatever ``plan`` does there.
    """
    return _solve(_turn_model(card), lambda option_open: plan_options(card, plan, option_open)).turn_value


def plan_options(
    card: str, plan: Callable[[View], Sequence[int] | None], option_open: bool
) -> tuple[np.ndarray, Options, Options]:
    """``plan``'s move in every dice state with this option status, as one-column `Options`.

    Returns ``(may_stop, keeping, closing)``: where the plan stops (or plays an illegal re-roll),
    and its re-roll among those that keep the option status and those that close it (action -1
    and the dummy kept slot where it is not one of them). See `policy_turn_value` for what
    ``plan`` may depend on.
    """
    t = _tables()
    legal = _turn_model(card).options(option_open)
    chosen = [np.full_like(o.actions[:, :1], -1) for o in legal]
    kept = [np.full_like(o.kept[:, :1], len(t.kept)) for o in legal]
    for s, counts in enumerate(t.states):
        reroll = plan(decision_view(card, tuple(int(c) for c in counts), option_open))
        for block, options in enumerate(legal):
            column = np.flatnonzero(options.actions[s] == _reroll_id(reroll))
            if column.size:
                chosen[block][s], kept[block][s] = options.actions[s, column[0]], options.kept[s, column[0]]
    may_stop = (chosen[0][:, 0] < 0) & (chosen[1][:, 0] < 0)
    return may_stop, Options(chosen[0], kept[0]), Options(chosen[1], kept[1])


def _reroll_id(reroll: Sequence[int] | None) -> int:
    """The re-roll action of ``reroll`` counts; -1 for ``None`` or a vector with no action."""
    if reroll is None:
        return -1
    try:
        return reroll_action(tuple(int(x) for x in reroll))
    except ValueError:
        return -1


def decision_view(card: str, counts: tuple[int, ...], option_open: bool) -> View:
    """Seat 0's view of a turn with these dice showing (none on the chest) and this option status."""
    return View(
        seat=0,
        num_players=2,
        current_player=0,
        phase="rolling",
        card=card,
        free=counts,
        chest=(0,) * NUM_FACES,
        rolls=1 if option_open else 2,
        sorceress_used=card == SORCERESS and not option_open,
        island=False,
        island_skulls=0,
        chest_moves=0,
        turn_points=score_counts(counts, card),
        scores=(0, 0),
        final_trigger=None,
        final_turns_left=(False, False),
        deck_counts=(0,) * len(CARDS),
        target_score=DEFAULT_TARGET,
    )


def optimal_turn_value(card: str) -> float:
    """Expected points of an optimally played turn with ``card``, before the first roll."""
    return solve_turn(card).turn_value


def option_open(view: View) -> bool:
    """Whether the card's one-off option (Sorceress skull re-roll, Storm re-roll) is still open."""
    if view.card == SORCERESS:
        return not view.sorceress_used
    return view.card == STORM and view.rolls < 2


def reroll_step(view: View, reroll: tuple[int, ...] | np.ndarray) -> int:
    """The next action towards re-rolling ``reroll`` dice (counts per face of the dice showing).

    With the Treasure Chest, every other non-skull die must be on the chest first: this
    returns one chest move (take off, then put on) until it is, then the re-roll.
    """
    showing = view.showing
    if view.card == TREASURE_CHEST and not view.island:
        for i, face in enumerate(NON_SKULL_FACES):
            if view.chest[face] > showing[face] - reroll[face]:
                return CHEST_TAKE_OFFSET + i
        for i, face in enumerate(NON_SKULL_FACES):
            if view.chest[face] < showing[face] - reroll[face]:
                return CHEST_PUT_OFFSET + i
    return reroll_action(tuple(int(x) for x in reroll))


class KapernOracleAgent:
    """Plays the one-turn oracle's policy; reads only its `pirate_envs.piraten_kapern.view.View` and the mask."""

    name = "oracle"

    def reset(self, seed: int | None = None) -> None:
        """Deterministic: nothing to reset."""

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """The next step of `oracle_plan`: stop, or a re-roll (chest moves first).

        Refuses (``ValueError``) the small variants it was not solved for: fewer dice (``num_dice``) or
        a roll limit (``max_rolls``) that forbids the re-roll it plans.
        """
        if sum(view.showing) != NUM_DICE:
            raise ValueError(f"the oracle solves the 8-dice game; this game rolls {sum(view.showing)} dice (num_dice)")
        return planned_move(observation, view, self.plan(view), "the oracle")

    def move_values(self, view: View, actions: Sequence[int]) -> list[float]:
        """The expected points of the turn after each of ``actions`` (`expected_points_of_moves`): what a hint shows."""
        return expected_points_of_moves(view, actions)

    @staticmethod
    def plan(view: View) -> np.ndarray | None:
        """The dice to re-roll, or ``None`` to stop: `oracle_plan` (as `KapernHeuristic.plan` is the heuristic's)."""
        return oracle_plan(view)


def planned_move(observation: dict[str, np.ndarray], view: View, reroll: np.ndarray | None, who: str) -> int:
    """The next action of a planned re-roll (`reroll_step`), or ``STOP`` for ``None``, checked against the mask.

    A game that caps a turn's rolls (``max_rolls``) and leaves only stopping is refused with a
    ``ValueError`` naming ``who`` (the planner plays re-rolls without limit); any other illegal
    move is a bug (``RuntimeError``).
    """
    if reroll is None:
        return STOP
    move = reroll_step(view, reroll)
    mask = observation["action_mask"]
    if not mask[move] and mask.sum() == 1:
        raise ValueError(f"{who} plays re-rolls without limit; this game caps a turn's rolls (max_rolls)")
    if not mask[move]:
        raise RuntimeError(f"{who} chose illegal action {move} in {view}")
    return move


def oracle_plan(view: View) -> np.ndarray | None:
    """The optimal re-roll (counts per face of the dice showing), or ``None`` to stop.

    On the Island of Skulls the turn is worth 0 to the player whatever he does: stop at once.
    """
    if view.island:
        return None
    action = solve_turn(view.card).best_action(view.showing, option_open(view))
    return None if action == STOP else REROLL_VECTORS[action - REROLL_OFFSET]


def sample_turn_scores(agent: Any, card: str, num_turns: int, seed: int = 0) -> np.ndarray:
    """Seat 0's points in ``num_turns`` first turns with ``card``, played by ``agent`` in the env.

    Each game is a 2-player ``raw_env`` with ``max_turns=1`` (it ends with seat 0's turn) and
    ``options={"first_card": card}``; the environment's generator is seeded once with ``seed``.
    """
    from pirate_envs.piraten_kapern_v0 import raw_env  # the env is needed here only

    check_card(card)
    env = raw_env(num_players=2, promo_cards=card in PROMO_CARDS, max_turns=1)
    game = env.game
    points = np.empty(num_turns)
    agent.reset(seed)
    for i in range(num_turns):
        env.reset(seed=seed if i == 0 else None, options={"first_card": card})
        while not game.done:
            env.step(agent.act(env.observe(env.agent_selection), game.view(game.current_player)))
        points[i] = game.scores()[0]
    return points
