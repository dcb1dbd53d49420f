"""The README's example runs as written, and its main job learns what the README says it does."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.test_doc_snippets import run_env, shell_steps, skip_reason

README = Path(__file__).resolve().parent.parent / "README.md"


def command_after(marker: str) -> str:
    return README.read_text().split(marker + "\n", 1)[1].split("\n", 1)[0]


def test_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert "final reward" in capsys.readouterr().out


def test_readme_has_both_commands():
    for marker in ("# main-command", "# test-command"):
        line = command_after(marker)
        assert line.startswith("python3 -m venv .venv") and "-c constraints.txt" in line


@pytest.mark.slow
def test_the_main_job_beats_the_heuristic_as_the_readme_says(tmp_path):
    """The main command at its full budget (install steps left out): the learner's whole 95% interval
    against the heuristics lies above chance. A few CPU-minutes (docs/results/main_job.json)."""
    steps = [step for step in shell_steps(command_after("# main-command")) if skip_reason(step) is None]
    assert [s.split()[2] for s in steps] == ["experiments.train", "experiments.evaluate"]
    for step in steps:
        result = subprocess.run(
            ["bash", "-c", step], cwd=tmp_path, env=run_env(), capture_output=True, text=True, timeout=1800
        )
        assert result.returncode == 0, result.stderr[-3000:]
    out = re.search(r"--out (\S+)", steps[-1]).group(1)
    results = json.loads((tmp_path / out / "results.json").read_text())
    agents = results["args"]["agents"]
    assert agents[0].startswith("ppo:") and set(agents[1:]) == {"heuristic"}, agents
    chance = 1 / (results["args"]["players"] or len(agents))
    learner = results["results"][0]
    assert learner["agent"] == agents[0] and learner["win_low"] > chance, learner
