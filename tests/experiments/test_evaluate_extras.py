"""A missing extra ends a command with one line naming the extra and status 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agents import extras

ROOT = Path(__file__).resolve().parents[2]
INSTALL_TRAIN = 'pip install -c constraints.txt -e ".[train]"'


def run_without(modules: list[str], command: str, argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    """Run ``python -m <command> <argv>`` in a fresh interpreter where ``modules`` cannot be imported."""
    script = textwrap.dedent(
        f"""
        import runpy, sys
        for name in {modules!r}:
            sys.modules[name] = None  # "import name" now raises ModuleNotFoundError
        sys.argv = [{command!r}, *{argv!r}]
        runpy.run_module({command!r}, run_name="__main__", alter_sys=True)
        """
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("hidden", "options", "named"),
    [
        (["openskill", "openskill.models"], [], "openskill"),
        (["matplotlib", "matplotlib.pyplot"], ["--out", "results"], "matplotlib"),
    ],
)
def test_evaluate_without_an_extra_says_which_in_one_line(tmp_path, hidden, options, named):
    argv = ["--env-id", "piraten_kapern_v0", "--agents", "random", "random", "--games", "1", "--no-progress", *options]
    done = run_without(hidden, "experiments.evaluate", argv, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert f'needs the "train" extra ({named} is not installed): {INSTALL_TRAIN}' in done.stderr
    assert done.stdout == "" and not (tmp_path / "results").exists()  # refused before any game or folder


def test_require_names_the_extra_and_the_missing_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "no_such_extra_module", None)
    with pytest.raises(extras.MissingExtra, match=r'needs the "web" extra \(no_such_extra_module is not installed\)'):
        extras.require("no_such_extra_module", "web")
    with pytest.raises(ImportError):  # an importer may catch it as any missing module
        extras.require("no_such_extra_module", "web")
    assert extras.require("json", "web") is sys.modules["json"]


def test_require_extras_exits_a_command_and_raises_in_an_importer(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "no_such_extra_module", None)
    with pytest.raises(extras.MissingExtra):
        extras.require_extras("experiments.some_module", ("json", "train"), ("no_such_extra_module", "rllib"))
    with pytest.raises(SystemExit) as exit_info:
        extras.require_extras("__main__", ("json", "train"), ("no_such_extra_module", "rllib"))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'needs the "rllib" extra (no_such_extra_module is not installed)' in err


def test_evaluate_reads_env_kwargs_without_the_training_extra(tmp_path):
    argv = ["--env-id", "piraten_kapern_v0", "--agents", "random", "random", "--games", "1", "--no-progress"]
    done = run_without(["torch"], "experiments.evaluate", [*argv, "--env-kwargs", "promo_cards=True"], tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("command", "hidden", "extra", "argv"),
    [
        ("experiments.train", ["torch"], "train", ["--help"]),
        ("experiments.train", ["sb3_contrib"], "train", ["--help"]),
        ("experiments.train", ["numba"], "train", ["--help"]),
        ("experiments.imitate", ["torch"], "train", ["--help"]),
        ("experiments.best_response", ["matplotlib"], "train", ["--help"]),
        ("experiments.rllib_selfplay", ["ray"], "rllib", ["--help"]),
        ("experiments.web", ["uvicorn"], "web", ["--port", "8765"]),
        ("experiments.web", ["starlette"], "web", ["--port", "8765"]),
    ],
)
def test_every_command_without_its_extra_says_which_in_one_line(tmp_path, command, hidden, extra, argv):
    done = run_without(hidden, command, argv, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert f'needs the "{extra}" extra ({hidden[0]} is not installed)' in done.stderr
