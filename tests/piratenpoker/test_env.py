"""The Piratenpoker AEC env: a scripted episode with its rewards, hidden bids, seat-relative observations."""

from __future__ import annotations

import numpy as np
import pytest

from pirate_envs.piratenpoker.actions import ACTIONS
from pirate_envs.piratenpoker.cards import POKER_INDEX
from pirate_envs.piratenpoker_v0 import env as make_env
from pirate_envs.piratenpoker_v0 import raw_env
from tests.doc_pages import game_page

HANDS = [
    ["green-8", "green-7", "red-6", "yellow-5", "green-1", "red-2"],
    ["red-8", "yellow-7", "green-6", "red-5", "yellow-4", "green-3"],
    ["yellow-8", "red-7", "yellow-6", "green-5", "red-4", "red-3"],
]
# one +10 per colour; seat 0 wins round 1 (8 > 5 > 3) and throws the green -5 to seat 2, seat 1
# wins round 2 (8 > 7 > 3) and puts red under its stack, seat 2 wins round 3 (yellow-8 = 16 > 14 > 10);
# then the green stack is empty: the episode ends, seat 2 wins with -5 + 10 = 5
SCRIPT = [
    "bid green-8", "commit bid", "bid green-3", "commit bid", "bid green-5", "commit bid",
    "choose green loot", "to seat +2",
    "bid green-1", "bid red-2", "commit bid", "bid red-8", "commit bid", "bid red-7", "commit bid",
    "choose red loot",
    "bid yellow-5", "commit bid", "bid yellow-7", "commit bid", "bid yellow-8", "commit bid",
]  # fmt: skip


def play_script(reward_mode: str) -> tuple[raw_env, list[dict[str, float]]]:
    env = raw_env(num_players=3, loot_fronts=(10,), reward_mode=reward_mode)
    env.reset(seed=0, options={"hands": HANDS})
    rewards = []
    for label in SCRIPT:
        env.step(ACTIONS.from_string(label))
        rewards.append(dict(env.rewards))
    return env, rewards


def test_scripted_episode_win_rewards():
    env, rewards = play_script("win")
    assert env.game.displayed_names() == [[], [], ["green:-5", "yellow:+10"]]
    assert env.game.scores().tolist() == [0, 0, 5]
    assert all(env.terminations.values())
    assert rewards[-1] == {"player_0": -0.5, "player_1": -0.5, "player_2": 1.0}
    assert all(r == 0 for step in rewards[:-1] for r in step.values())


def test_scripted_episode_score_rewards():
    _, rewards = play_script("score")
    gift, loot = SCRIPT.index("to seat +2"), len(SCRIPT) - 1
    assert rewards[gift]["player_2"] == pytest.approx(-0.5)
    assert rewards[loot]["player_2"] == pytest.approx(1.0)
    assert sum(r["player_2"] for r in rewards) == pytest.approx(0.5)
    assert all(r == 0 for i, step in enumerate(rewards) if i not in (gift, loot) for r in step.values())


def test_bids_stay_hidden_until_all_have_bid():
    env = raw_env(num_players=3)
    env.reset(seed=0, options={"hands": HANDS})
    layout = env.observation_layout
    before = [env.observe(a)["observation"].copy() for a in ("player_1", "player_2")]
    for label in ("bid green-8", "bid green-7", "commit bid"):
        env.step(ACTIONS.from_string(label))
        for agent, obs in zip(("player_1", "player_2"), before):
            np.testing.assert_array_equal(env.observe(agent)["observation"], obs)
    own = env.observe("player_0")["observation"][layout["bid"]]
    assert own[POKER_INDEX["green-8"]] == own[POKER_INDEX["green-7"]] == 0.5
    for label in ("bid red-8", "commit bid", "bid red-7", "commit bid"):
        env.step(ACTIONS.from_string(label))
    # revealed: player_1 sees player_0's bid in the row of seat +2, his own in row 0
    bids = layout.unpack(env.observe("player_1")["observation"])["last_bids"]
    assert bids[2, POKER_INDEX["green-8"]] == bids[2, POKER_INDEX["green-7"]] == 0.5
    assert bids[0, POKER_INDEX["red-8"]] == 0.5 and bids[1, POKER_INDEX["red-7"]] == 0.5
    # player_0 won with 15 and chooses now
    chooser = layout.unpack(env.observe("player_1")["observation"])["chooser"]
    assert chooser.tolist() == [0, 0, 1]
    assert env.agent_selection == "player_0"


def test_displayed_rows_are_seat_relative():
    env, _ = play_script("win")
    layout = env.observation_layout
    for seat in range(3):
        rows = layout.unpack(env.observe(f"player_{seat}")["observation"])["displayed"]
        assert rows[(2 - seat) % 3].sum() == 1.0  # two cards x0.5, in seat 2's row
        assert rows.sum() == 1.0


def test_wrapped_env_plays_a_random_episode():
    env = make_env(num_players=5)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        steps += 1
        assert agent in env.possible_agents
    assert steps > 50 and env.unwrapped.game.terminated


def test_the_pages_tables_match_the_code():
    page = game_page("piratenpoker_v0")
    assert raw_env(num_players=4).observation_layout.table() in page
    assert ACTIONS.table() in page


def test_views_compare_by_value():
    env = raw_env(num_players=3)
    env.reset(seed=0, options={"hands": HANDS})
    game = env.game
    first = game.view(1)
    assert first == game.view(1)
    assert (first != game.view(1)) is False
    assert first != game.view(2) and first.table == game.view(2).table
    env.step(ACTIONS.from_string("bid green-8"))  # seat 0's bid changes nothing seat 1 sees
    assert game.view(1) == first
    assert game.view(0).bid[POKER_INDEX["green-8"]] == 1 and game.view(0).hand[POKER_INDEX["green-8"]] == 0


def test_final_observation_has_no_phase_and_a_clean_round():
    env, _ = play_script("win")
    pieces = env.observation_layout.unpack(env.observe("player_0")["observation"])
    assert pieces["phase"].tolist() == [0, 0, 0, 0]
    assert pieces["round"].tolist() == [0, 0, 1]


def test_pass_and_hand_counts_are_documented_as_the_vector_shows_them():
    """While bidding the counts hide this round's bids; from the reveal on they are the current values."""
    env = raw_env(num_players=4)
    layout = env.observation_layout
    descriptions = {p.name: p.description for p in layout.pieces}
    for name in ("own_status", "pass_available", "hand_sizes"):
        assert "unrevealed bid" in descriptions[name] and "start of the round" not in descriptions[name]
    rng = np.random.default_rng(3)
    after_reveal = 0
    env.reset(seed=3)
    while not env.game.done:
        game = env.game
        for seat, agent in enumerate(env.possible_agents):
            pieces = layout.unpack(env.observe(agent)["observation"])
            others = [(seat + r) % 4 for r in range(4)]
            in_hand = [game.hand_size[s] + len(game.bid_names[s]) for s in others]
            np.testing.assert_allclose(pieces["hand_sizes"] * 6, in_hand, atol=1e-5)
            assert pieces["pass_available"].tolist() == [game.pass_available[s] or game.passed[s] for s in others]
            assert pieces["own_status"].tolist() == [game.pass_available[seat], game.committed[seat], game.passed[seat]]
        if game.phase != game.phase.BID:  # after a reveal: nothing hidden, the values are current
            assert not any(game.passed) and not any(game.bid_names)
            after_reveal += 1
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert after_reveal > 10
