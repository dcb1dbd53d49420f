"""The batched Lucky Pirate heuristic chooses what the one-game heuristic chooses, position by position."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from agents.batched import make_batched_agent
from agents.lucky_pirate.batched_heuristic import LuckyPirateHeuristicBatch
from agents.lucky_pirate.heuristic import MAX_REMEMBERED, LuckyPirateHeuristic, position_key
from pirate_envs.lucky_pirate.actions import NUM_ACTIONS, NUM_PLAY_ACTIONS, PICK_UP, play_action
from pirate_envs.lucky_pirate.cards import MAX_COPIES, NUM_KINDS, PORTHOLE

ENV_ID = "lucky_pirate_v0"


def play_and_compare(env_kwargs: dict, seeds: range) -> dict[str, np.ndarray]:
    """Play AEC games with one heuristic per seat; check the batched agent one row at a time.

    Each seat of each game is its own slot (the one-game memory is per seat). Returns every
    decision: slot, observation, mask, the one-game choice and whether it was a random one.
    """
    env = pirate_envs.make(ENV_ID, raw=True, **env_kwargs)
    num_players = env.config.num_players
    rows: dict[str, list] = {"slot": [], "obs": [], "mask": [], "action": [], "random": [], "repeated": []}
    for game in seeds:
        env.reset(seed=game)
        heuristics = [LuckyPirateHeuristic(seed=game * num_players + seat) for seat in range(num_players)]
        batched = LuckyPirateHeuristicBatch(env, num_players, seed=game)
        seen: set[tuple[object, ...]] = set()  # the one-game memory, mirrored: its position keys
        while not env.game.done:
            seat = env.game.current_player
            observation = env.observe(env.possible_agents[seat])
            vector, mask = observation["observation"], observation["action_mask"]
            key = position_key(env.game.view(seat))
            repeated = key in seen
            seen.add(key)
            action = heuristics[seat].act(observation, env.game.view(seat))
            chosen = batched.act_batch(np.array([seat]), vector[None], mask[None])
            assert chosen.dtype == np.int64 and chosen.shape == (1,)
            assert batched.last_repeated[0] == repeated
            random_move = repeated and np.count_nonzero(mask) > 1
            if random_move:
                assert mask[chosen[0]] == 1
            else:
                assert chosen[0] == action, (env.game.view(seat), mask.nonzero())
            for key, value in zip(rows, (game * num_players + seat, vector, mask, action, random_move, repeated)):
                rows[key].append(value)
            env.step(action)
    return {key: np.array(values) for key, values in rows.items()}


def check_one_batch(env_kwargs: dict, rows: dict[str, np.ndarray]) -> None:
    """All positions as one batch (each slot's rows in play order) choose as the games did."""
    env = pirate_envs.make(ENV_ID, raw=True, **env_kwargs)
    batched = LuckyPirateHeuristicBatch(env, int(rows["slot"].max()) + 1, seed=1)
    chosen = batched.act_batch(rows["slot"], rows["obs"], rows["mask"].astype(bool))
    np.testing.assert_array_equal(batched.last_repeated, rows["repeated"])
    deterministic = ~rows["random"]
    np.testing.assert_array_equal(chosen[deterministic], rows["action"][deterministic])
    assert rows["mask"][np.arange(len(chosen)), chosen].all()


@pytest.mark.parametrize("table_layout", ["seated", "max"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_batched_heuristic_chooses_as_the_one_game_heuristic(num_players, table_layout):
    kwargs = {"num_players": num_players, "table_layout": table_layout, "max_turns": 400}
    rows = play_and_compare(kwargs, range(3))
    if num_players == 2:
        assert rows["random"].any()  # two players repeat positions: the random branch is exercised
    check_one_batch(kwargs, rows)


@pytest.mark.parametrize(
    ("table_layout", "options"),
    [("seated", {"observe_known": True}), ("max", {"observe_known": True}), ("max", {"observe_pile": True}),
     ("seated", {"observe_known": True, "observe_pile": True})],
)  # fmt: skip
def test_batched_heuristic_with_the_optional_pieces(table_layout, options):
    """``observe_known``, ``observe_pile``: the pieces are left out of the remembered position, on both sides."""
    kwargs = {"num_players": 2, "table_layout": table_layout, "max_turns": 400, **options}
    rows = play_and_compare(kwargs, range(3))
    assert rows["random"].any()
    check_one_batch(kwargs, rows)


def test_the_optional_pieces_do_not_change_how_the_heuristic_plays():
    """The same seeds, with and without ``observe_known`` and ``observe_pile``: the same moves, random ones
    included (keyed by the vector, the heuristic of 3-player game 7 played otherwise once the piece told
    positions apart)."""
    plays = []
    for observe in (False, True):
        moves = []
        for game in range(8):
            env = pirate_envs.make(
                ENV_ID, raw=True, num_players=3, max_turns=400, observe_known=observe, observe_pile=observe
            )
            env.reset(seed=game)
            heuristics = [LuckyPirateHeuristic(seed=10 * game + seat) for seat in range(3)]
            while not env.game.done:
                seat = env.game.current_player
                action = heuristics[seat].act(env.observe(env.possible_agents[seat]), env.game.view(seat))
                moves.append(action)
                env.step(action)
        plays.append(moves)
    assert plays[0] == plays[1]


def test_the_position_key_agrees_with_the_default_observation():
    """Two positions of a seat share a key exactly when their default observation vectors are equal."""
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2, max_turns=300)
    by_key, by_vector, decisions = {}, {}, 0
    for game in range(3):
        env.reset(seed=game)
        heuristic = LuckyPirateHeuristic(seed=game)
        while not env.game.done:
            seat = env.game.current_player
            observation, view = env.observe(env.possible_agents[seat]), env.game.view(seat)
            by_key.setdefault(position_key(view), set()).add((seat, observation["observation"].tobytes()))
            by_vector.setdefault((seat, observation["observation"].tobytes()), set()).add(position_key(view))
            decisions += 1
            env.step(heuristic.act(observation, view))
    assert all(len(vectors) == 1 for vectors in by_key.values())
    assert all(len(keys) == 1 for keys in by_vector.values())
    assert 100 < len(by_key) < decisions  # positions came back: equal keys were compared


def test_batched_heuristic_in_the_set_up_phase_and_a_tournament():
    kwargs = {"num_players": 3, "choose_up_cards": True, "wins_to_win": 2, "max_turns": 400}
    rows = play_and_compare(kwargs, range(2))
    assert rows["obs"][:, pirate_envs.make(ENV_ID, raw=True, **kwargs).observation_layout["setting_up"]].any()
    check_one_batch(kwargs, rows)


def test_deterministic_choice_matches_on_random_masks():
    """Sparse random masks reach every branch of the preference (lay-up, sets, specials, down cards, pick-up)."""
    env = pirate_envs.make(ENV_ID, raw=True, num_players=4)
    env.reset(seed=0)
    view = env.game.view(0)
    rng = np.random.default_rng(0)
    masks = (rng.random((3000, NUM_ACTIONS)) < rng.choice([0.005, 0.02, 0.1], size=(3000, 1))).astype(np.int8)
    plays = masks[:, :NUM_PLAY_ACTIONS].reshape(len(masks), NUM_KINDS, MAX_COPIES)
    plays[:] = np.maximum.accumulate(plays[..., ::-1], axis=-1)[..., ::-1]  # a legal set: its smaller ones too
    masks[~masks.any(axis=1), PICK_UP] = 1
    observations = rng.random((len(masks), env.observation_layout.size), dtype=np.float32)
    batched = LuckyPirateHeuristicBatch(env, len(masks), seed=0)
    chosen = batched.act_batch(np.arange(len(masks)), observations, masks)
    assert not batched.last_repeated.any()
    expected = [LuckyPirateHeuristic.preferred(mask, view) for mask in masks]
    np.testing.assert_array_equal(chosen, expected)


def test_repeated_positions_are_per_slot_seeded_and_forgotten_on_reset():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    row, mask = observation["observation"][None], observation["action_mask"][None]
    assert np.count_nonzero(mask) > 1
    preferred = LuckyPirateHeuristic.preferred(mask[0], env.game.view(env.game.current_player))

    def draws(seed: int) -> list[int]:
        agent = LuckyPirateHeuristicBatch(env, 3, seed=seed)
        assert agent.act_batch(np.array([0]), row, mask)[0] == preferred
        assert agent.act_batch(np.array([1]), row, mask)[0] == preferred  # another slot has not seen it
        repeats = [int(agent.act_batch(np.array([0]), row, mask)[0]) for _ in range(30)]
        assert agent.last_repeated.all() and all(mask[0, repeats])
        agent.reset_games(np.array([0]))
        assert agent.act_batch(np.array([0]), row, mask)[0] == preferred and not agent.last_repeated.any()
        assert mask[0, agent.act_batch(np.array([1]), row, mask)[0]] and agent.last_repeated.all()
        return repeats

    assert draws(5) == draws(5)
    assert len(set(draws(5)) | set(draws(6))) > 3


def test_memory_is_per_slot_grows_drops_cleared_slots_and_starts_afresh_when_full():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    rng = np.random.default_rng(1)
    rows = rng.random((MAX_REMEMBERED + 1, env.observation_layout.size), dtype=np.float32)
    masks = np.zeros((len(rows), NUM_ACTIONS), dtype=np.int8)
    masks[:, :2] = 1
    agent = LuckyPirateHeuristicBatch(env, 2, seed=0)

    def repeated(slot: int, chosen: slice | list[int]) -> np.ndarray:
        picked = rows[chosen]
        agent.act_batch(np.full(len(picked), slot), picked, masks[: len(picked)])
        return agent.last_repeated

    assert not repeated(0, slice(0, 3000)).any()
    assert not repeated(1, slice(0, 3000)).any()  # the same rows in another slot are new there
    agent.reset_games(np.array([0]))
    for start in range(3000, 9000, 500):  # grows the table in steps; the cleared slot's entries are dropped
        assert not repeated(1, slice(start, start + 500)).any()
    assert repeated(1, slice(0, 9000)).all()
    assert not repeated(0, slice(0, 3000)).any()
    # the one-game memory: ``if len(seen) >= MAX_REMEMBERED: seen.clear()`` before each look-up
    agent.reset_games(np.array([0]))
    assert not repeated(0, slice(0, MAX_REMEMBERED)).any()
    assert repeated(0, [0, 1, 0]).tolist() == [False, False, True]


def test_bad_input_is_refused_with_a_clear_error():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=3)
    env.reset(seed=0)
    agent = LuckyPirateHeuristicBatch(env, 2, seed=0)
    rows = np.zeros((2, env.observation_layout.size), dtype=np.float32)
    masks = np.zeros((2, NUM_ACTIONS), dtype=np.int8)
    masks[0, 5] = 1
    with pytest.raises(ValueError, match=r"rows \[1\] of action_masks have no legal action"):
        agent.act_batch(np.array([0, 1]), rows, masks)
    masks[1, play_action(PORTHOLE, 2)] = 1  # a set legal without its single card: no position allows that
    with pytest.raises(ValueError, match=r"rows \[1\] of action_masks allow only sets"):
        agent.act_batch(np.array([0, 1]), rows, masks)
    with pytest.raises(ValueError, match="no legal action"):
        LuckyPirateHeuristic.preferred(masks[1], env.game.view(0))  # so does the one-game heuristic
    masks[1, 7] = 1
    with pytest.raises(ValueError, match=r"game slot 2 is out of range: valid slots are 0\.\.1"):
        agent.act_batch(np.array([0, 2]), rows, masks)
    with pytest.raises(ValueError, match="observations must have shape"):
        agent.act_batch(np.array([0, 1]), rows[:, :-1], masks)
    with pytest.raises(ValueError, match="num_games must be a positive integer"):
        LuckyPirateHeuristicBatch(env, 0)


def test_make_batched_agent_builds_it():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=4, table_layout="max")
    agent = make_batched_agent("heuristic", ENV_ID, env, 8, seed=0)
    assert isinstance(agent, LuckyPirateHeuristicBatch) and agent.num_games == 8
    assert agent.observation_size == env.observation_layout.size


def _played_positions(games: int, moves: int) -> np.ndarray:
    """The distinct observation rows of ``games`` batched games of random legal moves (4 players)."""
    import pirate_envs.vector

    venv = pirate_envs.vector.make(ENV_ID, games, seed=0, num_players=4)
    venv.reset()
    rng = np.random.default_rng(0)
    seen = [venv.observation.copy()]
    for _ in range(moves):
        legal = venv.action_mask.astype(bool)
        scores = np.where(legal, rng.random(legal.shape), -1.0)
        venv.step(scores.argmax(axis=1))
        seen.append(venv.observation.copy())
    return np.unique(np.concatenate(seen), axis=0)


def test_distinct_positions_hash_apart_and_every_word_counts():
    """The memory's 64-bit position hash: no two of ~30,000 played positions alike, and a change
    of any one word, or a swap of two unequal words, changes the hash."""
    from agents.lucky_pirate.batched_heuristic import _row_hash

    rows = _played_positions(256, 120)
    assert len(rows) > 20_000
    words = np.ascontiguousarray(rows).view(np.uint32)
    hashes = np.array([_row_hash(words, j) for j in range(len(words))], dtype=np.uint64)
    assert np.unique(hashes).size == len(rows)
    probe = np.random.default_rng(1).choice(len(words), 60, replace=False)
    for j in probe.tolist():
        original = words[j].copy()
        for column in range(words.shape[1]):
            changed = original.copy()
            changed[column] ^= np.uint32(1 << (column % 32))  # one bit, in every position of a word over the row
            assert _row_hash(changed[None], 0) != hashes[j], (j, column)
            if column + 1 < words.shape[1] and original[column] != original[column + 1]:
                swapped = original.copy()
                swapped[[column, column + 1]] = original[[column + 1, column]]
                assert _row_hash(swapped[None], 0) != hashes[j], (j, column, "swap")
