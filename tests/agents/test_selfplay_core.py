"""The self-play rules, written once (`agents.selfplay.core`), and both envs that use them.

The rules are tested once here; then every episode the batched vec env plays is replayed in
`SelfPlayEnv` on the same deal (``venv.reference_engine(i)`` reset with ``venv.reset_options(i)``,
as the lockstep tests build the reference twin), with the same seat, opponents and agent seeds
and the same learner moves: the opponents must answer with the same moves (search and oracle
included, which play the batched games through reference engines kept in step), and the rewards
of every step and the final info must be the same.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from agents.policy.mlp import MlpPolicy
from agents.selfplay.core import RewardLedger, Seating, SelfPlayRules, ended_info, win_share
from agents.selfplay.env import SelfPlayEnv
from tests.game_data import by_version


def rules(truncation_reward: float | None = None, **kwargs) -> SelfPlayRules:
    args = {"learner_seat": None, "max_snapshots": 2, "snapshot_deterministic": False, "player_counts": None}
    return SelfPlayRules(
        "skull_king_v0", "random", "win", truncation_reward=truncation_reward, env_kwargs={}, **{**args, **kwargs}
    )


def test_the_truncation_rule():
    rewards, terminated, truncated = np.array([0.5, 0.0, 0.0]), np.array([True, False, True]), np.array([0, 1, 1])
    paid, term, trunc = rules().end_game(rewards, terminated, truncated.astype(bool))
    assert paid.tolist() == [0.5, 0.0, 0.0] and term.tolist() == [True, False, True]
    assert trunc.tolist() == [False, True, False]  # terminated wins over truncated
    paid, term, trunc = rules(-1.0).end_game(rewards, terminated, truncated.astype(bool))
    assert paid.tolist() == [0.5, -1.0, 0.0] and term.tolist() == [True, True, True] and not trunc.any()


def test_rewards_before_the_first_decision_are_paid_with_the_first_step():
    ledger = RewardLedger(3)
    ledger.hold(np.array([0, 2]), np.array([-1.0, 0.25]))
    assert ledger.pay(np.array([0.5, 0.5, 0.5])).tolist() == [-0.5, 0.5, 0.75]
    assert ledger.pay(np.array([0.5, 0.5, 0.5])).tolist() == [0.5, 0.5, 0.5]


def test_the_info_of_an_ended_game():
    assert win_share(1, [1, 2], 3) == 0.5 and win_share(0, [1, 2], 3) == 0.0 and win_share(0, [], 3) == 0.0
    info = ended_info(2, 4, 30, 0.5, ["random"] * 3)
    assert info == {"seat": 2, "num_players": 4, "final_score": 30.0, "win_share": 0.5, "opponents": ["random"] * 3}
    obs = np.zeros(3, dtype=np.float32)
    info = ended_info(2, 4, 30, 0.5, [], terminal_observation=obs, time_limit=True)
    assert info["terminal_observation"] is obs and info["TimeLimit.truncated"] is True


def test_the_draw_of_a_game():
    fixed, drawn = rules(learner_seat=1), rules()
    fixed.check_tables([10], [4])
    drawn.check_tables([10], [4])
    import pirate_envs
    from agents.selfplay.opponents import OpponentPool

    pool = OpponentPool("skull_king_v0", pirate_envs.make("skull_king_v0", raw=True), {"random": 1.0})
    seating = fixed.draw(pool, np.random.default_rng(0), 50, 4)
    assert (seating.seats == 1).all() and (seating.kind[:, 1] == -1).all() and (seating.kind[:, [0, 2, 3]] == 0).all()
    seating = drawn.draw(pool, np.random.default_rng(0), 200, 4)
    assert set(seating.seats.tolist()) == {0, 1, 2, 3}
    assert ((seating.kind == -1).sum(axis=1) == 1).all()
    with pytest.raises(ValueError, match=r"learner_seat=4 must be None or a seat in 0\.\.3"):
        rules(learner_seat=4).check_tables([10], [4, 5])


def test_games_that_end_before_the_learners_first_decision_are_drawn_anew():
    dealt: list[list[int]] = []

    def deal(rows: np.ndarray) -> np.ndarray:
        dealt.append(rows.tolist())
        return rows[rows % 2 == 0] if len(dealt) < 3 else rows[:0]  # even rows end early, twice

    rules().start_games(deal, np.arange(4))
    assert dealt == [[0, 1, 2, 3], [0, 2], [0, 2]]
    with pytest.raises(RuntimeError, match="100 games in a row ended before the learner's first move"):
        rules().start_games(lambda rows: rows, np.arange(2))


def test_no_per_game_branches_in_self_play():
    """What differs per game comes from its spec: the code names no env id and compares none."""
    import ast

    import pirate_envs

    sources = [*Path("agents/selfplay").glob("*.py"), Path("agents/batched/one_game.py")]
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert node.value not in pirate_envs.ENV_IDS, f"{path}:{node.lineno}: names a game"
            if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
                names = {getattr(part, "attr", getattr(part, "id", None)) for part in [node.left, *node.comparators]}
                assert "env_id" not in names, f"{path}:{node.lineno}: a branch on the env id"


# ---------------------------------------------------------------------------------- the twins
pytest.importorskip("numba")
pytest.importorskip("sb3_contrib")

import pirate_envs.vector  # noqa: E402
from agents.selfplay.batched_vec_env import BatchedSelfPlayVecEnv  # noqa: E402

COMPARED = ("seat", "num_players", "final_score", "win_share", "opponents")


def random_policy(size: int, actions: int, seed: int) -> MlpPolicy:
    """A small random network (a stand-in snapshot)."""
    rng = np.random.default_rng(seed)
    sizes = [size, 16, actions]
    weights = [rng.standard_normal((a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    return MlpPolicy(weights, [np.zeros(b, dtype=np.float32) for b in sizes[1:]])


def record_games(vec: BatchedSelfPlayVecEnv) -> dict[int, dict]:
    """Wrap the vec env so that every game it closes leaves its seating and its start in the returned dict."""
    seatings: dict[int, Seating] = {}
    closed: dict[int, dict] = {}
    rules_draw, draw, finish = vec.rules.draw, vec._draw, vec._finish
    last: list[Seating] = []

    def recording_rules_draw(*args):
        last[:] = [rules_draw(*args)]
        return last[0]

    def recording_draw(table, rows):
        follow = draw(table, rows)
        s = last[0]
        for j, slot in enumerate(rows.tolist()):
            row = slice(j, j + 1)
            seatings[table.envs.start + slot] = Seating(
                s.seats[row], s.names, s.kind[row], s.snapshot[row], s.agent_seed[row]
            )
        return follow

    def recording_finish(table, rows, *args):
        for slot in rows.tolist():
            env = table.envs.start + slot
            closed[env] = {
                "seating": seatings[env],
                "engine": table.venv.reference_engine(slot),
                "options": table.venv.reset_options(slot),
                "scores": table.venv.engine(slot).scores(),
                "moves": table.venv.moves(slot),
            }
        return finish(table, rows, *args)

    vec.rules.draw, vec._draw, vec._finish = recording_rules_draw, recording_draw, recording_finish
    return closed


def replay_in_selfplay_env(
    twin: SelfPlayEnv, game: dict, actions: list[int]
) -> tuple[list[float], bool, dict, np.ndarray]:
    """Play the closed batched ``game`` in ``twin`` with the learner's ``actions``: rewards, truncated,
    info and final observation;
    every move of the game (the opponents' answers included) must be the batched game's."""
    twin.raw.game = twin.game = game["engine"]
    twin.rules.draw = lambda *args: game["seating"]
    twin.reset(seed=0, options=game["options"])
    played, raw_step = [], type(twin.raw).step

    def recording_step(action: int) -> None:
        played.append(int(action))
        raw_step(twin.raw, action)

    twin.raw.step = recording_step
    rewards = []
    for turn, action in enumerate(actions):
        assert twin.action_masks()[action], f"learner move {turn}: the twin game went another way"
        obs, reward, terminated, truncated, info = twin.step(action)
        rewards.append(reward)
        if terminated or truncated:
            assert turn == len(actions) - 1, "the twin game ended earlier"
            assert played == game["moves"][-len(played) :]  # the moves before the learner's first came at reset
            np.testing.assert_array_equal(twin.game.scores(), game["scores"])
            return rewards, truncated, info, obs
    raise AssertionError("the twin game did not end")


#: Opponents whose moves a game's seating decides (the batched random agent and heuristics draw from
#: one stream for all the games they play, so their twins would draw otherwise): ``{case: (env_id, case)}``
#: of each game's ``selfplay_twins`` in ``tests/<game>/short_games.json`` (a case's ``stops``: the learner's
#: random player takes that action at that rate where legal, so that a Kapern turn scores).
CASES = {case["case"]: (env_id, case) for env_id, cases in by_version("selfplay_twins").items() for case in cases}


def test_both_envs_give_up_on_tables_where_the_learner_never_decides():
    """Kapern with one turn in all: the learner in seat 1 of 2 never moves."""
    kwargs = {"learner_seat": 1, "num_players": 2, "max_turns": 1}
    with pytest.raises(RuntimeError, match="games in a row ended before the learner's first move"):
        SelfPlayEnv("piraten_kapern_v0", "random", **kwargs).reset(seed=0)
    with pytest.raises(RuntimeError, match="games in a row ended before the learner's first move"):
        BatchedSelfPlayVecEnv("piraten_kapern_v0", 2, "random", seed=0, **kwargs).reset()


@pytest.mark.parametrize("case", list(CASES))
def test_both_envs_play_the_same_episodes(case):
    env_id, entry = CASES[case]
    opponents, kwargs, stops = entry["opponents"], entry["options"], entry.get("stops")
    common = {key: entry[key] for key in ("reward_mode", "truncation_reward")} | {"snapshot_deterministic": True}
    vec = BatchedSelfPlayVecEnv(env_id, 4, opponents, seed=1, **common, **kwargs)
    twin = SelfPlayEnv(env_id, opponents, **common, **kwargs)
    for k in range(2):
        policy = random_policy(vec.observation_space.shape[0], vec.action_space.n, k)
        vec.env_method("add_snapshot", policy)
        twin.add_snapshot(policy)
    closed = record_games(vec)
    vec.reset()
    rng = np.random.default_rng(0)
    rewards: list[list[float]] = [[] for _ in range(4)]
    actions: list[list[int]] = [[] for _ in range(4)]
    episodes, truncated_seen = 0, 0
    for _ in range(400):
        masks = vec.action_masks()
        step_actions = pirate_envs.vector.random_legal_actions(masks.view(np.int8), rng)
        if stops:  # stop a turn now and then, so that turns score
            stop = masks[:, stops["action"]] & (rng.random(4) < stops["rate"])
            step_actions[stop] = stops["action"]
        _, step_rewards, dones, infos = vec.step(step_actions)
        for i in range(4):
            rewards[i].append(float(step_rewards[i]))
            actions[i].append(int(step_actions[i]))
        for i in np.flatnonzero(dones):
            info = infos[i]
            game = closed.pop(int(i))
            twin_rewards, twin_truncated, twin_info, twin_obs = replay_in_selfplay_env(twin, game, actions[i])
            assert twin_rewards == pytest.approx(rewards[i], abs=1e-6)
            assert {key: twin_info[key] for key in COMPARED} == {key: info[key] for key in COMPARED}
            assert twin_truncated is info["TimeLimit.truncated"]
            if twin.game.truncated:  # the observation to bootstrap from is the learner's own at the end
                np.testing.assert_array_equal(info["terminal_observation"], twin_obs)
                truncated_seen += 1
            rewards[i], actions[i] = [], []
            episodes += 1
        if episodes >= 12:
            break
    assert episodes >= 12
    if "max_turns" in kwargs:
        assert truncated_seen > 0
