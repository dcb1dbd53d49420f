"""Test harnesses for every env id: `check_env` for the AEC env, `check_lockstep` for the batched engine.

The project's own tests run every registered game through these two calls, and a new game is
checked the same way once its id is registered (see ``docs/ADDING_A_GAME.md``):

```py
from pirate_envs.testing import check_env, check_lockstep

check_env("skull_king_v0", games=100)  # every check, every table size
check_env("skull_king_v0", num_players=4, checks=["information_set"], games=20, num_hands=3)
check_lockstep("skull_king_v0", num_envs=16, games=40, num_players=4)  # needs the "fast" extra
```

Both raise `AssertionError` naming the check that failed, the env id, the seed and where it
failed (the game, its reset seed and the decision; for the batched engine the row and the batch
step). The budgets are games and steps, never time. This module imports only ``pirate_envs``,
numpy, gymnasium and pettingzoo (no pytest): it ships with the package. How random play draws
and what each check of `check_env` (`ENV_CHECKS`) asserts: ``docs/api/pirate_envs.md``.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import pickle
import random
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pirate_envs import registry
from pirate_envs.core.actions import RandomSource, action_blocks, sample_legal
from pirate_envs.core.chance import Chance
from pirate_envs.core.errors import IllegalActionError
from pirate_envs.core.render import WIDTH, check_pillow
from pirate_envs.core.rewards import SCORE_CHANGE_MODES, score_margins

ENV_CHECKS: tuple[str, ...] = (
    "api",
    "seed",
    "random_play",
    "observations",
    "score_rewards",
    "conservation",
    "illegal_action",
    "information_set",
    "copies",
    "render",
    "pettingzoo_render",
    "state",
    "action_labels",
)
#: Relative and absolute tolerance of `check_lockstep`'s margin-mode rewards (float32 in the batch).
MARGIN_RTOL = 1e-6
#: Cycles of PettingZoo's ``api_test`` and ``seed_test``.
API_CYCLES = 300
#: Largest share of random games that may truncate where an engine says ``CAN_CYCLE``.
MAX_CYCLING_SHARE = 0.10
#: Random games per game of the ``games`` budget for the costlier checks (score rewards,
#: observations, information sets, conservation): ``games // 50``, at least one.
COSTLY_CHECK_SHARE = 50
#: Information-set check: decisions between two checks, other histories and resamples per check.
INFO_SET_EVERY, INFO_SET_ALTERNATIVES, INFO_SET_RESAMPLES = 7, 4, 4
INFO_SET_MAX_ALTERNATIVE_STEPS = 200
#: Least share of checked positions at which some resample changes the engine (measured: 0.89 to 1).
MIN_REDRAWN_SHARE = 0.5


# ----------------------------------------------------------------------------- where a check fails
@dataclass
class _Where:
    """Where a check is: updated as it plays, named in its failure."""

    harness: str
    env_id: str
    seed: int
    details: dict[str, Any] = field(default_factory=dict)

    def describe(self, check: str) -> str:
        place = "".join(f", {key} {value}" for key, value in self.details.items() if value is not None)
        return f"{self.harness} check {check!r} failed for {self.env_id} (seed {self.seed}{place})"


@contextmanager
def _checking(check: str, where: _Where) -> Iterator[None]:
    """Re-raise any failure inside as one ``AssertionError`` naming ``check`` and ``where``."""
    try:
        yield
    except AssertionError as error:
        raise AssertionError(f"{where.describe(check)}: {error}") from error
    except Exception as error:  # an env that raises fails the check it was playing for
        raise AssertionError(f"{where.describe(check)}: {type(error).__name__}: {error}") from error


@contextmanager
def _quiet_env_logger() -> Iterator[None]:
    """PettingZoo's env logger prints nothing inside (its illegal-move warnings of unmasked random play)."""
    from pettingzoo.utils.env_logger import EnvLogger

    before = EnvLogger._output
    EnvLogger.suppress_output()
    try:
        yield
    finally:
        EnvLogger._output = before


# ----------------------------------------------------------------------------- random play
def play_random_game(
    env: Any, rng: RandomSource, check: Callable[[Any], None] | None = None, max_steps: int | None = None
) -> dict[str, float]:
    """Play ``env`` (reset already) to its end with random legal actions (block first); the summed rewards.

    ``check(env)`` is called before every decision. ``AssertionError`` if the game has not ended
    after ``max_steps`` decisions (``None``: no limit).
    """
    totals = {agent: 0.0 for agent in env.possible_agents}
    blocks = action_blocks(env)
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if max_steps is not None and decisions >= max_steps:
            raise AssertionError(f"the game has not ended after {max_steps} decisions (a turn guard missing?)")
        if check is not None:
            check(env)
        env.step(sample_legal(obs["action_mask"], rng, blocks))
        decisions += 1
    return totals


def _player_counts(env_id: str, env_kwargs: dict[str, Any]) -> list[int]:
    """The player counts of ``env_id``'s spec that the options ``env_kwargs`` allow (a chosen deck or
    ``first_dealer`` may rule some out; checked by the config)."""
    declared = registry.player_counts(env_id)
    counts = [n for n in declared if not env_kwargs or _accepts(env_id, n, env_kwargs)]
    if not counts:
        raise ValueError(f"{env_id} accepts none of its player counts {list(declared)} with the options {env_kwargs}")
    return counts


def _accepts(env_id: str, num_players: int, env_kwargs: dict[str, Any]) -> bool:
    """Whether ``env_id`` builds with ``num_players`` and ``env_kwargs``."""
    try:
        registry.make(env_id, raw=True, num_players=num_players, **env_kwargs)
    except ValueError:
        return False
    return True


def pettingzoo_api_test(env: Any, num_cycles: int = API_CYCLES) -> None:
    """PettingZoo's ``api_test`` on ``env``, unmodified, its warnings silenced.

    Its first reset passes the probe option ``{"options": 1}``, which the envs accept as no option
    (`pirate_envs.core.engine.check_options`).
    """
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=num_cycles)


def check_state_once(env: Any, seed: int, max_steps: int) -> int:
    """Play one seeded random game of ``env`` (wrapped or raw) twice, checking ``state()``; the states checked.

    At every step (after the reset and the end too) the state is a ``float32`` vector inside
    ``state_space``, finite, laid out by ``state_layout`` (every seat's observation, seat 0 first,
    then ``on_turn``: a 1 at the seat on turn, none at the end); the second play (the same reset
    seed and actions) gives the same states.
    """
    raw = env.unwrapped
    layout, space = raw.state_layout, env.state_space
    on_turn = layout.piece("on_turn")
    size = raw.observation_layout.size
    runs: list[list[np.ndarray]] = []

    def check(env: Any) -> None:
        state = env.state()
        assert isinstance(state, np.ndarray) and state.dtype == np.float32, f"state() is {state!r:.80}"
        assert state.shape == space.shape == (layout.size,), (
            f"state() has shape {state.shape}; state_space {space.shape}, state_layout {layout.size}"
        )
        assert np.isfinite(state).all() and space.contains(state), "state() is outside state_space"
        for seat, agent in enumerate(env.possible_agents):
            assert np.array_equal(state[seat * size : (seat + 1) * size], env.observe(agent)["observation"]), (
                f"state() does not hold {agent}'s observation at its rows"
            )
        turn = state[on_turn.start : on_turn.stop]
        expected = np.zeros(on_turn.size, dtype=np.float32)
        if env.agents and not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            expected[env.possible_agents.index(env.agent_selection)] = 1.0
        assert np.array_equal(turn, expected), f"on_turn is {turn.tolist()}, expected {expected.tolist()}"
        runs[-1].append(state)

    for _ in range(2):
        runs.append([])
        env.reset(seed=seed)
        play_random_game(env, random.Random(seed), check, max_steps)
        check(env)
    assert len(runs[0]) == len(runs[1]), "the same seed and actions played games of different lengths"
    for step, (first, second) in enumerate(zip(*runs)):
        assert np.array_equal(first, second), f"the same seed gave another state at step {step}"
    return len(runs[0])


# ----------------------------------------------------------------------------- check_env
@dataclass
class EnvReport:
    """What `check_env` went through: the checks run and skipped (with why), and what random play met."""

    env_id: str
    player_counts: list[int]
    checked: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    random_games: int = 0
    truncated_games: int = 0
    info_set_positions: int = 0


def check_env(
    env_id: str,
    num_players: int | None = None,
    games: int = 100,
    seed: int = 0,
    *,
    checks: Sequence[str] | None = None,
    max_steps: int = 100_000,
    **env_kwargs: Any,
) -> EnvReport:
    """Run the checks every env must pass on ``env_id`` (see the module docstring); ``AssertionError`` on a failure.

    ``num_players``: one table size, or ``None`` for every size the env accepts (the API and copy
    checks at the smallest and the largest). ``games``: random games of ``random_play``; the
    costlier game-playing checks play ``games // 50`` (at least one). ``seed``: every game's
    reset seed and every random choice derive from it. ``checks``: the names (of `ENV_CHECKS`)
    to run, ``None`` for all. ``max_steps``: decisions after which a random game that has not
    ended fails. ``env_kwargs`` are the env's own options (``reward_mode`` is set where a check
    needs one). Returns an `EnvReport`.
    """
    registry.env_module(env_id)  # names the valid ids
    chosen = list(ENV_CHECKS if checks is None else checks)
    unknown = [name for name in chosen if name not in ENV_CHECKS]
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; valid checks: {list(ENV_CHECKS)}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games={games!r} must be a positive integer")
    counts = [num_players] if num_players is not None else _player_counts(env_id, env_kwargs)
    report = EnvReport(env_id, counts)
    where = _Where("check_env", env_id, seed)
    context = _EnvCheck(env_id, counts, games, seed, max_steps, env_kwargs, where, report)
    for name in chosen:
        where.details = {}
        with _checking(name, where):
            reason = getattr(context, f"check_{name}")()
        if reason:
            report.skipped[name] = reason
        else:
            report.checked.append(name)
    return report


@dataclass
class _EnvCheck:
    """The checks of `check_env`, one ``check_<name>`` method each (returning why it was skipped, or ``None``)."""

    env_id: str
    counts: list[int]
    games: int
    seed: int
    max_steps: int
    env_kwargs: dict[str, Any]
    where: _Where
    report: EnvReport

    @property
    def ends(self) -> list[int]:
        """The smallest and the largest table size."""
        return sorted({self.counts[0], self.counts[-1]})

    @property
    def costly_games(self) -> int:
        return max(1, self.games // COSTLY_CHECK_SHARE)

    def make(self, n: int, raw: bool = True, **overrides: Any) -> Any:
        return registry.make(self.env_id, raw=raw, **{**self.env_kwargs, "num_players": n, **overrides})

    def random_games(self, games: int, **overrides: Any) -> Iterator[tuple[int, Any]]:
        """``games`` reset envs, spread over the table sizes (game ``g`` reset with ``seed + g``)."""
        for game in range(games):
            n = self.counts[game % len(self.counts)]
            env = self.make(n, **overrides)
            self.where.details = {"num_players": n, "game": game, "reset seed": self.seed + game}
            env.reset(seed=self.seed + game)
            yield game, env

    def play(self, env: Any, rng: RandomSource, check: Callable[[Any], None] | None = None) -> dict[str, float]:
        """`play_random_game`, numbering the decisions in the failure message."""
        self.where.details["step"] = 0

        def counted(env: Any) -> None:
            if check is not None:
                check(env)
            self.where.details["step"] += 1

        totals = play_random_game(env, rng, counted, self.max_steps)
        self.where.details["step"] = "end"
        return totals

    # ------------------------------------------------------------------ the checks
    def check_api(self) -> None:
        for n in self.counts:
            self.where.details = {"num_players": n}
            pettingzoo_api_test(self.make(n, raw=False), num_cycles=API_CYCLES)

    def check_seed(self) -> None:
        from pettingzoo.test import seed_test

        for n in self.counts:
            self.where.details = {"num_players": n}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                seed_test(lambda n=n: self.make(n, raw=False), num_cycles=API_CYCLES)

    def check_random_play(self) -> None:
        rng = np.random.default_rng(self.seed)
        truncated = 0

        def masks(env: Any) -> None:
            agent = env.agent_selection
            assert env.observe(agent)["action_mask"].any(), f"empty mask for {agent} on turn"
            for other in env.agents:
                assert other == agent or not env.observe(other)["action_mask"].any(), (
                    f"{other} has legal actions while {agent} is on turn"
                )

        for _game, env in self.random_games(self.games):
            totals = self.play(env, rng, masks)
            game = env.game
            assert game.done, "the env ended the game but its engine is not done"
            guard = getattr(game, "guard", None)
            if guard is not None:
                assert guard.turns <= guard.limit, f"the game went on past its guard ({guard.turns} > {guard.limit})"
            if game.truncated:
                assert game.CAN_CYCLE, "the game was truncated (it hit its guard) but its engine says CAN_CYCLE = False"
                assert (guard is not None and guard.reached) or game.truncation_reason, (
                    "truncated before the guard without a truncation_reason"
                )
                assert all(total == 0 for total in totals.values()), f"a truncated game paid rewards: {totals}"
                truncated += 1
                continue
            if env.reward_mode != "win":
                continue
            assert abs(sum(totals.values())) <= 1e-9, f"win-mode rewards do not sum to zero: {totals}"
            winners = game.winners()
            assert winners, "a game ended by its rules has no winner"
            if len(winners) < len(env.possible_agents):
                losing = [w for w in winners if totals[env.possible_agents[w]] <= 0]
                assert not losing, f"winners {losing} were not paid: {totals}"
        self.where.details = {}
        self.report.random_games, self.report.truncated_games = self.games, truncated
        assert truncated <= MAX_CYCLING_SHARE * self.games, (
            f"{truncated} of {self.games} random games were truncated (at most {MAX_CYCLING_SHARE:.0%} may be)"
        )

    def check_observations(self) -> None:
        rng = np.random.default_rng(self.seed)

        def fits(env: Any) -> None:
            for agent in env.agents:
                obs = env.observe(agent)
                vector, mask = obs["observation"], obs["action_mask"]
                assert vector.dtype == np.float32, f"{agent}'s observation is {vector.dtype}, not float32"
                assert vector.shape == (env.observation_layout.size,), (
                    f"{agent}'s observation has shape {vector.shape}; its layout's size: {env.observation_layout.size}"
                )
                assert np.isfinite(vector).all(), f"{agent}'s observation has non-finite values"
                assert mask.dtype == np.int8, f"{agent}'s action mask is {mask.dtype}, not int8"
                assert not mask.flags.writeable, f"{agent}'s action mask can be written to (it is the engine's)"
                assert env.observation_space(agent).contains(obs), f"{agent}'s observation is outside its space"

        for _game, env in self.random_games(self.costly_games):
            self.play(env, rng, fits)

    def check_score_rewards(self) -> None:
        """Score-mode rewards sum to each scaled score; margin-mode rewards to each scaled lead over the
        others' mean score (`core.rewards.score_margins` of the scores), and to zero over the seats."""
        for mode in SCORE_CHANGE_MODES:
            for game, env in self.random_games(self.costly_games, reward_mode=mode):
                totals = self.play(env, np.random.default_rng(self.seed + game))
                expected = env.game.scores() * env.SCORE_SCALE
                if mode == "margin":
                    expected = score_margins(expected)
                    assert abs(sum(totals.values())) <= 1e-6 * max(1.0, *np.abs(expected)), (
                        f"margin-mode rewards do not sum to zero: {totals}"
                    )
                what = "lead over the others' mean score" if mode == "margin" else "score"
                for seat, agent in enumerate(env.possible_agents):
                    assert abs(totals[agent] - expected[seat]) <= 1e-6 * max(1.0, abs(expected[seat])), (
                        f"{agent}'s {mode}-mode rewards sum to {totals[agent]}, its scaled {what} is {expected[seat]}"
                    )

    def check_conservation(self) -> str | None:
        lacks = registry.game_spec(self.env_id).lacks("invariants")
        if lacks:
            return lacks
        assert hasattr(self.make(self.counts[0]).game, "check_invariants"), (
            "the spec declares invariants but the engine defines no check_invariants()"
        )
        rng = np.random.default_rng(self.seed)
        for _game, env in self.random_games(self.costly_games):
            self.play(env, rng, lambda env: env.game.check_invariants())
            env.game.check_invariants()
        return None

    def check_illegal_action(self) -> str | None:
        n = self.counts[0]
        self.where.details = {"num_players": n}
        raw = self.make(n)
        raw.reset(seed=self.seed)
        illegal = np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)
        if illegal.size == 0:
            return "every action is legal at the start"
        action = int(illegal[0])
        try:
            raw.step(action)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"the raw env accepted the illegal action {action}")
        wrapped = self.make(n, raw=False)
        wrapped.reset(seed=self.seed)
        agent = wrapped.agent_selection
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wrapped.step(action)
        assert wrapped.terminations[agent] and wrapped.rewards[agent] == -1, (
            f"the wrapped env did not end the game with -1 for {agent} after the illegal action {action}"
        )
        return None

    def check_information_set(self) -> None:
        self.report.info_set_positions = _check_information_sets(self, self.costly_games)

    def check_copies(self) -> None:
        for n in self.ends:
            for raw in (False, True):
                for method, copier in COPIERS.items():
                    self.where.details = {"num_players": n, "env": "raw" if raw else "wrapped", "copy": method}
                    _check_copies(self, n, raw, copier)

    def check_render(self) -> None:
        rng = np.random.default_rng(self.seed)

        def fits(env: Any) -> None:
            texts = {"render()": env.render(), **{f"{a}'s seat_text": env.seat_text(a) for a in env.possible_agents}}
            for what, text in texts.items():
                assert isinstance(text, str), f"{what} is {type(text).__name__}, not str"
                too_wide = [line for line in text.splitlines() if len(line) > WIDTH]
                assert not too_wide, f"{what} has a line of {len(too_wide[0])} columns: {too_wide[0]!r}"

        for _game, env in self.random_games(len(self.counts), render_mode="ansi"):  # one game per table size
            first = env.render()
            assert isinstance(first, str) and "player_0" in first, "render() does not name player_0"
            self.play(env, rng, fits)
            fits(env)

    def check_pettingzoo_render(self) -> str | None:
        from pettingzoo.test import render_test

        try:
            check_pillow()
        except ImportError as error:
            return str(error)
        for n in self.counts:
            self.where.details = {"num_players": n}
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):  # "human" prints
                warnings.simplefilter("ignore")
                render_test(lambda render_mode=None, n=n: self.make(n, raw=False, render_mode=render_mode))
        return None

    def check_state(self) -> None:
        from pettingzoo.test.state_test import test_state, test_state_space

        for n in self.counts:
            self.where.details = {"num_players": n, "reset seed": self.seed}
            try:
                self.make(n).state()
            except RuntimeError:
                pass
            else:
                raise AssertionError("the raw env's state() before reset() did not raise RuntimeError")
            env = self.make(n, raw=False)
            with warnings.catch_warnings(), _quiet_env_logger():
                warnings.simplefilter("ignore")  # PettingZoo warns of infinite bounds and illegal moves
                test_state_space(env)
                test_state(env, num_cycles=API_CYCLES, seed=self.seed)
                check_state_once(self.make(n, raw=False), self.seed, self.max_steps)

    def check_action_labels(self) -> None:
        env = self.make(self.counts[0])
        labels = [env.action_to_string(action) for action in range(env.num_actions)]
        assert all(isinstance(label, str) and label for label in labels), "an action has an empty label"
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        assert not repeated, f"labels shared by several actions: {repeated[:5]}"


# ----------------------------------------------------------------------------- information sets
def _other_seat_features(game: Any, truth: Any, seat: int, encode: Any) -> set[tuple[int, str, str]]:
    """What differs between engines ``game`` and ``truth`` in the observations of the seats other than ``seat``.

    One feature per other seat (relative to ``seat``) and piece of the observation layout:
    ``"values"`` when any value of the piece differs, ``"total"`` when its sum differs (a count
    of cards, say, that card-by-card differences would not show apart).
    """
    n = game.num_players
    features = set()
    for other in range(n):
        if other == seat:
            continue
        mine, true = encode(game.view(other)), encode(truth.view(other))
        for piece in encode.layout.pieces:
            a, b = mine[piece.start : piece.stop], true[piece.start : piece.stop]
            if not np.array_equal(a, b):
                features.add(((other - seat) % n, piece.name, "values"))
                if not np.isclose(a.sum(), b.sum()):
                    features.add(((other - seat) % n, piece.name, "total"))
    return features


def _alternative_histories(anchor: Any, position: Any, seat: int, encode: Any, blocks: Any, rng: RandomSource):
    """Other engine states that ``seat`` cannot tell from ``position``: other moves played from ``anchor``.

    ``anchor`` is the earliest state since which ``seat``'s observation has not changed: the
    moves made since are hidden from him (simultaneous bids, say). From a copy of it, random
    legal moves are played until ``seat`` is on turn again; the result is kept if his
    observation, mask and View are those of ``position``.
    """
    target_view = position.view(seat)
    target = encode(target_view)
    for _ in range(INFO_SET_ALTERNATIVES):
        alt = copy.deepcopy(anchor)
        for _step in range(INFO_SET_MAX_ALTERNATIVE_STEPS):
            if alt.done or alt.current_player == seat:
                break
            alt.apply(sample_legal(alt.legal_mask(), rng, blocks))
        if alt.done or alt.current_player != seat:
            continue
        view = alt.view(seat)
        if (
            np.array_equal(encode(view), target)
            and np.array_equal(alt.legal_mask(), position.legal_mask())
            and view == target_view
        ):
            yield alt


def _public_state(value: object) -> object:
    """A comparable copy of an engine's public attributes (recursively; caches and chance sources left out)."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_public_state(item) for item in value)
    if isinstance(value, dict):
        return tuple((key, _public_state(item)) for key, item in value.items())
    if isinstance(value, (np.random.Generator, Chance)) or callable(value):
        return None
    if hasattr(value, "__dict__"):
        attributes = {name: item for name, item in vars(value).items() if not name.startswith("_")}
        return (type(value).__name__, _public_state(attributes))
    return value


def _replay(env: Any, seed: int, actions: list[int]) -> Any:
    """A fresh engine of ``env``'s game after ``reset(seed=seed)`` and ``actions``, as the env plays them."""
    game = type(env.game)(env.config)
    game.reset(np.random.default_rng(seed))
    for action in actions:
        game.apply(action)
    return game


def _check_information_sets(check: _EnvCheck, games: int) -> int:
    """Resampling what a player cannot see keeps his observation and varies what he cannot see; the positions checked.

    Invariance: after ``resample_hidden(seat)`` every observer's observation, mask and View are
    unchanged. Variation, for the player on turn:

    * hidden choices: where other moves since his observation last changed (simultaneous bids
      of other seats) lead to the same observation, every piece of another seat's observation
      that such an alternative history changes must be changed by some resample too (over all
      the games): a resampler that keeps another seat's hidden choice (a bid, a Pass, how many
      cards) fails here;
    * unseen cards and dice: at most positions some resample changes the engine's public
      attributes (other hands, deck order): a resampler that redraws nothing fails here.
    """
    rng = np.random.default_rng(check.seed)
    moves = random.Random(check.seed)
    varied_by_alternatives: set = set()
    varied_by_resamples: set = set()
    positions = redrawn = 0  # checked positions; those where a resample changed the state
    for game_index, env in check.random_games(games):
        seed = check.seed + game_index
        encode = env.make_encoder()
        blocks = action_blocks(env)
        actions: list[int] = []
        anchors: dict[str, tuple[np.ndarray, int]] = {}  # agent -> (observation, first step showing it)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            check.where.details["step"] = len(actions)
            for agent in env.possible_agents:
                vector = env.observe(agent)["observation"]
                if agent not in anchors or not np.array_equal(anchors[agent][0], vector):
                    anchors[agent] = (vector, len(actions))
            if len(actions) % INFO_SET_EVERY == 0:
                for observer in env.possible_agents:
                    seat = env.seat_of(observer)
                    before = env.observe(observer)
                    twin = copy.deepcopy(env)
                    twin.game.resample_hidden(seat, np.random.default_rng(rng.integers(1 << 30)))
                    twin._obs_cache.clear()
                    after = twin.observe(observer)
                    for key in ("observation", "action_mask"):
                        differ = np.flatnonzero(before[key] != after[key]).tolist()
                        assert not differ, (
                            f"resample_hidden({seat}) changed {observer}'s {key} at indices {differ[:10]}: "
                            "it shows something the seat cannot see"
                        )
                    assert twin.game.view(seat) == env.game.view(seat), (
                        f"resample_hidden({seat}) changed {observer}'s View"
                    )
                seat = env.game.current_player
                truth = _public_state(env.game)
                changed = False
                for _ in range(INFO_SET_RESAMPLES):
                    twin = copy.deepcopy(env.game)
                    twin.resample_hidden(seat, np.random.default_rng(rng.integers(1 << 30)))
                    varied_by_resamples |= _other_seat_features(twin, env.game, seat, encode)
                    changed = changed or _public_state(twin) != truth
                positions += 1
                redrawn += changed
                vector, since = anchors[env.agent_selection]
                if since < len(actions):  # hidden moves since his observation last changed
                    anchor = _replay(env, seed, actions[:since])
                    assert np.array_equal(encode(anchor.view(seat)), vector), (
                        "replaying the game's moves from its reset seed does not reach the same observation"
                    )
                    for alt in _alternative_histories(anchor, env.game, seat, encode, blocks, moves):
                        varied_by_alternatives |= _other_seat_features(alt, env.game, seat, encode)
            action = sample_legal(obs["action_mask"], rng, blocks)
            actions.append(action)
            env.step(action)
    check.where.details = {}
    if registry.game_spec(check.env_id).information == "perfect":
        assert redrawn == 0, (
            f"the spec declares perfect information, but resample_hidden changed the engine's state at "
            f"{redrawn} of {positions} positions"
        )
    else:
        assert redrawn >= MIN_REDRAWN_SHARE * positions, (
            f"resample_hidden changed the engine's state at only {redrawn} of {positions} positions"
        )
    never_resampled = sorted(varied_by_alternatives - varied_by_resamples)
    assert not never_resampled, (
        f"other histories the player cannot tell apart change these (relative seat, piece, what) "
        f"of the other seats' observations, but resample_hidden never does: {never_resampled}"
    )
    return positions


# ----------------------------------------------------------------------------- copies
#: How a copy is taken: by pickling or by deep copy.
COPIERS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
}
_RESET = "reset"  # a step of a script that resets the env (no seed: the env's own stream goes on)
_STEPS_AFTER_RESET = 6  # decisions of the next game that a script plays after the reset


def snapshot(env: Any) -> dict[str, Any]:
    """Everything the agents can read from ``env`` now (arrays copied, so later steps cannot touch them)."""
    observations = {}
    for agent in env.agents:
        obs = env.observe(agent)
        observations[agent] = {key: np.array(value, copy=True) for key, value in obs.items()}
    return {
        "agents": list(env.agents),
        "agent_selection": env.agent_selection,
        "observations": observations,
        "rewards": dict(env.rewards),
        "cumulative_rewards": dict(env._cumulative_rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": copy.deepcopy(env.infos),
    }


def assert_same(actual: Any, expected: Any, where: str) -> None:
    """Exact equality of nested dicts, lists and arrays (dtype included), naming the first difference."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), f"{where}: keys differ"
        for key in expected:
            assert_same(actual[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), f"{where}: lengths differ"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{i}]")
    elif isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray) and actual.dtype == expected.dtype, f"{where}: dtype differs"
        differ = np.flatnonzero(actual.ravel() != expected.ravel()) if actual.shape == expected.shape else [0]
        assert len(differ) == 0, f"{where}: differs at index {list(differ[:5])}"
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def _choose(env: Any, rng: RandomSource) -> int | None:
    """A random legal action of the agent on turn (``None`` for an agent that is done)."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return None
    return sample_legal(env.observe(agent)["action_mask"], rng, action_blocks(env))


def _apply(env: Any, step: int | str | None) -> None:
    """Play one step of a script."""
    if step == _RESET:
        env.reset()
    else:
        env.step(step)


def _record(env: Any, rng: RandomSource, max_steps: int) -> tuple[list[Any], list[dict[str, Any]]]:
    """Play the game from ``env``'s state to its end, reset, and play a few steps of the next game.

    Returns the script (the steps) and the snapshot before the first and after every step.
    """
    script: list[Any] = []
    trace = [snapshot(env)]
    while env.agents:
        assert len(script) < max_steps, f"the game has not ended after {max_steps} steps"
        script.append(_choose(env, rng))
        env.step(script[-1])
        trace.append(snapshot(env))
    script.append(_RESET)
    env.reset()
    trace.append(snapshot(env))
    for _ in range(_STEPS_AFTER_RESET):
        if not env.agents:
            break
        script.append(_choose(env, rng))
        env.step(script[-1])
        trace.append(snapshot(env))
    return script, trace


def _checkpoints(script: list[Any]) -> dict[str, int]:
    """Where to copy: the start, the middle, before the last decision, and after the end of the first game."""
    end = script.index(_RESET)
    decisions = [i for i in range(end) if script[i] is not None]
    return {"start": 0, "middle": decisions[len(decisions) // 2], "last decision": decisions[-1], "end": end}


def _check_copies(check: _EnvCheck, n: int, raw: bool, copier: Callable[[Any], Any]) -> None:
    """Copies taken at four points of a seeded game play on by themselves exactly as the original does.

    The wrapped env plays with win rewards, the raw env with score rewards (a score changes every
    step or so). Each copy, given the same actions, plays exactly what the original plays; a
    stray copy playing other actions does not change what the original plays next.
    """
    seed = check.seed + 11 * n

    def make_seeded() -> Any:
        env = check.make(n, raw=raw, reward_mode="score" if raw else "win")
        env.reset(seed=seed)
        return env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's logger warns on steps of done agents
        script, trace = _record(make_seeded(), random.Random(seed), check.max_steps)
        for name, k in _checkpoints(script).items():
            check.where.details["copied at"] = name
            original = make_seeded()
            for step in script[:k]:
                _apply(original, step)
            assert_same(snapshot(original), trace[k], f"replay to the {name}")  # observes all: caches filled
            twin, stray = copier(original), copier(original)
            assert_same(snapshot(twin), trace[k], f"copy at the {name}")
            for agent in twin.agents:
                mask = twin.observe(agent)["action_mask"]
                assert not mask.flags.writeable, f"copy at the {name}: the mask of {agent} can be written to"
            # the stray copy plays other actions through the rest of the game and into the next
            stray_rng = random.Random(seed + 1)
            for _ in range(len(script) - k):
                _apply(stray, _choose(stray, stray_rng) if stray.agents else _RESET)
            # the original and its twin, stepped in turn with the same actions, both play the recorded future
            for i in range(k, len(script)):
                for who, env in (("original", original), ("copy", twin)):
                    _apply(env, script[i])
                    assert_same(snapshot(env), trace[i + 1], f"{who} copied at the {name} (step {i})")


# ----------------------------------------------------------------------------- check_lockstep
#: ``policy(venv, rng) -> actions``: one action per row of the batch.
Policy = Callable[[Any, np.random.Generator], np.ndarray]
#: ``on_step(venv, row, env, action)``: called for every row after each comparison, with the
#: reference env of the row and the action it played (``None`` where the row started a game).
OnStep = Callable[[Any, int, Any, "int | None"], None]
#: The share of batch steps after which a random row's rebuilt engine is checked too.
ENGINE_CHECK_SHARE = 0.05

LOCKSTEP_CHECKS: tuple[str, ...] = (
    "current_player",
    "observation",
    "action_mask",
    "rewards",
    "terminated",
    "truncated",
    "engine",
)


@dataclass
class LockstepReport:
    """What `check_lockstep` went through."""

    env_id: str
    batch_steps: int = 0
    steps: int = 0  # moves played in the reference envs
    games: int = 0  # games ended (terminated or truncated)
    terminated: int = 0
    truncated: int = 0
    engine_checks: int = 0


def block_first_actions(venv: Any, rng: np.random.Generator) -> np.ndarray:
    """One random legal action per row of ``venv``: a block with a legal action uniformly, then an action in it.

    Rows without a legal action (ended games) get ``0``.
    """
    from pirate_envs.vector import random_legal_actions

    mask = venv.action_mask
    blocks = action_blocks(venv)
    present = np.stack([mask[:, start:stop].any(axis=1) for start, stop in blocks], axis=1)
    pick = (rng.random(len(mask)) * present.sum(axis=1)).astype(np.int64)
    chosen = np.argmax(np.cumsum(present, axis=1) > pick[:, None], axis=1)
    in_block = np.zeros_like(mask)
    for index, (start, stop) in enumerate(blocks):
        rows = chosen == index
        in_block[rows, start:stop] = mask[rows, start:stop]
    return random_legal_actions(in_block, rng, ended=~mask.any(axis=1))


def _mismatch(what: str, batched: object, reference: object) -> str:
    return f"{what} differs\nbatched:   {batched}\nreference: {reference}"


def _compare_row(venv: Any, env: Any, i: int, where: _Where) -> None:
    """Row ``i`` of ``venv`` shows exactly what the AEC env ``env`` shows, each field its own check."""
    agent = env.agent_selection
    seat = env.possible_agents.index(agent)
    obs = env.observe(agent)
    rewards = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
    ends = {"terminated": all(env.terminations.values()), "truncated": all(env.truncations.values())}
    with _checking("current_player", where):
        assert venv.current_player[i] == seat, _mismatch("seat shown", venv.current_player[i], seat)
    with _checking("observation", where):
        differ = np.flatnonzero(venv.observation[i] != obs["observation"]).tolist()
        assert not differ, _mismatch(
            f"observation (indices {differ[:20]})", venv.observation[i][differ[:20]], obs["observation"][differ[:20]]
        )
    with _checking("action_mask", where):
        assert np.array_equal(venv.action_mask[i], obs["action_mask"]), _mismatch(
            "legal actions", np.flatnonzero(venv.action_mask[i]).tolist(), np.flatnonzero(obs["action_mask"]).tolist()
        )
    with _checking("rewards", where):
        if venv.reward_mode == "margin":  # float32 arithmetic in the batch, float64 in the env: a few ulps
            same = np.allclose(venv.rewards[i], rewards, rtol=MARGIN_RTOL, atol=MARGIN_RTOL)
        else:
            same = np.array_equal(venv.rewards[i], rewards)
        assert same, _mismatch("rewards", venv.rewards[i], rewards)
    for name, expected in ends.items():
        with _checking(name, where):
            actual = bool(getattr(venv, name)[i])
            assert actual == expected, _mismatch(name, actual, expected)


def _compare_engine(venv: Any, env: Any, i: int, where: _Where) -> None:
    """``venv.engine(i)`` holds the AEC env's game: every view, the scores, whose turn, the rendering."""
    with _checking("engine", where):
        rebuilt, game = venv.engine(i), env.game
        for seat in range(game.num_players):
            assert rebuilt.view(seat) == game.view(seat), f"the View of seat {seat} differs"
        if hasattr(game, "results"):
            assert rebuilt.results == game.results, "the results differ"
        assert rebuilt.scores().tolist() == game.scores().tolist(), _mismatch("scores", rebuilt.scores(), game.scores())
        state = (rebuilt.current_player, rebuilt.terminated, rebuilt.truncated)
        expected = (game.current_player, game.terminated, game.truncated)
        assert state == expected, _mismatch("(current_player, terminated, truncated)", state, expected)
        assert rebuilt.render() == game.render(), "render() differs"


def _start_row(venv: Any, env: Any, i: int) -> None:
    """Start the AEC env on row ``i``'s current game (its engine deals the same cards and dice)."""
    env.unwrapped.game = venv.reference_engine(i)
    env.reset(options=venv.reset_options(i))


def check_lockstep(
    env_id: str,
    num_envs: int = 16,
    steps: int | None = None,
    seed: int = 0,
    *,
    games: int | None = None,
    policy: Policy | None = None,
    on_step: OnStep | None = None,
    **env_kwargs: Any,
) -> LockstepReport:
    """Play the batched engine of ``env_id`` beside a reference AEC env per row; ``AssertionError`` if they differ.

    Row ``i``'s reference env runs ``venv.reference_engine(i)`` reset with ``venv.reset_options(i)``
    (the same cards and dice) and plays the row's actions. After every batch step each row's
    observation, action mask, current player, rewards, terminated and truncated must equal its
    reference env's (checks named as in `LOCKSTEP_CHECKS`; margin-mode rewards within `MARGIN_RTOL`, as
    the batch takes them in float32); ``venv.engine(i)`` must rebuild the reference engine (check
    ``engine``: row 0 at every end of a game, a random row now and then).

    Budget: at least ``steps`` batch steps and until at least ``games`` games have ended (``None``
    for either: no such bound; both ``None``: 200 batch steps). ``policy(venv, rng)`` chooses the
    actions (default: `block_first_actions`); ``on_step(venv, i, env, action)`` sees every row
    after each comparison (to count what the play went through). ``env_kwargs`` are the env's
    own options. Needs numba (the ``fast`` extra). Returns a `LockstepReport`.
    """
    if importlib.util.find_spec("numba") is None:
        raise ImportError('check_lockstep needs numba, the "fast" extra: pip install -e ".[fast]"')
    from pirate_envs import vector

    if steps is None and games is None:
        steps = 200
    policy = policy or block_first_actions
    venv = vector.make(env_id, num_envs, seed=seed, **env_kwargs)
    envs = [registry.make(env_id, raw=True, **env_kwargs) for _ in range(num_envs)]
    where = _Where("check_lockstep", env_id, seed)
    report = LockstepReport(env_id)

    def compare(i: int, env: Any, action: int | None) -> None:
        _compare_row(venv, env, i, where)
        if on_step is not None:
            on_step(venv, i, env, action)

    venv.reset()
    for i, env in enumerate(envs):
        _start_row(venv, env, i)
        where.details = {"row": i, "batch step": 0}
        compare(i, env, None)
    rng = np.random.default_rng(seed)
    while (steps is not None and report.batch_steps < steps) or (games is not None and report.games < games):
        ended = venv.terminated | venv.truncated
        actions = policy(venv, rng)
        venv.step(actions)
        report.batch_steps += 1
        for i, env in enumerate(envs):
            where.details = {"row": i, "batch step": report.batch_steps}
            if ended[i]:
                _start_row(venv, env, i)
                action = None
            else:
                action = int(actions[i])
                env.step(action)
                report.steps += 1
            compare(i, env, action)
        report.terminated += int(np.count_nonzero(venv.terminated))
        report.truncated += int(np.count_nonzero(venv.truncated))
        report.games = report.terminated + report.truncated
        if venv.terminated[0] or rng.random() < ENGINE_CHECK_SHARE:
            i = 0 if venv.terminated[0] else int(rng.integers(num_envs))
            where.details = {"row": i, "batch step": report.batch_steps}
            _compare_engine(venv, envs[i], i, where)
            report.engine_checks += 1
    return report


__all__ = [
    "ENV_CHECKS",
    "LOCKSTEP_CHECKS",
    "EnvReport",
    "LockstepReport",
    "action_blocks",
    "assert_same",
    "block_first_actions",
    "check_env",
    "check_lockstep",
    "check_state_once",
    "pettingzoo_api_test",
    "play_random_game",
    "sample_legal",
    "snapshot",
]
