"""Running an example script in a subprocess, and the progress line the learning examples print."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.experiments.subprocess_limits import SUBPROCESS_S

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: One progress line: learner steps, games finished, the last games' mean return and win rate, CPU speed.
PROGRESS = re.compile(
    r"^global_step=(?P<steps>\d+) games=(?P<games>\d+) mean_return=(?P<mean_return>n/a|-?\d+\.\d{3}) "
    r"win_rate=(?P<win_rate>n/a|[01]\.\d{3}) \(last (?P<window>\d+) games\) steps_per_cpu_s=\d+$",
    flags=re.M,
)


def run_example(name: str, *args: str) -> str:
    """The stdout of ``examples/<name>`` run with ``args`` (it must exit with status 0)."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True, timeout=SUBPROCESS_S
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def progress(stdout: str) -> list[dict[str, str]]:
    """The fields of every progress line of ``stdout``, in order."""
    return [match.groupdict() for match in PROGRESS.finditer(stdout)]
