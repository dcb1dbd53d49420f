"""The PettingZoo AEC adapter, written once for every game.

A game subclasses `PirateAECEnv`, names its ``Config`` dataclass and ``Engine``, and
implements ``make_encoder``. The adapter holds no rules: it asks the engine
whose turn it is, which actions are legal and what the scores are.

Beside the observations it gives PettingZoo's optional global state: ``state()``, a ``float32``
vector in ``state_space`` laid out by ``state_layout`` (`state_layout`), for centralised critics.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from pirate_envs.core.engine import Engine, check_options
from pirate_envs.core.errors import (
    IllegalActionError,
    UnknownAgentError,
    action_space_text,
    check_action,
    check_choice,
    check_seed,
    is_integer,
    plain_ints,
)
from pirate_envs.core.events import Event, events_since, record_events
from pirate_envs.core.observation import SEAT_PRESENT, ObservationLayout, layout_bounds
from pirate_envs.core.render import check_pillow, seat_name, text_image, working_render_modes
from pirate_envs.core.rewards import REWARD_MODES, SCORE_CHANGE_MODES, score_margins, win_rewards

ILLEGAL_MOVE_REWARD = -1.0


#: The piece of the state that says whose turn it is.
ON_TURN = "on_turn"


def state_layout(observation_layout: ObservationLayout, rows: int) -> ObservationLayout:
    """The layout of ``state()``: ``rows`` seats' observations, seat 0 first, then `ON_TURN`.

    Seat ``i``'s pieces are named ``player_i/<piece>`` (its own observation, laid out by
    ``observation_layout`` and seen from its seat); ``on_turn`` holds a 1 at the seat on turn
    (none once the game has ended). ``rows`` is the table size, or the largest table's under
    ``table_layout="max"`` (the rows of absent seats stay zero).
    """
    pieces = [
        (f"{seat_name(seat)}/{piece.name}", piece.shape, f"{seat_name(seat)}'s {piece.name}")
        for seat in range(rows)
        for piece in observation_layout.pieces
    ]
    return ObservationLayout([*pieces, (ON_TURN, (rows,), "1 at the seat on turn (all 0 once the game has ended)")])


class Encoder(Protocol):
    """Turns a game's views into observation vectors laid out by ``layout``."""

    layout: ObservationLayout

    def __call__(self, view: Any) -> np.ndarray:
        """The ``float32`` observation vector of ``view``."""


def config_from_kwargs(
    config_cls: type, kwargs: dict[str, Any], env_keywords: tuple[str, ...] = ("render_mode", "reward_mode")
) -> Any:
    """Build ``config_cls(**kwargs)``, naming the valid keywords (``env_keywords`` too) when one is unknown.

    Numpy integers among the values (also inside tuples, lists and dicts) become Python integers.
    """
    valid = [f.name for f in dataclasses.fields(config_cls)]
    unknown = sorted(set(kwargs) - set(valid))
    if unknown:
        raise TypeError(f"unknown keyword argument(s) {unknown}; valid: {valid + list(env_keywords)}")
    return config_cls(**{key: plain_ints(value) for key, value in kwargs.items()})


class PirateAECEnv(AECEnv):
    """A turn-based PettingZoo environment over a rules `Engine`.

    It pickles and deep-copies at any point of a game (the engine and encoder must too): a copy
    plays on by itself, and given the same actions it plays exactly what the original would.
    Bad arguments raise one error that names the bad value and what is valid.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "pirate_env",
        "render_modes": working_render_modes("ansi", "human", "rgb_array"),  # rgb_array needs pillow
        "is_parallelizable": False,
        "render_fps": 1,
    }
    #: The game's frozen, validated config dataclass.
    CONFIG: ClassVar[type]
    #: The game's engine class, built as ``ENGINE(config)``.
    ENGINE: ClassVar[type[Engine]]
    #: Multiplier of score changes in ``reward_mode="score"`` and ``"margin"``.
    SCORE_SCALE: ClassVar[float] = 1.0
    #: Keyword options the env itself takes (the others build the game's ``Config``).
    ENV_KEYWORDS: ClassVar[tuple[str, ...]] = ("render_mode", "reward_mode")

    def __init__(self, render_mode: str | None = None, reward_mode: str = "win", **kwargs: Any):
        super().__init__()
        if render_mode == "rgb_array":
            check_pillow()  # not advertised without pillow: say which extra it needs
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        check_choice("reward_mode", reward_mode, REWARD_MODES)
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.config = config_from_kwargs(self.CONFIG, kwargs, self.ENV_KEYWORDS)
        self.game: Engine = self.ENGINE(self.config)
        n = self.game.num_players
        self.possible_agents = [seat_name(i) for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.actions = self.ENGINE.ACTIONS
        #: The game's fixed action features (``ActionFeatures``), or ``None``.
        self.action_features = self.ENGINE.ACTION_FEATURES
        self.encode: Encoder = self.make_encoder()
        self.observation_layout: ObservationLayout = self.encode.layout
        bounds = self.observation_bounds()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(*layout_bounds(self.observation_layout, bounds), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (len(self.actions),), np.int8),
            }
        )
        act_space = spaces.Discrete(len(self.actions))
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        layout = self.observation_layout
        rows = layout.piece(SEAT_PRESENT).size if SEAT_PRESENT in layout else n
        #: The layout of ``state()`` (see `state_layout`).
        self.state_layout: ObservationLayout = state_layout(layout, rows)
        self.state_space = spaces.Box(*layout_bounds(self.state_layout, bounds), dtype=np.float32)
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.num_actions = len(self.actions)
        self._zero_mask = np.zeros(self.num_actions, dtype=np.int8)
        self._zero_mask.flags.writeable = False
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self._mask: np.ndarray | None = None
        self._rng = np.random.default_rng()
        self._scores = np.zeros(n)
        self._has_reset = False

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        """``{piece: (low, high)}``: true bounds of the observation pieces not within [0, 1] (the rest are).

        They bound every value the rules and this env's options allow (not only those seen), so
        the observation and state spaces are finite ``Box``es that hold every observation.
        """
        return {}

    # ----------------------------------------------------------------- copies
    #: Attributes that are the game's class-level constants: copies share them instead of copying.
    _SHARED_ATTRIBUTES: ClassVar[tuple[str, ...]] = ("actions", "action_features")

    def __getstate__(self) -> dict[str, Any]:
        """The state that ``pickle`` and ``copy.deepcopy`` copy: everything but the shared constants."""
        state = self.__dict__.copy()
        for name in self._SHARED_ATTRIBUTES:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a copy: re-attach the constants and mark its masks read-only again.

        Pickling and deep-copying an array drops its read-only flag; the masks are handed to the
        agents as they are, so a copy must protect them as the original does.
        """
        self.__dict__.update(state)
        self.actions = self.ENGINE.ACTIONS
        self.action_features = self.ENGINE.ACTION_FEATURES
        self._zero_mask.flags.writeable = False
        if self._mask is not None:
            self._mask.flags.writeable = False
        self._obs_cache.clear()  # its masks are copies too: observe() rebuilds it

    # ----------------------------------------------------------------- game hook
    def make_encoder(self) -> Encoder:
        """The game's observation encoder for ``self.config`` (``encode(view)`` calls it)."""
        raise NotImplementedError

    # ----------------------------------------------------------------- PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[self.possible_agents[self.seat_of(agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[self.possible_agents[self.seat_of(agent)]]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` (a non-negative integer) reseeds, ``None`` continues the stream.

        ``options`` is a dict of the engine's ``RESET_OPTIONS`` (or ``None``).
        """
        seed = check_seed(seed)
        options = self.check_reset_options(options)
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
        self._mask = None
        # every game starts from zero: a score change inside the engine's reset (a first Kapern
        # turn that ends on its opening roll, say) is paid by the _after_game_step below
        self._scores = np.zeros(self.game.num_players)
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._has_reset = True
        self._after_game_step()

    def check_reset_options(self, options: object) -> dict[str, Any]:
        """``options`` as a dict of Python values: ``TypeError`` unless a dict or ``None``, ``ValueError``
        naming the valid keys for an unknown one (the engine checks the values)."""
        return plain_ints(check_options(options, self.game.RESET_OPTIONS))

    def check_playing(self, call: str) -> None:
        """Raise ``RuntimeError`` naming ``call`` and what to call instead (before ``reset``, after the end)."""
        if not self._has_reset:
            raise RuntimeError(f"{call}() called before reset(); call reset() first")
        if not self.agents:
            raise RuntimeError(
                f"{call}() called after the game ended (every agent is done); call reset() to play again"
            )

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The observation, cumulative reward, termination, truncation and info of the agent on turn."""
        self.check_playing("last")
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            cached = self._obs_cache.get(agent)
        except TypeError:  # an unhashable agent name: seat_of names the valid ones
            cached = None
        if cached is not None:
            return cached
        seat = self.seat_of(agent)
        if not self._has_reset:
            raise RuntimeError("observe() called before reset(); call reset() first")
        game = self.game
        on_turn = seat == game.current_player and not game.done
        mask = self.legal_mask() if on_turn else self._zero_mask  # both read-only: no copy needed
        obs = {"observation": self.encode(game.view(seat)), "action_mask": mask}
        self._obs_cache[agent] = obs
        return obs

    def state(self) -> np.ndarray:
        """The full state of the game as a new ``float32`` vector of ``state_space`` (for centralised critics).

        Every seat's observation, seat 0 first, then whose turn it is (`state_layout`). Together
        the seats see every card dealt, every bid made and every die thrown: all of the game's
        hidden information. What no seat sees is left out on purpose: the order of an undealt
        deck and dice not yet thrown are chance still to come, not state.
        """
        if not self._has_reset:
            raise RuntimeError("state() called before reset(); call reset() first")
        layout = self.state_layout
        vector = layout.zeros()
        size = self.observation_layout.size
        for seat, agent in enumerate(self.possible_agents):
            vector[seat * size : (seat + 1) * size] = self.observe(agent)["observation"]
        agent = self.agent_selection
        if self.agents and not (self.terminations[agent] or self.truncations[agent]):  # also after an illegal move
            vector[layout.piece(ON_TURN).start + self._seat[agent]] = 1.0
        return vector

    def legal_mask(self) -> np.ndarray:
        """The legal actions of the agent on turn (the engine's mask), computed once per state and read-only.

        Observations hand it to the agents as is, with no copy, so it is frozen here once for
        every game: an agent that writes to it gets an error instead of corrupting the game.
        """
        mask = self._mask
        if mask is None:
            mask = self._mask = self.game.legal_mask()
            mask.flags.writeable = False
        return mask

    def is_legal(self, action: Any) -> bool:
        """Whether ``action`` is a legal action (an integer) of the agent on turn."""
        if type(action) is not int:
            if not is_integer(action):
                return False
            action = int(action)
        return 0 <= action < self.num_actions and bool(self.legal_mask()[action])

    def end_on_illegal_move(self, agent: str, reward: float) -> None:
        """End the game because ``agent`` chose an illegal action (PettingZoo's convention)."""
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = reward if a == agent else 0.0
            self.terminations[a] = True
        self._obs_cache.clear()
        self._accumulate_rewards()

    def step(self, action: int | None) -> None:
        """Play ``action`` (an integer of ``Discrete(n)``) for the agent on turn; ``None`` for a done agent.

        Raises ``TypeError`` for an action that is not an integer, `IllegalActionError`
        for one the rules do not allow now, and ``RuntimeError`` before ``reset`` or once every agent is done.
        """
        if not self._has_reset or not self.agents:
            self.check_playing("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            if action is None:
                raise TypeError(
                    f"action None is only for an agent that is done; {agent} is on turn: "
                    f"expected {action_space_text(self.num_actions)}"
                )
            if not is_integer(action):
                check_action(action, self.num_actions)  # raises the TypeError that names the action space
            action = int(action)
        if not self.is_legal(action):
            raise IllegalActionError(
                action, np.flatnonzero(self.legal_mask()).tolist(), self.action_to_string, self.num_actions
            )
        self.apply_legal(agent, action)

    def apply_legal(self, agent: str, action: int) -> None:
        """Play ``action`` for ``agent``, the agent on turn, already checked to be legal."""
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(action)
        self._obs_cache.clear()
        self._mask = None
        self._after_game_step()

    def _after_game_step(self) -> None:
        """Set rewards, terminations and the next agent from the engine's state."""
        game = self.game
        agents = self.possible_agents
        if self.reward_mode in SCORE_CHANGE_MODES:
            scores = game.scores()
            changes = (scores - self._scores) * self.SCORE_SCALE
            delta = (score_margins(changes) if self.reward_mode == "margin" else changes).tolist()
            self._scores = scores
            for a, r in zip(agents, delta):
                self.rewards[a] = r
            self._accumulate_rewards()
        elif game.terminated:
            for a, r in zip(agents, win_rewards(game.winners(), len(agents)).tolist()):
                self.rewards[a] = r
            self._accumulate_rewards()
        # (win mode before the end: every reward is still the 0.0 set by reset)
        if game.done:
            for a in agents:
                self.terminations[a] = game.terminated
                self.truncations[a] = game.truncated and not game.terminated
        else:
            self.agent_selection = agents[game.current_player]

    def render(self) -> str | np.ndarray | None:
        """The table now: ``"ansi"`` returns its text, ``"human"`` prints it, ``"rgb_array"`` draws it.

        An ``rgb_array`` frame is an ``(H, W, 3)`` ``uint8`` image of the same size at every step
        (`pirate_envs.core.render.text_image`), for Gymnasium's and PettingZoo's video recorders.
        """
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'."
            )
            return None
        text = self.game.render()
        if self.render_mode == "human":
            print(text)
            return None
        if self.render_mode == "rgb_array":
            return text_image(text, self._frame_title())
        return text

    def _frame_title(self) -> str:
        """The title of an ``rgb_array`` frame: the env id and who is on turn (or how the game ended)."""
        game = self.game
        if not self._has_reset:
            status = "before reset"
        elif game.done:
            status = "game over" if game.terminated else "game truncated"
        else:
            status = f"{self.possible_agents[game.current_player]} on turn"
        return f"{self.metadata['name']} - {len(self.possible_agents)} players - {status}"

    def close(self) -> None:
        pass

    # ----------------------------------------------------------------- text and events
    def seat_text(self, agent: str) -> str:
        """What ``agent`` knows now, as text of at most 100 columns (``pirate_envs.<game>.text``)."""
        from pirate_envs.core.text import env_seat_text

        return env_seat_text(self, agent)

    def record_events(self) -> None:
        """Record the game's public events from now on (each reset starts an empty log)."""
        record_events(self.game)

    def events_since(self, start: int = 0) -> list[Event]:
        """The public events from index ``start`` on, counted from the last reset (``[]`` while not recording)."""
        return events_since(self, start)

    # ----------------------------------------------------------------- helpers
    def action_to_string(self, action: int) -> str:
        """A readable label of ``action`` (an integer of the action space, else ``TypeError``/``ValueError``)."""
        return self.actions.to_string(check_action(action, self.num_actions))

    def seat_of(self, agent: str) -> int:
        """The seat index of an agent name (`UnknownAgentError` naming the agents if unknown)."""
        try:
            return self._seat[agent]
        except (KeyError, TypeError):
            raise UnknownAgentError(agent, self.possible_agents) from None


def _forward(name: str) -> property:
    """A read-only attribute of the wrapper that reads the raw env's attribute directly."""
    return property(lambda self: getattr(self._raw, name), doc=f"The raw env's ``{name}``.")


class PirateWrapper(wrappers.OrderEnforcingWrapper):
    """What ``env()`` returns: PettingZoo's three standard wrappers fused into one layer.

    It behaves as ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(
    raw, illegal_reward=-1)))``: calls before ``reset`` are errors, an action outside the
    action space fails an assertion, and an illegal action ends the game with -1 for its
    player (0 for the others). Fusing them saves PettingZoo's attribute forwarding through
    three ``__getattr__`` layers on every access, which dominates a cheap env's step.
    """

    agents = _forward("agents")
    possible_agents = _forward("possible_agents")
    agent_selection = _forward("agent_selection")
    rewards = _forward("rewards")
    _cumulative_rewards = _forward("_cumulative_rewards")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    observation_spaces = _forward("observation_spaces")
    action_spaces = _forward("action_spaces")

    def __init__(self, env: PirateAECEnv):
        super().__init__(env)
        self._raw = env

    @property
    def num_agents(self) -> int:
        return len(self._raw.agents)

    @property
    def max_num_agents(self) -> int:
        return len(self._raw.possible_agents)

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """The agent on turn until the game ends, as PettingZoo's order-enforcing iterator.

        Between two agents the loop must call ``step`` (an assertion, as in PettingZoo). A
        generator here costs a third of PettingZoo's two-class iterator chain.
        """
        raw = self._raw
        while raw.agents and max_iter > 0:
            max_iter -= 1
            assert self._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
            self._has_updated = False
            yield raw.agent_selection

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the raw env; a reset that fails on a bad argument leaves the wrapper as it was."""
        self._raw.reset(seed=seed, options=options)
        self._has_reset = True
        self._has_updated = True

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        if not raw.agents:
            raw.check_playing("last")
        agent = raw.agent_selection
        observation = raw.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(action)
            return
        if not (is_integer(action) and 0 <= action < raw.num_actions):
            # an AssertionError, as PettingZoo's AssertOutOfBoundsWrapper raises (also under python -O)
            raise AssertionError(f"action {action!r} is not in {action_space_text(raw.num_actions)}")
        if raw.is_legal(action):
            raw.apply_legal(agent, int(action))
        else:
            EnvLogger.warn_on_illegal_move()
            raw.end_on_illegal_move(agent, ILLEGAL_MOVE_REWARD)


def wrap(raw_env_cls: type[PirateAECEnv]) -> Callable[..., AECEnv]:
    """The ``env()`` factory of a game (see `PirateWrapper`)."""

    def env(**kwargs: Any) -> AECEnv:
        return PirateWrapper(raw_env_cls(**kwargs))

    env.__doc__ = f"{raw_env_cls.__name__} in :class:`PirateWrapper` (illegal moves end the game with -1)."
    return env
