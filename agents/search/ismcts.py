"""Information-set Monte Carlo tree search for every game: ``make_agent("mcts", env_id, env=env)``.

Single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley and Whitehouse, 2012). One
tree holds the searching seat's information set: its nodes are action sequences from the
position, every seat's moves included. Each iteration draws one *determinization*: a copy of
the game (``clone``) in which everything the seat cannot see is redrawn (the engine's
``resample_hidden`` from the seat's own view, plus a fresh chance source for every future deal
and die), so chance (dice, draws, the next hand's cards) is sampled anew in every iteration. In
that world the iteration descends the tree among the actions legal there (UCB1 with
availability counts), adds one child, plays a rollout and backs up every seat's return.

Honest (the worlds redrawn from the seat with the agent's own generator, `determinize`), seeded,
per game by the spec's ``search_options``; rollouts by the heuristic or at random
(``mcts:<simulations>:random``); at most `MAX_SIMULATIONS` iterations a move. Every option, the
returns, the selection and the per-game settings: ``docs/guides/search.md`` ("`mcts`: information-set search").
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import Agent, action_blocks, sample_legal
from agents.game_agents import make_game_agent
from agents.games import game_agents_of
from agents.spec import MAX_SIMULATIONS, MCTS_USAGE, ROLLOUTS, parse_agent_name
from pirate_envs.core.chance import SEED_BOUND, Chance, as_chance
from pirate_envs.core.engine import Engine
from pirate_envs.core.errors import check_range, shown

#: Iterations per move of ``mcts`` (``mcts:<simulations>`` picks another).
DEFAULT_SIMULATIONS = 200
#: UCB1 exploration constant on returns normalised to [0, 1].
DEFAULT_EXPLORATION = 0.7
#: Progressive widening: a node with ``n`` visits has at most ``1 + widening * sqrt(n)`` children.
DEFAULT_WIDENING = 1.0
#: A horizon: rollouts stop at the end of the turn in progress (engines with a turn guard).
TURN = "turn"
#: Score changes after which a rollout stops.
DEFAULT_HORIZON = 1


@dataclass(eq=False, slots=True)
class Node:
    """A tree node: the action that led here, the seat that took it and its statistics."""

    action: int = -1
    mover: int = -1
    visits: int = 0
    #: Times this node's action was legal when its parent was selected from (availability).
    available: int = 0
    total: float = 0.0
    children: dict[int, Node] = field(default_factory=dict)
    #: Closed loop: the node of each outcome seen after this node's action, by the searcher's view.
    outcomes: dict[Any, Node] = field(default_factory=dict)


class CanonicalDraws(Chance):
    """A chance source whose ``permutation`` and ``shuffle`` sort a 1-D input first.

    An engine's ``resample_hidden`` permutes the hidden cards in the order they lie in now; two
    games that look the same to the seat but hold the hidden cards in another order would give
    different worlds from the same seed. Sorted first, the world drawn depends only on what the
    seat knows (the multiset of unseen cards) and the source. Other draws pass through.
    """

    def __init__(self, source: Chance | np.random.Generator):
        self.source = as_chance(source)

    def permutation(self, items: Any) -> np.ndarray:
        return self.source.permutation(_sorted(items))

    def shuffle(self, items: list) -> None:
        items.sort()
        self.source.shuffle(items)

    def integers(self, low: int, high: int | None = None) -> int:
        return self.source.integers(low, high)

    def roll_dice(self, n: int) -> tuple[int, ...]:
        return self.source.roll_dice(n)

    def seed_dice(self) -> None:
        self.source.seed_dice()

    def clone(self) -> CanonicalDraws:
        return CanonicalDraws(self.source.clone())


def _sorted(x: Any) -> Any:
    """``x`` sorted when it is a sequence of cards (1-D), else unchanged (an integer, a table)."""
    if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim == 1):
        return np.sort(np.asarray(x))
    return x


def determinize(game: Engine, seat: int, rng: np.random.Generator) -> Engine:
    """A copy of ``game`` with everything ``seat`` cannot see redrawn from ``rng``.

    The copy (``game.clone``) gets a fresh chance source seeded from ``rng`` (``chance.fresh``:
    future deals and dice), then ``resample_hidden`` redraws the hidden cards with a
    `CanonicalDraws` of a generator seeded from ``rng``. Nothing of the true game's hidden state
    or future draws survives in the copy.
    """
    world = game.clone(chance=game.chance.fresh(rng))
    world.resample_hidden(seat, CanonicalDraws(np.random.default_rng(rng.integers(SEED_BOUND))))
    return world


def returns_of(scores: np.ndarray) -> np.ndarray:
    """Each seat's lead over the best other seat."""
    order = np.sort(scores)
    best, second = order[-1], order[-2] if scores.size > 1 else order[-1]
    others_best = np.where(scores == best, second, best)
    return scores - others_best


class ScoreChanges:
    """Counts a world's score changes since the searched position; over at ``limit`` or the game's end."""

    def __init__(self, scores: list[float], limit: int | None):
        self.last, self.limit, self.changes = scores, limit, 0

    def over(self, world: Any) -> bool:
        if world.done:
            return True
        if self.limit is None:
            return False
        scores = world.scores().tolist()
        if scores != self.last:
            self.changes += 1
            self.last = scores
        return self.changes >= self.limit


class TurnEnds:
    """Over once the turn in progress has ended (the engine's turn guard counted it) or the game is over."""

    def __init__(self, world: Any):
        self.turns = world.guard.turns

    def over(self, world: Any) -> bool:
        return world.done or world.guard.turns != self.turns


class LazyObservation(dict):
    """An observation dict whose ``"observation"`` vector is encoded from the view when first read."""

    def __init__(self, encode: Callable[[Any], np.ndarray], view: Any, mask: np.ndarray):
        super().__init__(action_mask=mask)
        self._encode, self._view = encode, view

    def __missing__(self, key: str) -> np.ndarray:
        if key != "observation":
            raise KeyError(key)
        vector = self["observation"] = self._encode(self._view)
        return vector


class SearchAgent:
    """SO-ISMCTS over the engine of the raw env ``env`` (see the module docstring)."""

    uses_view = True

    def __init__(
        self,
        env: Any,
        env_id: str,
        simulations: int = DEFAULT_SIMULATIONS,
        exploration: float = DEFAULT_EXPLORATION,
        rollout: str = "heuristic",
        horizon: int | str | None = DEFAULT_HORIZON,
        widening: float = DEFAULT_WIDENING,
        seed: int | None = None,
        closed_loop: bool = False,
        widening_values: Callable[[Any, list[int]], Sequence[float]] | None = None,
        win_bonus: float = 0.0,
        relative_returns: bool = False,
    ):
        simulations = check_range("simulations", simulations, 1, MAX_SIMULATIONS)
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {ROLLOUTS}, got {rollout!r}")
        if horizon not in (None, TURN) and (not isinstance(horizon, int) or horizon < 1):
            raise ValueError(f"horizon must be a positive number of score changes, {TURN!r} or None, got {horizon!r}")
        if exploration < 0 or widening <= 0 or win_bonus < 0:
            raise ValueError(
                f"exploration and win_bonus must be >= 0 and widening > 0, "
                f"got {exploration}, {win_bonus} and {widening}"
            )
        self.env = env.unwrapped
        self.simulations = simulations
        self.exploration = exploration
        self.horizon = horizon
        self.widening = widening
        self.closed_loop = closed_loop
        self.widening_values = widening_values
        self.win_bonus = win_bonus
        self.relative_returns = relative_returns
        self.name = f"mcts:{simulations}" + ("" if rollout == "heuristic" else f":{rollout}")
        self.blocks = action_blocks(env)
        self.rollout_agent: Agent | None = None
        if rollout == "heuristic":
            self.rollout_agent = make_game_agent("heuristic", env_id, seed=seed)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.pyrng = random.Random(seed)
        if self.rollout_agent is not None:
            self.rollout_agent.reset(seed)

    # ------------------------------------------------------------------ policy pieces
    def _policy_action(self, world: Any) -> int:
        """The rollout policy's action in ``world`` (reads the mover's view only)."""
        mask = world.legal_mask()
        if self.rollout_agent is None:
            return sample_legal(mask, self.pyrng, self.blocks)
        view = world.view(world.current_player)
        return int(self.rollout_agent.act(LazyObservation(self.env.encode, view, mask), view))

    # ------------------------------------------------------------------ search
    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        root = self.search()
        best = max(
            (child for child in root.children.values() if mask[child.action]),
            key=lambda child: (child.visits, child.total),
        )
        return best.action

    def search(self) -> Node:
        """The tree of ``simulations`` iterations from the position of the env's game (its root)."""
        game = self.env.game
        seat = game.current_player
        root = Node()
        bounds = [math.inf, -math.inf]
        start_scores = game.scores().tolist()
        baseline = returns_of(np.asarray(start_scores)) if self.relative_returns else 0.0
        for _ in range(self.simulations):
            world, horizon = self.start_iteration(game, seat, start_scores)
            self._iterate(world, seat, root, horizon, bounds, baseline)
        return root

    def start_iteration(
        self, game: Engine, seat: int, start_scores: list[float]
    ) -> tuple[Engine, ScoreChanges | TurnEnds]:
        """One iteration's world (`world`) and its rollout's horizon; a fresh rollout policy too."""
        world = self.world(game, seat)
        if self.rollout_agent is not None:  # a fresh rollout policy (one that remembers positions)
            self.rollout_agent.reset(int(self.rng.integers(2**63)))
        horizon = TurnEnds(world) if self.horizon == TURN else ScoreChanges(start_scores, self.horizon)
        return world, horizon

    def search_root_moves(self) -> list[tuple[int, int, float]]:
        """Search the position on turn now (`search`); ``(action, visits, mean return)`` of every root move,
        most visited first (a guided search also sets its ``policy_target``).

        The visits sum to ``simulations``; the mean return is the searching seat's (see the module
        docstring); the first move is the one `act` plays.
        """
        children = sorted(self.search().children.values(), key=lambda child: (-child.visits, -child.total))
        return [(child.action, child.visits, child.total / max(child.visits, 1)) for child in children]

    def _iterate(
        self,
        world: Any,
        seat: int,
        root: Node,
        horizon: ScoreChanges | TurnEnds,
        bounds: list[float],
        baseline: np.ndarray | float = 0.0,
    ) -> None:
        """One iteration in ``world``: select, expand one child, roll out, back up."""
        path, expanded = self.descend(world, seat, root, horizon, bounds)
        if expanded:
            while not horizon.over(world):
                world.apply(self._policy_action(world))
        self.back_up(path, self.leaf_values(world.scores(), world.terminated, world.winners, baseline), bounds)

    def descend(
        self, world: Any, seat: int, root: Node, horizon: ScoreChanges | TurnEnds, bounds: list[float]
    ) -> tuple[list[Node], bool]:
        """Select from ``root`` in ``world`` (moving it) until the horizon or one new child is added.

        Returns the path of nodes (root first) and whether a child was added (then a rollout follows).
        """
        path = [root]
        node = root
        while not horizon.over(world):
            mover = world.current_player
            legal = np.flatnonzero(world.legal_mask()).tolist()
            for a in legal:
                child = node.children.get(a)
                if child is not None:
                    child.available += 1
            limit = 1 + self.widening * math.sqrt(node.visits)
            untried = [a for a in legal if a not in node.children]
            if untried and (len(node.children) < limit or len(untried) == len(legal)):
                action = self._widen(world, untried)
                child = node.children[action] = Node(action, mover, available=1)
                world.apply(action)
                path.append(child)
                return path, True
            child = self._select(node, legal, bounds)
            world.apply(child.action)
            path.append(child)
            node = child
            if self.closed_loop:  # the next decision is the outcome's node: moves after it see the dice
                node = child.outcomes.setdefault(world.view(seat), Node())
                path.append(node)
        return path, False

    def world(self, game: Engine, seat: int) -> Engine:
        """The world of one iteration: `determinize` (a subclass may see more: the omniscient reference)."""
        return determinize(game, seat, self.rng)

    def returns(self, world: Any, baseline: np.ndarray | float = 0.0) -> np.ndarray:
        """Every seat's return where a rollout stopped in ``world`` (see the module docstring)."""
        return self.leaf_values(world.scores(), world.terminated, world.winners, baseline)

    def leaf_values(
        self, scores: Any, terminated: bool, winners: Callable[[], list[int]], baseline: np.ndarray | float = 0.0
    ) -> np.ndarray:
        """Every seat's return at a leaf with these ``scores`` (``winners()``: asked only for the win bonus)."""
        values = returns_of(np.asarray(scores, dtype=float)) - baseline
        if self.win_bonus and terminated:  # the end: what counts is who won
            won = winners()
            values[won] += self.win_bonus / len(won)
        return values

    @staticmethod
    def back_up(path: list[Node], values: np.ndarray, bounds: list[float]) -> None:
        """Count one visit along ``path`` with every mover's return in ``values``; widen ``bounds``."""
        bounds[0] = min(bounds[0], float(values.min()))
        bounds[1] = max(bounds[1], float(values.max()))
        for visited in path:
            visited.visits += 1
            if visited.mover >= 0:
                visited.total += float(values[visited.mover])

    def _widen(self, world: Any, untried: list[int]) -> int:
        """The move to add: the rollout policy's if untried, else the best by the one-step values, else at random."""
        preferred = self._policy_action(world)
        if preferred in untried:
            return preferred
        if self.widening_values is None:
            return untried[int(self.pyrng.random() * len(untried))]
        values = self.widening_values(world.view(world.current_player), untried)
        return untried[int(np.argmax(values))]

    def _select(self, node: Node, legal: list[int], bounds: list[float]) -> Node:
        """The legal child with the highest UCB1 score on normalised values."""
        low, high = bounds
        span = high - low if high > low else 1.0
        best, best_score = None, -math.inf
        c = self.exploration
        for a in legal:
            child = node.children.get(a)
            if child is None:
                continue
            mean = (child.total / child.visits - low) / span if child.visits else 1.0
            score = mean + c * math.sqrt(math.log(max(child.available, 1)) / max(child.visits, 1))
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best


def search_budget(simulations: int | None, env_id: str | None) -> int:
    """``simulations`` as written in a name, else ``env_id``'s ``search_simulations``, else the default."""
    if simulations is not None:
        return simulations
    return (game_agents_of(env_id).search_simulations if env_id is not None else None) or DEFAULT_SIMULATIONS


def parse_mcts_name(name: str, env_id: str | None = None) -> tuple[int, str]:
    """``(simulations, rollout)`` of ``mcts``, ``mcts:<simulations>`` or ``mcts:<simulations>:<rollout>`` (parsed
    by `agents.spec.parse_agent_name`; a plain ``mcts``: ``env_id``'s budget, see `search_budget`)."""
    spec = parse_agent_name(name)
    if spec.kind != "mcts":
        raise ValueError(f"bad search agent {shown(name)}: {MCTS_USAGE}")
    return search_budget(spec.simulations, env_id), spec.option or "heuristic"


def make_search_agent(name: str, env_id: str, seed: int | None = None, env: Any = None) -> SearchAgent:
    """``mcts[:<simulations>[:<rollout>]]`` for ``env_id``, searching the game of the raw env ``env``."""
    simulations, rollout = parse_mcts_name(name, env_id)
    if env is None:
        raise ValueError(f"agent {name!r} searches the game it plays: pass the env it plays in (env=...)")
    return SearchAgent(
        env,
        env_id,
        simulations=simulations,
        rollout=rollout,
        seed=seed,
        **game_agents_of(env_id).search_keywords(),
    )
