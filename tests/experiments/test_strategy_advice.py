"""The advice command writes its statistics; the pages are written from committed statistics alone."""

import json
import shutil
from pathlib import Path

import pytest

from experiments import strategy_advice, strategy_pages

RULE = "zero_bid_without_strength"


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    out = tmp_path_factory.mktemp("strategy")
    strategy_advice.main(["--env-ids", "skull_king_v0", "--rules", RULE, "--games", "6", "--out", str(out)])
    return out


def test_the_command_writes_each_rule_on_both_seed_sets(measured):
    stats = json.loads((measured / "stats" / "skull_king_advice.json").read_text())
    assert stats["games_per_arm"] == 6 and [r["name"] for r in stats["rules"]] == [RULE]
    assert stats["seed_sets"] == {"discovery": [0, 5], "replication": [1_000_000_000, 1_000_000_005]}
    for seed_set in ("discovery", "replication"):
        assert stats["rules"][0][seed_set]["win_effect"]["n"] == 6


def test_the_generator_writes_a_page_from_a_small_stats_file(measured, tmp_path):
    out = tmp_path / "site"
    (out / "stats").mkdir(parents=True)
    shutil.copy(Path("docs/strategy/stats/skull_king.json"), out / "stats" / "skull_king.json")
    advice = json.loads((measured / "stats" / "skull_king_advice.json").read_text())
    rule = advice["rules"][0]
    for seed_set, mean in (("discovery", 0.08), ("replication", 0.07)):  # make the rule pass and replicate
        rule[seed_set]["win_effect"].update(mean=mean, low=mean - 0.02, high=mean + 0.02, p=1e-8)
    (out / "stats" / "skull_king_advice.json").write_text(json.dumps(advice))
    strategy_pages.main(["--from-stats", "--env-ids", "skull_king_v0", "--out", str(out)])
    page = (out / "skull_king.md").read_text()
    assert page.index("## Advice") < page.index("## Agent comparisons")
    assert f"**{rule['words']}**" in page and "replication: +7.0 [+5.0, +9.0] pp" in page
    assert f"--rules {RULE} --games 6" in page  # the command that reproduces the finding
    rule["replication"]["win_effect"].update(mean=0.0, low=-0.02, high=0.02, p=0.9)  # it no longer replicates
    (out / "stats" / "skull_king_advice.json").write_text(json.dumps(advice))
    strategy_pages.main(["--from-stats", "--env-ids", "skull_king_v0", "--out", str(out)])
    assert rule["words"] not in (out / "skull_king.md").read_text()


def test_from_stats_without_statistics_ends_with_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        strategy_pages.main(["--from-stats", "--env-ids", "skull_king_v0", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "--from-stats" in capsys.readouterr().err


def test_the_published_pages_are_what_the_generator_makes_of_the_committed_statistics(tmp_path):
    shutil.copytree(Path("docs/strategy/stats"), tmp_path / "stats")
    strategy_pages.main(["--from-stats", "--out", str(tmp_path)])
    for env_id in strategy_pages.PLANS:
        game = env_id.removesuffix("_v0")
        published, made = (Path(folder, f"{game}.md").read_text() for folder in ("docs/strategy", tmp_path))
        assert "## Advice" in published
        # the first line names the command (its --out differs); everything else is the same
        assert published.split("\n", 3)[3] == made.split("\n", 3)[3], game
