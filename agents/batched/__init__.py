"""Batched agents: one call chooses the moves of many games at once.

The batched engine (`pirate_envs.vector`) steps thousands of games per call; the agents
that play in them must not go back to one Python call per game. A batched agent acts on rows
of observations and action masks, exactly the arrays the batched engine (and the AEC env, one
row at a time) gives:

    agent = make_batched_agent("heuristic", "skull_king_v0", env, num_games=1024, seed=0)
    agent.reset_games(np.arange(1024))                      # every slot starts a game
    actions = agent.act_batch(games, observations, masks)   # rows of the slots ``games``

``games`` names the slot (``0 .. num_games - 1``) of every row, so that an agent that remembers
something of a game (Lucky Pirate's heuristic remembers the positions it has seen) keeps it per
slot; ``reset_games`` forgets it when a slot starts a new game.

Names: ``random`` (uniform over the env's action blocks, then within the block drawn, as
`agents.base.RandomAgent`), ``heuristic`` (the game's heuristic in batched form: it
reads the observation vector, which holds the player's View, and chooses what the one-game
heuristic chooses; each is checked against it move by move; the game's spec names it,
``batched_heuristic``), Kapern's ``oracle`` (a table lookup, the spec's ``batched_oracle``), and a
policy (`BatchedPolicyAgent`, for trained agents, ``ppo:`` and ``dmc:``, and the frozen snapshots of self-play). A
name with no batched form (``mcts``) raises a ``ValueError`` that says so; such an
agent plays batched games through `agents.batched.one_game` (a reference engine kept in step
per game it sits in).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agents.base import action_blocks
from agents.games import game_agents_of
from agents.policy.mlp import MlpPolicy
from agents.spec import parse_agent_name
from pirate_envs.core.spec import resolve

#: What an agent raises for a row with no legal action.
NO_LEGAL_ACTION = "a row of action_masks has no legal action: is it this agent's turn?"
_NO_DRAW = np.zeros((0, 0))  # `choose_actions`'s argmax: no Gumbel noise


@functools.cache
def _draw_kernels() -> ModuleType | None:
    """`agents.batched.random_kernel`, the draws as numba passes: imported at the first draw, not with this
    package (numba's import is start-up work); ``None`` without numba (the numpy forms draw the same)."""
    try:
        from agents.batched import random_kernel
    except ImportError:
        return None
    return random_kernel


def _int8_mask(action_masks: np.ndarray) -> np.ndarray:
    """``action_masks`` as ``int8`` (a ``bool`` mask viewed, not copied), as the numba draws read it."""
    mask = np.asarray(action_masks)
    return mask.view(np.int8) if mask.dtype == bool else mask.astype(np.int8, copy=False)


def _legal(actions: np.ndarray) -> np.ndarray:
    """``actions`` of a draw; ``ValueError`` where a row had no legal action (-1)."""
    if (actions < 0).any():
        raise ValueError(NO_LEGAL_ACTION)
    return actions


@runtime_checkable
class BatchedAgent(Protocol):
    """Chooses one legal action per row; rows belong to the game slots ``games``."""

    name: str

    def reset_games(self, games: np.ndarray) -> None:
        """The slots ``games`` start new games: forget what was remembered of them."""

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(M,)`` ``int64`` legal actions for the ``M`` rows of ``observations`` ``(M, D)`` and
        ``action_masks`` ``(M, A)`` (``int8`` or ``bool``); row ``j`` is a position of slot ``games[j]``."""


def choose_actions(
    logits: np.ndarray, action_masks: np.ndarray, deterministic: bool, rng: np.random.Generator
) -> np.ndarray:
    """``(M,)`` int64: the masked argmax of each row of ``logits``, or (``deterministic=False``) a sample of
    its masked softmax by the Gumbel-max draw from ``rng``."""
    uniforms = _NO_DRAW if deterministic else rng.random(logits.shape)
    kernels = _draw_kernels()
    choose = masked_argmax_choice if kernels is None else kernels.masked_argmax_kernel  # the same actions
    return _legal(choose(np.ascontiguousarray(logits), np.ascontiguousarray(_int8_mask(action_masks)), uniforms))


def masked_argmax_choice(logits: np.ndarray, mask: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """The numpy form of `agents.batched.random_kernel.masked_argmax_kernel`: per row, the legal column of the
    largest ``logits - log(-log(uniforms))`` in float64 (``uniforms`` of shape ``(0, 0)``: the masked argmax);
    -1 for a row with no legal action."""
    values = logits.astype(np.float64)
    if uniforms.size:
        values = values - np.log(-np.log(uniforms))  # Gumbel-max sample
    legal = mask != 0
    actions = np.argmax(np.where(legal, values, -np.inf), axis=1).astype(np.int64)
    actions[~legal.any(axis=1)] = -1
    return actions


class BatchedRandomAgent:
    """Random legal actions, block-uniform like `agents.base.RandomAgent`, for many rows at once.

    Two uniforms per row (the block, then the action in it), placed by one numba pass over the
    mask (`agents.batched.random_kernel`); without numba, by the numpy form `block_uniform_choice`,
    which gives the same actions from the same draws.
    """

    name = "random"

    def __init__(self, blocks: tuple[tuple[int, int], ...], seed: int | None = None):
        self.rng = np.random.default_rng(seed)
        self.starts = np.array([start for start, _ in blocks] or [0], dtype=np.int64)
        kernels = _draw_kernels()
        self._choose = block_uniform_choice if kernels is None else kernels.block_uniform_kernel

    def reset_games(self, games: np.ndarray) -> None:
        """Nothing is remembered of a game."""

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        mask = _int8_mask(action_masks)
        block_draw, action_draw = self.rng.random(len(mask)), self.rng.random(len(mask))
        return _legal(self._choose(mask, self.starts, block_draw, action_draw))


def block_uniform_choice(
    mask: np.ndarray, starts: np.ndarray, block_draw: np.ndarray, action_draw: np.ndarray
) -> np.ndarray:
    """Per row of ``mask``: a block (starting at ``starts``) uniform among those with a legal action by
    ``block_draw``, then a legal action uniform in it by ``action_draw``; -1 for a row with none."""
    mask = mask.astype(np.int64)
    if not mask.any(axis=1).all():
        return np.full(len(mask), -1, dtype=np.int64)
    rows = np.arange(len(mask))
    counts = np.add.reduceat(mask, starts, axis=1)  # legal actions per block
    present = counts > 0
    chosen = (block_draw * present.sum(axis=1)).astype(np.int64)
    block = np.argmax(np.cumsum(present, axis=1) > chosen[:, None], axis=1)
    within = (action_draw * counts[rows, block]).astype(np.int64)
    # the within-th legal action from the block's start
    before = np.cumsum(mask, axis=1) - mask  # legal actions before each column
    start_rank = before[rows, starts[block]]
    target = start_rank + within
    return np.argmax((before == target[:, None]) & (mask > 0), axis=1).astype(np.int64)


class BatchedPolicyAgent:
    """A trained policy (`agents.policy.mlp.MlpPolicy`) on many rows: masked argmax, or a
    sample of the masked softmax (``deterministic=False``; Gumbel-max draws from ``seed``).

    ``policy`` may be swapped between calls (self-play snapshots).
    """

    def __init__(self, policy: MlpPolicy, name: str = "ppo", deterministic: bool = True, seed: int | None = None):
        self.policy = policy
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def reset_games(self, games: np.ndarray) -> None:
        """Nothing is remembered of a game."""

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return choose_actions(self.policy.logits(observations), action_masks, self.deterministic, self.rng)

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The policy's value head on rows of observations ``(M, D)``: float32 ``(M,)`` (what it estimates:
        the agent file's ``value_target``); ``ValueError`` (one line) when it has no value head."""
        self.policy.require_value(self.name)
        return self.policy.value(observations)

    def logits_and_values(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The action logits ``(M, A)`` and `values` ``(M,)`` of rows of observations in one call (for search)."""
        self.policy.require_value(self.name)
        return self.policy.logits_and_value(observations)


#: The kinds of agent name (`agents.spec.KINDS`) with a batched form here; a game's own agents: by its spec.
BATCHED_KINDS = ("random", "ppo", "dmc")


def _game_batched_form(name: str, env_id: str) -> str | None:
    """The import path of the game's own batched ``heuristic`` or ``oracle`` (``None``: not such a name)."""
    return game_agents_of(env_id).batched_kinds.get(name)


def has_batched_form(name: str, env_id: str) -> bool:
    """Whether `make_batched_agent` builds ``name`` for ``env_id`` (else it plays through the one-game path)."""
    return parse_agent_name(name).kind in BATCHED_KINDS or _game_batched_form(name, env_id) is not None


def make_batched_agent(name: str, env_id: str, env: Any, num_games: int, seed: int | None = None) -> BatchedAgent:
    """The batched form of the agent ``name`` for ``env_id`` (``env``: a raw env of the table it plays).

    ``ValueError`` for a name with no batched form (play it with the one-game path).
    """
    if name == "random":
        return BatchedRandomAgent(action_blocks(env), seed=seed)
    batched_form = _game_batched_form(name, env_id)
    if batched_form is not None:
        return resolve(batched_form)(env, num_games, seed)
    spec = parse_agent_name(name)
    if spec.kind in BATCHED_KINDS:  # a trained agent file: its network, on every row at once
        from agents.registry import make_agent

        agent = make_agent(name, env_id, seed=seed, env=env)
        return BatchedPolicyAgent(agent.policy, name=name, deterministic=agent.deterministic, seed=seed)
    raise ValueError(
        f"agent {name!r} has no batched form for {env_id}; batched: random, heuristic, ppo:<...>, dmc:<...>, "
        "Kapern's oracle (play the others through agents.batched.one_game)"
    )


__all__ = [
    "BatchedAgent",
    "BatchedPolicyAgent",
    "BatchedRandomAgent",
    "block_uniform_choice",
    "choose_actions",
    "has_batched_form",
    "make_batched_agent",
    "masked_argmax_choice",
]
