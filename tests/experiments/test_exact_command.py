"""``python -m experiments.exact``: the page of exact exploitability, and its one-line errors."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("sb3_contrib")

from agents.analysis.exact import load_variant
from experiments import exact

#: The variant of the quick page (a ten-card Skull King: its NashConv takes about a CPU-second).
SMALLEST = "skull_king_small"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--variants", "nope"], "--variants 'nope' is not a variant; available: "),
        (["--out", "page.txt"], "--out 'page.txt' must name a Markdown file"),
        (["--seed", "-1"], "--seed"),
        (["--jobs", "0"], "--jobs"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        exact.main(argv)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert message in error
    assert error.count("\n") == 1


def test_out_that_is_a_folder_is_refused(tmp_path, capsys):
    folder = tmp_path / "page.md"
    folder.mkdir()
    with pytest.raises(SystemExit):
        exact.main(["--out", str(folder)])
    assert "is a folder" in capsys.readouterr().err


def test_quick_page_of_the_smallest_variant(tmp_path):
    out = tmp_path / "docs" / "exact.md"
    assert exact.main(["--out", str(out), "--variants", SMALLEST, "--quick", "--jobs", "2"]) == out
    page = out.read_text()
    assert page.startswith("# Exact exploitability on small variants")
    assert f"## {SMALLEST}" in page
    assert f"--variants {SMALLEST} --quick --jobs 2" in page and "by 2 process(es)" in page
    for agent in ("uniform (OpenSpiel)", "| random |", "| heuristic |", "sampled", "argmax", "mcts:2", "CFR, 1"):
        assert agent in page
    values = [float(v) for v in re.findall(r"\| (\d+\.\d{4}) \|", page)]
    assert values and all(0.0 <= v <= 2.0 * load_variant(SMALLEST).num_players() for v in values)
    assert "open-spiel" in page and "Seed 1" in page
    assert "The PPO rows are reproducible only in distribution" in page and "everything but the times" not in page
    assert (tmp_path / "docs" / f"exact_{SMALLEST}.png").stat().st_size > 0
    assert not list(out.parent.glob("*.tmp"))
