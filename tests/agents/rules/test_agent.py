"""The agent rules:<env_id>: legal moves in whole games, the prescribed move, the seat's view only."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pirate_envs
from agents.evaluation.games import play_game
from agents.registry import agent_names, agent_player_counts, make_agent
from agents.rules import RuleCardAgent, applying_rule, parse_card
from agents.rules.card import save_card
from agents.rules.vocabulary import legal_actions, shipped_card_path, vocabulary_of
from pirate_envs.skull_king.actions import BID_OFFSET
from pirate_envs.skull_king.engine import Phase

ENV_IDS = ("skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0", "piraten_kapern_v0")

#: Bid 0 without a black card; with one, bid the strong cards; otherwise (playing): the heuristic.
TWO_RULES = {
    "format": "pirate_envs.rule_card",
    "version": 1,
    "env_id": "skull_king_v0",
    "teacher": "hand",
    "fallback": "heuristic",
    "rules": [
        {
            "when": [{"feature": "bidding", "op": ">=", "value": 1}, {"feature": "trumps", "op": "<=", "value": 0}],
            "then": "bid_0",
        },
        {"when": [{"feature": "bidding", "op": ">=", "value": 1}], "then": "bid_strong"},
    ],
}


def _bidding_env(seed: int, hand_number: int):
    """A 4-player Skull King table at the first bid of hand ``hand_number`` (everybody plays the heuristic)."""
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=4)
    env.reset(seed=seed)
    heuristic = make_agent("heuristic", "skull_king_v0")
    game = env.game
    while not (game.phase == Phase.BID and game.hand_number == hand_number and not any(b >= 0 for b in game.bids)):
        seat = game.current_player
        env.step(heuristic.act(env.observe(env.possible_agents[seat]), game.view(seat)))
    return env


def _by_hand(cards: list[str], hand_number: int) -> int:
    """The two-rule card's bid, counted from the card names (independently of the features)."""
    black = [c for c in cards if c.startswith("black")]
    if not black:
        return 0
    strong = sum(
        1
        for c in cards
        if c in ("skull king", "pirate", "mermaid", "scary mary")
        or (c.startswith("black") and int(c.split("-")[1]) >= 10)
        or (c.split("-")[0] in ("yellow", "red", "blue") and int(c.split("-")[1]) >= 12)
    )
    return min(hand_number, strong)


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_a_two_rule_card_makes_the_prescribed_bid(seed):
    card = parse_card(TWO_RULES)
    agent = RuleCardAgent(card)
    env = _bidding_env(seed, hand_number=6)
    game = env.game
    seat = game.current_player
    view = game.view(seat)
    expected = _by_hand(view.hand_cards(), view.hand_number)
    assert agent.act(env.observe(env.possible_agents[seat]), view) == BID_OFFSET + expected
    rule = applying_rule(card, env, seat)
    black = any(c.startswith("black") for c in view.hand_cards())
    assert rule is card.rules[1 if black else 0] and rule is agent.last_rule
    assert rule.text == (
        "If you are bidding: bid your strong cards."
        if black
        else "If you are bidding and your black (trump) cards: none: bid 0."
    )
    assert applying_rule(card, env, (seat + 1) % 4) is None  # not to move


@pytest.mark.parametrize(
    ("seed", "hand", "rule", "bid"),
    [
        # no black card: rule 1, bid 0 (the blue 13 is strong, but rule 1 comes first)
        (5, ["yellow-3", "red-3", "blue-2", "blue-8", "blue-13", "escape"], 0, 0),
        # black cards: rule 2, the strong ones are the black 11 and 12: bid 2
        (6, ["red-3", "blue-5", "black-3", "black-11", "black-12", "escape"], 1, 2),
        # a black 5 only: rule 2, no strong card: bid 0
        (8, ["yellow-6", "red-4", "red-5", "blue-6", "blue-8", "black-5"], 1, 0),
    ],
)
def test_hand_traced_positions(seed, hand, rule, bid):
    """The first bid of hand 6 (seat 2 bids first), traced by hand from the cards held."""
    card = parse_card(TWO_RULES)
    env = _bidding_env(seed, hand_number=6)
    view = env.game.view(env.game.current_player)
    assert view.seat == 2 and view.hand_cards() == hand
    assert RuleCardAgent(card).act(env.observe(env.possible_agents[2]), view) == BID_OFFSET + bid
    assert applying_rule(card, env, 2) is card.rules[rule]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_card_plays_only_legal_moves_in_whole_games(env_id):
    vocabulary = vocabulary_of(env_id)
    n = vocabulary.players
    env = pirate_envs.make(env_id, raw=True, num_players=n)
    agents = [make_agent(f"rules:{env_id}", env_id, env=env)] + [
        make_agent("heuristic", env_id, seed=k) for k in range(1, n)
    ]
    moves = 0
    for game_number in range(2):
        env.reset(seed=300 + game_number)
        seats = agents[game_number % n :] + agents[: game_number % n]
        game = env.game
        while not game.done:
            seat = game.current_player
            obs = env.observe(env.possible_agents[seat])
            action = seats[seat].act(obs, game.view(seat))
            if isinstance(seats[seat], RuleCardAgent):
                assert obs["action_mask"][action], (env_id, action)
                moves += 1
            env.step(action)
    assert moves > 0


def test_the_name_resolves_through_the_registry(tmp_path):
    for env_id in ENV_IDS:
        assert f"rules:{env_id}" in agent_names(env_id)
        assert isinstance(make_agent(f"rules:{env_id}", env_id), RuleCardAgent)
        assert agent_player_counts(f"rules:{env_id}", env_id) == pirate_envs.player_counts(env_id)
    path = tmp_path / "two.json"
    save_card(parse_card(TWO_RULES), path)
    assert make_agent(f"rules:{path}", "skull_king_v0").card.rules[0].then == "bid_0"
    with pytest.raises(ValueError):
        make_agent("rules:piratenpoker_v0", "skull_king_v0")


def test_a_later_version_of_the_same_game_plays_the_earlier_versions_card():
    """``lucky_pirate_v1`` is version 0's game and view (``same_game_as``): ``rules:lucky_pirate_v1`` is v0's card."""
    assert "rules:lucky_pirate_v1" in agent_names("lucky_pirate_v1")
    agent = make_agent("rules:lucky_pirate_v1", "lucky_pirate_v1")
    assert agent.name == "rules:lucky_pirate_v1" and agent.card.env_id == "lucky_pirate_v0"
    assert agent.card == make_agent("rules:lucky_pirate_v0", "lucky_pirate_v0").card
    env = pirate_envs.make("lucky_pirate_v1", raw=True, num_players=4)
    record = play_game(env, [agent, *(make_agent("random", "lucky_pirate_v1", seed=s, env=env) for s in (1, 2, 3))], 5)
    assert env.game.done and len(record.scores) == 4
    with pytest.raises(ValueError, match="card: for 'lucky_pirate_v0', not 'skull_king_v0'"):
        make_agent(f"rules:{shipped_card_path('lucky_pirate_v0')}", "skull_king_v0")


def test_the_features_read_only_the_seats_view():
    """Two states that differ only in two other seats' hidden hands: same view, features and move."""
    env = _bidding_env(11, hand_number=4)
    game = env.game
    seat = game.current_player
    a, b = [(seat + 1) % 4, (seat + 2) % 4]
    other = copy.deepcopy(env)
    for name in ("hands", "held", "suit_counts"):
        table = getattr(other.game, name)
        if isinstance(table, np.ndarray) and table.shape[:1] == (4,):
            table[[a, b]] = table[[b, a]]
    assert not np.array_equal(game.hands, other.game.hands)
    vocabulary = vocabulary_of("skull_king_v0")
    values = []
    for table in (env, other):
        view = table.game.view(seat)
        legal = legal_actions(table.observe(table.possible_agents[seat])["action_mask"])
        values.append((vocabulary.feature_values(view, legal), vocabulary.choice_actions(view, legal)))
    assert values[0] == values[1]
    card = make_agent("rules:skull_king_v0", "skull_king_v0").card
    assert applying_rule(card, env, seat) == applying_rule(card, other, seat)


def test_kapern_features_ignore_the_hidden_deck_order():
    """Two Kapern states that differ only in the order of the fortune deck: same features, moves and rule."""
    env = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=2)
    env.reset(seed=3)
    other = copy.deepcopy(env)
    other.game.deck.reverse()
    assert env.game.deck != other.game.deck
    seat = env.game.current_player
    vocabulary = vocabulary_of("piraten_kapern_v0")
    seen = []
    for table in (env, other):
        legal = legal_actions(table.observe(table.possible_agents[seat])["action_mask"])
        view = table.game.view(seat)
        seen.append((vocabulary.feature_values(view, legal), vocabulary.choice_actions(view, legal)))
    assert seen[0] == seen[1]
    card = make_agent("rules:piraten_kapern_v0", "piraten_kapern_v0").card
    assert applying_rule(card, env, seat) == applying_rule(card, other, seat)
