"""Exact exploitability (NashConv) of the suite's agents on small game variants.

A game loaded with explicit chance (`pirate_envs.openspiel`, ``chance="explicit"``) can be walked
whole by OpenSpiel's exact algorithms; this module makes any suite agent an OpenSpiel policy over
it and measures it:

* `AgentPolicy`: the agent of a name of `agents.registry.make_agent` as an OpenSpiel
  ``policy.Policy``. At a state it builds what the agent would be shown at that seat (the env's
  observation vector of the seat's View, the action mask, and the View itself; a search agent
  searches the state's engine) and returns the agent's action probabilities, cached per
  information state (the seat, its information-state string, its observation and mask):

  - a trained network (``ppo:<agent>``): exact. ``#sample`` (the agent samples its masked
    softmax): the masked softmax itself; plain ``ppo:`` (masked argmax): that action, one-hot;
  - ``random``: exact, the suite's block-uniform draw (uniform over the action blocks with a
    legal action, then within the block; `agents.base.RandomAgent`);
  - a game agent (``heuristic``, ``oracle``): deterministic, one-hot of its move;
  - any other agent (the searches ``mcts:<n>``...): an *estimate*, the frequencies of ``samples``
    moves of the agent reset with as many seeds (each a function of the policy's seed and the
    information state, so the estimate does not depend on the order of queries). NashConv is
    then that of the estimated policy, not of the agent itself.

  Each move is asked of a freshly reset agent: an agent that remembers the game (positions seen)
  starts from an empty memory at every information state. A state with one legal action gets it
  with probability 1 without asking the agent.
* `nash_conv`: ``exploitability.nash_conv`` with its wall and CPU time (`Measured`).
* `cfr_curve`: NashConv of ``cfr.CFRSolver``'s average policy after each of several iteration counts.

Needs the ``openspiel`` extra (the ``open-spiel`` wheel); the variants are those of
``pirate_envs.openspiel`` (`small_variants`). ``python -m experiments.exact`` writes the page
``docs/exact.md`` from these.
"""

from __future__ import annotations

import dataclasses
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
from agents.base import Agent, RandomAgent
from agents.game_agents import game_agent_kinds
from agents.policy_agent import PolicyAgent
from agents.registry import make_agent
from pirate_envs.core.actions import action_blocks
from pirate_envs.openspiel import MISSING_EXTRA, load_game

try:
    from open_spiel.python import policy as openspiel_policy
    from open_spiel.python.algorithms import cfr, exploitability
except ImportError:
    raise ImportError(MISSING_EXTRA) from None

#: Moves drawn per information state to estimate a stochastic agent without probabilities (a search).
DEFAULT_SAMPLES = 8

#: How `AgentPolicy` gets an agent's probabilities (`agent_method`).
EXACT, ONE_HOT, SAMPLED = "exact", "one-hot", "sampled"

#: The variants offered before the OpenSpiel module names its own: name -> (env id, OpenSpiel parameters).
FALLBACK_VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "skull_king_1hand": ("skull_king_v0", {"players": 2, "num_hands": 1, "chance": "explicit"}),
}


def small_variants() -> dict[str, tuple[str, dict[str, Any]]]:
    """The small explicit-chance variants: name -> (env id, OpenSpiel parameters)."""
    from pirate_envs import openspiel

    registry = getattr(openspiel, "SMALL_VARIANTS", None)
    return dict(FALLBACK_VARIANTS if registry is None else registry)


def load_variant(name: str) -> Any:
    """The ``pyspiel.Game`` of the variant ``name`` (`small_variants`); one-line ``ValueError`` if unknown."""
    variants = small_variants()
    if name not in variants:
        raise ValueError(f"unknown variant {name!r}; available: {sorted(variants)}")
    env_id, params = variants[name]
    return load_game(env_id, **params)


def env_config(game: Any) -> dict[str, Any]:
    """The env keyword arguments of the game's config (``pirate_envs.make(env_id, **them)`` plays the same rules)."""
    return dataclasses.asdict(game.kit.settings.config)


# ----------------------------------------------------------------------------- one agent's probabilities
def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> dict[int, float]:
    """The softmax of ``logits`` over the ``legal`` actions, as `agents.mlp.MlpPolicy.act` samples it."""
    z = np.asarray(logits, dtype=np.float64)[legal]
    p = np.exp(z - z.max())
    p /= p.sum()
    return {int(a): float(q) for a, q in zip(legal, p)}


def network_probabilities(agent: PolicyAgent, observation: dict[str, np.ndarray]) -> dict[int, float]:
    """A trained agent's probabilities: its masked softmax (``#sample``) or its argmax, one-hot."""
    obs, legal = observation["observation"], np.flatnonzero(observation["action_mask"])
    logits = agent.policy_for(obs).logits(obs)
    if agent.deterministic:
        return {int(legal[int(np.argmax(logits[legal]))]): 1.0}
    return masked_softmax(logits, legal)


def block_uniform_probabilities(mask: np.ndarray, blocks: Sequence[tuple[int, int]]) -> dict[int, float]:
    """The probabilities of `pirate_envs.core.actions.sample_legal`: uniform over the ``blocks`` with a legal
    action, then uniform within the block drawn (no blocks: uniform over the legal actions)."""
    legal = np.flatnonzero(mask)
    groups = [legal[(legal >= start) & (legal < stop)] for start, stop in blocks]
    groups = [group for group in groups if group.size] or [legal]
    return {int(a): 1.0 / (len(groups) * group.size) for group in groups for a in group}


def agent_method(agent: Agent, name: str, env_id: str) -> str:
    """How `AgentPolicy` reads ``agent`` (called ``name``): `EXACT`, `ONE_HOT` or `SAMPLED` (see the module)."""
    if isinstance(agent, PolicyAgent):
        return ONE_HOT if agent.deterministic else EXACT
    if isinstance(agent, RandomAgent):
        return EXACT
    return ONE_HOT if name in game_agent_kinds(env_id) else SAMPLED


def draw_seed(seed: int, key: Iterable[Any], draw: int) -> int:
    """The seed of draw ``draw`` at an information state ``key``: fixed by them alone (not by the order of queries)."""
    digest = zlib.crc32(repr(tuple(key)).encode())
    return int(np.random.SeedSequence([seed, digest, draw]).generate_state(1)[0])


class AgentPolicy(openspiel_policy.Policy):
    """The suite agent ``name`` as an OpenSpiel policy over the states of ``game`` (see the module docstring).

    ``samples``: moves drawn per information state for an agent without probabilities (`SAMPLED`);
    ``seed``: the agent's seed (and of those draws). ``method`` says how the probabilities come.
    """

    def __init__(self, game: Any, name: str, seed: int = 0, samples: int = DEFAULT_SAMPLES):
        if samples < 1:
            raise ValueError(f"samples={samples} must be at least 1")
        super().__init__(game, list(range(game.num_players())))
        self.name, self.seed, self.samples = name, seed, samples
        self.env_id: str = game.kit.settings.env_id
        self.raw = pirate_envs.make(self.env_id, raw=True, **env_config(game))
        self.agent = make_agent(name, self.env_id, seed=seed, env=self.raw)
        self.method = agent_method(self.agent, name, self.env_id)
        self.blocks = tuple(action_blocks(self.raw))
        self.cache: dict[tuple[Any, ...], dict[int, float]] = {}
        self.queries = 0  # agent moves asked (cache misses times draws)

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        engine = state.table.engine
        legal = engine.legal_actions()
        if len(legal) == 1:
            return {int(legal[0]): 1.0}
        mask = engine.legal_mask()
        view = engine.view(player)
        obs = self.raw.encode(view)
        key = (player, state.information_state_string(player), obs.tobytes(), mask.tobytes())
        cached = self.cache.get(key)
        if cached is None:
            cached = self.cache[key] = self._probabilities(engine, key, {"observation": obs, "action_mask": mask}, view)
        return dict(cached)

    def _probabilities(
        self, engine: Any, key: tuple[Any, ...], observation: dict[str, np.ndarray], view: Any
    ) -> dict[int, float]:
        agent = self.agent
        if isinstance(agent, PolicyAgent):
            return network_probabilities(agent, observation)
        if isinstance(agent, RandomAgent):
            return block_uniform_probabilities(observation["action_mask"], agent.blocks)
        draws = 1 if self.method == ONE_HOT else self.samples
        counts: Counter[int] = Counter()
        table_game = self.raw.game
        try:
            self.raw.game = engine  # what a search reads (it searches copies)
            for draw in range(draws):
                agent.reset(draw_seed(self.seed, key[:2], draw))
                counts[int(agent.act(observation, view))] += 1
        finally:
            self.raw.game = table_game
        self.queries += draws
        return {action: count / draws for action, count in sorted(counts.items())}


# ----------------------------------------------------------------------------- measurements
@dataclass(frozen=True)
class Measured:
    """A NashConv with the wall and CPU seconds it took (CPU: this process's, ``time.process_time``)."""

    nash_conv: float
    wall_s: float
    cpu_s: float


def timed(work: Callable[[], float]) -> Measured:
    """``work()`` as a `Measured` (its value, wall and CPU seconds)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = float(work())
    return Measured(value, time.perf_counter() - wall, time.process_time() - cpu)


def nash_conv(game: Any, policy: Any) -> Measured:
    """OpenSpiel's NashConv of ``policy`` in ``game`` (the sum over seats of what a best response gains), timed."""
    return timed(lambda: exploitability.nash_conv(game, policy))


@dataclass(frozen=True)
class CurvePoint:
    """One point of a curve: NashConv after ``step`` (CFR iterations or PPO learner steps).

    ``wall_s`` and ``cpu_s``: the seconds to reach this point from the previous one and measure it.
    """

    step: int
    nash_conv: float
    wall_s: float
    cpu_s: float


def cfr_curve(game: Any, iterations: Sequence[int]) -> list[CurvePoint]:
    """NashConv of ``cfr.CFRSolver``'s average policy after each count of ``iterations`` (one solver, run on)."""
    counts = sorted(set(iterations))
    if not counts or counts[0] < 1:
        raise ValueError(f"CFR iteration counts must be positive integers, got {list(iterations)}")
    solver = cfr.CFRSolver(game)
    done, points = 0, []
    for count in counts:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(count - done):
            solver.evaluate_and_update_policy()
        done = count
        value = float(exploitability.nash_conv(game, solver.average_policy()))
        points.append(CurvePoint(count, value, time.perf_counter() - wall, time.process_time() - cpu))
    return points


def plot_curves(panels: Sequence[tuple[str, Sequence[CurvePoint]]], path: str | Path, title: str) -> None:
    """NashConv against the step, one panel per ``(x label, points)`` (log axes where the values allow);
    a PNG written atomically."""
    from agents import plots

    fig, axes = plots.plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4), squeeze=False)
    for ax, (xlabel, points) in zip(axes[0], panels):
        ax.plot([p.step for p in points], [p.nash_conv for p in points], marker="o")
        ax.set_xscale("log")
        if all(p.nash_conv > 0 for p in points):
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("NashConv")
        ax.grid(alpha=0.3, which="both")
    fig.suptitle(title)
    fig.tight_layout()
    plots._save(fig, path)


__all__ = [
    "DEFAULT_SAMPLES",
    "EXACT",
    "ONE_HOT",
    "SAMPLED",
    "AgentPolicy",
    "CurvePoint",
    "Measured",
    "agent_method",
    "block_uniform_probabilities",
    "cfr_curve",
    "draw_seed",
    "env_config",
    "load_variant",
    "masked_softmax",
    "nash_conv",
    "network_probabilities",
    "plot_curves",
    "small_variants",
    "timed",
]
