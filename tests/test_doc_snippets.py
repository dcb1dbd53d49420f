"""Every fenced ``python`` and ``bash``/``sh`` snippet of the README and the guides runs as written.

Each snippet runs in a fresh process in a temporary folder (the repository on ``PYTHONPATH``, its
``examples/`` and ``benchmarks/`` linked in, so relative paths such as ``runs/`` land in the
temporary folder). Budgets are made tiny before running: the known budget flags
(``--total-timesteps``, ``--games``, ...) and ``learn(N)`` are rewritten, and the benchmark
scripts get their own small-budget flags appended. Shell steps that install software, start a
server or a cluster, or are the test command itself are left out (each with its reason); every
other step must exit with status 0. Snippets that train, benchmark or seat several searching
agents (``mctsx3``) are marked ``slow``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guides").glob("*.md"))]
FENCE = re.compile(r"^```(python|bash|sh)[ \t]*\n(.*?)^```", flags=re.M | re.S)

# flag -> tiny value; every occurrence in a shell step is rewritten before it runs
TINY_FLAGS = {
    "--total-timesteps": "4096",
    "--games": "4",
    "--eval-games": "2",
    "--iterations": "1",
    "--snapshot-every": "2048",
    "--eval-every": "0",
    "--turns": "20",
    "--total-steps": "300",
}
TINY_LEARN = "learn(256)"  # replaces learn(N) in python snippets
# script -> flags appended to cut its budget (the scripts have no flag named above)
TINY_SCRIPT_FLAGS = {
    "benchmarks/bench_envs.py": "--seconds 0.05 --repeats 1",
    "benchmarks/bench_vector.py": "--seconds 0.05 --repeats 1 --no-compile-times",
    "benchmarks/bench_training.py": "--timesteps 4096 --tutorial-timesteps 1024 --batched-timesteps 4096",
}
# a training command that names no budget runs its game's recipe (tens of CPU-minutes): these cut it
TINY_RECIPE_FLAGS = "--total-timesteps 4096 --warm-start-games 8"
# (pattern of a shell step, why it is left out)
SKIPPED_STEPS = [
    (r"^(python3? -m venv|\. \.venv/bin/activate|source )", "creates or enters a virtual environment"),
    (r"^(pip3?|python3? -m pip) install|^apt-get|^sudo ", "installs software"),
    (r"^(pytest|ruff|mkdocs build)\b", "the test command itself (CI runs it)"),
    (r"^mkdocs serve\b|experiments\.web\b", "starts a server that runs until stopped"),
    (r"^ray start\b|--address auto", "needs a Ray cluster"),
]
# training, benchmark runs, and evaluations against several searching seats take minutes even when tiny
SLOW = re.compile(
    r"experiments\.(train|rllib_selfplay|benchmark|expert_iteration)|benchmarks/|examples/|MaskablePPO"
    r"|pirate_envs\.vector|\bmctsx\d"
)
STEP_TIMEOUT_S = 900  # the slowest tiny steps (a search benchmark, marked slow) take about 5 minutes


@dataclass(frozen=True)
class Snippet:
    """One fenced block: its file, first line and language."""

    path: Path
    line: int
    lang: str
    text: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"


def doc_snippets() -> list[Snippet]:
    """Every python and shell block of ``DOC_FILES``, in order."""
    found = []
    for path in DOC_FILES:
        text = path.read_text()
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            found.append(Snippet(path, line, match.group(1), match.group(2)))
    return found


def shell_steps(text: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, ``&&`` chains split, comments dropped."""
    joined = re.sub(r"\s*\\\n\s*", " ", text)
    steps = []
    for line in joined.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        steps += [step.strip() for step in line.split("&&") if step.strip()]
    return steps


def skip_reason(step: str) -> str | None:
    """Why a shell step is left out, or None when it runs."""
    return next((reason for pattern, reason in SKIPPED_STEPS if re.search(pattern, step)), None)


def block_installs(text: str) -> list[str]:
    """The plain package names a block's ``pip install`` steps add (not the project's own ``-e`` installs)."""
    names = []
    for step in shell_steps(text):
        if re.match(r"(pip3?|python3? -m pip) install\b", step):
            names += [word for word in step.split()[2:] if re.fullmatch(r"[A-Za-z][\w\-]*", word)]
    return names


def make_tiny(step: str) -> str:
    """The step with its budget flags rewritten to tiny values (and a benchmark's small-budget flags)."""
    for flag, value in TINY_FLAGS.items():
        step = re.sub(rf"(?<!\S){re.escape(flag)}(=|\s+)\S+", f"{flag} {value}", step)
    for script, flags in TINY_SCRIPT_FLAGS.items():
        if re.search(rf"(?<!\S){re.escape(script)}(?!\S)", step):
            step = f"{step} {flags}"
    if re.search(r"-m experiments\.train(?!\S)", step) and "--total-timesteps" not in step and "--resume" not in step:
        step = f"{step} {TINY_RECIPE_FLAGS}"
    return step


def run_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["MPLBACKEND"] = "Agg"
    return env


def run(command: list[str], cwd: Path) -> None:
    result = subprocess.run(
        command, cwd=cwd, env=run_env(), input="q\n", capture_output=True, text=True, timeout=STEP_TIMEOUT_S
    )
    assert result.returncode == 0, (
        f"{command[-1]!r} exited with {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for name in ("examples", "benchmarks"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


SNIPPETS = doc_snippets()


@pytest.mark.parametrize(
    "snippet",
    [pytest.param(s, id=s.name, marks=[pytest.mark.slow] if SLOW.search(s.text) else []) for s in SNIPPETS],
)
def test_snippet_runs(snippet: Snippet, workdir: Path) -> None:
    if snippet.lang == "python":
        run([sys.executable, "-c", re.sub(r"\.learn\([\d_]+\)", f".{TINY_LEARN}", snippet.text)], workdir)
        return
    steps = [step for step in shell_steps(snippet.text) if skip_reason(step) is None]
    if not steps:
        pytest.skip("; ".join(sorted({skip_reason(s) for s in shell_steps(snippet.text)})))
    missing = [name for name in block_installs(snippet.text) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"the block installs {missing} first (pip install {' '.join(missing)})")
    for step in steps:
        run(["bash", "-c", make_tiny(step)], workdir)


def test_the_snippets_are_found():
    langs = {s.lang for s in SNIPPETS}
    assert {"python", "bash"} <= langs
    assert any("# main-command" in s.text for s in SNIPPETS)


def test_budget_rewrites():
    step = "python -m experiments.train --total-timesteps 60000 --eval-games=100 --games 200 --eval-every 30000"
    assert make_tiny(step) == (
        "python -m experiments.train --total-timesteps 4096 --eval-games 2 --games 4 --eval-every 0"
    )
    assert make_tiny("python benchmarks/bench_envs.py") == "python benchmarks/bench_envs.py --seconds 0.05 --repeats 1"
    recipe = "python -m experiments.train --env-id skull_king_v0"
    assert make_tiny(recipe) == f"{recipe} --total-timesteps 4096 --warm-start-games 8"
    assert shell_steps("a --x 1 \\\n    --y 2 && b  # note\n# only a comment\nc#d") == ["a --x 1 --y 2", "b", "c#d"]
    assert block_installs('pip install pygame   # note\npip install -c constraints.txt -e ".[train]"') == ["pygame"]
    assert skip_reason("pip install -e .") and skip_reason(". .venv/bin/activate") and not skip_reason("python x.py")


def test_training_benchmarks_and_searching_line_ups_are_slow():
    for step in (
        "python -m experiments.benchmark --env-id skull_king_v0 --agent openspiel:ismcts --players 2",
        "python -m experiments.evaluate --env-id skull_king_v0 --agents ppo:skull_king_v0 mctsx3 --games 200",
        "python -m experiments.expert_iteration --env-id skull_king_v0 --players 4",
        "python -m experiments.train_dmc --env-id lucky_pirate_v0",
    ):
        assert SLOW.search(step), step
    assert not SLOW.search("python -m experiments.evaluate --agents mcts:50:ppo:skull_king_v0 heuristicx3")
