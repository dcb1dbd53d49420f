"""The four games as OpenSpiel Python games (extra ``openspiel``: the ``open-spiel`` wheel).

    from pirate_envs.openspiel import load_game
    game = load_game("skull_king_v0", players=3, num_hands=2, rng_seed=7)  # a pyspiel.Game
    state = game.new_initial_state()

`register` registers every game with ``pyspiel.register_game`` (`load_game` does it first), so
``pyspiel.load_game("python_pirate_skull_king", {"players": 3})`` works too. Short names:
`SHORT_NAMES`. ``pyspiel`` is imported only then: without the wheel both raise one
``ImportError`` line naming the extra.

What an OpenSpiel state is here:

* The rules engine of the game (``pirate_envs/<game>/engine.py``), the very one the PettingZoo
  envs step: ``current_player``, ``legal_actions``, ``apply_action`` (an illegal action raises
  ``ValueError``, one line), ``action_to_string`` (the action table's labels), ``str(state)``
  (the engine's full render).
* Chance (parameter ``chance``): ``"sampled"`` (default), OpenSpiel's *sampled stochastic* mode.
  The engine deals and rolls inside ``apply_action`` from its own chance source
  (`pirate_envs.core.chance`); there are no chance nodes. Each new game takes the next seed of
  the game's stream (parameter ``rng_seed``; ``-1``: fresh entropy), drawn when the state is
  first used, and a game of seed ``s`` deals exactly what ``env.reset(seed=s)`` deals.
  ``"explicit"`` (one-hand Skull King only, ``num_hands=1``: `EXPLICIT_DEALS`): chance nodes
  deal the cards one by one with the deck's odds (`ExplicitDeal`), so that OpenSpiel's CFR and
  ``exploitability.nash_conv`` run; the View is perfect recall in a one-hand game.
* Tensors and strings: ``information_state_tensor`` and ``observation_tensor`` are both the env's
  observation vector (the game's View ``Encoder``, ``table_layout="seated"``; the named pieces of
  ``env.unwrapped.observation_layout`` are the observer's ``dict``); the strings are the seat's
  screen (``pirate_envs.<game>.text.seat_text``). The View keeps what the rules let a player
  know, summarised (cards played, public voids, the bids), not the order of every earlier move:
  the information state is not perfect recall.
* Returns (parameter ``returns``): ``"win"`` (default; the env's ``reward_mode="win"``: zero-sum,
  the winners share +1 and the losers -1, everybody 0 on an all-way tie or a truncated game) or
  ``"score"`` (each seat's game score at the end, `Engine.scores`: general-sum, bounded by
  ``score_bound``; a score outside it raises ``ValueError`` instead of breaking OpenSpiel's
  utility range).
* Length: the parameter ``max_game_length`` caps the moves of a game; a game that reaches it is
  terminal and counts as truncated (returns 0 in ``"win"`` mode). Skull King's default is its
  exact length (never reached); the other games' defaults sit far beyond their guards' typical
  games (Kapern turns re-roll without a fixed limit).
* Copies: ``clone()`` copies the engine with `Engine.clone` (the copy draws what the original
  would). ``state.serialize()`` is JSON (the seed and the moves); ``game.deserialize_state(text)``
  replays it, checking every move. pyspiel's own ``serialize_game_and_state`` and pickling of
  states need the game's random state, which pyspiel's Python games do not provide for sampled
  chance; use these two instead (they never unpickle).

Parameters: ``players`` (the game's player counts), the user options of the game's spec
(`pirate_envs.game_spec(env_id).options`, within their safe ranges; an integer list as a
comma-separated string, e.g. ``loot_fronts="5,6,8"``), ``returns``, ``score_bound``,
``rng_seed``, ``max_game_length`` and ``chance``. ``docs/guides/openspiel.md`` is the guide.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import pirate_envs
from pirate_envs.core.chance import SEED_BOUND, ScriptedChance
from pirate_envs.core.engine import Engine
from pirate_envs.core.errors import check_choice, check_range
from pirate_envs.core.rewards import win_rewards
from pirate_envs.core.spec import GameSpec, UserOption, resolve
from pirate_envs.core.text import text_module

#: The one line every entry point raises without the wheel.
MISSING_EXTRA = "pirate_envs.openspiel needs the open-spiel wheel: pip install 'pirate-envs[openspiel]'"

#: env id -> OpenSpiel short name.
SHORT_NAMES: dict[str, str] = {env_id: f"python_pirate_{env_id.removesuffix('_v0')}" for env_id in pirate_envs.ENV_IDS}

#: Values of the parameter ``returns``.
RETURNS = ("win", "score")
#: Values of the parameter ``chance``.
CHANCE_MODES = ("sampled", "explicit")

#: Default ``max_game_length`` of the games whose length has no fixed limit (Skull King's is exact).
DEFAULT_MAX_GAME_LENGTH: dict[str, int] = {
    "piraten_kapern_v0": 100_000,
    "piratenpoker_v0": 100_000,
    "lucky_pirate_v0": 100_000,
}

#: Default ``score_bound`` (``returns="score"``) of the games without a computed one.
DEFAULT_SCORE_BOUND: dict[str, int] = {
    "piraten_kapern_v0": 1_000_000,
    "piratenpoker_v0": 1_000,
}


def pyspiel_module() -> Any:
    """``pyspiel``, or ``ImportError`` naming the extra (one line)."""
    try:
        import pyspiel
    except ImportError:
        raise ImportError(MISSING_EXTRA) from None
    return pyspiel


# ----------------------------------------------------------------------------- parameters
def _option_default(config_cls: type, name: str) -> Any:
    """The default of field ``name`` of the ``Config`` dataclass ``config_cls``."""
    field = {f.name: f for f in dataclasses.fields(config_cls)}[name]
    return field.default_factory() if field.default is dataclasses.MISSING else field.default  # type: ignore[misc]


def _int_list_text(values: Any) -> str:
    return ",".join(str(int(v)) for v in values)


def _parse_int_list(name: str, text: str) -> tuple[int, ...]:
    """A comma-separated list of integers (``"5,6,8"``), else one-line ``ValueError``."""
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"{name}={text!r} must be comma-separated integers, e.g. '5,6,8'") from None


def _exact_length(env_id: str, config: Any) -> int | None:
    """The exact number of moves of every game of ``config`` where the rules fix it (else ``None``)."""
    if env_id == "skull_king_v0":
        n, hands = config.num_players, config.num_hands
        return n * hands + n * hands * (hands + 1) // 2  # every seat bids each hand, then plays k cards in hand k
    return None


def _score_bound(env_id: str, config: Any) -> int:
    """The default ``score_bound``: computed from the rules where short, else `DEFAULT_SCORE_BOUND`."""
    if env_id == "skull_king_v0":
        n, hands = config.num_players, config.num_hands
        # hand k: at most 20 k for the bid plus, per trick, +50 (Mermaid) or +30 per other seat's Pirate
        return sum(20 * k + k * max(50, 30 * (n - 1)) for k in range(1, hands + 1))
    if env_id == "lucky_pirate_v0":
        return config.wins_to_win
    return DEFAULT_SCORE_BOUND[env_id]


@dataclass(frozen=True)
class Settings:
    """One game's parameters, checked: the engine's config and the OpenSpiel-side choices."""

    env_id: str
    config: Any
    returns: str
    score_bound: int
    rng_seed: int
    max_game_length: int
    #: ``"sampled"`` (the engine draws inside) or ``"explicit"`` (chance nodes deal the cards: `ExplicitDeal`).
    chance: str = "sampled"


def parameter_defaults(env_id: str) -> dict[str, Any]:
    """The OpenSpiel parameters of ``env_id`` with their defaults (the game type's parameter specification)."""
    spec = pirate_envs.game_spec(env_id)
    config_cls = resolve(spec.config)
    defaults: dict[str, Any] = {"players": spec.default_players}
    for option in spec.options:
        value = _option_default(config_cls, option.name)
        defaults[option.name] = _int_list_text(value) if option.kind == "int_list" else int(value)
    defaults["returns"] = "win"
    defaults["score_bound"] = -1  # the game's own (`_score_bound`)
    defaults["rng_seed"] = 0
    defaults["max_game_length"] = -1  # the game's own (`_exact_length`, else DEFAULT_MAX_GAME_LENGTH)
    defaults["chance"] = "sampled"
    return defaults


def settings(env_id: str, params: Mapping[str, Any] | None = None) -> Settings:
    """The checked `Settings` of ``env_id`` for OpenSpiel ``params`` (missing ones take their defaults).

    ``score_bound`` -1 and ``max_game_length`` -1 (or absent) mean the game's default for the
    config chosen. A bad value raises ``ValueError`` naming it and what is allowed.
    """
    spec = pirate_envs.game_spec(env_id)
    given = dict(params or {})
    unknown = sorted(set(given) - set(parameter_defaults(env_id)))
    if unknown:
        valid = list(parameter_defaults(env_id))
        raise ValueError(f"unknown parameter(s) {unknown} of {SHORT_NAMES[env_id]}; valid: {valid}")
    players = check_range("players", given.get("players", spec.default_players), spec.min_players, spec.max_players)
    options = {option.name: _option_value(option, given) for option in spec.options if option.name in given}
    config = resolve(spec.config)(num_players=players, **options)
    returns = given.get("returns", "win")
    check_choice("returns", returns, RETURNS)
    score_bound = check_range("score_bound", given.get("score_bound", -1), -1)
    if score_bound == 0:
        raise ValueError("score_bound=0 is not valid; allowed: -1 (the game's own) or a positive integer")
    length = check_range("max_game_length", given.get("max_game_length", -1), -1)
    exact = _exact_length(env_id, config)
    chance = given.get("chance", "sampled")
    check_choice("chance", chance, CHANCE_MODES)
    if chance == "explicit" and not (env_id in EXPLICIT_DEALS and getattr(config, "num_hands", None) == 1):
        raise ValueError(f"chance='explicit' is offered for {sorted(EXPLICIT_DEALS)} with num_hands=1 only")
    if length == 0 or (exact is not None and 0 < length < exact):
        least = "1" if exact is None else f"{exact} (every game's length)"
        raise ValueError(f"max_game_length={length} is too short; allowed: -1 (the default) or at least {least}")
    return Settings(
        env_id=env_id,
        config=config,
        returns=returns,
        score_bound=_score_bound(env_id, config) if score_bound == -1 else score_bound,
        rng_seed=check_range("rng_seed", given.get("rng_seed", 0), -1),
        max_game_length=length if length > 0 else exact or DEFAULT_MAX_GAME_LENGTH[env_id],
        chance=chance,
    )


# ----------------------------------------------------------------------------- explicit chance
@dataclass(frozen=True)
class ExplicitDeal:
    """A one-hand game dealt by chance nodes: one card of the deck per node, seat 0 first, then seat 1, ...

    A chance outcome is a card kind (its probability: its copies left over the cards left); once
    every seat holds its cards the engine starts with them (its ``deal`` reset option) and draws
    nothing more.
    """

    kind_names: tuple[str, ...]
    copies: tuple[int, ...]

    def cards_per_seat(self, config: Any) -> int:
        return config.num_hands  # one hand: hand k deals k cards

    def outcomes(self, dealt: list[int]) -> list[tuple[int, float]]:
        """``(kind, probability)`` of the next card, given the kinds ``dealt`` so far."""
        left = list(self.copies)
        for kind in dealt:
            left[kind] -= 1
        total = sum(left)
        return [(kind, count / total) for kind, count in enumerate(left) if count]

    def deal_option(self, dealt: list[int], num_players: int) -> list[list[str]]:
        """The engine's ``deal`` reset option of the complete ``dealt`` (card ``i`` to seat ``i % num_players``)."""
        return [[self.kind_names[kind] for kind in dealt[seat::num_players]] for seat in range(num_players)]


def _skull_king_deal() -> ExplicitDeal:
    from pirate_envs.skull_king.cards import COPIES, KIND_NAMES

    return ExplicitDeal(KIND_NAMES, COPIES)


#: The games whose one-hand variant can be dealt by chance nodes (``chance="explicit"``).
EXPLICIT_DEALS: dict[str, Callable[[], ExplicitDeal]] = {"skull_king_v0": _skull_king_deal}


def _option_value(option: UserOption, given: Mapping[str, Any]) -> Any:
    """The value of user option ``option`` in ``given``, checked against its safe range."""
    value = given[option.name]
    if option.kind == "int_list":
        if not isinstance(value, str):
            raise ValueError(f"{option.name}={value!r} must be comma-separated integers as a string, e.g. '5,6,8'")
        return _parse_int_list(option.name, value)
    low = option.low if option.low is not None else -(2**63)
    return check_range(option.name, value, low, option.high)


# ----------------------------------------------------------------------------- the table of one game
@dataclass(frozen=True)
class Kit:
    """What every state of one game shares: settings, engine class, encoder, screen and seed stream."""

    settings: Settings
    engine_cls: type[Engine]
    encode: Callable[[Any], np.ndarray]
    layout: Any
    seat_text: Callable[..., str]
    seeds: np.random.Generator
    #: The deal by chance nodes (``chance="explicit"``), else ``None``.
    explicit: ExplicitDeal | None = None

    @classmethod
    def build(cls, settings: Settings) -> Kit:
        """The kit of ``settings``: the encoder and screen of the env the same config builds."""
        config = settings.config
        env = pirate_envs.make(settings.env_id, raw=True, **dataclasses.asdict(config))
        seeds = np.random.default_rng(None if settings.rng_seed < 0 else settings.rng_seed)
        explicit = EXPLICIT_DEALS[settings.env_id]() if settings.chance == "explicit" else None
        text = text_module(env).seat_text
        return cls(settings, type(env.game), env.encode, env.observation_layout, text, seeds, explicit)


class Table:
    """One game in progress: its seed, engine and move count, dealt when first used (see `engine`).

    A state holds nothing else, so OpenSpiel's clone (a deep copy of the state's attributes)
    copies this through `__deepcopy__`: `Engine.clone`, the kit shared.
    """

    def __init__(self, kit: Kit):
        self.kit = kit
        self.seed: int | None = None
        self._engine: Engine | None = None
        self.moves = 0
        #: Under explicit chance, the card kinds the chance nodes have dealt so far (else ``None``).
        self.dealt: list[int] | None = [] if kit.explicit is not None else None

    @property
    def dealing(self) -> bool:
        """Whether chance nodes are still dealing (explicit chance only)."""
        return self._engine is None and self.dealt is not None

    def start(self) -> None:
        """Deal the game if not yet dealt, with the next seed of the kit's stream (so the first use fixes it)."""
        if self._engine is None:
            if self.dealt is not None:
                raise RuntimeError("the cards are still being dealt by chance nodes")
            self.deal(int(self.kit.seeds.integers(SEED_BOUND)))

    def deal_card(self, kind: int) -> None:
        """A chance node's outcome (explicit chance): card ``kind`` to the next seat; the last card starts the game."""
        explicit, config = self.kit.explicit, self.kit.settings.config
        assert explicit is not None and self.dealt is not None
        self.dealt.append(kind)
        if len(self.dealt) == explicit.cards_per_seat(config) * config.num_players:
            engine = self.kit.engine_cls(config)
            # the deal is given: the engine draws nothing, and a script with no outcomes says so if it ever tried
            engine.reset(ScriptedChance([]), {"deal": explicit.deal_option(self.dealt, config.num_players)})
            self._engine = engine

    @property
    def engine(self) -> Engine:
        """The game's engine (`start` first)."""
        self.start()
        return self._engine  # type: ignore[return-value]

    @property
    def game_seed(self) -> int:
        """The game's seed (`start` first)."""
        self.start()
        return self.seed  # type: ignore[return-value]

    def deal(self, seed: int) -> None:
        """Start the game of ``seed``: what ``env.reset(seed=seed)`` deals."""
        engine = self.kit.engine_cls(self.kit.settings.config)
        engine.reset(np.random.default_rng(seed))
        self.seed, self._engine, self.moves = seed, engine, 0

    @property
    def done(self) -> bool:
        """Whether the game is over: ended by the rules, truncated by a guard or at ``max_game_length``."""
        if self.dealing:
            return False
        return self.engine.done or self.moves >= self.kit.settings.max_game_length

    def __deepcopy__(self, memo: dict) -> Table:
        twin = Table(self.kit)
        if self.dealing:
            twin.dealt = list(self.dealt)  # type: ignore[arg-type]
            return twin
        engine = self.engine  # deals first if need be, so the copy plays the same game
        twin.seed, twin._engine, twin.moves = self.seed, engine.clone(), self.moves
        twin.dealt = None if self.dealt is None else list(self.dealt)
        return twin


def _win_returns(engine: Engine) -> list[float]:
    if not engine.terminated:
        return [0.0] * engine.num_players
    return win_rewards(engine.winners(), engine.num_players).tolist()


# ----------------------------------------------------------------------------- pyspiel classes
@functools.cache
def _classes() -> tuple[type, type, type]:
    """``(Game, State, Observer)``, defined once ``pyspiel`` is imported."""
    pyspiel = pyspiel_module()

    class Observer:
        """OpenSpiel's Python observer: the View's vector (``tensor``, its named pieces in ``dict``) and screen."""

        def __init__(self, kit: Kit, iig_obs_type: Any, params: Mapping[str, Any] | None):
            if params:
                raise ValueError(f"observation parameters are not supported; got {dict(params)}")
            if iig_obs_type is not None and (
                iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info
            ):
                raise ValueError("only a player's own observation (public and private information) is offered")
            self.kit = kit
            self.tensor = kit.layout.zeros()
            self.dict = kit.layout.unpack(self.tensor)

        def set_from(self, state: Any, player: int) -> None:
            table = state.table
            if table.dealing:  # only the seat's own cards so far, in the View's hand piece
                self.tensor.fill(0.0)
                for kind in table.dealt[player :: self.kit.settings.config.num_players]:
                    self.dict["hand"][kind] += 1.0
                return
            self.tensor[:] = self.kit.encode(table.engine.view(player))

        def string_from(self, state: Any, player: int) -> str:
            table = state.table
            if table.dealing:
                own = table.dealt[player :: self.kit.settings.config.num_players]
                names = ", ".join(self.kit.explicit.kind_names[kind] for kind in own) or "none yet"
                return f"player_{player}: the cards are being dealt; your cards: {names}"
            engine = table.engine
            return self.kit.seat_text(engine.view(player), None if table.done else engine.current_player)

    class PirateState(pyspiel.State):
        """A game in progress (see the module docstring)."""

        def __init__(self, game: Any):
            super().__init__(game)
            self.table = Table(game.kit)

        def current_player(self) -> int:
            table = self.table
            if table.dealing:
                return int(pyspiel.PlayerId.CHANCE)
            return int(pyspiel.PlayerId.TERMINAL) if table.done else table.engine.current_player

        def chance_outcomes(self) -> list[tuple[int, float]]:
            table = self.table
            return table.kit.explicit.outcomes(table.dealt) if table.dealing else []

        def _legal_actions(self, player: int) -> list[int]:
            return self.table.engine.legal_actions()

        def _apply_action(self, action: int) -> None:
            table = self.table
            if table.dealing:
                if action not in dict(self.chance_outcomes()):
                    raise ValueError(f"chance outcome {action} is not possible now; possible: {self.legal_actions()}")
                table.deal_card(action)
                return
            engine = table.engine
            if not 0 <= action < len(engine.ACTIONS) or not engine.legal_mask()[action]:
                raise ValueError(f"action {action} is not legal now; legal: {engine.legal_actions()}")
            engine.apply(action)
            table.moves += 1

        def _action_to_string(self, player: int, action: int) -> str:
            kit = self.table.kit
            if player == pyspiel.PlayerId.CHANCE:
                return f"deal {kit.explicit.kind_names[action]}"
            return kit.engine_cls.ACTIONS.to_string(action)

        def is_terminal(self) -> bool:
            return self.table.done

        def returns(self) -> list[float]:
            table = self.table
            if not table.done:
                return [0.0] * table.kit.settings.config.num_players
            engine = table.engine
            settings = table.kit.settings
            if settings.returns == "win":
                return _win_returns(engine)
            scores = engine.scores().tolist()
            bound = settings.score_bound
            if any(abs(s) > bound for s in scores):
                raise ValueError(f"scores {scores} exceed score_bound={bound}; load the game with a larger score_bound")
            return scores

        def __str__(self) -> str:
            table = self.table
            if table.dealing:
                return "dealing: " + " ".join(table.kit.explicit.kind_names[kind] for kind in table.dealt)
            return table.engine.render()

        def serialize(self) -> str:
            """The game as JSON: its seed and moves (`PirateGame.deserialize_state` replays it)."""
            table = self.table
            seed = None if table.dealt is not None else table.game_seed  # explicit chance: the deal is in the moves
            return json.dumps({"game": table.kit.settings.env_id, "seed": seed, "moves": self.history()})

    class PirateGame(pyspiel.Game):
        """One of the four games with its parameters (see the module docstring)."""

        #: The game's env id (each registered game is a subclass that sets it: `_game_class`).
        env_id: str

        def __init__(self, params: Mapping[str, Any] | None = None):
            given = dict(params or {})
            env_id = self.env_id
            self.kit = Kit.build(settings(env_id, given))
            checked = self.kit.settings
            n = checked.config.num_players
            win = checked.returns == "win"
            bound = 1.0 if win else float(checked.score_bound)
            explicit = self.kit.explicit
            game_type = _game_type(pyspiel, env_id, win, explicit is not None)
            info = pyspiel.GameInfo(
                num_distinct_actions=len(self.kit.engine_cls.ACTIONS),
                max_chance_outcomes=0 if explicit is None else len(explicit.copies),
                num_players=n,
                min_utility=-bound,
                max_utility=bound,
                utility_sum=0.0 if win else None,
                max_game_length=checked.max_game_length,
            )
            super().__init__(game_type, info, given)

        def new_initial_state(self) -> Any:
            return PirateState(self)

        def max_chance_nodes_in_history(self) -> int:
            explicit, config = self.kit.explicit, self.kit.settings.config
            return 0 if explicit is None else explicit.cards_per_seat(config) * config.num_players

        def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> Observer:
            return Observer(self.kit, iig_obs_type, params)

        def deserialize_state(self, text: str) -> Any:
            """The state of `PirateState.serialize`'s JSON, replayed move by move (one-line ``ValueError`` if bad)."""
            seed, moves = _parse_serialized(self.env_id, text, explicit=self.kit.explicit is not None)
            state = PirateState(self)
            if seed is not None:
                state.table.deal(seed)
            for move in moves:
                if state.is_terminal():
                    raise ValueError(f"serialized game has moves after its end (move {move})")
                state.apply_action(move)
            return state

    return PirateGame, PirateState, Observer


def _parse_serialized(env_id: str, text: str, explicit: bool = False) -> tuple[int | None, list[int]]:
    """``(seed, moves)`` of a serialized state of ``env_id``, checked (one-line ``ValueError``).

    Under explicit chance the seed is ``null`` (the deal is among the moves).
    """
    try:
        record = json.loads(text)
    except (TypeError, ValueError):
        raise ValueError("serialized state is not JSON; expected the text of state.serialize()") from None
    if not isinstance(record, dict) or set(record) != {"game", "seed", "moves"}:
        raise ValueError("serialized state must be a JSON object with the keys 'game', 'seed' and 'moves'")
    if record["game"] != env_id:
        raise ValueError(f"serialized state is of game {record['game']!r}, not {env_id!r}")
    seed, moves = record["seed"], record["moves"]
    if explicit:
        if seed is not None:
            raise ValueError(f"serialized seed {seed!r} must be null under explicit chance (the deal is in the moves)")
    elif type(seed) is not int or not 0 <= seed < SEED_BOUND:
        raise ValueError(f"serialized seed {seed!r} must be an integer in 0..{SEED_BOUND - 1}")
    if not isinstance(moves, list) or any(type(m) is not int for m in moves):
        raise ValueError("serialized moves must be a list of integers")
    return seed, moves


def _game_type(pyspiel: Any, env_id: str, win: bool = True, explicit: bool = False) -> Any:
    """The ``pyspiel.GameType`` of ``env_id`` (zero-sum with ``returns="win"``, else general-sum; the chance mode)."""
    spec: GameSpec = pirate_envs.game_spec(env_id)
    kind = pyspiel.GameType
    return kind(
        short_name=SHORT_NAMES[env_id],
        long_name=f"pirate_envs {spec.name}",
        dynamics=kind.Dynamics.SEQUENTIAL,
        chance_mode=kind.ChanceMode.EXPLICIT_STOCHASTIC if explicit else kind.ChanceMode.SAMPLED_STOCHASTIC,
        information=kind.Information.IMPERFECT_INFORMATION,
        utility=kind.Utility.ZERO_SUM if win else kind.Utility.GENERAL_SUM,
        reward_model=kind.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_defaults(env_id),
    )


def register() -> None:
    """Register every game with ``pyspiel`` (`SHORT_NAMES`); registering again does nothing."""
    pyspiel = pyspiel_module()
    known = set(pyspiel.registered_names())
    for env_id, short_name in SHORT_NAMES.items():
        if short_name not in known:
            pyspiel.register_game(_game_type(pyspiel, env_id), _game_class(env_id))


@functools.cache
def _game_class(env_id: str) -> type:
    """The ``pyspiel.Game`` class of ``env_id``: a subclass of the shared one, registered as the factory.

    pyspiel keeps the factory until the process exits; a class (rather than, say, a
    ``functools.partial``, whose release at exit aborts the interpreter) lives as long.
    """
    base = _classes()[0]
    name = "".join(part.title() for part in env_id.removesuffix("_v0").split("_")) + "Game"
    return type(name, (base,), {"env_id": env_id, "__module__": __name__, "__doc__": base.__doc__})


def load_game(env_id: str, **params: Any) -> Any:
    """The ``pyspiel.Game`` of ``env_id`` with OpenSpiel ``params`` (see the module docstring); registers first."""
    pirate_envs.game_spec(env_id)  # TypeError/ValueError naming the valid ids
    register()
    return pyspiel_module().load_game(SHORT_NAMES[env_id], params)


__all__ = [
    "CHANCE_MODES",
    "EXPLICIT_DEALS",
    "MISSING_EXTRA",
    "RETURNS",
    "SHORT_NAMES",
    "ExplicitDeal",
    "Settings",
    "load_game",
    "parameter_defaults",
    "pyspiel_module",
    "register",
    "settings",
]
