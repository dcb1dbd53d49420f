"""The mistakes command writes its statistics; the page's section "Where play goes wrong" is made from them."""

import json
import shutil
from pathlib import Path

import pytest

from agents.analysis.mistakes.page import TITLE, interval, number
from experiments import strategy_mistakes, strategy_pages

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    out = tmp_path_factory.mktemp("strategy")
    strategy_mistakes.main(["--env-ids", "piraten_kapern_v0", "--games", "4", "--out", str(out)])
    return out


def test_the_command_writes_each_agent_by_situation(measured):
    stats = json.loads((measured / "stats" / "piraten_kapern_mistakes.json").read_text())
    assert stats["games"] == 4 and list(stats["agents"]) == ["heuristic", "rules:piraten_kapern_v0"]
    assert stats["measure"]["kind"] == "oracle" and stats["players"] == 2
    for result in stats["agents"].values():
        rows = result["situations"]
        assert rows and sum(row["decisions"] for row in rows) == result["decisions"]
        costs = [row["cost"]["mean"] for row in rows]
        assert costs == sorted(costs, reverse=True)
        assert sum(costs) == pytest.approx(result["cost"]["mean"])


def test_the_page_section_is_made_from_the_statistics_file(measured, tmp_path):
    out = tmp_path / "site"
    (out / "stats").mkdir(parents=True)
    for name in ("piraten_kapern.json", "piraten_kapern_advice.json"):
        shutil.copy(Path("docs/strategy/stats") / name, out / "stats" / name)
    strategy_pages.main(["--from-stats", "--env-ids", "piraten_kapern_v0", "--out", str(out)])
    assert TITLE not in (out / "piraten_kapern.md").read_text()  # no statistics, no section
    stats = json.loads((measured / "stats" / "piraten_kapern_mistakes.json").read_text())
    row = stats["agents"]["heuristic"]["situations"][0]
    row["cost"] = {"mean": 123.4, "low": 100.0, "high": 150.0}  # a figure the page must quote as it is
    (out / "stats" / "piraten_kapern_mistakes.json").write_text(json.dumps(stats))
    strategy_pages.main(["--from-stats", "--env-ids", "piraten_kapern_v0", "--out", str(out)])
    page = (out / "piraten_kapern.md").read_text()
    assert page.index("## Advice") < page.index(f"## {TITLE}") < page.index("## Agent comparisons")
    assert f"| {row['situation']} | {interval(row['per_game'])} | {interval(row['regret'])} | 123 [100, 150] |" in page
    assert "--env-ids piraten_kapern_v0 --games 4 --seed 0`" in page and "`stats/piraten_kapern_mistakes.json`" in page
    assert (
        f"`heuristic`'s decisions cost {interval(stats['agents']['heuristic']['cost'])} expected points per game"
        in page
    )


def test_numbers_read_as_a_player_wants_them():
    assert [number(x) for x in (1234.5, 12.34, 0.04219, 0.0, None, -3.21)] == [
        "1,234",
        "12.3",
        "0.042",
        "0",
        "-",
        "-3.2",
    ]
    assert interval({"mean": 0.5, "low": 0.25, "high": 0.75}, 100, "%") == "50.0% [25.0%, 75.0%]"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env-ids", "nope_v0"], "no mistakes measure"),
        (["--games", "1"], "need 2 to"),
        (["--budget", "1000000"], "at most"),
        (["--env-ids", "piraten_kapern_v0", "--budget", "50"], "is exact; it takes no search budget"),
        (["--games", "-3"], "--games"),
    ],
)
def test_bad_arguments_end_with_one_line(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        strategy_mistakes.main([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
