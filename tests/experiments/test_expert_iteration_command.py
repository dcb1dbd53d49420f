"""experiments.expert_iteration: a tiny run, its resume (same files as the run straight through), and bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agents.policy.checkpoint import load_agent
from agents.training import expert_iteration as ei
from experiments.expert_iteration import main
from tests.experiments.subprocess_limits import SUBPROCESS_S

pytest.importorskip("torch")

TINY = ["--env-id", "skull_king_v0", "--players", "2", "--simulations", "2", "--games-per-iteration", "1"]
SMALL_NET = ["--net-arch", "8", "--epochs", "1", "--batch-size", "64", "--seed", "5", "--no-progress"]


def checkpoint_arrays(run_dir):
    """Every checkpoint's header (but the command line recorded, which names the run folder) and weights."""
    out = {}
    for path in sorted((run_dir / ei.CHECKPOINTS).glob("*.npz")):
        policy, header = load_agent(path)
        header["training"].pop("command")
        out[path.name] = (header, [w.tobytes() for w in policy.weights + policy.value_weights])
    return out


def test_a_resumed_run_writes_what_the_run_straight_through_writes(tmp_path, capsys):
    whole, halves = tmp_path / "whole", tmp_path / "halves"
    main([*TINY, *SMALL_NET, "--iterations", "2", "--out", str(whole)])
    main([*TINY, *SMALL_NET, "--iterations", "1", "--out", str(halves)])
    main(["--out", str(halves), "--resume", "--iterations", "2", "--no-progress"])
    assert "wrote" in capsys.readouterr().out
    assert checkpoint_arrays(halves) == checkpoint_arrays(whole)
    assert sorted(checkpoint_arrays(whole)) == ["iteration_1.npz", "iteration_2.npz", "latest.npz"]
    config = json.loads((whole / "config.json").read_text())
    assert config["players"] == "2" and config["simulations"] == 2 and "out" not in config
    _, header = load_agent(whole / "checkpoints" / "latest.npz")
    assert header["training"]["command"].startswith("python -m experiments.expert_iteration --env-id skull_king_v0")
    rows = ei.read_metrics(whole, 10)
    assert [r["iteration"] for r in rows] == ["1", "2"] and all(float(r["searched_positions_per_s"]) > 0 for r in rows)


def test_mixed_table_sizes_and_init_from_a_shipped_agent(tmp_path):
    out = tmp_path / "mixed"
    argv = ["--env-id", "skull_king_v0", "--players", "2,3", "--simulations", "2", "--games-per-iteration", "2"]
    main([*argv, "--iterations", "1", "--init", "skull_king_v0", "--epochs", "1", "--no-progress", "--out", str(out)])
    policy, header = load_agent(out / "checkpoints" / "latest.npz")
    shipped, _ = load_agent(ei_shipped())
    assert header["player_counts"] == [2, 3] and header["env_kwargs"] == {"table_layout": "max"}
    assert [w.shape for w in policy.weights] == [w.shape for w in shipped.weights] and policy.has_value
    assert ei.read_metrics(out, 1)[0]["positions"] == str(130 + 195)


def test_halving_self_play_from_the_shipped_agent(tmp_path, capsys):
    out = tmp_path / "halving"
    argv = ["--env-id", "skull_king_v0", "--players", "2", "--search", "halving", "--simulations", "8"]
    main(
        [*argv, "--games-per-iteration", "1", "--iterations", "1", "--init", "skull_king_v0", "--epochs", "1"]
        + ["--no-progress", "--out", str(out)]
    )
    _, header = load_agent(out / "checkpoints" / "latest.npz")
    assert header["training"]["figures"]["expert iteration"] == "iteration 1, halving:8 self-play"
    assert f"halving:ppo:{out / 'checkpoints' / 'latest.npz'} searches with it" in capsys.readouterr().out
    assert json.loads((out / "config.json").read_text())["search"] == "halving"
    data = ei.Decisions.load(ei.data_path(out, 1))
    assert len(data) == 130 and float(ei.read_metrics(out, 1)[0]["searched_positions_per_s"]) > 0
    searched = data.masks().sum(axis=1) > 1
    # improved policies, not one-hot moves: the searched rows spread their mass over legal moves
    assert (data.targets[searched] > 0).sum(axis=1).min() > 1


def ei_shipped():
    from agents.policy.agent import resolve_checkpoint

    return resolve_checkpoint("skull_king_v0")


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--players", "2,2"], "--players '2,2': a table size is repeated"),
        (["--players", "two"], "--players 'two': give a table size"),
        (["--players", "9"], "skull_king_v0 plays 2-6 players, not 9"),
        (["--simulations", "0"], "--simulations must be at least 1"),
        (["--games-per-iteration", "0"], "--games-per-iteration must be at least 1"),
        (["--env-id", "chess"], "--env-id 'chess' is not a game"),
        (["--init", "piratenpoker_v0"], "an agent of piratenpoker_v0, not of skull_king_v0"),
        (["--init", "/nonexistent/agent.npz"], "--init '/nonexistent/agent.npz'"),
        (["--out", ""], "--out: give the run folder"),
        (["--search", "halving", "--env-id", "piraten_kapern_v0"], "--search halving does not search piraten_kapern"),
        (["--search", "tree"], "--search"),
        (["--net-arch", "100000", "100000"], "parameters (actor and critic), more than an agent file holds"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, extra, words):
    argv = [*TINY, "--out", str(tmp_path / "run"), *extra]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and words in err and err.count("\n") == 1, err
    assert not (tmp_path / "run").exists()


def test_an_existing_run_needs_resume_and_a_resume_keeps_its_settings(tmp_path, capsys):
    out = tmp_path / "run"
    main([*TINY, *SMALL_NET, "--iterations", "1", "--out", str(out)])
    capsys.readouterr()
    cases = [
        ([*TINY, "--out", str(out)], "a run is there; pass --resume"),
        (["--out", str(out), "--resume", "--seed", "2"], "--seed: a resumed run keeps the settings"),
        (["--out", str(out), "--resume", "--iterations", "0"], "--iterations must be at least 1"),
        (["--out", str(tmp_path / "none"), "--resume"], "is not a run folder (no config.json)"),
    ]
    for argv, words in cases:
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        err = capsys.readouterr().err
        assert exit_info.value.code == 2 and words in err and err.count("\n") == 1, err
    (out / "config.json").write_text(json.dumps({"simulations": "many"}))
    with pytest.raises(SystemExit):
        main(["--out", str(out), "--resume"])
    err = capsys.readouterr().err
    assert "config.json" in err and "--simulations 'many' is not of type int" in err and err.count("\n") == 1


def test_the_command_runs_as_a_module_and_refuses_bad_input_without_a_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "experiments.expert_iteration", *TINY, "--out", str(tmp_path / "r"), "--players", "1"],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_S,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_a_run_into_an_existing_folder_deletes_only_its_own_temporaries(tmp_path, capsys):
    out = tmp_path / "run"
    mine = [out / "draft.tmp", out / "notes" / "a.tmp", out / ".config.json.bak.tmp", out / ".x.csv.abcd1234.tmp"]
    for path in mine:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("the user's")
    left = [out / ".metrics.csv.abcd1234.tmp", out / ei.DATA / ".iteration_1.npz.abcd1234.tmp"]
    for path in left:
        path.parent.mkdir(exist_ok=True)
        path.write_text("half")
    main([*TINY, *SMALL_NET, "--iterations", "1", "--out", str(out)])
    assert all(path.read_text() == "the user's" for path in mine)
    assert not any(path.exists() for path in left)
