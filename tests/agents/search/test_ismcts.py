"""The information-set search agent: legal, seeded, honest, and named through the registry."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pirate_envs
from agents.base import action_blocks, sample_legal
from agents.evaluation.games import play_game
from agents.games import game_agents_of
from agents.piraten_kapern.lookahead import action_values
from agents.registry import agent_names, make_agent
from agents.search.ismcts import (
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    TURN,
    CanonicalDraws,
    ScoreChanges,
    SearchAgent,
    TurnEnds,
    determinize,
    parse_mcts_name,
    returns_of,
)
from pirate_envs.core.chance import GeneratorChance, WithDice
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, STOP, reroll_action, reroll_counts
from pirate_envs.piraten_kapern.engine import Phase, TurnState
from tests.game_data import golden

#: Each game at its default table.
PLAYERS = {spec.env_id: spec.default_players for spec in pirate_envs.GAME_SPECS}


def position_with_choice(env_id: str, seed: int, skip: int):
    """A raw env after ``skip`` random moves or more, at a decision with several legal actions."""
    env = pirate_envs.make(env_id, raw=True, num_players=PLAYERS[env_id])
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    blocks = action_blocks(env)
    moves = 0
    while True:
        mask = env.game.legal_mask()
        if moves >= skip and mask.sum() > 1:
            return env
        env.step(sample_legal(mask, rng, blocks))
        moves += 1
        assert not env.game.done, "the game ended before a decision with a choice"


def fresh_streams(game, seed: int) -> None:
    """Give ``game`` a new chance source from ``seed`` (future deals and dice)."""
    game.chance = GeneratorChance(np.random.default_rng(seed))


def other_true_state(env, seat: int, seed: int):
    """A copy of ``env`` whose hidden state differs: hands redrawn for ``seat``, new random streams."""
    twin = copy.deepcopy(env)
    rng = np.random.default_rng(seed)
    fresh_streams(twin.game, seed + 1)
    twin.game.resample_hidden(seat, rng)  # a plain generator: the hidden cards in another order too
    twin._obs_cache.clear()
    return twin


def test_registry_names_and_errors():
    env = pirate_envs.make("skull_king_v0", raw=True)
    assert "mcts" in agent_names("skull_king_v0")
    assert make_agent("mcts", "skull_king_v0", env=env).simulations == DEFAULT_SIMULATIONS
    agent = make_agent("mcts:7:random", "skull_king_v0", env=env)
    assert (agent.simulations, agent.rollout_agent, agent.name) == (7, None, "mcts:7:random")
    assert parse_mcts_name("mcts:12") == (12, "heuristic")
    poker = pirate_envs.make("piratenpoker_v0", raw=True)
    poker_budget = game_agents_of("piratenpoker_v0").search_simulations
    assert make_agent("mcts", "piratenpoker_v0", env=poker).simulations == poker_budget == 50
    assert make_agent("mcts:200", "piratenpoker_v0", env=poker).simulations == 200
    for bad in ("mcts:0", "mcts:x", "mcts:5:greedy", "mcts:5:random:1", "mcts:-3", "mcts:\u00b2", "mcts:+5"):
        with pytest.raises(ValueError, match="bad search agent"):
            make_agent(bad, "skull_king_v0", env=env)
    with pytest.raises(ValueError, match="pass the env"):
        make_agent("mcts", "skull_king_v0")
    with pytest.raises(ValueError, match="simulations"):
        SearchAgent(env, "skull_king_v0", simulations=0)


def test_search_budget_is_bounded_by_max_simulations():
    """A huge budget is refused at once with one line (it used to be taken, and the first move hung)."""
    env = pirate_envs.make("skull_king_v0", raw=True)
    assert make_agent(f"mcts:{MAX_SIMULATIONS}", "skull_king_v0", env=env).simulations == MAX_SIMULATIONS
    assert parse_mcts_name(f"mcts:000{MAX_SIMULATIONS}:random") == (MAX_SIMULATIONS, "random")
    for digits in (str(MAX_SIMULATIONS + 1), "99999999999999", "9" * 10_000):
        with pytest.raises(ValueError) as caught:
            make_agent(f"mcts:{digits}", "skull_king_v0", env=env)
        message = str(caught.value)
        assert "\n" not in message and len(message) < 300 and digits[:20] in message
        assert f"MAX_SIMULATIONS = {MAX_SIMULATIONS}" in message and f"allowed: 1..{MAX_SIMULATIONS}" in message
    for bad in (MAX_SIMULATIONS + 1, 2**70, True, 5.0):
        with pytest.raises(ValueError, match=rf"simulations={bad!r}.*1\.\.{MAX_SIMULATIONS}"):
            SearchAgent(env, "skull_king_v0", simulations=bad)
    with pytest.raises(ValueError, match="win_bonus"):
        SearchAgent(env, "skull_king_v0", win_bonus=-1.0)
    with pytest.raises(ValueError, match="horizon"):
        SearchAgent(env, "skull_king_v0", horizon="round")


def test_returns_are_leads_over_the_best_other_seat():
    assert returns_of(np.array([10.0, 40.0, 25.0])).tolist() == [-30.0, 15.0, -15.0]
    assert returns_of(np.array([5.0, 5.0])).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("rollout", ["heuristic", "random"])
def test_plays_whole_games_legally(env_id, rollout):
    """A tiny budget plays a full game in every seat arrangement the rotation gives (env.step checks legality)."""
    n = PLAYERS[env_id]
    env = pirate_envs.make(env_id, raw=True, num_players=n)
    search = make_agent(f"mcts:4:{rollout}", env_id, seed=1, env=env)
    others = [make_agent("heuristic", env_id, seed=s, env=env) for s in range(1, n)]
    record = play_game(env, [search, *others], seed=3)
    assert env.game.done and len(record.scores) == n


def test_same_seed_same_move(env_id):
    env = position_with_choice(env_id, seed=11, skip=6)
    seat = env.game.current_player
    obs, view = env.observe(env.possible_agents[seat]), env.game.view(seat)
    moves = {make_agent("mcts:24", env_id, seed=5, env=env).act(obs, view) for _ in range(2)}
    assert len(moves) == 1 and obs["action_mask"][moves.pop()]


def resampler_is_canonical(env, twin, seat: int) -> bool:
    """Whether ``resample_hidden`` draws the same world from two games that look the same to ``seat``.

    Both get equal fresh streams, are redrawn with equal :class:`CanonicalDraws` and played on
    with the same random moves; the full states must stay equal, or no search built on the
    engine's resampler can be seed-for-seed honest.
    """
    worlds = [copy.deepcopy(e.game) for e in (env, twin)]
    for world in worlds:
        fresh_streams(world, 3)
        world.resample_hidden(seat, CanonicalDraws(np.random.default_rng(7)))
    blocks = action_blocks(env)
    for step in range(40):
        if worlds[0].render() != worlds[1].render():
            return False
        if worlds[0].done:
            return True
        action = sample_legal(worlds[0].legal_mask(), np.random.default_rng(step), blocks)
        for world in worlds:
            world.apply(action)
    return True


@pytest.mark.parametrize("skip", [3, 9])
@pytest.mark.parametrize("horizon", [1, None])
def test_honest_same_view_other_hidden_state_same_move(env_id, skip, horizon):
    """Only what the seat cannot see differs between the two games (hidden cards, future deals and
    dice): the move is the same. Rollouts to the game's end reach the deals of later hands."""
    env = position_with_choice(env_id, seed=20 + skip, skip=skip)
    seat = env.game.current_player
    twin = other_true_state(env, seat, seed=99)
    me = env.possible_agents[seat]
    assert np.array_equal(env.observe(me)["observation"], twin.observe(me)["observation"])
    assert env.game.render() != twin.game.render() or env_id == "piraten_kapern_v0"  # Kapern hides only the future
    if not resampler_is_canonical(env, twin, seat):
        pytest.xfail(f"{env_id}: resample_hidden's draw depends on the order of the true hidden cards")
    moves = []
    for game_env in (env, twin):
        agent = SearchAgent(game_env, env_id, simulations=30, horizon=horizon, seed=8)
        moves.append(agent.act(game_env.observe(me), game_env.game.view(seat)))
    assert moves[0] == moves[1]


def test_search_leaves_the_true_game_untouched(env_id):
    env = position_with_choice(env_id, seed=4, skip=5)
    seat = env.game.current_player
    before = env.game.render(), env.game.scores().tolist()
    make_agent("mcts:16", env_id, seed=0, env=env).act(env.observe(env.possible_agents[seat]), env.game.view(seat))
    assert (env.game.render(), env.game.scores().tolist()) == before


@pytest.mark.slow
def test_search_beats_random_in_kapern():
    env = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=2)
    search = make_agent("mcts:30", "piraten_kapern_v0", seed=0, env=env)
    rand = make_agent("random", "piraten_kapern_v0", seed=1, env=env)
    lineups = [[search, rand], [rand, search]]
    wins = sum(play_game(env, lineups[g % 2], seed=g).win_shares[g % 2] for g in range(20))
    assert wins >= 15


def test_clone_plays_on_like_the_original(env_id):
    """A clone given the same actions plays exactly like a deep copy (its chance cloned); the original is untouched."""
    env = pirate_envs.make(env_id, raw=True, num_players=PLAYERS[env_id])
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    blocks = action_blocks(env)
    for checkpoint in range(6):
        for _ in range(9 * checkpoint):
            if env.game.done:
                return
            env.step(sample_legal(env.game.legal_mask(), rng, blocks))
        before = env.game.render()
        twins = [copy.deepcopy(env.game), env.game.clone()]
        moves = np.random.default_rng(checkpoint)
        for _ in range(60):
            assert twins[0].render() == twins[1].render()
            assert twins[0].scores().tolist() == twins[1].scores().tolist()
            if twins[0].done:
                break
            assert np.array_equal(twins[0].legal_mask(), twins[1].legal_mask())
            action = sample_legal(twins[0].legal_mask(), moves, blocks)
            for twin in twins:
                twin.apply(action)
        assert env.game.render() == before


class FakeWorld:
    """A stand-in for an engine: fixed scores and an end flag."""

    def __init__(self, scores, done=False):
        self._scores, self.done = np.array(scores, dtype=float), done

    def scores(self):
        return self._scores


def test_rollouts_stop_after_the_horizon_of_score_changes():
    horizon = ScoreChanges([0.0, 0.0], limit=2)
    assert not horizon.over(FakeWorld([0, 0]))  # nothing scored yet
    assert not horizon.over(FakeWorld([5, 0]))  # one change
    assert not horizon.over(FakeWorld([5, 0]))  # the same scores: still one
    assert horizon.over(FakeWorld([5, 3]))  # two changes
    assert ScoreChanges([0.0], limit=None).over(FakeWorld([9], done=True))
    assert not ScoreChanges([0.0], limit=None).over(FakeWorld([9]))
    env = pirate_envs.make("piratenpoker_v0", raw=True)
    assert make_agent("mcts", "piratenpoker_v0", env=env).horizon == 3
    assert make_agent("mcts", "skull_king_v0", env=pirate_envs.make("skull_king_v0", raw=True)).horizon == 1


# ---------------------------------------------------------------------- Kapern
KAPERN = "piraten_kapern_v0"


def kapern_position(card: str, free: list[int], scores: list[int], chest: list[int] | None = None):
    """A 2-player raw Kapern env at seat 0's decision: ``card``, these dice (counts per face) and scores."""
    env = pirate_envs.make(KAPERN, raw=True, num_players=2)
    env.reset(seed=0)
    game = env.game
    game.current_player = 0
    game.phase = Phase.ROLLING
    game.turn = TurnState(card=card, free=list(free), chest=list(chest or [0] * 6), rolls=2)
    game._scores = list(scores)
    game._update_turn_points()
    env._obs_cache.clear()
    return env


def scripted_dice(*rolls):
    """A dice source that returns these count vectors in order."""
    queue = list(rolls)
    return lambda n: queue.pop(0)


def test_kapern_lookahead_values_by_hand():
    """Captain, 5 coins, a monkey, a sabre, a skull: stop 2 x 1000; re-rolling the monkey and
    the sabre, over the 36 rolls of two dice: 1 x 5400 (two coins), 2 x 3400 (coin and
    diamond), 8 x 3200 (another coin), 1 x 2400 (two diamonds), 8 x 2200 (a diamond), 15 x 2000,
    1 x 0 (two skulls: bust) = 87800 / 36. Treasure Chest with 3 coins on the chest, 3 monkeys
    and 2 skulls free, re-rolling the monkeys: 91 of 216 rolls bring a skull (bust, the chest
    keeps 3 coins: 400); the other 125 sum to 75900 (100 per coin and diamond, the coin set,
    a diamond or monkey/parrot/sabre triple)."""
    view = kapern_position("captain", [5, 0, 1, 0, 1, 1], [0, 0]).game.view(0)
    actions = [STOP, reroll_action((0, 0, 1, 0, 1, 0))]
    assert action_values(view, actions) == pytest.approx([2000.0, 87800 / 36])
    view = kapern_position("treasure_chest", [0, 0, 3, 0, 0, 2], [0, 0], chest=[3, 0, 0, 0, 0, 0]).game.view(0)
    actions = [reroll_action((0, 0, 3, 0, 0, 0)), CHEST_PUT_OFFSET + 2, CHEST_TAKE_OFFSET]
    values = action_values(view, actions)
    assert values[0] == pytest.approx((91 * 400 + 75900) / 216)
    assert values[1] == np.inf and values[2] == -np.inf  # chest puts first, takes last


def test_kapern_rollouts_end_with_the_turn():
    """A bust scores nothing, yet the turn is over: the rollout stops there, not after the
    opponent's next scoring turn (which would charge a bust with the opponent's turn)."""
    env = pirate_envs.make(KAPERN, raw=True)
    assert make_agent("mcts", KAPERN, env=env).horizon == TURN
    game = kapern_position("gold", [2, 1, 1, 1, 1, 2], [300, 500]).game
    game.chance = WithDice(game.chance, scripted_dice((0, 0, 0, 0, 1, 1), (2, 2, 2, 1, 1, 0)))
    turn_ends, score_changes = TurnEnds(game), ScoreChanges([300.0, 500.0], limit=1)
    assert not turn_ends.over(game)
    game.apply(reroll_action((0, 0, 1, 1, 0, 0)))  # a sabre and the third skull
    assert game.current_player == 1 and game.scores().tolist() == [300.0, 500.0]
    assert turn_ends.over(game) and not score_changes.over(game)


def test_kapern_search_is_closed_loop_over_the_dice():
    """After a re-roll the tree holds one node per roll seen (keyed by the searcher's view), so
    the moves after it are chosen for those dice."""
    env = kapern_position("gold", [2, 1, 2, 1, 2, 0], [0, 0])
    root = make_agent("mcts:80", KAPERN, seed=3, env=env).search()
    rerolls = [c for c in root.children.values() if c.action != STOP and c.visits > 2]
    assert rerolls
    for child in rerolls:
        assert sum(o.visits for o in child.outcomes.values()) == child.visits - 1  # all but its expansion
        assert len({view.free for view in child.outcomes}) > 1
        for view, outcome in child.outcomes.items():
            for action in outcome.children:  # every move tried after this roll is legal for its dice
                counts = reroll_counts(action) if action != STOP else (0,) * 6
                assert all(c <= f for c, f in zip(counts[:5], view.free[:5]))


def test_kapern_widening_adds_moves_by_their_one_step_value():
    """The root's children: the heuristic's move, then the untried moves best first by the one-step values."""
    env = kapern_position("diamond", [1, 1, 2, 2, 1, 1], [0, 0])
    game = env.game
    view, legal = game.view(0), np.flatnonzero(game.legal_mask()).tolist()
    agent = make_agent("mcts:30", KAPERN, seed=2, env=env)
    root = agent.search()
    expected = [make_agent("heuristic", KAPERN, env=env).act({"action_mask": game.legal_mask()}, view)]
    values = dict(zip(legal, action_values(view, legal)))
    while len(expected) < len(root.children):
        expected.append(max((a for a in legal if a not in expected), key=lambda a: (values[a], -a)))
    assert list(root.children) == expected


def test_kapern_last_turn_plays_for_the_win():
    """The opponent ended at 6500; seat 0 has 5400 and its final turn (gold, 3 coins, 2 skulls:
    600 at stake). Stopping loses for sure with the best lead (-500); a re-roll loses more on
    average (a bust: -1100) but can win. The search plays for the win."""
    env = kapern_position("gold", [3, 0, 1, 1, 1, 2], [5400, 6500])
    game = env.game
    game.final_trigger, game.final_turns_left = 1, [True, False]
    assert game.turn_points == 600
    action = make_agent("mcts", KAPERN, seed=4, env=env).act({"action_mask": game.legal_mask()}, game.view(0))
    assert action != STOP


def test_kapern_default_search_is_honest():
    """The default Kapern search (closed loop, turn horizon, one-step order): the same view with
    another deck order and other dice to come gives the same move."""
    env = position_with_choice(KAPERN, seed=31, skip=4)
    seat = env.game.current_player
    twin = other_true_state(env, seat, seed=5)
    me = env.possible_agents[seat]
    moves = [make_agent("mcts:40", KAPERN, seed=8, env=e).act(e.observe(me), e.game.view(seat)) for e in (env, twin)]
    assert moves[0] == moves[1]


def test_determinize_gives_the_world_a_fresh_chance_source(env_id):
    """The world draws from a new source seeded by the search, not a copy of the true game's (which knows the dice
    and deals to come); the true game's source is untouched."""
    env = position_with_choice(env_id, seed=6, skip=4)
    game = env.game
    before = copy.deepcopy(game.chance)

    def draws(chance) -> list[int]:
        return [chance.integers(1 << 40) for _ in range(4)]

    world = determinize(game, game.current_player, np.random.default_rng(3))
    assert world.chance is not game.chance
    assert draws(world.chance.clone()) != draws(before.clone())
    assert draws(game.chance) == draws(before)  # the true game's source has not moved


#: The seeds of a game's recorded search moves where none are recorded yet.
RECORD_SEEDS = (3, 11)


def search_decisions(env_id: str, seeds: tuple[int, ...]) -> list[int]:
    """``mcts:24``'s moves at every third move with a choice (random moves between), eight per seed."""
    decisions: list[int] = []
    for seed in seeds:
        env = pirate_envs.make(env_id, raw=True, num_players=PLAYERS[env_id])
        env.reset(seed=seed)
        agent = make_agent("mcts:24", env_id, seed=seed, env=env)
        rng = np.random.default_rng(seed)
        blocks = action_blocks(env)
        wanted = len(decisions) + 8
        for move in range(40):
            if env.game.done or len(decisions) >= wanted:
                break
            mask = env.game.legal_mask()
            if mask.sum() > 1 and move % 3 == 0:
                action = agent.act(env.observe(env.agent_selection), env.game.view(env.game.current_player))
                decisions.append(int(action))
            else:
                action = sample_legal(mask, rng, blocks)
            env.step(int(action))
    return decisions


def test_search_chooses_the_moves_it_chose_before_clone(env_id):
    """``mcts:24``'s moves at fixed seeds (`search_decisions`) are those recorded in ``tests/<game>/golden.json``:
    for the four shipped games, as chosen by the search before engines had a chance source and ``clone`` (it
    copied engines by reflection and found their generators in their attributes)."""
    recorded = golden(
        env_id,
        "search_decisions",
        lambda: {"seeds": list(RECORD_SEEDS), "moves": search_decisions(env_id, RECORD_SEEDS)},
    )
    assert search_decisions(env_id, tuple(recorded["seeds"])) == recorded["moves"]
