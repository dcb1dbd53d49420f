"""The bad inputs ``benchmarks/probe_bad_inputs.py`` found answered with a traceback, a vague line or not at
all: each command now refuses them before any work with one line naming the flag (exit status 2), and the
library entry points with a ``ValueError``/``TypeError`` naming the argument."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from experiments import cli
from tests.helpers import refused

#: Integers no flag takes (past 64 bits), and a count no machine holds.
PAST_INT64 = str(10**30)
HUGE = str(10**12)
#: A host name that never resolves (RFC 2606), and a place no process can write to.
NO_HOST = "no-such-host.invalid"
UNWRITABLE = "/proc/pirate_envs_nowhere/x"


def command(name: str) -> Any:
    """The ``main`` of ``experiments.<name>``; the test is skipped where its extra is not installed."""
    try:
        module = importlib.import_module("experiments.web.__main__" if name == "web" else f"experiments.{name}")
    except (ImportError, SystemExit) as error:
        pytest.skip(f"experiments.{name} needs an extra: {error}")
    return module.main


@pytest.fixture
def one_cpu(monkeypatch):
    """This process may use one CPU (the check's answer, whatever the machine)."""
    monkeypatch.setattr(cli, "available_cpus", lambda: 1)


def _cases(tmp: str) -> list[tuple[str, list[str], str]]:
    """(command, argv, what its one error line says) for each bad input fixed."""
    an = ["--env-id", "skull_king_v0", "--agents", "heuristic", "random"]
    train = ["--out-dir", f"{tmp}/runs", "--no-progress"]
    imitate = ["--env-id", "piraten_kapern_v0", "--teacher", "heuristic", "--out", f"{tmp}/im.npz"]
    dmc = ["--out", f"{tmp}/dmc/agent.npz"]
    rllib = ["--out", f"{tmp}/rl"]
    web = ["--data-dir", f"{tmp}/web"]
    bench = ["--env-id", "skull_king_v0", "--agent", "heuristic", "--deals", "8", "--out", f"{tmp}/bench"]
    return [
        # a table size that cannot be made: refused before a list of that many seats (was a MemoryError)
        (
            "analyze",
            [*an, "--out", f"{tmp}/an", "--players", HUGE],
            f"--players: skull_king_v0 plays 2-6 players, not {HUGE}",
        ),
        ("evaluate", [*an, "--players", HUGE], f"--players: skull_king_v0 plays 2-6 players, not {HUGE}"),
        # an empty output or input (was the current folder, or no resume at all)
        ("analyze", [*an, "--out", ""], "--out is empty; give a folder"),
        ("evaluate", [*an, "--out", ""], "--out is empty; give a folder"),
        ("evaluate", [*an, "--save-games", ""], "--save-games is empty; give a folder"),
        ("benchmark", [*bench, "--out", ""], "--out is empty; give a folder"),
        ("train", [*train, "--resume", ""], "--resume is empty; give the run folder to resume"),
        ("train", ["--out-dir", "", "--no-progress"], "--out-dir is empty"),
        ("best_response", ["--out-dir", f"{tmp}/runs", "--run-name", ""], "--run-name '': give a folder name"),
        ("train_dmc", [*dmc, "--curve", ""], "--curve is empty; give a file name"),
        ("web", [*web, "--agents-dir", ""], "--agents-dir '' is not a folder"),
        ("web", ["--data-dir", ""], "--data-dir is empty; give a folder"),
        ("rllib_selfplay", [*rllib, "--address", ""], "--address '': give auto, local"),
        # an integer past 64 bits (was accepted, to fail deep in numpy or torch)
        ("train", [*train, "--total-timesteps", PAST_INT64], "--total-timesteps must be at most 9223372036854775807"),
        ("imitate", [*imitate, "--games", PAST_INT64], "--games must be at most 9223372036854775807"),
        ("rllib_selfplay", [*rllib, "--iterations", PAST_INT64], "--iterations must be at most"),
        # networks no agent file holds, and more games or snapshots at once than the memory
        ("imitate", [*imitate, "--net-arch", HUGE], "parameters (the network), more than an agent file holds"),
        ("train_dmc", [*dmc, "--net-arch", HUGE], "--net-arch 1000000000000:"),
        ("rllib_selfplay", [*rllib, "--hidden", HUGE], "--hidden 1000000000000:"),
        ("train_dmc", [*dmc, "--num-games", HUGE], "--num-games 1000000000000: games at once of"),
        ("rllib_selfplay", [*rllib, "--num-snapshots", HUGE], "--num-snapshots 1000000000000: the learner and"),
        ("rllib_selfplay", [*rllib, "--envs-per-env-runner", HUGE], "--envs-per-env-runner 1000000000000:"),
        # messages that named no flag
        ("rllib_selfplay", [*rllib, "--num-players", HUGE], "--num-players: piraten_kapern_v0 plays"),
        ("rllib_selfplay", [*rllib, "--opponents", "no_such_agent"], "--opponents no_such_agent:"),
        # a flag ignored alone or in combination
        (
            "best_response",
            ["--out-dir", f"{tmp}/runs", "--train-args", "n_steps"],
            "give experiments.train's flags after --",
        ),
        (
            "train",
            [*train, "--num-envs", "2", "--n-steps", "8", "--batch-size", "64"],
            "--batch-size 64: more than a rollout's 16 steps",
        ),
        (
            "rllib_selfplay",
            [*rllib, "--num-env-runners", "2", "--num-cpus", "1"],
            "--num-env-runners 2: more than --num-cpus 1",
        ),
        ("rllib_selfplay", [*rllib, "--address", "nowhere"], "--address 'nowhere': give auto, local"),
        # names repeated (each was silently played, asked or measured once, or twice)
        (
            "explain",
            ["--env-id", "skull_king_v0", "--agents", "random", "random"],
            "--agents random random: 'random' is named twice",
        ),
        (
            "rule_cards",
            ["--out", f"{tmp}/rc", "--env-ids", "skull_king_v0", "skull_king_v0"],
            "--env-ids skull_king_v0 skull_king_v0: 'skull_king_v0' is named twice",
        ),
        (
            "strategy_advice",
            ["--out", f"{tmp}/sa", "--env-ids", "skull_king_v0", "skull_king_v0"],
            "'skull_king_v0' is named twice",
        ),
        ("benchmark", [*bench, "--players", "2", "2"], "--players 2 2: '2' is named twice"),
        ("exact", ["--out", f"{tmp}/exact.md", "--quick", "--variants", "x,x"], "--variants x,x: 'x' is named twice"),
        # seeds past the commands' range
        ("play", ["--seed", HUGE], f"--seed must be at most {cli.MAX_SEED}"),
        ("explain", ["--env-id", "skull_king_v0", "--seed", HUGE], f"--seed must be at most {cli.MAX_SEED}"),
        (
            "explain",
            ["--env-id", "skull_king_v0", "--agent-seed", HUGE],
            f"--agent-seed must be at most {cli.MAX_SEED}",
        ),
        # the web table's address and folders, checked before the server starts
        ("web", [*web, "--host", NO_HOST], f"--host {NO_HOST!r} is not an address of this machine"),
        ("web", ["--data-dir", UNWRITABLE], f"--data-dir {UNWRITABLE}: "),
        ("web", [*web, "--allow-host", "a.example", "a.example"], "'a.example' is named twice"),
        ("web", [*web, "--allow-host", ""], "--allow-host '' is not a host name"),
        # the page commands: a place the leaderboard cannot be written, no data folder, a repeated game
        ("results_pages", ["--leaderboard", UNWRITABLE], "--leaderboard /proc/pirate_envs_nowhere: cannot write"),
        ("results_pages", ["--data", ""], "--data : no results files"),
        (
            "strategy_pages",
            ["--out", f"{tmp}/pages", "--from-stats", "--env-ids", "skull_king_v0", "skull_king_v0"],
            "'skull_king_v0' is named twice",
        ),
        (
            "strategy_pages",
            ["--out", f"{tmp}/pages", "--from-stats", "--env-ids", "skull_king_v0", "--seed", HUGE],
            "--seed must be at most",
        ),
    ]  # fmt: skip


CASE_IDS = [f"{name}:{' '.join(argv[-2:])}" for name, argv, _ in _cases("T")]


@pytest.mark.parametrize("index", range(len(CASE_IDS)), ids=CASE_IDS)
def test_a_bad_input_is_refused_in_one_line_naming_its_flag(capsys, tmp_path, index):
    name, argv, message = _cases(str(tmp_path))[index]
    err = refused(capsys, command(name), argv)
    assert message in err, err
    assert not any(tmp_path.iterdir()), "nothing is written before the checks pass"


@pytest.mark.parametrize(
    ("name", "argv", "flag"),
    [
        ("train", ["--torch-threads", "2"], "--torch-threads 2"),
        ("train", ["--num-workers", "2"], "--num-workers 2"),
        (
            "imitate",
            ["--env-id", "piraten_kapern_v0", "--teacher", "heuristic", "--torch-threads", "2"],
            "--torch-threads 2",
        ),
        ("train_dmc", ["--torch-threads", "2"], "--torch-threads 2"),
        ("expert_iteration", ["--torch-threads", "2"], "--torch-threads 2"),
        ("exact", ["--quick", "--jobs", "2"], "--jobs 2"),
        ("rllib_selfplay", ["--num-cpus", "2"], "--num-cpus 2"),
    ],
)  # fmt: skip
def test_more_threads_or_processes_than_cpus_are_refused(capsys, tmp_path, one_cpu, name, argv, flag):
    out = {"train": "--out-dir", "exact": "--out"}.get(name, "--out")
    target = {"exact": "e.md", "imitate": "a.npz", "train_dmc": "a.npz"}.get(name, "run")
    err = refused(capsys, command(name), [*argv, out, str(tmp_path / target)])
    assert f"{flag}: at most the 1 CPUs this process may use" in err


def test_a_default_worker_count_fits_a_machine_of_one_cpu(one_cpu, tmp_path):
    """``--num-workers`` (default 2) is checked against the CPUs only when given: the defaults run anywhere."""
    from experiments import train

    given = cli.given_flags(train.TrainArgs, [])
    plan = train.plan_run(cli.parse_args(train.TrainArgs, ["--out-dir", str(tmp_path)]), given)
    assert plan.args.num_workers == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--samples", "5"], "--samples: only --check uses it; leave it out"),
        (["--play", "3"], "--play: only --check uses it; leave it out"),
        (["--check", "--threads", "1", "--out", "{table}"], "--threads: --check solves nothing in threads"),
        (["--seed", "3"], "--seed: the seed of the --play games"),
        (["--check", "--out", "{missing}"], "--out '{missing}': no such file"),
        (["--check", "--play", "1", "--seed", HUGE, "--out", "{table}"], f"--seed must be at most {cli.MAX_SEED}"),
    ],
)
def test_the_race_table_command_refuses_flags_its_run_would_ignore(capsys, tmp_path, one_cpu, argv, message):
    pytest.importorskip("numba")
    table, missing = tmp_path / "t.npz", tmp_path / "missing.npz"
    table.write_bytes(b"")
    words = [word.format(table=table, missing=missing) for word in argv]
    if "--out" not in words:
        words += ["--out", str(tmp_path / "race.npz")]
    err = refused(capsys, command("kapern_race"), words)
    assert message.format(missing=missing) in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tables", "{table}", "--tolerance", "0.01"], "--tolerance: --tables plays solved tables"),
        (["--tables", "{table}", "--opponent", "heuristic"], "--opponent: --tables plays solved tables"),
        (["--tables", "{folder}.npz"], "--tables '{folder}.npz': a folder, not a file"),
        (["--seed", "3"], "--seed: the seed of the --play games; give --play N"),
        (["--play", "1", "--seed", HUGE], f"--seed must be at most {cli.MAX_SEED}"),
    ],
)
def test_the_best_response_command_refuses_flags_its_run_would_ignore(capsys, tmp_path, argv, message):
    pytest.importorskip("numba")
    table = tmp_path / "t.npz"
    table.write_bytes(b"")
    (tmp_path / "f.npz").mkdir()
    folder = tmp_path / "f"
    words = [word.format(table=table, folder=folder) for word in argv]
    err = refused(capsys, command("kapern_best_response"), words)
    assert message.format(folder=folder) in err


def test_an_option_of_lucky_pirate_that_is_no_bool_is_refused():
    import pirate_envs

    for env_id in ("lucky_pirate_v0", "lucky_pirate_v1"):
        for option in ("observe_known", "observe_pile"):
            for value in ("yes", 2):
                with pytest.raises(ValueError, match=f"{option}={value!r} must be True or False"):
                    pirate_envs.make(env_id, **{option: value})


@pytest.mark.parametrize(("seed", "error"), [(-1, ValueError), ("x", TypeError), (1.5, TypeError)])
def test_make_agent_refuses_a_seed_that_is_not_a_non_negative_integer(seed, error):
    from agents.registry import make_agent

    with pytest.raises(error, match="seed="):
        make_agent("random", "skull_king_v0", seed=seed)


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"games": 0}, ValueError, "games=0 is not valid"),
        ({"games": -3}, ValueError, "games=-3 is not valid"),
        ({"games": "2"}, ValueError, "games='2' is not valid"),
        ({"seed": -1}, ValueError, "seed=-1 is negative"),
        ({"agent_names": []}, ValueError, "agent_names=[] is not valid"),
        ({"agent_names": "random"}, TypeError, "agent_names='random' is not valid"),
        ({"workers": 0}, ValueError, "workers=0 is not valid"),
    ],
)
def test_run_tournament_refuses_bad_arguments_before_any_game(changes, error, message):
    from agents.evaluation.tournament import run_tournament

    kwargs = {"env_id": "skull_king_v0", "agent_names": ["random", "random"], "games": 2, **changes}
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        run_tournament(**kwargs)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"players": (99,)}, "players=99 is not valid; skull_king_v0 plays 2-6"),
        ({"workers": 0}, "workers=0 is not valid"),
    ],
)
def test_run_protocol_refuses_a_table_size_or_worker_count_before_any_game(changes, message):
    from agents.benchmark.run import ProtocolRun, run_protocol

    with pytest.raises(ValueError, match=message):
        run_protocol(ProtocolRun(env_id="skull_king_v0", candidate="random", deals=8, **changes))
