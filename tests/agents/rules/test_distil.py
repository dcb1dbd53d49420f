"""The distiller recovers a known rule, and `card_actions` replays a card exactly as the agent plays it."""

from __future__ import annotations

import numpy as np

from agents.analysis.rule_cards.positions import collect_positions
from agents.rules.card import save_card
from agents.rules.distil import card_actions, distil
from agents.rules.vocabulary import vocabulary_of


def _synthetic(seed: int, n: int = 3000):
    """Random feature values; every choice names its own action; the teacher bids 0 with at most 1 trump."""
    vocabulary = vocabulary_of("skull_king_v0")
    rng = np.random.default_rng(seed)
    names = [f.name for f in vocabulary.features]
    X = rng.integers(0, 8, size=(n, len(names))).astype(float)
    A = np.tile(np.arange(len(vocabulary.choices)) + 100, (n, 1))
    choices = [c.name for c in vocabulary.choices]
    zero, strong = choices.index("bid_0"), choices.index("bid_strong")
    y = np.where(X[:, names.index("trumps")] <= 1, A[:, zero], A[:, strong])
    return vocabulary, X, A, y


def test_the_distiller_recovers_a_known_rule():
    vocabulary, X, A, y = _synthetic(1)
    card = distil(vocabulary, X, A, y, "synthetic")
    assert len(card.rules) == 1
    rule = card.rules[0]
    assert {(c.feature, c.op, c.value) for c in rule.when} in (
        {("trumps", "<=", 1.0)},
        {("trumps", ">=", 2.0)},
    )
    assert {rule.then, card.fallback} == {"bid_0", "bid_strong"}
    _, X2, A2, y2 = _synthetic(2)
    assert np.array_equal(card_actions(card, X2, A2, np.zeros(len(y2), dtype=np.int64)), y2)


def test_card_actions_replay_the_agent(tmp_path):
    """The positions of a game the card itself plays: its recorded moves are `card_actions`' moves."""
    vocabulary = vocabulary_of("skull_king_v0")
    train = collect_positions(vocabulary, "ppo:skull_king_v0", 3, seed=40)
    card = distil(vocabulary, train.X, train.A, train.y, "ppo:skull_king_v0", max_rules=6)
    assert 1 <= len(card.rules) <= 6
    path = tmp_path / "card.json"
    save_card(card, path)
    played = collect_positions(vocabulary, f"rules:{path}", 2, seed=50)
    assert len(played) > 0
    assert np.array_equal(card_actions(card, played.X, played.A, played.first_legal), played.y)


def test_positions_weigh_by_the_stakes_of_the_choice():
    """Kapern's positions carry the oracle's points gap between stopping and going on, plus the floor."""
    import pirate_envs
    from agents.analysis.rule_cards.report import position_weights
    from agents.piraten_kapern.oracle import expected_points_of_moves
    from agents.piraten_kapern.rule_card import STAKES_FLOOR
    from agents.rules.vocabulary import legal_actions
    from pirate_envs.piraten_kapern.actions import STOP

    vocabulary = vocabulary_of("piraten_kapern_v0")
    positions = collect_positions(vocabulary, "oracle", 3, 43)
    assert positions.stakes is not None and len(positions.stakes) == len(positions) > 10
    assert (positions.stakes >= STAKES_FLOOR).all() and positions.stakes.max() > 10 * STAKES_FLOOR
    assert np.array_equal(position_weights(vocabulary, positions), positions.stakes)
    # the first position, worked out from the game itself: stop against the card's going on
    env = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=2)
    env.reset(seed=43)  # seat 0, the teacher in game 0, moves first
    view, legal = env.game.view(0), legal_actions(env.observe(env.possible_agents[0])["action_mask"])
    go = vocabulary.choice_actions(view, legal)["go_on"]
    assert go is not None and STOP in legal
    stop_points, go_points = expected_points_of_moves(view, [STOP, go])
    assert positions.stakes[0] == abs(stop_points - go_points) + STAKES_FLOOR
