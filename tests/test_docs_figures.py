"""Each figure the docs quote comes from one place: a data file the pages are checked against, or one
page the others link to; the install pointers lead somewhere; reference stubs stay on the API pages."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAIN_JOB = json.loads((ROOT / "docs" / "results" / "main_job.json").read_text())
#: A win rate with its 95% interval as the docs write it: ``0.718 [0.671, 0.759]``.
RATE = re.compile(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]")


def section(path: Path, heading: str) -> str:
    """The text of ``path`` under ``heading`` (a whole heading line) up to the next heading of its level."""
    text = path.read_text()
    level = heading.split(" ", 1)[0]
    body = text.split(f"\n{heading}\n", 1)[1]
    return re.split(rf"\n{level} ", body, maxsplit=1)[0]


def wilson(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    rate, spread = wins / games, z * z / games
    centre = (rate + spread / 2) / (1 + spread)
    half = z * math.sqrt(rate * (1 - rate) / games + spread / (4 * games)) / (1 + spread)
    return centre - half, centre + half


def test_the_main_job_data_file_is_consistent():
    low, high = wilson(MAIN_JOB["wins"], MAIN_JOB["games"])
    assert round(MAIN_JOB["wins"] / MAIN_JOB["games"], 3) == MAIN_JOB["win_rate"]
    assert [round(low, 3), round(high, 3)] == MAIN_JOB["interval"]


def test_the_main_job_figures_are_quoted_from_the_data_file_only():
    low, high = MAIN_JOB["interval"]
    quoted = f"{MAIN_JOB['win_rate']:.3f} [{low:.3f}, {high:.3f}]"
    for path, heading in ((ROOT / "README.md", "## Two commands"), (ROOT / "docs/guides/tour.md", "## The main job")):
        text = " ".join(section(path, heading).split())
        assert RATE.findall(text) == [quoted], path
        assert f"{MAIN_JOB['cpu_seconds']} CPU" in text and MAIN_JOB["date"] in text, path
    index = " ".join((ROOT / "docs/index.md").read_text().split())
    first_run = index.split("The fastest first run", 1)[1].split("##", 1)[0]
    assert not RATE.search(first_run) and "guides/tour.md#the-main-job" in first_run


def test_the_web_load_figures_are_on_the_playing_page_only():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs/guides").glob("*.md"))]
    quoting = [p.relative_to(ROOT).as_posix() for p in pages if re.search(r"p95\D{0,20}\d[\d,.]* ms", p.read_text())]
    assert quoting == ["docs/guides/playing.md"]


def test_the_install_pointers_lead_to_a_section_that_exists():
    headings = re.findall(r"^#+ (.+)$", (ROOT / "docs/guides/tour.md").read_text(), flags=re.M)
    slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
    for name in ("constraints.txt", "pyproject.toml"):
        text = (ROOT / name).read_text()
        assert "README's install section" not in text and "the README says how" not in text, name
        anchors = re.findall(r"docs/guides/tour\.md#([\w-]+)", text)
        assert anchors and set(anchors) <= slugs, (name, anchors)


def test_every_web_install_line_keeps_the_constraints():
    lines = [
        line
        for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
        for line in path.read_text().splitlines()
        if "pip install" in line and ".[web]" in line
    ]
    assert lines and [line for line in lines if "-c constraints.txt" not in line] == []


def test_the_benchmark_page_keeps_its_reference_on_the_api_pages():
    assert not re.search(r"^:::", (ROOT / "docs/benchmark.md").read_text(), flags=re.M)
    api = (ROOT / "docs/api/benchmark.md").read_text()
    assert "::: agents.benchmark.protocol" in api and "api/benchmark.md" in (ROOT / "mkdocs.yml").read_text()


@pytest.mark.slow
def test_the_readme_counts_the_tests_it_runs():
    """The README's "about N tests" and "The N long checks" against a collection (about a minute)."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    about = int(re.search(r"The default suite is about ([\d,]+) tests", readme).group(1).replace(",", ""))
    slow = int(re.search(r"The ([\d,]+) long checks are marked `slow`", readme).group(1).replace(",", ""))
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-m", "not slow"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    counts = re.search(r"(\d+)/\d+ tests collected \((\d+) deselected\)", result.stdout)
    collected, deselected = int(counts.group(1)), int(counts.group(2))
    assert abs(collected - about) <= 0.05 * collected and deselected == slow, (collected, deselected)
