"""Piratenpoker's small variant: the short-deck options, a game traced by hand, OpenSpiel's exact solution.

The variant (``pirate_envs.openspiel.SMALL_VARIANTS["piratenpoker_small"]``): three players, a
5 of each colour as the whole poker deck, one card in hand, one loot card (+6 / -3) per colour.
"""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.chance import ScriptedChance
from pirate_envs.piratenpoker.actions import ACTIONS
from pirate_envs.piratenpoker.cards import DECK_COUNTS, FRONT_INDEX, POKER_INDEX
from pirate_envs.piratenpoker.engine import Config, Phase, PiratenpokerEngine

SMALL = {
    "num_players": 3,
    "poker_copies": (0, 0, 0, 0, 1, 0, 0, 0),
    "hand_size": 1,
    "loot_fronts": (6,),
    "max_games": 1,
}
#: The draw pile as the deck's shuffle leaves it: the deal pops its end, so seat 0 gets green-5.
SHUFFLED = [POKER_INDEX["yellow-5"], POKER_INDEX["red-5"], POKER_INDEX["green-5"]]


@pytest.fixture
def pyspiel():
    return pytest.importorskip("pyspiel", reason="the open-spiel wheel is not installed (extra 'openspiel')")


def act(engine: PiratenpokerEngine, label: str) -> None:
    legal = [ACTIONS.to_string(a) for a in engine.legal_actions()]
    assert label in legal, f"{label!r} not legal; legal: {legal}"
    engine.apply(ACTIONS.from_string(label))


def small_engine() -> PiratenpokerEngine:
    """The small variant dealt by script: seat 0 green-5, seat 1 red-5, seat 2 yellow-5."""
    engine = PiratenpokerEngine(Config(**SMALL))
    engine.reset(ScriptedChance([SHUFFLED] + [[FRONT_INDEX[6]]] * 3))  # the deck, then the three loot stacks
    return engine


def test_the_defaults_keep_the_rule_texts_84_cards():
    config = Config()
    assert config.poker_copies == (1, 2, 4, 7, 7, 4, 2, 1) and config.deck_size == 84
    assert (config.deck_counts == DECK_COUNTS).all()


def test_a_short_game_traced_from_the_rule_text():
    engine = small_engine()
    assert [engine.view(s).hand.nonzero()[0].tolist() for s in range(3)] == [
        [POKER_INDEX["green-5"]],
        [POKER_INDEX["red-5"]],
        [POKER_INDEX["yellow-5"]],
    ]
    # round 1: player_0 passes, player_1 and player_2 bid a 5 each. The two 5s tie on the total and on
    # the highest card; "if the tie still cannot be broken, the player who has the second-highest total
    # wins": player_0's Pass (0)
    act(engine, "pass")
    act(engine, "bid red-5")
    act(engine, "commit bid")
    act(engine, "bid yellow-5")
    act(engine, "commit bid")
    assert engine.phase == Phase.PICK_LOOT and engine.chooser == 0
    # he turns the red loot card negative side up and gives it to player_1, who displays it
    act(engine, "choose red loot")
    act(engine, "to seat +1")
    assert engine.displayed_names() == [[], ["red:-3"], []]
    # round 2: player_0 has used his Pass and must bid his 5; the others have no card and pass (their Pass)
    assert [ACTIONS.to_string(a) for a in engine.legal_actions()] == ["bid green-5"]
    act(engine, "bid green-5")
    act(engine, "commit bid")
    act(engine, "pass")
    act(engine, "pass")
    # player_0 wins (5 against 0 and 0) and puts the green card under its stack; he has no negative card to give
    act(engine, "choose green loot")
    # round 3: nobody has a card or a Pass left: everybody bids nothing and ties; "if all players tie, the
    # current game immediately finishes" and the yellow card goes back under its stack. The red stack is
    # empty as the next game should start: the episode is over
    assert engine.terminated and not engine.truncated
    assert [len(stack) for stack in engine.stacks] == [1, 0, 1]
    assert engine.scores().tolist() == [0.0, -3.0, 0.0]
    assert engine.winners() == [0, 2]  # tied at 0 with no loot card: a shared win


def test_the_same_game_on_openspiel_with_chance_nodes(pyspiel):
    from pirate_envs import openspiel as ps

    state = ps.load_variant("piratenpoker_small").new_initial_state()
    # the deck's shuffle, position by position (ids: green-5, red-5, yellow-5 by first appearance); the
    # last position and the one-card loot stacks have a single outcome and no chance node
    for value in SHUFFLED[:2]:
        assert state.is_chance_node()
        outcomes = dict(state.chance_outcomes())
        assert sum(outcomes.values()) == pytest.approx(1.0)
        state.apply_action([4, 12, 20].index(value))
    labels = ["pass", "bid red-5", "commit bid", "bid yellow-5", "commit bid", "choose red loot", "to seat +1",
              "bid green-5", "commit bid", "pass", "pass", "choose green loot"]  # fmt: skip
    for label in labels:
        assert not state.is_chance_node()
        state.apply_action(ACTIONS.from_string(label))
    assert state.is_terminal()
    assert state.returns() == [0.5, -1.0, 0.5]  # the winners share +1, the loser -1


def test_random_simulations_pass_openspiels_checks(pyspiel):
    from pirate_envs import openspiel as ps

    pyspiel.random_sim_test(ps.load_variant("piratenpoker_small"), num_sims=5, serialize=False, verbose=False)


def test_chance_odds_sum_to_one_on_every_chance_node_of_random_walks(pyspiel):
    from pirate_envs import openspiel as ps

    game, rng, nodes = ps.load_variant("piratenpoker_small"), np.random.default_rng(3), 0
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, odds = zip(*state.chance_outcomes())
                assert sum(odds) == pytest.approx(1.0) and all(p > 0 for p in odds)
                nodes += 1
                state.apply_action(int(rng.choice(outcomes, p=odds)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
    assert nodes == 2 * 20  # two chance nodes (the deck's first two positions) per game


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"poker_copies": (1, 2, 3)}, r"poker_copies=\(1, 2, 3\) has 3 items; expected a list of 8"),
        ({"poker_copies": (0, 0, 0, 0, 8, 0, 0, 0)}, r"poker_copies\[4\]=8 .*0\.\.7"),
        ({"poker_copies": (0, 0, 0, 0, -1, 0, 0, 0)}, r"poker_copies\[4\]=-1"),
        ({"poker_copies": (0,) * 8}, r"make a deck of 0 poker cards; 3 players with hand_size=1 need at least 3"),
        ({"poker_copies": (0, 0, 0, 0, 1, 0, 0, 0), "hand_size": 2}, r"deck of 3 poker cards; .* at least 6"),
    ],
)
def test_bad_short_decks_are_refused_in_one_line(options, error):
    with pytest.raises(ValueError, match=error) as refused:
        Config(**{**SMALL, **options})
    assert "\n" not in str(refused.value)


def test_the_batched_engine_refuses_a_short_deck_in_one_line():
    pytest.importorskip("numba", reason="the batched engine needs numba")
    from pirate_envs import vector

    with pytest.raises(
        ValueError, match=r"^poker_copies=\(0, 0, 0, 0, 1, 0, 0, 0\): the batched engine plays the full"
    ):
        vector.make("piratenpoker_v0", 2, seed=0, **SMALL)


def test_the_env_plays_the_small_variant():
    env = pirate_envs.make("piratenpoker_v0", **SMALL)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _agent in env.agent_iter():
        observation, _reward, terminated, truncated, _info = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert env.unwrapped.game.done


def test_nobody_learns_a_bid_or_a_pass_before_the_reveal(pyspiel):
    from pirate_envs import openspiel as ps

    state = ps.load_variant("piratenpoker_small").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    bid = state.child(state.legal_actions()[0])  # player_0 bids his card ...
    bid.apply_action(ACTIONS.from_string("commit bid"))
    passed = state.child(ACTIONS.from_string("pass"))  # ... or passes: the others cannot tell until the reveal
    assert bid.current_player() == passed.current_player() == 1
    assert bid.information_state_string(1) == passed.information_state_string(1)
