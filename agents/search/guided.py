"""Search guided by a trained network, and the omniscient reference: ``make_agent("mcts:50:ppo:skull_king_v0", ...)``.

The information-set search of `agents.search.ismcts` (one tree over the searching seat's information
set, one determinized world per iteration, max-n backups of every seat's return) with the
network's policy as the prior of every decision:

PUCT (``mcts:<simulations>:ppo:<agent>``) or Gumbel at the root (``gumbel:<simulations>:ppo:<agent>``),
priors read from the deciding seat's View in each world, leaves valued by the value head or a
heuristic rollout, and Gumbel's improved policy as ``policy_target`` for expert iteration.
``omniscient[...]`` is the same search seeing every hidden card: a bound, *not an honest player*.
Every rule, constant and option: ``docs/guides/search.md`` ("`mcts:<n>:ppo:<agent>`").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.games import game_agents_of
from agents.policy.agent import load_checkpoint, make_policy_agent
from agents.policy.mlp import MlpPolicy
from agents.search.ismcts import (
    DEFAULT_SIMULATIONS,
    Node,
    ScoreChanges,
    SearchAgent,
    TurnEnds,
    returns_of,
    search_budget,
)
from agents.spec import GUIDED_ROOTS, GUIDED_USAGE, OMNISCIENT, SAMPLE_SUFFIX, parse_agent_name
from pirate_envs.core.engine import Engine
from pirate_envs.core.errors import shown
from pirate_envs.core.rewards import win_rewards

#: PUCT's exploration constant on values normalised to [0, 1] (MuZero's c1).
DEFAULT_PUCT = 1.25
#: The share of a uniform prior mixed into the network's (AlphaZero's root-noise fraction, here at every
#: decision): the shipped PPO policies are near-deterministic (the top move often holds 0.99 or more), and as
#: priors they would leave every other move unsearched.
DEFAULT_PRIOR_MIX = 0.25
#: Gumbel: the most root actions sequential halving considers, and sigma's constants.
GUMBEL_CONSIDERED = 16
GUMBEL_C_VISIT = 50.0
GUMBEL_C_SCALE = 1.0
#: Root selection rules by name prefix.
ROOTS = GUIDED_ROOTS
#: Leaf evaluations: ``auto`` is the value head when the file has one (trained for the win), else a rollout.
LEAVES = ("auto", "value", "rollout")
#: Rollout policies of the guided search.
GUIDED_ROLLOUTS = ("heuristic", "network", "random")
#: First-play urgency before any sibling was tried.
UNTRIED_VALUE = 0.5


def has_value_head(network: Any) -> bool:
    """Whether ``network`` can value a position (`MlpPolicy.value`; files without a value head cannot)."""
    return bool(getattr(network, "has_value", False)) and callable(getattr(network, "value", None))


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """``log softmax`` of a 1-D array of logits."""
    z = logits - logits.max()
    return z - math.log(float(np.exp(z).sum()))


def network_log_prior(network: MlpPolicy, env: Any, world: Any, seat: int, legal: np.ndarray) -> np.ndarray:
    """``log P`` over ``legal``: ``network``'s masked softmax from ``seat``'s View in ``world``, encoded by ``env``."""
    return log_softmax(network.logits(env.encode(world.view(seat)))[legal])


def gumbel_sigma(q: np.ndarray, most_visits: int, scale: float) -> np.ndarray:
    """Gumbel's ``sigma(q) = (c_visit + most visits of a root move) * c_scale * q`` (``q`` in ``[0, 1]``)."""
    return (GUMBEL_C_VISIT + most_visits) * scale * q


def improved_policy(logits: np.ndarray, legal: np.ndarray, num_actions: int) -> np.ndarray:
    """Gumbel's improved policy ``softmax(log P + sigma(completed q))`` from ``logits`` over ``legal``, as a
    distribution over all ``num_actions`` (zero off ``legal``)."""
    policy = np.zeros(num_actions)
    policy[legal] = np.exp(log_softmax(np.asarray(logits, dtype=float)))
    return policy


def visit_shares(root: Node, mask: np.ndarray) -> np.ndarray:
    """The root's visit distribution over every action of ``mask`` (zero off the visited legal ones)."""
    visits = np.zeros(mask.size)
    for child in root.children.values():
        if mask[child.action]:
            visits[child.action] = child.visits
    return visits / visits.sum() if visits.sum() else mask / mask.sum()


def true_world(game: Engine, rng: np.random.Generator) -> Engine:
    """The omniscient reference's world: a copy of ``game`` keeping every hidden card, drawing the future
    (dice, later deals) from a fresh chance source seeded from ``rng``. Not an honest player's world."""
    return game.clone(chance=game.chance.fresh(rng))


class OmniscientSearchAgent(SearchAgent):
    """``mcts`` seeing every hidden card (``omniscient[:<simulations>]``): a bound, NOT an honest player.

    The search of `agents.search.ismcts` in `true_world` worlds (only the future is sampled); see the module docstring.
    """

    def world(self, game: Engine, seat: int) -> Engine:
        return true_world(game, self.rng)


class GuidedSearchAgent(SearchAgent):
    """The information-set search with the network's priors (PUCT, or Gumbel at the root); see the module docstring.

    ``network`` ``None``: uniform priors (plain PUCT). ``omniscient``: worlds keep the true hidden
    cards (the reference bound, not an honest player). Other keywords are `SearchAgent`'s.
    """

    def __init__(
        self,
        env: Any,
        env_id: str,
        network: MlpPolicy | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        root: str = "mcts",
        exploration: float = DEFAULT_PUCT,
        leaf: str = "auto",
        rollout: str = "heuristic",
        reward_mode: str = "win",
        omniscient: bool = False,
        prior_mix: float = DEFAULT_PRIOR_MIX,
        gumbel_considered: int = GUMBEL_CONSIDERED,
        gumbel_scale: float = GUMBEL_C_SCALE,
        seed: int | None = None,
        name: str | None = None,
        **search_keywords: Any,
    ):
        if root not in ROOTS:
            raise ValueError(f"root must be one of {ROOTS}, got {root!r}")
        if leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {LEAVES}, got {leaf!r}")
        if rollout not in GUIDED_ROLLOUTS:
            raise ValueError(f"rollout must be one of {GUIDED_ROLLOUTS}, got {rollout!r}")
        value_leaves = has_value_head(network) and reward_mode == "win" if leaf == "auto" else leaf == "value"
        if value_leaves and not has_value_head(network):
            raise ValueError("leaf='value' needs a network with a value head")
        if rollout == "network" and network is None:
            raise ValueError("rollout='network' needs a network")
        if not 0.0 <= prior_mix <= 1.0:
            raise ValueError(f"prior_mix must lie in [0, 1], got {prior_mix!r}")
        if gumbel_considered < 1 or not gumbel_scale > 0:
            raise ValueError(
                f"gumbel_considered must be at least 1 and gumbel_scale above 0, got {gumbel_considered!r} and "
                f"{gumbel_scale!r}"
            )
        if value_leaves:  # the head values the whole game: the tree runs to the end
            search_keywords["horizon"] = None
        base_rollout = "heuristic" if rollout == "heuristic" else "random"
        super().__init__(
            env,
            env_id,
            simulations=simulations,
            exploration=exploration,
            rollout=base_rollout,
            seed=seed,
            **search_keywords,
        )
        self.network = network
        self.root_rule = root
        self.value_leaves = value_leaves
        self.network_rollouts = rollout == "network"
        self.omniscient = omniscient
        self.prior_mix = prior_mix
        #: Gumbel: the most root actions sequential halving considers, and sigma's scale (``c_scale``).
        self.gumbel_considered = gumbel_considered
        self.gumbel_scale = gumbel_scale
        #: Gumbel: the move of the last search.
        self.choice = -1
        #: The policy target of the last `search` over every action (zero off the legal ones): Gumbel's
        #: improved policy (`improved_policy`), PUCT's root visit shares; ``None`` before any search.
        self.policy_target: np.ndarray | None = None
        self.name = name or f"{OMNISCIENT if omniscient else root}:{simulations}"

    # ------------------------------------------------------------------ the network's pieces
    def world(self, game: Engine, seat: int) -> Engine:
        """`determinize`'s world, or for the omniscient reference the true game (`true_world`)."""
        return true_world(game, self.rng) if self.omniscient else super().world(game, seat)

    def log_priors(self, world: Any, mover: int, legal: np.ndarray) -> np.ndarray:
        """``log P`` over ``legal``: the network's masked softmax from ``mover``'s View in ``world`` with
        ``prior_mix`` of the uniform mixed in (no network: uniform)."""
        return self.mixed(self.network_log_priors(world, mover, legal))

    def network_log_priors(self, world: Any, mover: int, legal: np.ndarray) -> np.ndarray:
        """``log P`` over ``legal`` of the network alone (no uniform mixed in; no network: uniform)."""
        if self.network is None:
            return np.full(legal.size, -math.log(legal.size))
        return network_log_prior(self.network, self.env, world, mover, legal)

    def mixed(self, log_p: np.ndarray) -> np.ndarray:
        """``log P`` with ``prior_mix`` of the uniform mixed in (no network: ``log_p``, already uniform)."""
        if self.network is None or self.prior_mix == 0.0:
            return log_p
        return np.log((1.0 - self.prior_mix) * np.exp(log_p) + self.prior_mix * math.exp(-math.log(log_p.size)))

    def _policy_action(self, world: Any) -> int:
        if not self.network_rollouts:
            return super()._policy_action(world)
        assert self.network is not None
        return self.network.act(self.env.encode(world.view(world.current_player)), world.legal_mask())

    def leaf_estimate(self, world: Any, horizon: ScoreChanges | TurnEnds, baseline: np.ndarray | float) -> np.ndarray:
        """Every seat's value of a new leaf: the value head (each seat from its View), or a rollout's returns."""
        if not self.value_leaves:
            while not horizon.over(world):
                world.apply(self._policy_action(world))
            return self.returns(world, baseline)
        if world.done:
            return win_rewards(world.winners(), world.num_players) if world.terminated else np.zeros(world.num_players)
        assert self.network is not None
        observations = np.stack([self.env.encode(world.view(s)) for s in range(world.num_players)])
        return np.asarray(self.network.value(observations), dtype=float)

    # ------------------------------------------------------------------ search
    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        if self.root_rule == "mcts":
            return super().act(observation, view)
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 1:
            return int(legal[0])
        self.search()
        return self.choice

    def search(self) -> Node:
        """The tree of ``simulations`` iterations (Gumbel: also sets ``choice``, the move)."""
        game = self.env.game
        seat = game.current_player
        root = Node()
        bounds = [math.inf, -math.inf]
        start_scores = game.scores().tolist()
        baseline = returns_of(np.asarray(start_scores)) if self.relative_returns else 0.0

        def iterate(forced: int | None = None) -> None:
            world, horizon = self.start_iteration(game, seat, start_scores)
            self._iterate(world, seat, root, horizon, bounds, baseline, forced)

        if self.root_rule == "gumbel":
            self.choice = self._sequential_halving(game, seat, root, bounds, iterate)
        else:
            for _ in range(self.simulations):
                iterate()
            self.policy_target = visit_shares(root, game.legal_mask())
        return root

    def _sequential_halving(self, game: Engine, seat: int, root: Node, bounds: list[float], iterate: Any) -> int:
        """Gumbel top-k at the root, searched by sequential halving; returns the move."""
        mask = game.legal_mask()
        legal = np.flatnonzero(mask)
        noise = self.rng.gumbel(size=legal.size)
        own_log_prior = self.network_log_priors(game, seat, legal)
        score = noise + self.mixed(own_log_prior)
        considered = np.argsort(-score, kind="stable")[: min(self.gumbel_considered, legal.size)]
        phases = max(1, math.ceil(math.log2(considered.size)))
        used = 0

        def sigma() -> np.ndarray:
            """``sigma(q)`` of every root action (unvisited: the completed value of `_q_values`)."""
            most = max((child.visits for child in root.children.values()), default=0)
            q = np.asarray(self._q_values([root.children.get(a) for a in legal.tolist()], bounds))
            return gumbel_sigma(q, most, self.gumbel_scale)

        def improved() -> np.ndarray:
            """``g + log P + sigma(q)`` of every root action."""
            return score + sigma()

        while used < self.simulations and considered.size > 1:
            each = max(1, self.simulations // (phases * considered.size))
            for i in considered.tolist():
                for _ in range(min(each, self.simulations - used)):
                    iterate(int(legal[i]))
                    used += 1
            ranked = considered[np.argsort(-improved()[considered], kind="stable")]
            considered = ranked[: max(1, math.ceil(considered.size / 2))]
        self.policy_target = improved_policy(own_log_prior + sigma(), legal, mask.size)
        return int(legal[considered[int(np.argmax(improved()[considered]))]])

    def _iterate(  # type: ignore[override]
        self,
        world: Any,
        seat: int,
        root: Node,
        horizon: ScoreChanges | TurnEnds,
        bounds: list[float],
        baseline: np.ndarray | float = 0.0,
        forced: int | None = None,
    ) -> None:
        """One iteration: descend by PUCT (the root's move ``forced`` if given) to a new node, value it, back up."""
        path = [root]
        node = root
        while not horizon.over(world):
            mover = world.current_player
            legal = np.flatnonzero(world.legal_mask())
            children = [node.children.get(a) for a in legal.tolist()]
            for child in children:
                if child is not None:
                    child.available += 1
            if forced is not None and node is root:
                action = forced
            else:
                action = self._puct(node, legal, children, self.log_priors(world, mover, legal), bounds)
            child = node.children.get(action)
            if child is None:
                child = node.children[action] = Node(action, mover, available=1)
            world.apply(action)
            path.append(child)
            node = child
            if self.closed_loop:  # the next decision is the outcome's node: moves after it see the dice
                node = child.outcomes.setdefault(world.view(seat), Node())
                path.append(node)
            if node.visits == 0:  # a new node: the leaf of this iteration
                break
        self.back_up(path, self.leaf_estimate(world, horizon, baseline), bounds)

    @staticmethod
    def _q_values(children: list[Node | None], bounds: list[float]) -> list[float]:
        """Normalised mean values of ``children`` (``None`` or unvisited: the visit-weighted mean of the tried)."""
        low, high = bounds
        span = high - low if high > low else 1.0
        tried = [c for c in children if c is not None and c.visits]
        visits = sum(c.visits for c in tried)
        untried = (sum(c.total for c in tried) / visits - low) / span if visits else UNTRIED_VALUE
        return [(c.total / c.visits - low) / span if c is not None and c.visits else untried for c in children]

    def _puct(
        self, node: Node, legal: np.ndarray, children: list[Node | None], log_priors: np.ndarray, bounds: list[float]
    ) -> int:
        """The legal action of the highest PUCT score at ``node`` (``children``: ``legal``'s nodes or ``None``)."""
        scale = self.exploration * math.sqrt(node.visits + 1)
        best, best_score = 0, -math.inf
        q_values = self._q_values(children, bounds)
        for i, (child, q, prior) in enumerate(zip(children, q_values, np.exp(log_priors).tolist())):
            score = q + scale * prior / (1 + (child.visits if child is not None else 0))
            if score > best_score:
                best, best_score = i, score
        return int(legal[best])


def parse_guided_name(name: str, env_id: str | None = None) -> tuple[str, int, str | None]:
    """``(root, simulations, agent source or None)`` of a guided or omniscient name (parsed by
    `agents.spec.parse_agent_name`; the root of an omniscient name is ``omniscient``); one-line ``ValueError``.

    ``mcts:<sims>:ppo:<agent>``, ``gumbel:<sims>:ppo:<agent>`` (``<sims>`` may be left out:
    ``mcts:ppo:<agent>``, the game's default budget), ``omniscient``, ``omniscient:<sims>`` and
    ``omniscient:<sims>:ppo:<agent>``.
    """
    spec = parse_agent_name(name)
    if spec.kind not in ("guided", OMNISCIENT):
        raise ValueError(f"bad search agent {shown(name)}: {GUIDED_USAGE}")
    return spec.option or OMNISCIENT, search_budget(spec.simulations, env_id), spec.source


def make_guided_agent(name: str, env_id: str, seed: int | None = None, env: Any = None) -> SearchAgent:
    """The guided search or omniscient reference called ``name`` for ``env_id``, searching the raw env ``env``."""
    head, simulations, source = parse_guided_name(name, env_id)
    if env is None:
        raise ValueError(f"agent {name!r} searches the game it plays: pass the env it plays in (env=...)")
    keywords = game_agents_of(env_id).search_keywords()
    if source is None:  # omniscient[:<simulations>]: mcts seeing every hidden card
        reference = OmniscientSearchAgent(env, env_id, simulations=simulations, seed=seed, **keywords)
        reference.name = name
        return reference
    try:
        network = make_policy_agent(source, env_id, env=env).policy
        reward_mode = load_checkpoint(source.removesuffix(SAMPLE_SUFFIX))[1].get("reward_mode") or "win"
    except ValueError as error:
        raise ValueError(f"bad search agent {shown(name)}: {error}") from None
    return GuidedSearchAgent(
        env,
        env_id,
        network,
        simulations=simulations,
        root="mcts" if head == OMNISCIENT else head,
        reward_mode=reward_mode,
        omniscient=head == OMNISCIENT,
        seed=seed,
        name=name,
        **keywords,
    )
