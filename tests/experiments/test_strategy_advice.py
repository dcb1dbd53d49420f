"""The advice command writes its statistics; the pages are written from committed statistics alone."""

import json
import shutil
from pathlib import Path

import pytest

from agents.analysis.advice.findings import exploitability
from experiments import strategy_advice, strategy_pages

RULE = "zero_bid_without_strength"


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    out = tmp_path_factory.mktemp("strategy")
    strategy_advice.main(["--env-ids", "skull_king_v0", "--rules", RULE, "--games", "6", "--out", str(out)])
    return out


def test_the_command_writes_each_rule_on_both_seed_sets_with_the_agent_as_it_plays(measured):
    stats = json.loads((measured / "stats" / "skull_king_advice.json").read_text())
    assert stats["format"] == 2 and stats["first_seed"] == 0 and stats["bar"] == 0.03
    assert stats["games_per_arm"] == 6 and [r["name"] for r in stats["rules"]] == [RULE]
    assert stats["seed_sets"] == {"discovery": [0, 5], "replication": [1_000_000_000, 1_000_000_005]}
    for seed_set in ("discovery", "replication"):
        rule = stats["rules"][0][seed_set]
        assert rule["win_effect"]["n"] == 6 and rule["win_gain"]["n"] == 6 and rule["score_gain"]["n"] == 6
        assert rule["win_own"] == stats["own_play"][seed_set]["win"]
        assert rule["win_gain"]["mean"] == pytest.approx(rule["win_with"] - rule["win_own"])
    assert "exploitability" in stats


def test_the_seed_moves_both_seed_sets_and_the_default_folder_is_untracked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    strategy_advice.main(["--env-ids", "skull_king_v0", "--rules", RULE, "--games", "3", "--seed", "9100000"])
    stats = json.loads((tmp_path / "runs" / "strategy" / "stats" / "skull_king_advice.json").read_text())
    assert stats["first_seed"] == 9_100_000
    assert stats["seed_sets"] == {"discovery": [9_100_000, 9_100_002], "replication": [1_009_100_000, 1_009_100_002]}
    assert "skull_king_v0: no published rule" in capsys.readouterr().out  # the exploitability line


def test_a_seed_past_the_seed_range_ends_with_one_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        strategy_advice.main(["--env-ids", "skull_king_v0", "--games", "3", "--seed", "2000000000"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip()
    assert "--seed 2000000000" in error and len(error.splitlines()) == 1


def test_the_generator_writes_a_page_from_a_small_stats_file(measured, tmp_path):
    out = tmp_path / "site"
    (out / "stats").mkdir(parents=True)
    shutil.copy(Path("docs/strategy/stats/skull_king.json"), out / "stats" / "skull_king.json")
    advice = json.loads((measured / "stats" / "skull_king_advice.json").read_text())
    rule = advice["rules"][0]
    for seed_set, mean in (("discovery", 0.08), ("replication", 0.07)):  # make the rule pass and replicate
        rule[seed_set]["win_effect"].update(mean=mean, low=mean - 0.02, high=mean + 0.02, p=1e-8)
        rule[seed_set]["win_gain"].update(mean=mean - 0.11, low=mean - 0.13, high=mean - 0.09)  # below own play
    advice["exploitability"] = exploitability(advice)
    (out / "stats" / "skull_king_advice.json").write_text(json.dumps(advice))
    strategy_pages.main(["--from-stats", "--env-ids", "skull_king_v0", "--out", str(out)])
    page = (out / "skull_king.md").read_text()
    assert page.index("## Advice") < page.index("## Agent comparisons")
    assert f"**{rule['words']}**" in page
    headline, forced = page.index("**Over the agent's own play**"), page.index("Against its forced opposite")
    assert headline < forced  # the gain over own play first, the forced opposite second
    assert "following it always loses 3.0 points of win share against the agent's judgment: -3.0 [-5.0, -1.0]" in page
    assert "replication: +7.0 [+5.0, +9.0] pp" in page[forced:]
    assert "**Single-rule exploitability**" in page and f"is `{RULE}`: -4.0 [-6.0, -2.0] points" in page
    assert "within the project's bar" in page
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


def test_the_measuring_commands_write_into_an_untracked_folder_by_default():
    from experiments.strategy_mistakes import StrategyMistakesArgs

    for args in (strategy_advice.StrategyAdviceArgs(), StrategyMistakesArgs()):
        assert args.out == "runs/strategy"  # the committed statistics need --out docs/strategy
    assert "runs/" in Path(".gitignore").read_text().splitlines()


def test_an_agent_given_is_measured_in_the_plans_place_at_every_seat(tmp_path, capsys):
    """``--agent``: a candidate (here the heuristic) is the base and the opponents, not the shipped network."""
    strategy_advice.main(["--env-ids", "piratenpoker_v0", "--rules", "pass_overboard", "--games", "4",
                          "--agent", "heuristic", "--out", str(tmp_path)])  # fmt: skip
    stats = json.loads((tmp_path / "stats" / "piratenpoker_advice.json").read_text())
    assert (stats["base"], stats["opponent"]) == ("heuristic", "heuristic")
    assert [r["name"] for r in stats["rules"]] == ["pass_overboard"]
    assert "piratenpoker_v0:" in capsys.readouterr().out


def test_an_agent_that_does_not_build_ends_with_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        strategy_advice.main(["--env-ids", "piratenpoker_v0", "--agent", "ppo:missing.npz", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip()
    assert "--agent 'ppo:missing.npz'" in error and len(error.splitlines()) == 1
