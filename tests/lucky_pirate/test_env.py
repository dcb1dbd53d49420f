"""Lucky Pirate AEC env: observation layout and values, rewards, the heuristic agent."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import Agent, RandomAgent
from agents.lucky_pirate.heuristic import LAY_UP_FIRST, LuckyPirateHeuristic
from pirate_envs.lucky_pirate.actions import ACTIONS, PICK_UP, play_action
from pirate_envs.lucky_pirate.cards import KIND_INDEX
from pirate_envs.lucky_pirate_v0 import env as make_env
from pirate_envs.lucky_pirate_v0 import raw_env
from tests.doc_pages import game_page

SHORT_GAME = [{"hand": ["2"], "up": ["4"], "down": ["kraken"]}, {"hand": ["3"], "up": ["1"], "down": ["6"]}]


def short_game(**kwargs) -> raw_env:
    env = raw_env(num_players=2, **kwargs)
    env.reset(seed=0, options={"deal": SHORT_GAME, "dealer": 1})
    return env


def test_layout_sizes_and_the_pages_tables():
    for n in range(2, 7):
        layout = raw_env(num_players=n).observation_layout
        assert layout.size == 17 + 20 * n + 17 + 4 + 4 + 51 + 11 + 3 + 10 + n
        assert raw_env(num_players=n, observe_known=True).observation_layout.size == layout.size + 17 * n
    page = game_page("lucky_pirate_v0")
    assert raw_env().observation_layout.table() in page
    assert ACTIONS.table() in page and len(ACTIONS) == 124


def test_observation_values_after_one_play():
    env = short_game()
    env.step(play_action(KIND_INDEX["2"], 1))  # seat 0 plays its 2; seat 1 is on turn
    obs = env.observe("player_1")
    parts = env.observation_layout.unpack(obs["observation"])
    assert parts["hand"].tolist() == [0, 0, 0.25] + [0] * 14  # one 3, out of at most 4 copies
    me, other = parts["players"]
    assert me[0] == 0.25 and me[17:].tolist() == pytest.approx([1 / 60, 0.25, 0])  # up 1, hand 1, down 1
    assert other[3] == 0.25 and other[17:].tolist() == pytest.approx([0, 0.25, 0])  # up 4, empty hand
    assert parts["down_slots"].tolist() == [1, 0, 0, 0]
    assert parts["pile_size"][0] == pytest.approx(1 / 60) and parts["run_length"][0] == pytest.approx(1 / 3)
    assert parts["direction"][0] == 1 and not parts["removed"].any() and not parts["setting_up"].any()
    assert np.flatnonzero(parts["pile_top"][0]).tolist() == [KIND_INDEX["2"]] and not parts["pile_top"][1:].any()
    assert np.flatnonzero(parts["pile_value"]).tolist() == [2]
    assert parts["pile_mode"].tolist() == [1, 0, 0]
    assert np.flatnonzero(parts["run_kind"]).tolist() == [KIND_INDEX["2"]]
    assert parts["to_play"].tolist() == [1, 0]
    assert np.flatnonzero(obs["action_mask"]).tolist() == [play_action(KIND_INDEX["3"], 1)]
    assert not env.observe("player_0")["action_mask"].any()


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_rewards_of_the_whole_short_game(reward_mode):
    env = short_game(reward_mode=reward_mode)
    for card in ("2", "3", "4"):
        env.step(play_action(KIND_INDEX[card], 1))
    env.step(PICK_UP)
    env.step(env.game.legal_actions()[0])  # seat 0's Kraken, blind: it wins
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0 if reward_mode == "win" else 0.0}


def test_wrapped_random_games_end_for_three_to_six_players():
    """Under the default First Mate ruling random games of 3..6 players end (see the env docstring)."""
    for n in range(3, 7):
        env = make_env(num_players=n)
        agent = RandomAgent(seed=n)
        for game in range(5):
            env.reset(seed=game)
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                assert not truncated
                env.step(None if terminated else agent.act(obs))


def test_heuristic_plays_low_numbers_first_and_specials_when_stuck():
    agent = LuckyPirateHeuristic()
    assert isinstance(agent, Agent)
    env = raw_env(num_players=2)
    hand = ["3", "3", "5", "captain", "porthole", "parrot"]
    env.reset(seed=0, options={"deal": [{**SHORT_GAME[1], "hand": hand}, SHORT_GAME[0]], "dealer": 1})
    view = env.game.view(0)
    assert ACTIONS.to_string(agent.act(env.observe("player_0"), view)) == "play 2 x 3"
    env.reset(seed=0, options={"deal": [{**SHORT_GAME[1], "hand": hand}, SHORT_GAME[0]], "dealer": 1, "pile": ["8"]})
    assert ACTIONS.to_string(agent.act(env.observe("player_0"), env.game.view(0))) == "play 1 x porthole"


def test_heuristic_lays_its_strongest_cards_up_and_plays_a_whole_game():
    env = make_env(num_players=3, choose_up_cards=True)
    env.reset(seed=2)
    game = env.unwrapped.game
    agent = LuckyPirateHeuristic()
    seat = game.current_player
    before = game.hands[seat].copy()
    for _ in range(3):
        env.step(agent.act(env.observe(env.agent_selection), game.view(seat)))
    laid = game.ups[seat]
    assert laid.sum() == 3 and (before - laid >= 0).all()
    strongest = [k for k in LAY_UP_FIRST for _ in range(before[k])][:3]
    assert np.bincount(strongest, minlength=len(laid)).tolist() == laid.tolist()
    for agent_name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        view = game.view(env.unwrapped.seat_of(agent_name))
        env.step(None if terminated or truncated else agent.act(obs, view))
    assert game.terminated


def heuristic_results(games: int, num_players: int) -> tuple[int, int]:
    """Wins of one heuristic seat (rotating) against random agents, and games that ended."""
    env = make_env(num_players=num_players)
    heuristic, random_agent = LuckyPirateHeuristic(), RandomAgent(seed=1)
    wins = ended = 0
    for game in range(games):
        env.reset(seed=game)
        seat = game % num_players
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                if agent == f"player_{seat}":
                    wins += reward > 0
                    ended += terminated
                env.step(None)
                continue
            player = heuristic if agent == f"player_{seat}" else random_agent
            env.step(player.act(obs, env.unwrapped.game.view(env.unwrapped.seat_of(agent))))
    return wins, ended


def test_heuristic_beats_random_players():
    wins, ended = heuristic_results(games=120, num_players=4)
    assert ended == 120
    assert wins / ended > 0.45  # random seats win 25% on average


def assert_same_step(envs: list, action: int) -> None:
    """Step every env with ``action``; they must show the same observations, masks and rewards."""
    for env in envs:
        env.step(action)
    first = envs[0]
    for other in envs[1:]:
        assert other.agent_selection == first.agent_selection
        assert other.rewards == first.rewards and other._cumulative_rewards == first._cumulative_rewards
        assert other.terminations == first.terminations and other.truncations == first.truncations
        for agent in first.possible_agents:
            mine, theirs = first.observe(agent), other.observe(agent)
            assert np.array_equal(mine["observation"], theirs["observation"]), agent
            assert np.array_equal(mine["action_mask"], theirs["action_mask"]), agent


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_pickled_and_deep_copied_envs_play_on_exactly_and_independently(n):
    """A copy taken at any point plays on as the original would, and stepping it leaves the original alone."""
    import copy
    import pickle

    env = raw_env(num_players=n, wins_to_win=2, reward_mode="score")
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    copies_taken = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        if rng.random() < 0.03:  # take copies at random points, play both on to the end
            copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
            before = env.observe(env.agent_selection)["observation"].copy()
            stray = copy.deepcopy(env)  # stepping another copy must not touch the original
            stray.step(int(np.flatnonzero(stray.observe(stray.agent_selection)["action_mask"])[-1]))
            assert np.array_equal(env.observe(env.agent_selection)["observation"], before)
            for _ in range(40):
                if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                    break
                legal_actions = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
                assert_same_step([env, *copies], int(rng.choice(legal_actions)))
            copies_taken += 1
            continue
        legal_actions = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal_actions)))
    assert copies_taken >= 2


def play_heuristics(num_players: int, games: int, **config) -> tuple[int, list[list[int]]]:
    """Games won (not truncated) by heuristics in every seat, and each game's actions."""
    env = raw_env(num_players=num_players, **config)
    won, actions = 0, []
    for game in range(games):
        env.reset(seed=game)
        agents = [LuckyPirateHeuristic() for _ in range(num_players)]
        for seat, agent in enumerate(agents):
            agent.reset(seed=game * num_players + seat)
        played = []
        while not env.game.done:
            seat = env.game.current_player
            played.append(agents[seat].act(env.observe(env.possible_agents[seat]), env.game.view(seat)))
            env.step(played[-1])
        won += env.game.terminated
        actions.append(played)
    return won, actions


def test_two_heuristics_make_progress_and_finish_their_games():
    """Two deterministic players used to repeat the same positions until the guard."""
    won, _ = play_heuristics(2, 100, max_turns=3000)
    assert won >= 97


def test_heuristic_varies_its_move_on_a_repeated_position_only_and_is_seeded():
    env = raw_env(num_players=2)
    hand = ["3", "3", "5", "captain", "porthole", "parrot"]
    env.reset(seed=0, options={"deal": [{**SHORT_GAME[1], "hand": hand}, SHORT_GAME[0]], "dealer": 1})
    obs, view = env.observe("player_0"), env.game.view(0)
    legal_actions = set(np.flatnonzero(obs["action_mask"]).tolist())
    choices = []
    for seed in range(20):
        agent = LuckyPirateHeuristic()
        agent.reset(seed=seed)
        assert ACTIONS.to_string(agent.act(obs, view)) == "play 2 x 3"  # first visit: the preferred move
        repeats = [agent.act(obs, view) for _ in range(5)]
        assert set(repeats) <= legal_actions
        twin = LuckyPirateHeuristic()
        twin.reset(seed=seed)
        twin.act(obs, view)
        assert [twin.act(obs, view) for _ in range(5)] == repeats  # the same seed, the same choices
        choices += repeats
        agent.reset(seed=seed)  # a reset forgets the positions seen
        assert ACTIONS.to_string(agent.act(obs, view)) == "play 2 x 3"
    assert len(set(choices)) > 3
    assert play_heuristics(2, 3)[1] == play_heuristics(2, 3)[1]


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_tournament_rewards_keep_the_wins_of_games_before_a_set_aside_one(reward_mode):
    from pirate_envs.lucky_pirate.actions import down_action

    env = raw_env(num_players=3, wins_to_win=3, max_turns=2, max_set_aside_games=1, reward_mode=reward_mode)
    filler = {"up": ["1"], "down": ["2"]}
    deal = [{"down": ["kraken"]}, {"hand": ["4"], **filler}, {"hand": ["5"], **filler}]
    env.reset(seed=0, options={"deal": deal, "dealer": 2, "pile": ["8"]})
    totals = dict.fromkeys(env.possible_agents, 0.0)
    env.step(down_action(0))  # player_0 wins the first game; a random second game is dealt
    for _ in range(4):  # two games reach the guard: one set aside, then the tournament limit
        assert not any(env.truncations.values())
        for agent in env.possible_agents:
            totals[agent] += env.rewards[agent]
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    for agent in env.possible_agents:
        totals[agent] += env.rewards[agent]
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.game.truncation_reason == "set-aside game limit" and env.game.set_aside_games == ["turn limit"] * 2
    assert env.game.scores().tolist() == [1.0, 0.0, 0.0]
    expected = [1.0, 0.0, 0.0] if reward_mode == "score" else [0.0, 0.0, 0.0]  # a truncated episode pays 0 in win mode
    assert list(totals.values()) == expected
