"""The network-guided search (PUCT, Gumbel) and the omniscient reference: names, priors, honesty, whole games."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from agents.evaluation.games import play_game
from agents.games import game_agents_of
from agents.policy.mlp import MlpPolicy
from agents.registry import agent_names, agent_player_counts, make_agent
from agents.search.guided import (
    GuidedSearchAgent,
    OmniscientSearchAgent,
    parse_guided_name,
    true_world,
)
from agents.search.ismcts import MAX_SIMULATIONS, determinize
from agents.spec import parse_agent_name
from pirate_envs.piraten_kapern.actions import STOP
from tests.agents.search.test_ismcts import (
    KAPERN,
    PLAYERS,
    kapern_position,
    other_true_state,
    position_with_choice,
    resampler_is_canonical,
)
from tests.helpers import skip_without_shipped_agent


def observe(env):
    """The seat on turn, its observation and its View."""
    seat = env.game.current_player
    return seat, env.observe(env.possible_agents[seat]), env.game.view(seat)


def constant_network(env, favoured: int, strength: float = 8.0) -> MlpPolicy:
    """A one-layer network whose logits ignore the observation and favour the action ``favoured``."""
    weights = np.zeros((env.observation_layout.size, env.num_actions), dtype=np.float32)
    bias = np.zeros(env.num_actions, dtype=np.float32)
    bias[favoured] = strength
    return MlpPolicy([weights], [bias], "Identity")


# ---------------------------------------------------------------------- names
def test_names_parse_and_route_through_the_registry():
    assert parse_guided_name("mcts:50:ppo:skull_king_v0") == ("mcts", 50, "skull_king_v0")
    assert parse_guided_name("gumbel:8:ppo:runs/a.npz") == ("gumbel", 8, "runs/a.npz")
    assert parse_guided_name("mcts:ppo:skull_king_v0", "piratenpoker_v0") == ("mcts", 50, "skull_king_v0")
    assert parse_guided_name("omniscient") == ("omniscient", 200, None)
    assert parse_guided_name("omniscient:12:ppo:x") == ("omniscient", 12, "x")
    assert parse_agent_name("mcts:5:random").kind == "mcts" and parse_agent_name("ppo:skull_king_v0").kind == "ppo"
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=4)
    guided = make_agent("mcts:50:ppo:skull_king_v0", "skull_king_v0", seed=0, env=env)
    assert isinstance(guided, GuidedSearchAgent) and guided.simulations == 50 and guided.network is not None
    assert guided.name == "mcts:50:ppo:skull_king_v0" and guided.root_rule == "mcts"
    assert make_agent("gumbel:9:ppo:skull_king_v0", "skull_king_v0", env=env).root_rule == "gumbel"
    reference = make_agent("omniscient:7", "skull_king_v0", env=env)
    assert isinstance(reference, OmniscientSearchAgent) and reference.simulations == 7
    assert make_agent("omniscient:7:ppo:skull_king_v0", "skull_king_v0", env=env).omniscient
    assert agent_player_counts("mcts:50:ppo:piratenpoker_v0", "piratenpoker_v0") == (3, 4, 5)
    assert not any(name.startswith("omniscient") for name in agent_names("skull_king_v0"))  # never offered at a table


@pytest.mark.parametrize(
    "bad, words",
    [
        ("mcts:0:ppo:x", "'0' simulations"),
        (f"mcts:{MAX_SIMULATIONS + 1}:ppo:skull_king_v0", "1..100000"),
        ("gumbel:5:ppo:no_such_agent", "no shipped agent 'no_such_agent'"),
        ("mcts:5:ppo:runs/missing.npz", "no checkpoint file"),
        ("mcts:5:ppo:piraten_kapern_v0", "trained on piraten_kapern_v0"),
        ("mcts:5:ppo:", "use 'mcts:<simulations>:ppo:<agent>'"),
        ("gumbel:5", "use 'mcts:<simulations>:ppo:<agent>'"),
        ("omniscient:5:random", "use 'mcts:<simulations>:ppo:<agent>'"),
        ("omniscient:x", "'x' simulations"),
    ],
)
def test_bad_names_are_one_line_errors(bad, words):
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=4)
    with pytest.raises(ValueError) as caught:
        make_agent(bad, "skull_king_v0", env=env)
    message = str(caught.value)
    assert "\n" not in message and words in message and "bad search agent" in message


def test_guided_search_needs_its_env():
    with pytest.raises(ValueError, match="pass the env"):
        make_agent("mcts:5:ppo:skull_king_v0", "skull_king_v0")
    with pytest.raises(ValueError, match="pass the env"):
        make_agent("omniscient", "skull_king_v0")


# ---------------------------------------------------------------------- whole games
@pytest.mark.parametrize("kind", ["mcts", "gumbel"])
def test_guided_search_plays_whole_games_at_tiny_budgets(env_id, kind):
    """8 iterations a move, the shipped network's priors, against heuristics: a whole legal game (env.step checks)."""
    skip_without_shipped_agent(env_id)
    n = PLAYERS[env_id]
    env = pirate_envs.make(env_id, raw=True, num_players=n)
    search = make_agent(f"{kind}:8:ppo:{env_id}", env_id, seed=1, env=env)
    others = [make_agent("heuristic", env_id, seed=s, env=env) for s in range(1, n)]
    record = play_game(env, [*others[:1], search, *others[1:]], seed=3)
    assert env.game.done and len(record.scores) == n


def test_omniscient_plays_whole_games(env_id):
    n = PLAYERS[env_id]
    env = pirate_envs.make(env_id, raw=True, num_players=n)
    reference = make_agent("omniscient:6", env_id, seed=1, env=env)
    others = [make_agent("heuristic", env_id, seed=s, env=env) for s in range(1, n)]
    assert len(play_game(env, [reference, *others], seed=4).scores) == n


# ---------------------------------------------------------------------- priors and PUCT
def kapern_sure_win():
    """Seat 0's final turn: stopping banks 600 for 6600 against the opponent's final 6500 (a sure win);
    any re-roll can bring the third skull and lose."""
    env = kapern_position("gold", [3, 0, 1, 1, 1, 2], [6000, 6500])
    env.game.final_trigger, env.game.final_turns_left = 1, [True, False]
    assert env.game.turn_points == 600
    return env


def test_uniform_puct_finds_the_sure_win_like_plain_uct():
    """PUCT with a uniform prior and heuristic rollouts stops, as the plain UCT search does."""
    env = kapern_sure_win()
    _, obs, view = observe(env)
    uct = make_agent("mcts:100", KAPERN, seed=2, env=env).act(obs, view)
    keywords = game_agents_of(KAPERN).search_keywords()
    puct = GuidedSearchAgent(env, KAPERN, None, simulations=100, seed=2, **keywords)
    assert uct == STOP and puct.act(obs, view) == STOP
    root = puct.search()
    assert max(root.children.values(), key=lambda c: c.visits).action == STOP


def test_mixed_prior_lets_the_search_overturn_a_confident_wrong_prior():
    """A network sure of a re-roll in the sure-win position: with its raw prior the search re-rolls (it searches
    nothing else); with a quarter of the uniform mixed in (the default) the stop is tried once the re-roll has
    some 85 visits (its prior share 0.009 of the re-roll's 0.76) and takes the most visits by 200."""
    env = kapern_sure_win()
    _, obs, view = observe(env)
    keywords = game_agents_of(KAPERN).search_keywords()
    reroll = next(a for a in np.flatnonzero(obs["action_mask"]).tolist() if a != STOP)
    network = constant_network(env, reroll, 30.0)
    raw = GuidedSearchAgent(env, KAPERN, network, simulations=200, prior_mix=0.0, seed=2, **keywords)
    mixed = GuidedSearchAgent(env, KAPERN, network, simulations=200, seed=2, **keywords)
    assert raw.act(obs, view) == reroll and mixed.act(obs, view) == STOP


def test_network_priors_pull_the_visits_toward_the_prior():
    """At 16 iterations, a network that favours one move (the one the uniform search visits least)
    gives it most of the visits; the uniform prior does not."""
    env = position_with_choice("skull_king_v0", seed=11, skip=6)
    uniform = GuidedSearchAgent(env, "skull_king_v0", None, simulations=16, seed=0).search()
    legal = np.flatnonzero(env.game.legal_mask()).tolist()
    least = min(legal, key=lambda a: (uniform.children[a].visits if a in uniform.children else 0, a))
    guided = GuidedSearchAgent(env, "skull_king_v0", constant_network(env, least), simulations=16, seed=0).search()
    before = uniform.children[least].visits if least in uniform.children else 0
    assert guided.children[least].visits >= 8 > before


def test_gumbel_root_follows_a_confident_prior():
    """Gumbel's root: with the raw prior (nothing mixed in) of almost all mass on one move and a budget too small
    to overturn it, that move."""
    env = position_with_choice("skull_king_v0", seed=13, skip=3)
    _, obs, view = observe(env)
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    for favoured in (legal[0], legal[-1]):
        network = constant_network(env, favoured, 30.0)
        agent = GuidedSearchAgent(env, "skull_king_v0", network, simulations=4, root="gumbel", prior_mix=0.0, seed=1)
        assert agent.act(obs, view) == favoured


class ValueNetwork:
    """A stand-in for a network with a value head: uniform logits, value = the observation's first entry + seat."""

    has_value = True

    def __init__(self, num_actions: int):
        self.num_actions = num_actions

    def logits(self, obs):
        return np.zeros(self.num_actions, dtype=np.float32)

    def value(self, observations):
        return np.asarray(observations)[:, 0] + np.arange(len(observations))


def test_value_head_values_the_leaves_from_each_seats_view():
    env = position_with_choice("skull_king_v0", seed=2, skip=5)
    agent = GuidedSearchAgent(env, "skull_king_v0", ValueNetwork(env.num_actions), simulations=6, seed=0)
    assert agent.value_leaves and agent.horizon is None  # the head values the whole game
    world = determinize(env.game, env.game.current_player, np.random.default_rng(0))
    expected = [env.encode(world.view(s))[0] + s for s in range(world.num_players)]
    assert agent.leaf_estimate(world, None, 0.0).tolist() == pytest.approx(expected)
    root = agent.search()
    assert root.visits == 6
    plain = GuidedSearchAgent(env, "skull_king_v0", constant_network(env, 0), simulations=6, seed=0)
    assert not plain.value_leaves and plain.horizon == 1  # no value head: rollouts to the game's horizon


# ---------------------------------------------------------------------- honesty
def moves_in(name: str, env_id: str, envs, seed: int) -> list[int]:
    """The move of a fresh agent ``name`` (seeded alike) in each env, for the seat on turn there."""
    moves = []
    for env in envs:
        _, obs, view = observe(env)
        moves.append(make_agent(name, env_id, seed=seed, env=env).act(obs, view))
    return moves


@pytest.mark.parametrize("name", ["mcts:30:ppo:{}", "gumbel:16:ppo:{}"])
def test_guided_search_is_honest(env_id, name):
    """Two games that look the same to the seat (other hidden cards, other dice to come): the same move."""
    skip_without_shipped_agent(env_id)
    env = position_with_choice(env_id, seed=23, skip=5)
    seat = env.game.current_player
    twin = other_true_state(env, seat, seed=99)
    me = env.possible_agents[seat]
    assert np.array_equal(env.observe(me)["observation"], twin.observe(me)["observation"])
    if not resampler_is_canonical(env, twin, seat):
        pytest.xfail(f"{env_id}: resample_hidden's draw depends on the order of the true hidden cards")
    moves = moves_in(name.format(env_id), env_id, (env, twin), seed=8)
    assert moves[0] == moves[1]


def test_omniscient_worlds_keep_the_hidden_cards_and_draw_the_future_afresh():
    env = position_with_choice("skull_king_v0", seed=6, skip=4)
    game = env.game
    seat = game.current_player
    world = true_world(game, np.random.default_rng(3))
    assert world.render() == game.render() and world.chance is not game.chance
    assert determinize(game, seat, np.random.default_rng(3)).render() != game.render()


def test_omniscient_moves_depend_on_the_hidden_cards():
    """Games that look the same to the seat but hold other hands: the honest search moves alike in each pair,
    the omniscient one does not (it plays to the hands it sees)."""
    differs = 0
    for seed in range(6):
        env = position_with_choice("skull_king_v0", seed=40 + seed, skip=8)
        seat = env.game.current_player
        twin = other_true_state(env, seat, seed=seed)
        if not resampler_is_canonical(env, twin, seat):
            continue
        honest = moves_in("mcts:20", "skull_king_v0", (env, twin), seed=1)
        assert honest[0] == honest[1]
        seen = moves_in("omniscient:20", "skull_king_v0", (env, twin), seed=1)
        differs += seen[0] != seen[1]
    assert differs >= 1


def first_round_bid_made(name: str, seed: int) -> bool:
    """Whether the agent ``name`` makes its bid in the first round of a 2-player Skull King deal (one card each:
    the bid is right exactly when it says whether its card takes the trick); the rest played by heuristics."""
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=2)
    env.reset(seed=seed)
    game = env.game
    seat, obs, view = observe(env)
    env.step(make_agent(name, "skull_king_v0", seed=0, env=env).act(obs, view))
    heuristic = make_agent("heuristic", "skull_king_v0", seed=0, env=env)
    while not game.scores().any():  # the first round scores every seat (a bid made or missed)
        _, obs, view = observe(env)
        env.step(heuristic.act(obs, view))
    return game.scores()[seat] > 0


def test_omniscient_exploits_the_hidden_card():
    """Seeing the other seat's card, the reference makes its first-round bid in every deal; the honest search,
    which cannot see it, misses some."""
    made = {name: [first_round_bid_made(name, seed) for seed in range(10)] for name in ("omniscient:16", "mcts:16")}
    assert all(made["omniscient:16"]) and not all(made["mcts:16"])


def test_network_rollouts_and_bad_options():
    env = position_with_choice("skull_king_v0", seed=3, skip=4)
    _, obs, view = observe(env)
    network = constant_network(env, 0)
    agent = GuidedSearchAgent(env, "skull_king_v0", network, simulations=8, rollout="network", seed=0)
    assert agent.rollout_agent is None and obs["action_mask"][agent.act(obs, view)]
    for options, words in (
        ({"root": "ucb"}, "root must be one of"),
        ({"leaf": "oracle"}, "leaf must be one of"),
        ({"rollout": "greedy"}, "rollout must be one of"),
        ({"leaf": "value"}, "needs a network with a value head"),
        ({"prior_mix": 1.5}, "prior_mix must lie in"),
    ):
        with pytest.raises(ValueError, match=words):
            GuidedSearchAgent(env, "skull_king_v0", network, simulations=8, **options)
    with pytest.raises(ValueError, match="rollout='network' needs a network"):
        GuidedSearchAgent(env, "skull_king_v0", None, rollout="network")
