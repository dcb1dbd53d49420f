"""The games as OpenSpiel games (`pirate_envs.openspiel`): OpenSpiel's own checks and the link to the envs.

Skipped, with the reason, where the ``open-spiel`` wheel (extra ``openspiel``) is not installed;
the test that the module names the extra when it is missing runs everywhere.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pirate_envs
from pirate_envs import openspiel as ps
from tests.games import GAME_IDS, GAME_SPECS, require

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pyspiel():
    return pytest.importorskip("pyspiel", reason="the open-spiel wheel is not installed (extra 'openspiel')")


def tables() -> list[tuple[str, int]]:
    """Every game at its smallest and its default table."""
    found = []
    for spec in GAME_SPECS:
        found += [(spec.env_id, n) for n in sorted({spec.min_players, spec.default_players})]
    return found


def random_play(state, rng: np.random.Generator, moves: int | None = None):
    """Play uniformly random legal moves until the end (or ``moves`` of them); ``state`` itself."""
    while not state.is_terminal() and (moves is None or len(state.history()) < moves):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_without_the_wheel_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'pirate-envs\[openspiel\]'"):
        ps.load_game("skull_king_v0")
    with pytest.raises(ImportError, match="open-spiel"):
        ps.register()


@pytest.mark.parametrize(("env_id", "players"), tables())
def test_openspiel_random_simulation_checks_pass(pyspiel, env_id, players):
    """pyspiel's own random simulation test: clones, legal actions and masks, observables, returns, lengths."""
    require(env_id, "openspiel_facts")
    game = ps.load_game(env_id, players=players, **pirate_envs.game_spec(env_id).quick_options)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "players"), tables())
def test_openspiel_random_simulation_checks_pass_with_the_default_options(pyspiel, env_id, players):
    require(env_id, "openspiel_facts")
    pyspiel.random_sim_test(ps.load_game(env_id, players=players), num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_game_type_and_parameters(pyspiel, env_id):
    require(env_id, "openspiel_facts")
    ps.register()
    spec = pirate_envs.game_spec(env_id)
    short_name = ps.SHORT_NAMES[env_id]
    assert short_name in pyspiel.registered_names()
    game_type = pyspiel.load_game(short_name).get_type()
    assert game_type.short_name == short_name
    assert game_type.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (game_type.min_num_players, game_type.max_num_players) == (spec.min_players, spec.max_players)
    assert game_type.provides_information_state_tensor and game_type.provides_observation_tensor
    assert game_type.provides_information_state_string and game_type.provides_observation_string
    names = set(game_type.parameter_specification)
    assert {"players", "returns", "rng_seed", "max_game_length", "score_bound"} <= names
    assert {option.name for option in spec.options} <= names
    game = pyspiel.load_game(short_name, {"players": spec.max_players})
    assert game.num_players() == spec.max_players
    assert game.num_distinct_actions() == len(pirate_envs.make(env_id, raw=True).actions)
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)


@pytest.mark.parametrize(("env_id", "players"), tables())
def test_tensors_and_strings_are_the_envs_observation_and_screen(pyspiel, env_id, players):
    """A game of seed s plays what env.reset(seed=s) plays: same tensors, screens, labels and returns."""
    require(env_id, "openspiel_facts")
    from open_spiel.python.observation import make_observation

    game = ps.load_game(env_id, players=players, **pirate_envs.game_spec(env_id).quick_options)
    state = game.deserialize_state(json.dumps({"game": env_id, "seed": 11, "moves": []}))
    env = pirate_envs.make(env_id, raw=True, num_players=players, **pirate_envs.game_spec(env_id).quick_options)
    env.reset(seed=11)
    layout = env.observation_layout
    assert game.information_state_tensor_shape() == game.observation_tensor_shape() == [layout.size]
    observer = make_observation(game)
    assert list(observer.dict) == [piece.name for piece in layout.pieces]
    rng = np.random.default_rng(0)
    for _ in range(40):
        if state.is_terminal():
            break
        seat = state.current_player()
        assert env.agent_selection == env.possible_agents[seat]
        for p in range(players):
            expected = env.observe(env.possible_agents[p])["observation"]
            np.testing.assert_array_equal(state.information_state_tensor(p), expected)
            np.testing.assert_array_equal(state.observation_tensor(p), expected)
            assert state.observation_string(p) == state.information_state_string(p) == env.seat_text(f"player_{p}")
        mask = env.observe(env.agent_selection)["action_mask"]
        assert state.legal_actions() == np.flatnonzero(mask).tolist()
        assert state.legal_actions_mask() == mask.tolist()
        action = int(rng.choice(state.legal_actions()))
        assert state.action_to_string(seat, action) == env.action_to_string(action)
        state.apply_action(action)
        env.step(action)
    observer.set_from(state, 0)
    np.testing.assert_array_equal(observer.tensor, state.observation_tensor(0))


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_returns_are_the_envs_win_rewards_and_scores(pyspiel, env_id):
    require(env_id, "openspiel_facts")
    settings = {"players": pirate_envs.game_spec(env_id).min_players, **pirate_envs.game_spec(env_id).quick_options}
    rng = np.random.default_rng(1)
    win = random_play(ps.load_game(env_id, **settings).new_initial_state(), rng)
    seed, moves = (json.loads(win.serialize())[key] for key in ("seed", "moves"))
    quick = pirate_envs.game_spec(env_id).quick_options
    env = pirate_envs.make(env_id, raw=True, num_players=settings["players"], **quick)
    env.reset(seed=seed)
    for move in moves:
        env.step(move)
    assert not env.agents or all(env.terminations.values()) or all(env.truncations.values())
    assert win.returns() == [env._cumulative_rewards[a] for a in env.possible_agents]
    assert sum(win.returns()) == pytest.approx(0.0)
    score_game = ps.load_game(env_id, returns="score", **settings)
    assert score_game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert score_game.utility_sum() is None
    scored = score_game.deserialize_state(win.serialize())
    assert scored.is_terminal()
    assert scored.returns() == env.unwrapped.game.scores().tolist()
    assert all(score_game.min_utility() <= r <= score_game.max_utility() for r in scored.returns())


def test_a_score_beyond_the_bound_is_refused_in_one_line(pyspiel):
    game = ps.load_game("skull_king_v0", players=2, num_hands=1, returns="score", score_bound=1)
    state = random_play(game.new_initial_state(), np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"exceed score_bound=1; load the game with a larger score_bound"):
        state.returns()  # hand 1 scores at least 10 points either way


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_a_clone_plays_on_alone_and_as_the_original(pyspiel, env_id):
    require(env_id, "openspiel_facts")
    game = ps.load_game(env_id, **pirate_envs.game_spec(env_id).quick_options)
    state = random_play(game.new_initial_state(), np.random.default_rng(2), moves=5)
    twin = state.clone()
    assert str(twin) == str(state) and twin.history() == state.history()
    random_play(state, np.random.default_rng(3))
    assert len(twin.history()) == 5 or twin.is_terminal()  # the original's moves left the clone alone
    random_play(twin, np.random.default_rng(3))
    assert str(twin) == str(state) and twin.returns() == state.returns()  # the same chance as the original


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_serialize_replays_the_game(pyspiel, env_id):
    require(env_id, "openspiel_facts")
    game = ps.load_game(env_id, **pirate_envs.game_spec(env_id).quick_options)
    state = random_play(game.new_initial_state(), np.random.default_rng(4), moves=12)
    text = state.serialize()
    copy = game.deserialize_state(text)
    assert copy.history() == state.history() and str(copy) == str(state)
    for p in range(game.num_players()):
        assert copy.information_state_tensor(p) == state.information_state_tensor(p)
    random_play(state, np.random.default_rng(5))
    random_play(copy, np.random.default_rng(5))
    assert str(copy) == str(state) and copy.returns() == state.returns()


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("not json", "is not JSON"),
        ("[]", "keys 'game', 'seed' and 'moves'"),
        ('{"game": "lucky_pirate_v0", "seed": 1, "moves": []}', "is of game 'lucky_pirate_v0'"),
        ('{"game": "skull_king_v0", "seed": -1, "moves": []}', "seed -1 must be an integer"),
        ('{"game": "skull_king_v0", "seed": 1, "moves": [1.5]}', "moves must be a list of integers"),
        ('{"game": "skull_king_v0", "seed": 1, "moves": [0, 68]}', "action 68 is not legal now"),
    ],
)
def test_bad_serialized_states_are_refused_in_one_line(pyspiel, text, error):
    game = ps.load_game("skull_king_v0", players=2, num_hands=1)
    with pytest.raises(ValueError, match=error) as caught:
        game.deserialize_state(text)
    assert "\n" not in str(caught.value)


def test_moves_after_the_end_are_refused(pyspiel):
    game = ps.load_game("skull_king_v0", players=2, num_hands=1)
    record = json.loads(random_play(game.new_initial_state(), np.random.default_rng(7)).serialize())
    record["moves"].append(0)
    with pytest.raises(ValueError, match=r"serialized game has moves after its end \(move 0\)"):
        game.deserialize_state(json.dumps(record))


def test_pyspiels_own_serialization_needs_a_random_state_python_games_lack(pyspiel):
    """Documented: pyspiel's Python games keep no random state for sampled chance; state.serialize() is the way."""
    state = ps.load_game("skull_king_v0", num_hands=1).new_initial_state()
    with pytest.raises(pyspiel.SpielError, match=r"GetRNGState unimplemented"):
        pyspiel.serialize_game_and_state(state.get_game(), state)


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"players": 9}, "players=9 is out of range; allowed: 2..6"),
        ({"num_hands": 11}, "num_hands=11 is out of range"),
        ({"returns": "money"}, "returns"),
        ({"rng_seed": -2}, "rng_seed=-2"),
        ({"max_game_length": 5}, "max_game_length=5 is too short"),
        ({"score_bound": 0}, "score_bound=0 is not valid"),
        ({"score_bound": -3}, "score_bound=-3"),
    ],
)
def test_bad_parameters_are_refused_in_one_line(pyspiel, params, error):
    with pytest.raises(ValueError, match=error) as caught:
        ps.load_game("skull_king_v0", **params)
    assert "\n" not in str(caught.value)


def test_an_int_list_option_is_a_comma_separated_string(pyspiel):
    game = ps.load_game("piratenpoker_v0", loot_fronts="5,6,8")
    assert game.new_initial_state().table.engine.config.loot_fronts == (5, 6, 8)
    with pytest.raises(ValueError, match="loot_fronts='5,x' must be comma-separated integers"):
        ps.load_game("piratenpoker_v0", loot_fronts="5,x")


def test_the_rng_seed_fixes_the_stream_of_deals(pyspiel):
    def first_deals(rng_seed: int) -> list[tuple[int, str]]:
        game = ps.load_game("skull_king_v0", players=3, rng_seed=rng_seed)
        states = [game.new_initial_state() for _ in range(3)]
        return [(json.loads(s.serialize())["seed"], str(s)) for s in states]

    assert first_deals(5) == first_deals(5)
    assert first_deals(5) != first_deals(6)
    assert len(set(first_deals(5))) == 3  # each new game takes the next seed


def test_max_game_length_truncates_a_game(pyspiel):
    game = ps.load_game("piraten_kapern_v0", max_game_length=3)
    assert game.max_game_length() == 3
    state = game.new_initial_state()
    for _ in range(3):
        if not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.returns() == [0.0, 0.0] or state.table.engine.terminated


def test_skull_kings_length_is_exact(pyspiel):
    game = ps.load_game("skull_king_v0", players=3, num_hands=2)
    state = random_play(game.new_initial_state(), np.random.default_rng(6))
    assert len(state.history()) == game.max_game_length() == 3 * 2 + 3 * (1 + 2)


def test_the_interpreter_exits_cleanly_after_registering(pyspiel):
    """pyspiel keeps the registered factories until exit; releasing a wrong kind of factory there aborts."""
    code = "from pirate_envs.openspiel import load_game; load_game('skull_king_v0').new_initial_state().legal_actions()"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


# ----------------------------------------------------------------------------- explicit chance
def explicit_game(players: int = 2):
    return ps.load_game("skull_king_v0", players=players, num_hands=1, chance="explicit")


def test_explicit_chance_deals_by_chance_nodes_with_the_decks_odds(pyspiel):
    from pirate_envs.skull_king.cards import COPIES, DECK_SIZE, KIND_NAMES

    game = explicit_game()
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.max_chance_outcomes() == len(COPIES)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    first = dict(state.chance_outcomes())
    assert first == {kind: copies / DECK_SIZE for kind, copies in enumerate(COPIES)}
    pirate = KIND_NAMES.index("pirate")
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, pirate) == "deal pirate"
    state.apply_action(pirate)
    second = dict(state.chance_outcomes())
    assert second[pirate] == (COPIES[pirate] - 1) / (DECK_SIZE - 1) and sum(second.values()) == pytest.approx(1.0)
    assert state.information_state_string(0) == "player_0: the game is being set up"
    assert state.information_state_tensor(1) == [0.0] * len(state.information_state_tensor(0))
    skull_king = KIND_NAMES.index("skull_king")
    state.apply_action(skull_king)  # the last card: the game starts with this deal
    assert not state.is_chance_node()
    assert state.table.engine.view(0).hand_cards() == ["pirate"]
    assert state.table.engine.view(1).hand_cards() == ["skull_king"]
    assert state.observation_string(0).endswith("your hand: pirate")
    six = explicit_game(players=6).new_initial_state()
    for _ in range(COPIES[pirate]):
        six.apply_action(pirate)
    with pytest.raises(ValueError, match=rf"chance outcome {pirate} is not possible now"):
        six.apply_action(pirate)  # a sixth Pirate: the deck has five


@pytest.mark.parametrize("players", [2, 3])
def test_explicit_chance_passes_openspiels_checks_and_round_trips(pyspiel, players):
    game = explicit_game(players)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    state = game.new_initial_state()
    state.apply_action(0)
    twin = state.clone()  # a clone in the middle of the deal deals on alone
    random_play_with_chance(state, np.random.default_rng(8))
    assert twin.history() == [0]
    record = json.loads(state.serialize())
    assert record["seed"] is None and record["moves"] == state.history()
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.returns() == state.returns()
    with pytest.raises(ValueError, match="must be null under explicit chance"):
        game.deserialize_state(json.dumps({**record, "seed": 3}))


def random_play_with_chance(state, rng: np.random.Generator):
    """Play to the end, chance outcomes drawn by their odds and moves uniformly."""
    while not state.is_terminal():
        if state.is_chance_node():
            kinds, odds = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(kinds, p=odds)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_explicit_chance_elsewhere_is_refused_in_one_line(pyspiel, monkeypatch):
    with pytest.raises(ValueError, match="chance="):
        ps.load_game("skull_king_v0", chance="dice")
    import dataclasses

    import pirate_envs.skull_king.openspiel as facts

    ps.game_facts.cache_clear()  # a game that offers no explicit chance
    monkeypatch.setattr(facts, "FACTS", dataclasses.replace(facts.FACTS, explicit_rules=None))
    monkeypatch.setattr(ps, "game_facts", functools.cache(ps.game_facts.__wrapped__))
    with pytest.raises(ValueError, match=r"chance='explicit' is offered for .* only, not skull_king_v0"):
        ps.load_game("skull_king_v0", chance="explicit")


@pytest.mark.slow
def test_cfr_and_nash_conv_run_on_the_explicit_variant(pyspiel):
    """Two-player one-hand Skull King is solved by OpenSpiel's CFR; NashConv falls below uniform play's."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import cfr, exploitability

    game = explicit_game()
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(2):
        solver.evaluate_and_update_policy()
    assert 0.0 <= exploitability.nash_conv(game, solver.average_policy()) < uniform


# ----------------------------------------------------------------------------- the explicit-chance mechanism
def test_a_draws_outcomes_have_exact_odds_and_small_ids():
    from pirate_envs.core.chance import count_vectors, roll_probability

    deck = ps.Draw("permutation", (7, 7, 7, 3, 9))
    assert deck.outcomes() == [(0, 3 / 5), (1, 1 / 5), (2, 1 / 5)]  # ids: distinct values by first appearance
    assert deck.outcomes([7, 3]) == [(0, 2 / 3), (2, 1 / 3)]
    assert deck.value(2) == 9 and deck.completed([9, 7]) == [9, 7, 7, 7, 3]  # the rest keeps its order
    assert ps.Draw("integers", (3, 7)).outcomes() == [(i, 0.25) for i in range(4)]
    assert ps.Draw("integers", (3, 7)).value(2) == 5
    roll = ps.Draw("roll_dice", (3,))
    assert [p for _, p in roll.outcomes()] == [roll_probability(v) for v in count_vectors(3)]
    assert sum(p for _, p in roll.outcomes()) == pytest.approx(1.0) and roll.value(0) == (3, 0, 0, 0, 0, 0)


def test_a_hand_dealt_as_a_set_has_the_odds_of_each_set():
    """Items a, a, b, c (ids 0, 1, 2) dealt into one hand of two: {a,a} 1/6, {a,b} 2/6, {a,c} 2/6, {b,c} 1/6."""
    copies = [2, 1, 1]
    first = ps.hand_outcomes(copies, [], 2)
    assert first == [(0, pytest.approx(5 / 6)), (1, pytest.approx(1 / 6))]  # the lower card first: never c
    assert ps.hand_outcomes(copies, [0], 2) == [(0, pytest.approx(1 / 5)), (1, pytest.approx(2 / 5)), (2, 0.4)]
    assert ps.hand_outcomes(copies, [1], 2) == [(2, 1.0)]
    rng = np.random.default_rng(0)
    for _ in range(20):  # any pool, hand size and prefix: the next card's odds sum to 1
        pool = rng.integers(0, 4, size=6).tolist()
        size = int(rng.integers(1, max(2, sum(pool)) + 1)) if sum(pool) else 0
        if size and size <= sum(pool):
            assert sum(p for _, p in ps.hand_outcomes(pool, [], size)) == pytest.approx(1.0)


def test_explicit_chance_replays_its_script_and_names_the_draw_past_it():
    chance = ps.ExplicitChance([[2, 0, 1], 4, (0, 1, 0, 0, 0, 1)])
    assert chance.permutation(3).tolist() == [2, 0, 1]
    twin = chance.clone()
    assert chance.integers(3, 6) == 4 and twin.integers(3, 6) == 4  # the clone replays on alone
    assert chance.roll_dice(2) == (0, 1, 0, 0, 0, 1)
    with pytest.raises(ps.DrawNeeded) as needed:
        chance.shuffle(["a", "b"])
    assert needed.value.draw == ps.Draw("shuffle", ("a", "b"))


def test_small_variants_load_and_unknown_ones_are_refused_in_one_line(pyspiel):
    for name, (env_id, _params) in ps.SMALL_VARIANTS.items():
        game = ps.load_variant(name)
        assert game.get_type().short_name == ps.SHORT_NAMES[env_id]
        assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC, name
    with pytest.raises(ValueError, match="unknown small variant 'nope'; known: "):
        ps.load_variant("nope")


# ----------------------------------------------------------------------------- Skull King's small variant
#: Skull King's ten-card deck (yellow and black 1..3, one each of four specials), as OpenSpiel parameters.
SHORT_DECK = {"suits": "0,3", "ranks": 3, "specials": "1,1,1,1,0"}


def deal(state, card: str) -> None:
    """Apply the chance outcome that deals ``card`` (outcome ids number the deck's distinct cards)."""
    labels = {state.action_to_string(-1, outcome): outcome for outcome, _ in state.chance_outcomes()}
    state.apply_action(labels[f"deal {card}"])


def walk(state, visit) -> None:
    """Call ``visit`` on every state of the tree below ``state`` (``state`` included)."""
    visit(state)
    if not state.is_terminal():
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        for action in actions:
            walk(state.child(action), visit)


def test_the_small_variant_passes_openspiels_checks(pyspiel):
    pyspiel.random_sim_test(ps.load_variant("skull_king_small"), num_sims=5, serialize=False, verbose=False)


def test_chance_odds_sum_to_one_at_every_chance_node_of_the_small_variant(pyspiel):
    """A full walk: every chance node's outcomes are distinct, positive, and sum to 1; 90 deals in all."""
    counts = {"chance": 0, "terminal": 0}

    def visit(state):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            ids = [o for o, _ in outcomes]
            assert len(set(ids)) == len(ids) and all(p > 0 for _, p in outcomes)
            assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
            assert max(ids) < state.get_game().max_chance_outcomes()
            counts["chance"] += 1
        counts["terminal"] += state.is_terminal()

    walk(ps.load_variant("skull_king_small").new_initial_state(), visit)
    # one node for seat 0's card, then one per card for seat 1's; 10 x 9 deals, 2 x 2 bids, forced plays
    assert counts == {"chance": 11, "terminal": 10 * 9 * 4}


def test_the_small_variants_terminal_odds_are_the_decks(pyspiel):
    """The probability of reaching each deal is 1/10 x 1/9, whatever the path (exact odds)."""
    reach = {}

    def visit(state, p=1.0):
        reach[tuple(state.history())] = p

    state = ps.load_variant("skull_king_small").new_initial_state()
    for first, p in state.chance_outcomes():
        child = state.child(first)
        for second, q in child.chance_outcomes():
            visit(child.child(second), p * q)
    assert len(reach) == 90 and all(p == pytest.approx(1 / 90) for p in reach.values())


def test_information_states_are_perfect_recall_under_explicit_chance(pyspiel):
    """Two hands: what seat 0 saw in hand 1 stays in its information state; what it never saw does not enter it."""
    game = ps.load_game("skull_king_v0", players=2, num_hands=2, chance="explicit", **SHORT_DECK)

    def play(first_card: str, other_hand: tuple[str, str]):
        state = game.new_initial_state()
        deal(state, first_card)  # hand 1: seat 0's card, then seat 1's
        deal(state, "yellow-3")
        for action in (0, 1):  # seat 1 bids 0, seat 0 bids 1 (bid k is action k)
            state.apply_action(action)
        for _ in range(2):  # seat 1 leads yellow-3, seat 0 trumps it with its black card
            state.apply_action(state.legal_actions()[0])
        for card in ("yellow-1", "pirate", *other_hand):  # hand 2: seat 0's two cards, then seat 1's, each in order
            deal(state, card)
        assert state.current_player() == 0  # seat 1 deals hand 2: seat 0 bids first
        return state

    first, seen = play("black-2", ("escape", "mermaid")), play("black-3", ("escape", "mermaid"))
    hidden = play("black-2", ("escape", "skull_king"))
    # the View (and the screen) is the same after a hand 1 that differs only in seat 0's own trump card ...
    assert first.observation_string(0) == seen.observation_string(0)
    assert first.information_state_tensor(0) == seen.information_state_tensor(0)
    # ... but the information state remembers it, and only what seat 0 saw
    assert first.information_state_string(0) != seen.information_state_string(0)
    assert first.information_state_string(0) == hidden.information_state_string(0)
    assert first.information_state_string(1) != hidden.information_state_string(1)
    # one line once dealt, one per move (four; the last one deals hand 2) and one per own move (two)
    assert first.information_state_string(0).count("\n") == 1 + 4 + 2


def test_cfr_lowers_nash_conv_on_the_small_variant(pyspiel):
    from open_spiel.python import policy
    from open_spiel.python.algorithms import cfr, exploitability

    game = ps.load_variant("skull_king_small")
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(3):
        solver.evaluate_and_update_policy()
    assert 0.0 <= exploitability.nash_conv(game, solver.average_policy()) < 0.5 * uniform


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"suits": "0,0"}, r"suits=\[0, 0\] names a suit twice"),
        ({"suits": "0,x"}, r"suits='0,x' must be comma-separated integers"),
        ({"ranks": 14}, r"ranks=14 is out of range"),
        ({"specials": "1,1,1,1"}, r"specials=\(1, 1, 1, 1\) has 4 items"),
        ({"specials": "0,0,0,0,0", "suits": "0", "ranks": 1}, r"^the deck holds 1 cards; 2 players need"),
    ],
)
def test_bad_short_deck_parameters_are_refused_in_one_line(pyspiel, params, error):
    with pytest.raises(ValueError, match=error) as refused:
        ps.load_game("skull_king_v0", **{"players": 2, "num_hands": 1, "chance": "explicit", **params})
    assert "\n" not in str(refused.value)


def test_a_later_hand_is_dealt_as_sets_with_each_sets_odds(pyspiel):
    """Hand 2 of the ten-card deck: every pair for seat 0 and pair for seat 1 once, each at 1 / (C(10,2) C(8,2))."""
    game = ps.load_game("skull_king_v0", players=2, num_hands=2, chance="explicit", **SHORT_DECK)
    state = game.new_initial_state()
    deal(state, "black-2")
    deal(state, "yellow-3")
    while not state.is_chance_node():  # bids and the forced plays of hand 1
        state.apply_action(state.legal_actions()[0])
    reach: dict[tuple, float] = {}

    def deal_on(node, p):
        if not node.is_chance_node():
            hands = tuple(tuple(node.table.engine.view(seat).hand_cards()) for seat in (0, 1))
            assert hands not in reach
            reach[hands] = p
            return
        for outcome, q in node.chance_outcomes():
            deal_on(node.child(outcome), p * q)

    deal_on(state, 1.0)
    assert len(reach) == 45 * 28 and all(p == pytest.approx(1 / (45 * 28)) for p in reach.values())


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_every_game_declares_its_openspiel_facts(env_id):
    require(env_id, "openspiel_facts")
    facts = ps.game_facts(env_id)
    assert isinstance(facts, ps.OpenSpielFacts)
    config = ps.settings(env_id).config
    assert facts.score_bound(config) > 0
    assert facts.explicit_rules is not None and env_id in ps.explicit_chance_games()
