"""The PettingZoo AEC adapter, written once for every game.

A game subclasses :class:`PirateAECEnv`, names its ``Config`` dataclass and ``Engine``, and
implements ``build_layout`` and ``encode``. The adapter holds no rules: it asks the engine
whose turn it is, which actions are legal and what the scores are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pirate_envs.core.engine import Engine
from pirate_envs.core.errors import IllegalActionError, check_choice
from pirate_envs.core.observation import ObservationLayout
from pirate_envs.core.render import seat_name
from pirate_envs.core.rewards import REWARD_MODES, win_rewards


def config_from_kwargs(config_cls: type, kwargs: dict[str, Any]) -> Any:
    """Build ``config_cls(**kwargs)``, naming the valid keywords when one is unknown."""
    valid = [f.name for f in dataclasses.fields(config_cls)]
    unknown = sorted(set(kwargs) - set(valid))
    if unknown:
        raise TypeError(f"unknown keyword argument(s) {unknown}; valid: {valid + ['render_mode', 'reward_mode']}")
    return config_cls(**kwargs)


class PirateAECEnv(AECEnv):
    """A turn-based PettingZoo environment over a rules :class:`Engine`."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pirate_env",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    #: The game's frozen, validated config dataclass.
    CONFIG: ClassVar[type]
    #: The game's engine class, built as ``ENGINE(config)``.
    ENGINE: ClassVar[type[Engine]]
    #: Multiplier of score changes in ``reward_mode="score"``.
    SCORE_SCALE: ClassVar[float] = 1.0

    def __init__(self, render_mode: str | None = None, reward_mode: str = "win", **kwargs: Any):
        super().__init__()
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        check_choice("reward_mode", reward_mode, REWARD_MODES)
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.config = config_from_kwargs(self.CONFIG, kwargs)
        self.game: Engine = self.ENGINE(self.config)
        n = self.game.num_players
        self.possible_agents = [seat_name(i) for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.actions = self.ENGINE.ACTIONS
        self.observation_layout: ObservationLayout = self.build_layout()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (self.observation_layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (len(self.actions),), np.int8),
            }
        )
        act_space = spaces.Discrete(len(self.actions))
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._zero_mask = np.zeros(len(self.actions), dtype=np.int8)
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self._rng = np.random.default_rng()
        self._scores = np.zeros(n)

    # ----------------------------------------------------------------- game hooks
    def build_layout(self) -> ObservationLayout:
        """The observation layout for ``self.config``."""
        raise NotImplementedError

    def encode(self, view: Any) -> np.ndarray:
        """The observation vector of a view."""
        raise NotImplementedError

    # ----------------------------------------------------------------- PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game.reset(self._rng, options)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._obs_cache.clear()
        self._scores = self.game.scores()
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._after_game_step()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
        seat = self._seat[agent]
        game = self.game
        if seat == game.current_player and not game.done:
            mask = np.array(game.legal_mask(), dtype=np.int8)
        else:
            mask = self._zero_mask.copy()
        obs = {"observation": self.encode(game.view(seat)), "action_mask": mask}
        self._obs_cache[agent] = obs
        return obs

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        legal = game.legal_mask()
        if action is None or not 0 <= int(action) < len(legal) or not legal[int(action)]:
            raise IllegalActionError(
                -1 if action is None else int(action), np.flatnonzero(legal).tolist(), self.action_to_string
            )
        self._cumulative_rewards[agent] = 0.0
        game.apply(int(action))
        self._obs_cache.clear()
        self._after_game_step()

    def _after_game_step(self) -> None:
        """Set rewards, terminations and the next agent from the engine's state."""
        game = self.game
        agents = self.possible_agents
        if self.reward_mode == "score":
            scores = game.scores()
            delta = (scores - self._scores) * self.SCORE_SCALE
            self._scores = scores
            for i, a in enumerate(agents):
                self.rewards[a] = float(delta[i])
        else:
            for a in agents:
                self.rewards[a] = 0.0
            if game.terminated:
                for a, r in zip(agents, win_rewards(game.winners(), len(agents))):
                    self.rewards[a] = float(r)
        if game.done:
            for a in agents:
                self.terminations[a] = game.terminated
                self.truncations[a] = game.truncated and not game.terminated
        else:
            self.agent_selection = agents[game.current_player]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'.")
            return None
        text = self.game.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ----------------------------------------------------------------- helpers
    def action_to_string(self, action: int) -> str:
        """A readable label of ``action``."""
        return self.actions.to_string(int(action))

    def seat_of(self, agent: str) -> int:
        """The seat index of an agent name."""
        return self._seat[agent]


def wrap(raw_env_cls: type[PirateAECEnv]) -> Callable[..., AECEnv]:
    """The ``env()`` factory of a game: illegal moves end the game the PettingZoo way."""

    def env(**kwargs: Any) -> AECEnv:
        e: AECEnv = raw_env_cls(**kwargs)
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
        e = wrappers.AssertOutOfBoundsWrapper(e)
        e = wrappers.OrderEnforcingWrapper(e)
        return e

    env.__doc__ = f"{raw_env_cls.__name__} wrapped the PettingZoo way (illegal moves end the game with -1)."
    return env
