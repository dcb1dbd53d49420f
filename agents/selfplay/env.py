"""Single-agent Gymnasium envs: one learner in a seat, the opponents moving inside ``step``.

Each Gymnasium id (``pirate_envs.GYMNASIUM_IDS``, `agents.selfplay.ids`) builds `SelfPlayEnv`,
imported only when an id is built: the one-game twin of the batched env training uses
(`agents.selfplay.batched_vec_env.BatchedSelfPlayVecEnv`; both follow the rules of
`agents.selfplay.core`), and training's fallback without numba.

```python
import gymnasium
import agents  # registers the ids

env = gymnasium.make("pirate_envs/SkullKing-v0", num_players=4, opponents="heuristic")
obs, info = env.reset(seed=0)
mask = env.unwrapped.action_masks()  # or env.get_wrapper_attr("action_masks")()
```

The learner sits in ``learner_seat`` (random by default), the other seats get opponents drawn
from a weighted pool of agent names (``self`` for snapshots of the learner); a step's reward sums
the learner's raw rewards up to his next decision. ``player_counts`` mixes table sizes on
``table_layout="max"``. The module needs no torch. The ids, the rewards, the errors and mixed
tables: ``docs/guides/single_agent.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces

import pirate_envs
from agents.base import RandomAgent, sample_legal
from agents.selfplay.core import (
    MAX_EMPTY_EPISODES,
    Opponents,
    PlayerCounts,
    RewardLedger,
    SelfPlayRules,
    check_opponents,
    ended_info,
    observation_box,
    opponent_weights,
    table_size_weights,
    win_share,
)
from agents.selfplay.opponents import OpponentPool
from pirate_envs.core.aec import ILLEGAL_MOVE_REWARD
from pirate_envs.core.errors import IllegalActionError, check_action, check_choice, check_seed
from pirate_envs.core.render import check_pillow, text_image, working_render_modes

if TYPE_CHECKING:
    from agents.policy.mlp import MlpPolicy


class SelfPlayEnv(gymnasium.Env):
    """The learner's side of one pirate game (see the module docstring).

    Args:
        env_id: a PettingZoo env id of `pirate_envs.ENV_IDS`.
        opponents: the opponent pool: an agent name, a list of names (equal weights) or
            ``{name: weight}``; drawn per seat and per episode.
        reward_mode: ``"win"`` (terminal, zero-sum), ``"score"`` (score changes, scaled) or ``"margin"``
            (score changes less the others' mean change, scaled: zero-sum).
        learner_seat: the learner's seat, or ``None`` for a random seat each episode.
        max_snapshots: snapshots of the learner kept in the pool (the most recent).
        snapshot_deterministic: snapshots play their masked argmax instead of sampling.
        truncation_reward: ``None`` reports a truncated game as truncated (a learner bootstraps
            its value); a number ends it for the learner as terminated, with that reward added
            (``-1`` in win mode counts it as a loss, so that stalling never pays).
        render_mode: ``None``, ``"ansi"`` (`render` returns the game's text table) or ``"rgb_array"``
            (the table drawn as an ``(H, W, 3)`` ``uint8`` frame, for video recorders; extra ``render``).
        player_counts: ``None`` (one table of ``num_players``), or several table sizes drawn per
            episode: a list (equal weights) or ``{count: weight}``; ``table_layout`` defaults to
            ``"max"`` then, and ``num_players`` may not be given.
        **env_kwargs: the game's options (``num_players`` and the rest), passed through.
    """

    metadata = {"render_modes": working_render_modes("ansi", "rgb_array"), "render_fps": 1}  # rgb_array: pillow

    def __init__(
        self,
        env_id: str,
        opponents: Opponents = "heuristic",
        reward_mode: str = "win",
        learner_seat: int | None = None,
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
        truncation_reward: float | None = None,
        render_mode: str | None = None,
        player_counts: PlayerCounts = None,
        **env_kwargs: Any,
    ):
        self._random_agent_type, self._sample_legal = RandomAgent, sample_legal
        if render_mode == "rgb_array":
            check_pillow()  # not advertised without pillow: say which extra it needs
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.rules = rules = SelfPlayRules(
            env_id,
            opponents,
            reward_mode,
            learner_seat,
            max_snapshots,
            snapshot_deterministic,
            truncation_reward,
            player_counts,
            env_kwargs,
        )
        self.env_id = env_id
        self.render_mode = render_mode
        self.truncation_reward = rules.truncation_reward
        self.table_weights = rules.table_weights
        #: table size -> (raw env, opponent pool)
        self._tables: dict[int, tuple[Any, OpponentPool]] = {}
        for count in rules.table_weights or [None]:
            raw = pirate_envs.make(env_id, raw=True, **rules.table_kwargs(count))
            check_opponents(env_id, rules.weights, raw)
            pool = OpponentPool(env_id, raw, rules.weights, rules.max_snapshots, rules.snapshot_deterministic)
            self._tables[len(raw.possible_agents)] = (raw, pool)
        rules.check_tables([raw.observation_layout.size for raw, _ in self._tables.values()], self._tables)
        self._use_table(min(self._tables))
        self.fixed_seat = rules.fixed_seat
        self.observation_space = observation_box([raw for raw, _ in self._tables.values()])
        self.action_space = spaces.Discrete(self.raw.num_actions)
        self.learner_seat = self.fixed_seat or 0
        self.learner = self.raw.possible_agents[self.learner_seat]
        self._seat_agents: list[Any] = []
        self._ledger = RewardLedger(1)
        self._has_reset = False
        self._episode_over = False  # the last step ended the episode (the game's end or an illegal action)

    # ------------------------------------------------------------------ pool
    def add_snapshot(self, policy: MlpPolicy) -> None:
        """Add a frozen learner copy to the opponent pool (called through ``VecEnv.env_method``)."""
        for _, pool in self._tables.values():
            pool.add_snapshot(policy)

    def _use_table(self, count: int) -> None:
        """Play the next episode at the table of ``count`` players."""
        self.raw, self.pool = self._tables[count]
        self.game = self.raw.game
        self.num_players = count

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game (``options`` go to the game's reset) and play up to the learner's first move.

        ``seed``: ``None`` or a non-negative integer (Python or numpy); ``options``: a dict of the
        game's reset options (``TypeError``/``ValueError`` naming a bad one, before anything changes).
        """
        seed = check_seed(seed)
        options = self.raw.check_reset_options(options)
        super().reset(seed=seed)
        rng = self.np_random

        def deal(rows: np.ndarray) -> np.ndarray:
            if len(self._tables) > 1:
                self._use_table(self.rules.draw_table_size(rng))
            raw, game = self.raw, self.game
            drawn = self.rules.draw(self.pool, rng, 1, self.num_players)
            seat = self.learner_seat = int(drawn.seats[0])
            self.learner = raw.possible_agents[seat]
            kinds, snapshots, seeds = drawn.kind[0].tolist(), drawn.snapshot[0].tolist(), drawn.agent_seed[0].tolist()
            self._seat_agents = [
                None if kind < 0 else self.pool.agent(drawn.names[kind], s, snapshot)
                for s, (kind, snapshot) in enumerate(zip(kinds, snapshots))
            ]
            self._has_reset = False  # until this deal stands (a bad option value fails inside the game's reset)
            raw.reset(seed=int(rng.integers(2**63)), options=options)
            for agent, agent_seed in zip(self._seat_agents, seeds):
                if agent is not None:
                    agent.reset(agent_seed)
            # the raw reset pays score changes inside the engine's reset (a Kapern first turn
            # resolved by its opening roll) as rewards of that moment
            self._ledger.hold(rows, raw.rewards[self.learner] + self._play_opponents())
            return rows if game.done else rows[:0]

        self.rules.start_games(deal, np.zeros(1, dtype=np.int64))
        self._has_reset, self._episode_over = True, False
        info = {"seat": self.learner_seat, "num_players": self.num_players}
        return self.raw.observe(self.learner)["observation"], info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action``, then the opponents up to his next decision or the end.

        ``action``: an integer of the action space (Python or numpy), else ``TypeError`` (a float,
        a string, a bool) or ``ValueError`` (outside the space); an illegal one ends the game with
        reward -1. ``RuntimeError`` before ``reset`` and after the episode's end.
        """
        raw, game = self.raw, self.game
        self._check_playing("step")
        action = check_action(action, raw.num_actions)
        try:
            raw.step(action)
        except IllegalActionError:
            return self._end_on_illegal_action()
        reward = float(self._ledger.pay(np.array([raw.rewards[self.learner]]))[0]) + self._play_opponents()
        obs = raw.observe(self.learner)["observation"]
        if not game.done:
            return obs, reward, False, False, {}
        ended = self.rules.end_game(np.array([reward]), np.array([game.terminated]), np.array([game.truncated]))
        self._episode_over = True
        return obs, float(ended[0][0]), bool(ended[1][0]), bool(ended[2][0]), self._final_info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (``bool``; all ``False`` once the episode ended), for MaskablePPO."""
        if not self._has_reset:
            raise RuntimeError("action_masks() called before reset(); call reset() first")
        if self._episode_over:
            return np.zeros(self.raw.num_actions, dtype=bool)
        return self.raw.observe(self.learner)["action_mask"].astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The game's text table (``"ansi"``) or its frame (``"rgb_array"``); ``None`` without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'.")
            return None
        if self.render_mode == "rgb_array":
            return text_image(self.game.render(), f"{self.env_id} - learner {self.learner}")
        return self.game.render()

    # ------------------------------------------------------------------ internals
    def _check_playing(self, call: str) -> None:
        """Raise ``RuntimeError`` naming ``call`` before ``reset`` or once the episode ended."""
        if not self._has_reset:
            raise RuntimeError(f"{call}() called before reset(); call reset() first")
        if self._episode_over:
            raise RuntimeError(f"{call}() called after the episode ended; call reset() to play again")

    def _play_opponents(self) -> float:
        """Let opponents move until the learner decides or the game ends; his summed rewards."""
        raw, game = self.raw, self.game
        random_agent_type, sample_legal = self._random_agent_type, self._sample_legal
        learner, seat_agents, agents = self.learner, self._seat_agents, raw.possible_agents
        total = 0.0
        while not game.done and game.current_player != self.learner_seat:
            seat = game.current_player
            agent = seat_agents[seat]
            if type(agent) is random_agent_type:
                action = sample_legal(raw.legal_mask(), agent.rng, agent.blocks)
            else:
                obs = raw.observe(agents[seat])
                action = agent.act(obs, game.view(seat) if getattr(agent, "uses_view", True) else None)
            raw.step(action)
            total += raw.rewards[learner]
        return total

    def _end_on_illegal_action(self) -> tuple[np.ndarray, float, bool, bool, dict]:
        """End the game for the learner after an illegal action, as the wrapped AEC env does."""
        reward = float(self._ledger.pay(np.array([ILLEGAL_MOVE_REWARD]))[0])
        self.raw.end_on_illegal_move(self.learner, ILLEGAL_MOVE_REWARD)
        obs = self.raw.observe(self.learner)["observation"]
        self._episode_over = True
        return obs, reward, True, False, {**self._final_info(), "illegal_action": True}

    def _final_info(self) -> dict[str, Any]:
        """The learner's seat, final score and share of the win."""
        seat, game = self.learner_seat, self.game
        share = win_share(seat, game.winners(), self.num_players) if game.terminated else 0.0
        opponents = [getattr(a, "name", "?") for a in self._seat_agents if a is not None]
        return ended_info(seat, self.num_players, game.scores()[seat], share, opponents)


__all__ = [
    "MAX_EMPTY_EPISODES",
    "SelfPlayEnv",
    "check_opponents",
    "opponent_weights",
    "table_size_weights",
]
