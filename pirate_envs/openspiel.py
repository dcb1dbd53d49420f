"""The four games as OpenSpiel Python games (extra ``openspiel``: the ``open-spiel`` wheel).

    from pirate_envs.openspiel import load_game
    game = load_game("skull_king_v0", players=3, num_hands=2, rng_seed=7)  # a pyspiel.Game
    state = game.new_initial_state()

`register` registers every game with ``pyspiel.register_game`` (`load_game` does it first), so
``pyspiel.load_game("python_pirate_skull_king", {"players": 3})`` works too. Short names:
`SHORT_NAMES`. ``pyspiel`` is imported only then: without the wheel both raise one
``ImportError`` line naming the extra.

What a state is here (the engine, sampled or explicit chance, tensors and strings, returns,
length, copies), the parameters, and how explicit chance works and a game plugs in
(`EXPLICIT_CHANCE`, `ExplicitRules`, `SMALL_VARIANTS`, `load_variant`): the guide
``docs/guides/openspiel.md``, section "The module `pirate_envs.openspiel`".
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import importlib
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pirate_envs import registry
from pirate_envs.core.chance import SEED_BOUND
from pirate_envs.core.engine import Engine
from pirate_envs.core.errors import check_choice, check_range
from pirate_envs.core.openspiel_facts import (
    Draw,
    DrawNeeded,
    ExplicitChance,
    ExplicitRules,
    OpenSpielFacts,
)
from pirate_envs.core.rewards import win_rewards
from pirate_envs.core.spec import GameSpec, UserOption, resolve
from pirate_envs.core.text import text_module

#: The one line every entry point raises without the wheel.
MISSING_EXTRA = "pirate_envs.openspiel needs the open-spiel wheel: pip install 'pirate-envs[openspiel]'"

#: env id -> OpenSpiel short name.
SHORT_NAMES: dict[str, str] = {env_id: f"python_pirate_{env_id.removesuffix('_v0')}" for env_id in registry.ENV_IDS}

#: Values of the parameter ``returns``.
RETURNS = ("win", "score")
#: Values of the parameter ``chance``.
CHANCE_MODES = ("sampled", "explicit")
#: Values of the parameter ``clone_chance``: a clone draws what the original would, or fresh chance.
CLONE_CHANCE = ("shared", "fresh")


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


@dataclass(frozen=True)
class Settings:
    """One game's parameters, checked: the engine's config and the OpenSpiel-side choices."""

    env_id: str
    config: Any
    returns: str
    score_bound: int
    rng_seed: int
    max_game_length: int
    #: ``"sampled"`` (the engine draws inside) or ``"explicit"`` (chance nodes: `ExplicitRules`).
    chance: str = "sampled"
    #: ``"shared"`` (a clone draws what the original would) or ``"fresh"`` (a clone draws anew).
    clone_chance: str = "shared"


def parameter_defaults(env_id: str) -> dict[str, Any]:
    """The OpenSpiel parameters of ``env_id`` with their defaults (the game type's parameter specification)."""
    spec = registry.game_spec(env_id)
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
    defaults["clone_chance"] = "shared"
    return defaults


def settings(env_id: str, params: Mapping[str, Any] | None = None) -> Settings:
    """The checked `Settings` of ``env_id`` for OpenSpiel ``params`` (missing ones take their defaults).

    ``score_bound`` -1 and ``max_game_length`` -1 (or absent) mean the game's default for the
    config chosen. A bad value raises ``ValueError`` naming it and what is allowed.
    """
    spec = registry.game_spec(env_id)
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
    facts = game_facts(env_id)
    exact = facts.exact_length(config) if facts.exact_length is not None else None
    chance = given.get("chance", "sampled")
    check_choice("chance", chance, CHANCE_MODES)
    if chance == "explicit":
        if facts.explicit_rules is None:
            raise ValueError(f"chance='explicit' is offered for {explicit_chance_games()} only, not {env_id}")
        facts.explicit_rules(config)  # a config the game does not offer raises its one line
    clone_chance = given.get("clone_chance", "shared")
    check_choice("clone_chance", clone_chance, CLONE_CHANCE)
    if clone_chance == "fresh" and chance == "explicit":
        raise ValueError("clone_chance='fresh' is for chance='sampled'; explicit chance has chance nodes instead")
    if length == 0 or (exact is not None and 0 < length < exact):
        least = "1" if exact is None else f"{exact} (every game's length)"
        raise ValueError(f"max_game_length={length} is too short; allowed: -1 (the default) or at least {least}")
    return Settings(
        env_id=env_id,
        config=config,
        returns=returns,
        score_bound=facts.score_bound(config) if score_bound == -1 else score_bound,
        rng_seed=check_range("rng_seed", given.get("rng_seed", 0), -1),
        max_game_length=length if length > 0 else exact or facts.max_game_length,
        chance=chance,
        clone_chance=clone_chance,
    )


@functools.cache
def game_facts(env_id: str) -> OpenSpielFacts:
    """The `OpenSpielFacts` ``env_id``'s game declares (``FACTS`` of ``pirate_envs.<game>.openspiel``)."""
    facts = importlib.import_module(f"pirate_envs.{registry.game_spec(env_id).package}.openspiel").FACTS
    if not isinstance(facts, OpenSpielFacts):
        raise LookupError(f"{env_id}: its game's openspiel module declares no FACTS = OpenSpielFacts(...)")
    return facts


def explicit_chance_games() -> list[str]:
    """The env ids whose games offer ``chance="explicit"``."""
    return [env_id for env_id in registry.ENV_IDS if game_facts(env_id).explicit_rules is not None]


@dataclass
class PendingStep:
    """A step (``action``, or the reset when ``None``) interrupted by a draw: the chance node's state.

    ``before`` is the engine before the step (``None`` for the reset; never changed, so copies
    share it), ``resolved`` the outcomes of the step's earlier draws, ``draw`` the draw waiting
    and ``chosen`` the values a permutation has dealt so far, of ``sum(hands)`` dealt by chance
    nodes in hands of ``hands`` cards (`ExplicitRules.positions`).
    """

    before: Engine | None
    action: int | None
    resolved: list[Any]
    draw: Draw
    hands: tuple[int, ...]
    chosen: list[Any] = dataclasses.field(default_factory=list)

    @property
    def positions(self) -> int:
        return sum(self.hands)

    def copy(self) -> PendingStep:
        return dataclasses.replace(self, resolved=list(self.resolved), chosen=list(self.chosen))

    def outcomes(self) -> list[tuple[int, float]]:
        """``(id, probability)`` of the draw's next outcome (a hand's next card: `hand_outcomes`)."""
        draw, chosen = self.draw, self.chosen
        if not draw.shuffles:
            return draw.outcomes()
        start = 0
        for size in self.hands:
            if len(chosen) < start + size:
                break
            start += size
        if size == 1:
            return draw.outcomes(chosen)
        left = collections.Counter(draw.items)
        left.subtract(chosen[:start])
        ids = {value: i for i, value in enumerate(draw.distinct)}
        return hand_outcomes([left[value] for value in draw.distinct], [ids[v] for v in chosen[start:]], size)


def hand_outcomes(copies: Sequence[int], dealt: Sequence[int], size: int) -> list[tuple[int, float]]:
    """``(id, probability)`` of the next card of a hand of ``size`` cards dealt as a set, in id order.

    ``copies[i]``: the cards of id ``i`` left before the hand; ``dealt``: the ids of the hand so
    far (non-decreasing). The hand is a uniform ``size``-subset of the cards left, so a multiset
    ``m`` has weight ``prod C(copies[i], m[i])``; the next id's probability is the weight of the
    hands that go on with it over the weight of those that agree with ``dealt``.
    """
    above = list(itertools.accumulate(reversed(copies)))[::-1][1:] + [0]  # cards of ids above each id
    slots = size - len(dealt)

    def ways(i: int, held: int, more: int) -> int:
        """Hands with ``held`` cards of id ``i`` so far whose ``more`` other cards are of id ``i`` or above."""
        return sum(math.comb(copies[i], held + t) * math.comb(above[i], more - t) for t in range(more + 1))

    if not dealt:
        total, weights = math.comb(sum(copies), size), {i: ways(i, 1, slots - 1) for i in range(len(copies))}
    else:
        last, held = dealt[-1], dealt.count(dealt[-1])
        total = ways(last, held, slots)
        stay = math.comb(copies[last], held)
        weights = {last: ways(last, held + 1, slots - 1)}
        weights.update({i: stay * ways(i, 1, slots - 1) for i in range(last + 1, len(copies))})
    return [(i, w / total) for i, w in sorted(weights.items()) if w > 0]


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
    #: How the game plugs into explicit chance (``chance="explicit"``), else ``None``.
    explicit: ExplicitRules | None = None
    #: An engine of the config that explicit chance copies and resets for each new game (else ``None``).
    prototype: Engine | None = None
    #: Explicit chance: the state every game starts from, built once (``"start"``: a `Table`).
    cache: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: The seeds of fresh chance sources (``clone_chance="fresh"`` and ``resample_from_infostate``).
    fresh_seeds: np.random.Generator = dataclasses.field(default_factory=np.random.default_rng)

    @classmethod
    def build(cls, settings: Settings) -> Kit:
        """The kit of ``settings``: the encoder and screen of the env the same config builds."""
        config = settings.config
        env = registry.make(settings.env_id, raw=True, **dataclasses.asdict(config))
        seeds = np.random.default_rng(None if settings.rng_seed < 0 else settings.rng_seed)
        text = text_module(env).seat_text
        explicit = prototype = None
        if settings.chance == "explicit":
            rules = game_facts(settings.env_id).explicit_rules
            assert rules is not None  # settings() refused the others
            explicit, prototype = rules(config), type(env.game)(config)
        fresh = np.random.default_rng(None if settings.rng_seed < 0 else [settings.rng_seed, 1])
        kit = cls(settings, type(env.game), env.encode, env.observation_layout, text, seeds, explicit, prototype)
        return dataclasses.replace(kit, fresh_seeds=fresh)


class Table:
    """One game in progress: its engine and move count (and, under explicit chance, the chance node).

    Sampled chance: the seed is drawn and the game dealt when first used (see `engine`); a move
    steps the engine in place. Explicit chance (`ExplicitRules`): the engine draws from an
    `ExplicitChance`; a move steps a copy of the engine, and a draw without an outcome leaves the
    state at a chance node (`pending`) until its outcomes are chosen (`choose`), when the step
    is run again from the engine before it. The engines are then never changed once reached, so
    copies share them. ``histories[seat]`` is the seat's perfect-recall information state: what
    changed in its view at each step (`view_text`) and its own moves.

    A state holds nothing else, so OpenSpiel's clone (a deep copy of the state's attributes)
    copies this through `__deepcopy__`.
    """

    def __init__(self, kit: Kit):
        self.kit = kit
        self.seed: int | None = None
        self._engine: Engine | None = None
        self.moves = 0
        #: The engine draws chance (or holds hidden cards) of its own, not the seed's: a fresh clone or a
        #: resampled world, whose moves do not replay it.
        self.redrawn = False
        #: The chance node's step (explicit chance only; ``None`` at any other state).
        self.pending: PendingStep | None = None
        #: Each seat's own history as one string (explicit chance only).
        self.histories: list[str] | None = None
        #: Each seat's view at the last step recorded in its history (explicit chance only; never changed).
        self.last_views: list[Any] | None = None
        if kit.explicit is not None:
            start = kit.cache.get("start")
            if start is None:  # the reset's first draw, once per game (OpenSpiel's clone builds a state first)
                self.histories = [""] * kit.settings.config.num_players
                self._run(None, None, [])
                start = kit.cache["start"] = self.__deepcopy__({})
            self._engine, self.histories, self.last_views = start._engine, list(start.histories), start.last_views
            self.pending = None if start.pending is None else start.pending.copy()

    # ------------------------------------------------------------------ sampled chance
    def start(self) -> None:
        """Deal the game if not yet dealt, with the next seed of the kit's stream (so the first use fixes it)."""
        if self._engine is None:
            if self.kit.explicit is not None:
                raise RuntimeError("the game is still being set up by chance nodes")
            self.deal(int(self.kit.seeds.integers(SEED_BOUND)))

    @property
    def engine(self) -> Engine:
        """The game's engine (`start` first); at a chance node, the engine before the interrupted step."""
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

    # ------------------------------------------------------------------ explicit chance
    @property
    def set_up(self) -> bool:
        """Whether the game has started (always under sampled chance; after the reset's draws under explicit)."""
        return self._engine is not None or self.kit.explicit is None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome id, probability)`` of the chance node (explicit chance; ``[]`` elsewhere)."""
        pending = self.pending
        if pending is None:
            return []
        outcomes = pending.outcomes()
        bound = self.kit.explicit.max_chance_outcomes  # type: ignore[union-attr]
        if outcomes[-1][0] >= bound:
            raise RuntimeError(f"chance outcome {outcomes[-1][0]} of a {pending.draw.kind} is beyond {bound}")
        return outcomes

    def chance_label(self, outcome: int) -> str:
        """``action_to_string`` of chance outcome ``outcome`` at this chance node."""
        draw = self.pending.draw  # type: ignore[union-attr]
        return self.kit.explicit.label(draw, draw.value(outcome))  # type: ignore[union-attr]

    def choose(self, outcome: int) -> None:
        """The chance node's outcome ``outcome``; ``ValueError`` (one line) if it is not possible now."""
        if outcome not in dict(self.chance_outcomes()):
            possible = [o for o, _ in self.chance_outcomes()]
            raise ValueError(f"chance outcome {outcome} is not possible now; possible: {possible}")
        self._resolve(outcome)

    def _resolve(self, outcome: int) -> None:
        """Take ``outcome`` at the chance node: a permutation's next value (the step runs once all are
        dealt), or the draw's outcome (the step runs again at once)."""
        pending = self.pending
        assert pending is not None
        draw = pending.draw
        if draw.shuffles:
            pending.chosen.append(draw.value(outcome))
            self._settle()
        else:
            self._run(pending.before, pending.action, [*pending.resolved, draw.value(outcome)])

    def _settle(self) -> None:
        """Complete the pending permutation once its positions are dealt, and take every forced outcome."""
        pending = self.pending
        assert pending is not None
        draw = pending.draw
        if draw.shuffles and len(pending.chosen) >= pending.positions:
            self._run(pending.before, pending.action, [*pending.resolved, draw.completed(pending.chosen)])
            return
        outcomes = pending.outcomes()
        if len(outcomes) == 1:
            self._resolve(outcomes[0][0])

    def _run(self, before: Engine | None, action: int | None, resolved: list[Any]) -> None:
        """Run the step (``action`` on a copy of ``before``, or the reset) with the outcomes ``resolved``."""
        kit = self.kit
        engine = (kit.prototype if before is None else before).clone(ExplicitChance(resolved))  # type: ignore[union-attr]
        try:
            if action is None:
                engine.reset(engine.chance)
            else:
                engine.apply(action)
        except DrawNeeded as need:
            draw = need.draw
            positions = kit.explicit.positions(engine, draw) if draw.shuffles else 1  # type: ignore[union-attr]
            hands = (1,) * positions if isinstance(positions, int) else tuple(positions)
            self.pending = PendingStep(before, action, resolved, draw, hands)
            self._settle()
            return
        self.pending, self._engine = None, engine
        self._record(engine)

    def _record(self, engine: Engine) -> None:
        """Append every seat's view of ``engine`` (`view_text`: what changed since its last one) to its history.

        A seat whose view did not change gets no line: a line per step would let it count the
        other seats' moves it cannot see (a Piratenpoker bid built card by card against a Pass).
        """
        histories = self.histories
        assert histories is not None
        views = [engine.view(seat) for seat in range(len(histories))]
        last = self.last_views or [None] * len(views)
        for seat, view in enumerate(views):
            line = view_text(view, last[seat])
            if line or last[seat] is None:
                histories[seat] += line + "\n"
        self.last_views = views

    # ------------------------------------------------------------------ both
    def apply(self, action: int) -> None:
        """Apply the legal move ``action`` of the player on turn (callers check legality)."""
        engine = self.engine
        self.moves += 1
        if self.kit.explicit is None:
            engine.apply(action)
            return
        seat = engine.current_player
        self.histories[seat] += f"> {self.kit.engine_cls.ACTIONS.to_string(action)}\n"  # type: ignore[index]
        self._run(engine, action, [])

    @property
    def done(self) -> bool:
        """Whether the game is over: ended by the rules, truncated by a guard or at ``max_game_length``."""
        if self.moves >= self.kit.settings.max_game_length:
            return True
        return self.pending is None and self.engine.done

    def __deepcopy__(self, memo: dict) -> Table:
        twin = Table.__new__(Table)
        twin.kit, twin.seed, twin.moves, twin.redrawn = self.kit, self.seed, self.moves, self.redrawn
        if self.kit.explicit is not None:  # the engines are never changed: shared
            twin._engine, twin.histories = self._engine, list(self.histories)  # type: ignore[arg-type]
            twin.last_views = self.last_views
            twin.pending = None if self.pending is None else self.pending.copy()
            return twin
        engine = self.engine  # deals first if need be, so the copy plays the same game
        fresh = self.kit.settings.clone_chance == "fresh"
        chance = engine.chance.fresh(self.kit.fresh_seeds) if fresh else None
        twin._engine, twin.pending, twin.histories, twin.last_views = engine.clone(chance), None, None, None
        twin.redrawn = self.redrawn or fresh
        return twin

    def resampled(self, player: int, seed: int) -> Table:
        """A copy with everything ``player`` cannot see redrawn from ``seed``: the others' hidden cards
        (`Engine.resample_hidden`) and every future deal and roll (a fresh chance source)."""
        if self.kit.explicit is not None:
            raise ValueError("resample_from_infostate is for chance='sampled'; explicit chance has chance nodes")
        twin = self.__deepcopy__({})
        rng = np.random.default_rng(seed)
        engine = twin._engine = twin.engine.clone(twin.engine.chance.fresh(rng))
        engine.resample_hidden(player, rng)
        twin.redrawn = True
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
            #: The information state (OpenSpiel's ``perfect_recall``): under explicit chance, the seat's history.
            self.perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
            self.tensor = kit.layout.zeros()
            self.dict = kit.layout.unpack(self.tensor)

        def set_from(self, state: Any, player: int) -> None:
            table = state.table
            if not table.set_up:  # explicit chance, the reset still drawing: nothing to see yet
                self.tensor.fill(0.0)
                return
            self.tensor[:] = self.kit.encode(table.engine.view(player))

        def string_from(self, state: Any, player: int) -> str:
            table = state.table
            if self.perfect_recall and table.histories is not None:
                return table.histories[player] or SETTING_UP.format(player=player)
            if not table.set_up:
                return SETTING_UP.format(player=player)
            engine = table.engine
            on_turn = None if table.done or table.pending is not None else engine.current_player
            return self.kit.seat_text(engine.view(player), on_turn)

    class PirateState(pyspiel.State):
        """A game in progress (see the module docstring)."""

        def __init__(self, game: Any):
            super().__init__(game)
            self.table = Table(game.kit)

        def current_player(self) -> int:
            table = self.table
            if table.done:
                return int(pyspiel.PlayerId.TERMINAL)
            return int(pyspiel.PlayerId.CHANCE) if table.pending is not None else table.engine.current_player

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return self.table.chance_outcomes()

        def _legal_actions(self, player: int) -> list[int]:
            return self.table.engine.legal_actions()

        def _apply_action(self, action: int) -> None:
            table = self.table
            if table.pending is not None:
                table.choose(action)
                return
            engine = table.engine
            if not 0 <= action < len(engine.ACTIONS) or not engine.legal_mask()[action]:
                raise ValueError(f"action {action} is not legal now; legal: {engine.legal_actions()}")
            table.apply(action)

        def _action_to_string(self, player: int, action: int) -> str:
            kit = self.table.kit
            if player == pyspiel.PlayerId.CHANCE:
                return self.table.chance_label(action)
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
            if not table.set_up:
                return "setting up: " + _drawn_text(table)
            return table.engine.render() + ("" if table.pending is None else "\nchance: " + _drawn_text(table))

        def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
            """A state ``player_id`` cannot tell from this one, drawn from what it knows (OpenSpiel's ISMCTS).

            The others' hidden cards are redrawn (the engine's ``resample_hidden``) and every later
            deal and roll comes from a fresh chance source, both seeded by ``probability_sampler()``
            (a float in [0, 1)). Sampled chance only.
            """
            seed = int(probability_sampler() * 2**53)
            twin = self.clone()
            twin.table = self.table.resampled(player_id, seed)
            return twin

        def serialize(self) -> str:
            """The game as JSON: its seed and moves (`PirateGame.deserialize_state` replays it)."""
            table = self.table
            if table.redrawn:
                raise ValueError(
                    "this state draws chance of its own (a clone under clone_chance='fresh' or a resampled "
                    "world): its seed and moves do not replay it"
                )
            seed = None if table.kit.explicit is not None else table.game_seed  # explicit: the draws are moves
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
                max_chance_outcomes=0 if explicit is None else explicit.max_chance_outcomes,
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
            explicit = self.kit.explicit
            return 0 if explicit is None else explicit.max_chance_nodes

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


def _view_fields(view: Any) -> list[tuple[str, Any]] | None:
    """``(name, value)`` of every field of a named-tuple or dataclass view (``None`` for other views)."""
    if hasattr(view, "_fields"):
        return list(zip(view._fields, view))
    if dataclasses.is_dataclass(view):
        return [(f.name, getattr(view, f.name)) for f in dataclasses.fields(view)]
    return None


def _field_text(value: Any) -> str:
    """A view field as text: an array as its non-zero entries (``{index: value}``), anything else by ``repr``."""
    if isinstance(value, np.ndarray):
        flat = value.ravel()
        return repr({int(i): flat[i].item() for i in np.flatnonzero(flat)}) + repr(value.shape)
    return repr(value)


def _same_field(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    return type(a) is type(b) and a == b


def view_text(view: Any, previous: Any = None) -> str:
    """A view as one line: the step of a seat's history.

    The fields that differ from the ``previous`` view of the seat (all of them without one), by
    name, arrays by their non-zero entries. Read in order from the first, the lines give back
    every view, so a history of them is as lossless as the views' fields print (numbers,
    tuples, arrays); it is much shorter and cheaper than the screens. Views that are neither
    named tuples nor dataclasses print whole, by ``repr``.
    """
    fields = _view_fields(view)
    if fields is None:
        return repr(view)
    before = _view_fields(previous) if previous is not None else None
    if before is not None:
        fields = [(name, value) for (name, value), (_, old) in zip(fields, before) if not _same_field(value, old)]
    return " ".join(f"{name}={_field_text(value)}" for name, value in fields)


#: The screen of a seat while the reset is still drawing (explicit chance).
SETTING_UP = "player_{player}: the game is being set up"


def _drawn_text(table: Table) -> str:
    """The pending step's outcomes so far (its draws resolved and a permutation's values chosen)."""
    pending = table.pending
    if pending is None:
        return ""
    return f"{pending.draw.kind} {pending.resolved} {pending.chosen}"


def _parse_serialized(env_id: str, text: str, explicit: bool = False) -> tuple[int | None, list[int]]:
    """``(seed, moves)`` of a serialized state of ``env_id``, checked (one-line ``ValueError``).

    Under explicit chance the seed is ``null`` (the chance outcomes are among the moves).
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
    spec: GameSpec = registry.game_spec(env_id)
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
    registry.game_spec(env_id)  # TypeError/ValueError naming the valid ids
    register()
    return pyspiel_module().load_game(SHORT_NAMES[env_id], params)


def game_parameters(env_id: str, config: Any) -> dict[str, Any]:
    """The OpenSpiel parameters of an engine ``config`` of ``env_id``: ``players`` and every user option."""
    params: dict[str, Any] = {"players": int(config.num_players)}
    for option in registry.game_spec(env_id).options:
        value = getattr(config, option.name)
        params[option.name] = _int_list_text(value) if option.kind == "int_list" else int(value)
    return params


def state_from_engine(game: Any, engine: Engine) -> Any:
    """A state of ``game`` (sampled chance) that plays on from ``engine``, which it then owns.

    For an agent searching from the position of a game it plays: the caller redraws what its seat
    cannot see first. The state's moves do not replay it (``serialize`` refuses). Raises a one-line
    ``ValueError`` for an engine of another game or config, or a game under explicit chance.
    """
    kit = game.kit
    if kit.explicit is not None:
        raise ValueError("state_from_engine needs chance='sampled'; explicit chance starts from its chance nodes")
    if type(engine) is not kit.engine_cls or engine.config != kit.settings.config:
        raise ValueError(f"an engine of {type(engine).__name__} is not of the game {game} (another game or config)")
    state = game.new_initial_state()
    state.table._engine, state.table.redrawn = engine, True
    return state


#: Small variants whose exact solution (CFR, ``exploitability.nash_conv``) is practical: variant
#: name -> (env id, OpenSpiel parameters, ``chance="explicit"`` among them). Each game adds its own.
SMALL_VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    # two players, one card each from the full 66-card deck (57 x 57 deals by card kind)
    "skull_king_one_card": ("skull_king_v0", {"players": 2, "num_hands": 1, "chance": "explicit"}),
    # two players, one card each from a ten-card deck: yellow and black (trump) 1..3, one Escape,
    # Pirate, Mermaid and Skull King (no Scary Mary)
    "skull_king_small": (
        "skull_king_v0",
        {"players": 2, "num_hands": 1, "suits": "0,3", "ranks": 3, "specials": "1,1,1,1,0", "chance": "explicit"},
    ),
    # two players, two hands from a four-card deck: black 1 and 2, one Escape, the Skull King (hand 2
    # deals the whole deck); the hand-2 bids depend on hand 1, so the information state needs its history
    "skull_king_two_hands": (
        "skull_king_v0",
        {"players": 2, "num_hands": 2, "suits": "3", "ranks": 2, "specials": "1,0,0,1,0", "chance": "explicit"},
    ),
    # two players, one turn each: two dice, a Gold card, one re-roll at most; the higher score wins
    "piraten_kapern_two_dice": (
        "piraten_kapern_v0",
        {
            "players": 2,
            "num_dice": 2,
            "fortune_deck": "0,0,0,1,0,0,0,0,0,0,0",
            "max_rolls": 2,
            "target_score": 100,
            "max_turns": 2,
            "chance": "explicit",
        },
    ),
    # three players, one poker card each from a 5 of each colour, one loot card (+6 / -3) per colour: one game
    # of three rounds; an all-tied round ends it truncated (max_games=1)
    "piratenpoker_small": (
        "piratenpoker_v0",
        {
            "players": 3,
            "poker_copies": "0,0,0,0,1,0,0,0",
            "hand_size": 1,
            "loot_fronts": "6",
            "max_games": 1,
            "chance": "explicit",
        },
    ),
    # two players, 1 1 1 2 2 2 and three Captains: three hands of a down, an up and a hand card, one put aside
    "lucky_pirate_small": (
        "lucky_pirate_v0",
        {
            "players": 2,
            "ranks": 2,
            "copies": 3,
            "specials": 1,
            "up_down_cards": 1,
            "max_turns": 12,
            "chance": "explicit",
        },
    ),
}


def load_variant(name: str, **overrides: Any) -> Any:
    """The ``pyspiel.Game`` of small variant ``name`` (`SMALL_VARIANTS`), ``overrides`` replacing its parameters."""
    if name not in SMALL_VARIANTS:
        raise ValueError(f"unknown small variant {name!r}; known: {sorted(SMALL_VARIANTS)}")
    env_id, params = SMALL_VARIANTS[name]
    return load_game(env_id, **{**params, **overrides})


__all__ = [
    "CHANCE_MODES",
    "MISSING_EXTRA",
    "RETURNS",
    "SHORT_NAMES",
    "SMALL_VARIANTS",
    "Draw",
    "ExplicitChance",
    "ExplicitRules",
    "OpenSpielFacts",
    "Settings",
    "explicit_chance_games",
    "game_facts",
    "game_parameters",
    "hand_outcomes",
    "load_game",
    "load_variant",
    "parameter_defaults",
    "pyspiel_module",
    "register",
    "settings",
    "state_from_engine",
]
