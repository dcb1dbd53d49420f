"""``python -m experiments.strategy_pages`` at a tiny budget: every number on a page is the run's own."""

from __future__ import annotations

import json
import re

import pytest

from agents.analysis.report import cell_text
from experiments import strategy_pages

pytest.importorskip("matplotlib")

RELATION = re.compile(r" is (above|below|not clearly different from) ")


def independent_relation(a: dict, b: dict) -> str:
    """How two figures compare by their 95% intervals, worked out here from the numbers."""
    bounds = [a["low"], a["high"], b["low"], b["high"]]
    if any(x is None for x in bounds) or not (a["low"] > b["high"] or a["high"] < b["low"]):
        return "not clearly different from"
    return "above" if a["low"] > b["high"] else "below"


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    out = tmp_path_factory.mktemp("strategy")
    runs = strategy_pages.main(["--out", str(out), "--games", "2", "--no-search", "--seed", "5"])
    return out, runs


def test_every_game_gets_a_page_with_its_budget_plots_and_statistics(published):
    out, runs = published
    assert list(runs) == list(strategy_pages.PLANS)
    for env_id, run in runs.items():
        game = env_id.removesuffix("_v0")
        page = (out / f"{game}.md").read_text()
        assert "**Budget: 2 games**" in page and "seeds 5..6" in page
        assert "--games 2 --no-search" in page  # the command that made it
        saved = json.loads((out / "stats" / f"{game}.json").read_text())
        assert saved["stats"] == json.loads(json.dumps(run["stats"])) and saved["games"] == 2
        assert not any(a.startswith("mcts") for a in saved["lineup"])
        for image in re.findall(r"!\[[^]]*\]\((img/[^)]+)\)", page):
            assert (out / image).read_bytes().startswith(b"\x89PNG")


def test_every_table_cell_is_the_runs_figure(published):
    out, runs = published
    for env_id in runs:
        game = env_id.removesuffix("_v0")
        page = (out / f"{game}.md").read_text()
        saved = json.loads((out / "stats" / f"{game}.json").read_text())
        for stat in saved["stats"].values():
            for group, figures in stat["groups"].items():
                cells = [cell_text(figures.get(agent), stat["kind"]) for agent in saved["agents"]]
                assert f"| {group} | " + " | ".join(cells) + " |" in page, (game, stat["title"], group)


def test_findings_quote_the_runs_figures_and_compare_them_by_their_intervals(published):
    out, runs = published
    compared = 0
    for env_id, run in runs.items():
        game = env_id.removesuffix("_v0")
        page = (out / f"{game}.md").read_text()
        stats = json.loads((out / "stats" / f"{game}.json").read_text())["stats"]
        assert run["findings"], game
        for finding in run["findings"]:
            assert f"* {finding.text}" in page
            figures = [stats[stat]["groups"][group][agent] for stat, group, agent in finding.figures]
            match = RELATION.search(finding.text)
            if match and len(figures) == 2:  # a comparison of two agents: both figures, the right word
                kind = stats[finding.figures[0][0]]["kind"]
                a, b = figures
                assert f"{cell_text(a, kind)} is {independent_relation(a, b)} " in finding.text
                assert finding.text.endswith(f"{cell_text(b, kind)}.")
                compared += 1
            elif "compared per" in finding.text:  # a group-by-group tally
                pairs = list(zip(figures[::2], figures[1::2]))
                words = [independent_relation(a, b) for a, b in pairs]
                assert (
                    f"clearly above `{finding.figures[1][2]}` in {words.count('above')} of {len(pairs)}" in finding.text
                )
                assert f"clearly below in {words.count('below')}," in finding.text
            else:  # one agent's extreme group
                (figure,) = figures
                assert cell_text(figure, stats[finding.figures[0][0]]["kind"]) in finding.text
    assert compared >= 8


def test_bad_arguments_end_with_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        strategy_pages.main(["--out", str(tmp_path), "--env-ids", "chess"])
    assert exit_info.value.code == 2
    assert "--env-ids 'chess' is not a game" in capsys.readouterr().err
