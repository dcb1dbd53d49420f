"""Properties every registered environment must have (parametrized over ``ENV_IDS``)."""

from __future__ import annotations

import copy
import random
import re
import warnings

import numpy as np
import pytest
from pettingzoo.test import seed_test

import pirate_envs
from agents.base import action_blocks, sample_legal
from pirate_envs.core.errors import IllegalActionError
from tests.helpers import pettingzoo_api_test, play_random_game, supported_player_counts

RANDOM_GAMES = 1000  # per env id, spread over the supported player counts
MAX_CYCLING_SHARE = 0.10  # of random games that may hit the guard where Engine.CAN_CYCLE


def test_registry_lists_every_id():
    assert len(pirate_envs.ENV_IDS) == len(set(pirate_envs.ENV_IDS)) >= 1
    with pytest.raises(ValueError, match="valid ids"):
        pirate_envs.make("no_such_game_v0")


def test_bad_keyword_names_the_valid_ones(env_id):
    with pytest.raises(TypeError, match="num_players") as error:
        pirate_envs.make(env_id, no_such_option=1)
    for keyword in ("render_mode", "reward_mode", "table_layout"):  # the env's own keywords too
        assert repr(keyword) in str(error.value)
    with pytest.raises(ValueError, match="num_players"):
        pirate_envs.make(env_id, num_players=99)
    with pytest.raises(ValueError, match="reward_mode"):
        pirate_envs.make(env_id, reward_mode="money")


def test_unknown_reset_option_is_refused_naming_the_valid_ones(env_id):
    valid = list(pirate_envs.make(env_id, raw=True).game.RESET_OPTIONS)
    message = re.escape(f"unknown reset option(s) ['no_such_option']; valid options: {valid}")
    for raw in (True, False):
        env = pirate_envs.make(env_id, raw=raw)
        with pytest.raises(ValueError, match=message):
            env.reset(seed=0, options={"no_such_option": 1})
        env.reset(seed=0)
        before = env.observe(env.agent_selection)["observation"].copy()
        with pytest.raises(ValueError, match=message):  # refused before anything changes
            env.reset(seed=1, options={valid[0]: None, "no_such_option": 1})
        np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], before)
    with pytest.raises(ValueError, match=re.escape("unknown reset option(s) ['options', 3]")):
        pirate_envs.make(env_id, raw=True).reset(options={3: 1, "options": 1})  # PettingZoo api_test's dummy too


@pytest.mark.parametrize("which", ["min", "max"])
def test_pettingzoo_api(env_id, which):
    counts = supported_player_counts(env_id)
    n = counts[0] if which == "min" else counts[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pettingzoo_api_test(pirate_envs.make(env_id, num_players=n), num_cycles=300)


def test_pettingzoo_seed(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: pirate_envs.make(env_id), num_cycles=300)


def test_random_games_are_sound(env_id):
    """Random play: no error, a legal move always exists, zero-sum win rewards, no truncation.

    A game whose rules allow endless forced cycles (``Engine.CAN_CYCLE``) may reach its turn
    guard, or truncate earlier with a ``truncation_reason``, but only in a small share of games
    (the share its docstring reports).
    """
    rng = np.random.default_rng(0)
    counts = supported_player_counts(env_id)
    truncated = 0
    for game in range(RANDOM_GAMES):
        n = counts[game % len(counts)]
        env = pirate_envs.make(env_id, raw=True, num_players=n)
        env.reset(seed=game)

        def check(env):
            agent = env.agent_selection
            mask = env.observe(agent)["action_mask"]
            assert mask.any(), f"empty mask for {agent} on turn"
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()

        totals = play_random_game(env, rng, check)
        game_state = env.game
        assert game_state.done
        if game_state.truncated:
            assert game_state.CAN_CYCLE, f"game {game} hit the guard"
            assert game_state.guard.reached or game_state.truncation_reason, "truncated before the guard, no reason"
            truncated += 1
            assert all(total == 0 for total in totals.values())
            continue
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
        winners = game_state.winners()
        assert winners
        if len(winners) < n:
            assert all(totals[env.possible_agents[w]] > 0 for w in winners)
    assert truncated <= MAX_CYCLING_SHARE * RANDOM_GAMES


def test_score_mode_rewards_sum_to_scaled_scores(env_id):
    """Every score change is paid, including one that happens inside reset."""
    env = pirate_envs.make(env_id, raw=True, reward_mode="score")
    for seed in range(20):
        env.reset(seed=seed)
        totals = play_random_game(env, np.random.default_rng(seed))
        expected = env.game.scores() * env.SCORE_SCALE
        for i, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(expected[i], abs=1e-6), f"seed {seed}, {agent}"


def test_observations_fit_their_space(env_id):
    env = pirate_envs.make(env_id, raw=True)
    env.reset(seed=1)
    rng = np.random.default_rng(1)

    def check(env):
        for agent in env.agents:
            obs = env.observe(agent)
            assert obs["observation"].dtype == np.float32
            assert obs["observation"].shape == (env.observation_layout.size,)
            assert np.isfinite(obs["observation"]).all()
            assert obs["action_mask"].dtype == np.int8
            assert not obs["action_mask"].flags.writeable  # shared with the engine: writing would corrupt it

    play_random_game(env, rng, check)


def test_illegal_action_raises_in_raw_env_and_ends_wrapped_game(env_id):
    raw = pirate_envs.make(env_id, raw=True)
    raw.reset(seed=0)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="legal actions"):
        raw.step(illegal)
    wrapped = pirate_envs.make(env_id)
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    assert wrapped.terminations[agent]
    assert wrapped.rewards[agent] == -1


INFO_SET_GAMES = 20  # per env id
CHECK_EVERY = 7  # decisions between two checks
ALTERNATIVES = 4  # other histories tried per check
RESAMPLES = 4  # resamples per check for the variation test
MAX_ALTERNATIVE_STEPS = 200
MIN_REDRAWN_SHARE = 0.5  # of checked positions where some resample must change the state (measured: 0.89 to 1)


def other_seat_features(game, truth, seat: int, encode) -> set[tuple[int, str, str]]:
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


def alternative_histories(anchor, position, seat: int, encode, blocks, rng: random.Random):
    """Other engine states that ``seat`` cannot tell from ``position``: other moves played from ``anchor``.

    ``anchor`` is the earliest state since which ``seat``'s observation has not changed: the
    moves made since are hidden from him (simultaneous bids, say). From a copy of it, random
    legal moves are played until ``seat`` is on turn again; the result is kept if his
    observation, mask and View are those of ``position``.
    """
    target_view = position.view(seat)
    target = encode(target_view)
    for _ in range(ALTERNATIVES):
        alt = copy.deepcopy(anchor)
        for _step in range(MAX_ALTERNATIVE_STEPS):
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


def public_state(value: object) -> object:
    """A comparable copy of an engine's public attributes (recursively; caches and generators left out)."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(public_state(item) for item in value)
    if isinstance(value, dict):
        return tuple((key, public_state(item)) for key, item in value.items())
    if isinstance(value, np.random.Generator) or callable(value):
        return None
    if hasattr(value, "__dict__"):
        attributes = {name: item for name, item in vars(value).items() if not name.startswith("_")}
        return (type(value).__name__, public_state(attributes))
    return value


def replay(env, seed: int, actions: list[int]):
    """A fresh engine of ``env``'s game after ``reset(seed=seed)`` and ``actions``, as the env plays them."""
    game = type(env.game)(env.config)
    game.reset(np.random.default_rng(seed))
    for action in actions:
        game.apply(action)
    return game


def test_information_set_invariance(env_id):
    """Resampling what a player cannot see keeps his observation and varies what he cannot see.

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
    rng = np.random.default_rng(7)
    moves = random.Random(7)
    varied_by_alternatives: set = set()
    varied_by_resamples: set = set()
    positions = redrawn = 0  # checked positions; those where a resample changed the state
    for game_index in range(INFO_SET_GAMES):
        env = pirate_envs.make(env_id, raw=True)
        seed = 100 + game_index
        env.reset(seed=seed)
        encode = env.make_encoder()
        blocks = action_blocks(env)
        actions: list[int] = []
        anchors: dict[str, tuple[np.ndarray, int]] = {}  # agent -> (observation, first step showing it)
        decisions = 0
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            for agent in env.possible_agents:
                vector = env.observe(agent)["observation"]
                if agent not in anchors or not np.array_equal(anchors[agent][0], vector):
                    anchors[agent] = (vector, len(actions))
            if decisions % CHECK_EVERY == 0:
                for observer in env.possible_agents:
                    seat = env.seat_of(observer)
                    before = env.observe(observer)
                    twin = copy.deepcopy(env)
                    twin.game.resample_hidden(seat, np.random.default_rng(rng.integers(1 << 30)))
                    twin._obs_cache.clear()
                    after = twin.observe(observer)
                    np.testing.assert_array_equal(before["observation"], after["observation"])
                    np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
                    assert twin.game.view(seat) == env.game.view(seat)
                seat = env.game.current_player
                truth = public_state(env.game)
                changed = False
                for _ in range(RESAMPLES):
                    twin = copy.deepcopy(env.game)
                    twin.resample_hidden(seat, np.random.default_rng(rng.integers(1 << 30)))
                    varied_by_resamples |= other_seat_features(twin, env.game, seat, encode)
                    changed = changed or public_state(twin) != truth
                positions += 1
                redrawn += changed
                vector, since = anchors[env.agent_selection]
                if since < len(actions):  # hidden moves since his observation last changed
                    anchor = replay(env, seed, actions[:since])
                    np.testing.assert_array_equal(encode(anchor.view(seat)), vector)
                    for alt in alternative_histories(anchor, env.game, seat, encode, blocks, moves):
                        varied_by_alternatives |= other_seat_features(alt, env.game, seat, encode)
            decisions += 1
            action = sample_legal(obs["action_mask"], rng, blocks)
            actions.append(action)
            env.step(action)
    assert redrawn >= MIN_REDRAWN_SHARE * positions, (
        f"resample_hidden changed the engine's state at only {redrawn} of {positions} positions"
    )
    never_resampled = sorted(varied_by_alternatives - varied_by_resamples)
    assert not never_resampled, (
        f"other histories the player cannot tell apart change these (relative seat, piece, what) "
        f"of the other seats' observations, but resample_hidden never does: {never_resampled}"
    )


def test_render_ansi(env_id):
    env = pirate_envs.make(env_id, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text


def test_action_strings_are_unique(env_id):
    env = pirate_envs.make(env_id, raw=True)
    n = env.action_space(env.possible_agents[0]).n
    labels = {env.action_to_string(a) for a in range(n)}
    assert len(labels) == n
