"""experiments.imitate: a tiny distillation of the Kapern oracle that loads and plays, and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pirate_envs
from agents.evaluation.games import play_game
from agents.policy.checkpoint import load_agent
from agents.registry import make_agent
from agents.training.imitation import agreement, collect, make_envs
from benchmarks.kapern_turn_values import turn_value_rows
from experiments.imitate import ImitateArgs, main, plan_of

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")  # the feature head (agents.ppo.action_head)

ENV_ID = "piraten_kapern_v0"
TINY = ["--games", "8", "--epochs", "40", "--net-arch", "64", "--learning-rate", "0.003", "--batch-size", "64"]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A 2- and 3-player distillation of the oracle with one DAgger round; its file and arguments."""
    out = tmp_path_factory.mktemp("imitate") / "student.npz"
    argv = ["--env-id", ENV_ID, "--teacher", "oracle", "--num-players", "2", "3", "--rounds", "2", *TINY]
    main([*argv, "--out", str(out)])
    args = plan_of(ImitateArgs(num_players=[2, 3], games=8, rounds=2, out=str(out)))  # what collect() reads of it
    return out, args


def test_the_file_is_a_max_layout_agent_for_the_requested_table_sizes(tiny_run):
    out, _ = tiny_run
    _, header = load_agent(out)
    assert header["env_id"] == ENV_ID and header["player_counts"] == [2, 3]
    assert header["env_kwargs"] == {"table_layout": "max"}
    assert header["observation_layout"][-1][0] == "seat_present"
    assert header["action_head"] == {"kind": "features", "num_features": 68}
    assert header["layer_sizes"] == [64, 64, 2084] and header["activation"] == "ReLU"
    assert header["training"]["command"].startswith("python -m experiments.imitate --env-id piraten_kapern_v0")
    assert header["training"]["figures"]["teacher"] == "oracle"
    assert json.loads(json.dumps(header)) == header


def test_the_student_matches_the_teacher_on_most_training_positions(tiny_run):
    out, args = tiny_run
    # The first round's games are the teacher's alone and drawn first from the seed: replay them.
    positions = collect(args, make_envs(args), None, np.random.default_rng(args.seed))
    assert len(positions) > 400
    env = pirate_envs.make(ENV_ID, raw=True, num_players=3, table_layout="max")
    student = make_agent(f"ppo:{out}", ENV_ID, env=env)
    rows = range(0, len(positions), 3)
    masks = positions.masks()
    moves = [student.act({"observation": positions.observations[i], "action_mask": masks[i]}) for i in rows]
    matched = np.mean(np.array(moves) == positions.actions[list(rows)])
    assert matched > 0.75
    assert agreement(student.policy, positions) > 0.75
    # a random policy of the same shape agrees on few of them: the figure measures learning
    policy = student.policy
    rng = np.random.default_rng(0)
    noise = type(policy)([rng.normal(size=w.shape).astype(np.float32) for w in policy.weights], policy.biases, "ReLU")
    assert agreement(noise, positions) < 0.5


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("layout", ["seated", "max"])
def test_ppo_loads_and_plays_whole_games_at_each_table_size(tiny_run, players, layout):
    out, _ = tiny_run
    env = pirate_envs.make(ENV_ID, raw=True, num_players=players, table_layout=layout, max_turns=60)
    agents = [make_agent(f"ppo:{out}", ENV_ID, seed=s, env=env) for s in range(players)]
    record = play_game(env, agents, seed=5)
    assert len(record.actions) > players  # every move was legal (the env raises otherwise)
    with pytest.raises(ValueError, match="plays 2 or 3 players, not 4"):
        make_agent(f"ppo:{out}", ENV_ID, env=pirate_envs.make(ENV_ID, raw=True, num_players=4))


def test_the_turn_value_benchmark_measures_a_max_layout_agent(tiny_run):
    out, _ = tiny_run
    rows = turn_value_rows([f"ppo:{out}"], turns=2, seed=0)
    assert rows[-1][0] == "share of the oracle" and len(rows[-1]) == 4


class FlakyTeacher:
    """The oracle, but every fifth call it raises (a position where it has no move)."""

    name = "flaky"
    answered = 0

    def __init__(self):
        from agents.piraten_kapern.oracle import KapernOracleAgent

        self.oracle, self.calls = KapernOracleAgent(), 0

    def reset(self, seed=None):
        pass

    def act(self, observation, view):
        self.calls += 1
        if self.calls % 5 == 0:
            raise RuntimeError("no move here")
        move = self.oracle.act(observation, view)  # the oracle too may have no move where the student led
        FlakyTeacher.answered += 1
        return move


def test_positions_where_the_teacher_has_no_move_are_the_students_and_not_recorded(tiny_run, monkeypatch):
    import agents.training.imitation as imitate

    out, _ = tiny_run
    monkeypatch.setattr(imitate, "make_agent", lambda *args, **kwargs: FlakyTeacher())
    args = plan_of(ImitateArgs(num_players=[2], games=2, student_share=0.5))
    with pytest.raises(RuntimeError, match="no move here"):  # the teacher alone: its error stands
        collect(args, make_envs(args), None, np.random.default_rng(0))
    FlakyTeacher.answered = 0
    positions = collect(args, make_envs(args), load_agent(out)[0], np.random.default_rng(0))
    assert len(positions) == FlakyTeacher.answered > 0


def test_a_run_is_reproducible_from_its_seed(tmp_path):
    import torch

    argv = ["--num-players", "2", "--games", "2", "--epochs", "1", "--net-arch", "16"]
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    torch.seed()  # torch's own random state, as in a fresh process: the run's seed alone must decide
    main([*argv, "--out", str(first)])
    torch.seed()
    main([*argv, "--out", str(second)])
    (a, _), (b, _) = load_agent(first), load_agent(second)
    for wa, wb in zip(a.weights + a.biases, b.weights + b.biases):
        np.testing.assert_array_equal(wa, wb)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--env-id", "chess"], "'chess'"),
        (["--num-players", "7"], "not 7"),
        (["--num-players", "2", "2"], "repeated"),
        (["--teacher", "wizard"], "'wizard'"),
        (["--student-share", "1.5"], "1.5"),
        (["--out", "agent.zip"], "agent.zip"),
        (["--games", "0"], "--games must be at least 1, got 0"),
        (["--net-arch", "0"], "--net-arch"),
        (["--env-kwargs", "table_layout=seated"], "table_layout='max'"),
        (["--env-kwargs", "num_players=3"], "num_players is set by its own flag here; use --num-players"),
        (["--env-kwargs", "oops"], "--env-kwargs 'oops': expected key=value"),
        (["--learning-rate", "nan"], "--learning-rate must be a finite number, got nan"),
        (["--learning-rate", "0"], "--learning-rate must be above 0, got 0.0"),
        (["--student-share", "nan"], "--student-share must be a finite number"),
        (["--student-share=-0.5"], "--student-share must be at least 0, got -0.5"),
        (["--seed", "-1"], "--seed must be at least 0, got -1"),
        (["--seed", "2147483648"], "--seed must be at most 2147483647"),
        (["--batch-size", "0"], "--batch-size must be at least 1, got 0"),
        (["--net-arch", "128", "-1"], "--net-arch must be at least 1, got -1"),
        (["--rounds", "two"], "--rounds: invalid int value: 'two'"),
        (["--out", __file__ + "/agent.npz"], "is not a folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(argv, named, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out", str(tmp_path / "out" / "agent.npz")] if "--out" not in argv else argv)
    assert stop.value.code == 2
    message = capsys.readouterr().err.strip()
    assert named in message and "\n" not in message and "Traceback" not in message
    assert not (tmp_path / "out").exists()
