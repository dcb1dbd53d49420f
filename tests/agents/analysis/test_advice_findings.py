"""Replication gating, the seed sets and the advice section of a page."""

import json
from pathlib import Path

import numpy as np
import pytest

from agents.analysis.advice.findings import (
    BAR,
    REPLICATION_FIRST_SEED,
    AdvicePlan,
    measure_rule,
    published,
    seeds_of,
)
from agents.analysis.advice.page import advice_section
from agents.analysis.advice.rules import Rule


def _effect(mean, p):
    return {"mean": mean, "low": mean - 0.01, "high": mean + 0.01, "p": p, "n": 1000}


def _measured(win_mean, win_p, gain=0.05):
    return {
        "win_own": 0.25,
        "win_own_when_up": 0.25,
        "win_gain": _effect(gain, 0.001),
        "score_gain": _effect(2.0, 0.01),
        "follows": {"rate": 0.9, "low": 0.85, "high": 0.95, "trials": 500, "games": 300},
        "games_with_choice": 300,
        "win_with": 0.3 if win_mean >= 0 else 0.2,
        "win_without": 0.2,
        "came_up": 0.5,
        "win_with_when_up": 0.35,
        "win_without_when_up": 0.15,
        "score_with": 10.0,
        "score_without": 5.0,
        "win_effect": _effect(win_mean, win_p),
        "score_effect": _effect(5.0, 0.001),
    }


def _stats(rules):
    return {
        "env_id": "skull_king_v0",
        "base": "ppo:skull_king_v0",
        "opponent": "ppo:skull_king_v0",
        "games_per_arm": 1000,
        "seed_sets": {"discovery": [0, 999], "replication": [REPLICATION_FIRST_SEED, REPLICATION_FIRST_SEED + 999]},
        "alpha": 0.05,
        "correction": "holm",
        "cpu_seconds": 1.0,
        "rules": [
            {"name": name, "words": f"Words of {name}.", "discovery": _measured(*d), "replication": _measured(*r)}
            for name, d, r in rules
        ],
    }


def test_only_findings_that_pass_holm_and_replicate_are_printed():
    stats = _stats(
        [
            ("replicates", (0.1, 1e-6), (0.09, 1e-5)),
            ("fails_replication", (0.1, 1e-6), (0.01, 0.4)),
            ("flips_sign", (0.1, 1e-6), (-0.1, 1e-6)),
            ("fails_holm_a", (0.1, 0.03), (0.1, 1e-6)),  # below 0.05 alone, not after Holm: 0.03 x 2
            ("fails_holm_b", (0.1, 0.04), (0.1, 1e-6)),
            ("harmful", (-0.2, 1e-9), (-0.2, 1e-9)),  # its WITH arm wins 0.2, below 0.9 x the fair 0.25
        ]
    )
    names = [r["name"] for r in published(stats)]
    assert names == ["replicates", "harmful"]
    text = "\n".join(advice_section(stats))
    assert "Words of replicates." in text and "Words of harmful." in text
    for dropped in ("fails_replication", "flips_sign", "fails_holm_a", "fails_holm_b"):
        assert dropped not in text
    assert "2 of 6 rules tested are published" in text
    assert "doing it loses" in text and "* Not advised: **Words of harmful.**" in text  # a harmful rule loses
    assert (
        "comes up in 50% of games; in those, the agent wins 35% of them following it, 25% as it plays and 15%" in text
    )
    assert "replication: +9.0" in text  # the replication's figure beside the finding


def test_a_rule_that_beats_its_forced_opposite_but_loses_to_the_agents_own_play_says_so_first():
    stats = _stats([("costly", (0.1, 1e-6), (0.09, 1e-5))])
    stats["rules"][0]["discovery"]["win_gain"] = _effect(-0.07, 1e-4)
    text = "\n".join(advice_section(stats))
    headline = "following it always loses 7.0 points of win share against the agent's judgment: -7.0 [-8.0, -6.0]"
    assert headline in text and text.index(headline) < text.index("Against its forced opposite: doing it wins +10.0")


def test_the_exploitability_is_the_largest_gain_over_own_play_of_a_published_rule():
    from agents.analysis.advice.findings import exploitability, exploitability_line

    stats = _stats(
        [("small", (0.1, 1e-6), (0.09, 1e-5)), ("big", (0.1, 1e-6), (0.09, 1e-5)), ("lost", (0.1, 0.5), (0.1, 0.5))]
    )
    for rule, gain in zip(stats["rules"], (0.02, 0.2, 0.5)):  # the unpublished rule's gain does not count
        rule["discovery"]["win_gain"] = rule["replication"]["win_gain"] = _effect(gain, 1e-6)
    stats["exploitability"] = exploitability(stats)
    assert stats["exploitability"]["rule"] == "big" and stats["exploitability"]["replication"]["mean"] == 0.2
    assert "big, lifts ppo:skull_king_v0 by +20.0 [+19.0, +21.0] points" in exploitability_line(stats)
    assert exploitability_line(stats).endswith("above the 3-point bar")
    assert "`big`: +20.0 [+19.0, +21.0] points of win share on the replication set" in "\n".join(advice_section(stats))


def test_the_seed_sets_are_disjoint_and_fixed():
    discovery, replication = seeds_of("discovery", 5000), seeds_of("replication", 5000)
    assert discovery[0] == 0 and replication[0] == REPLICATION_FIRST_SEED
    assert not set(discovery.tolist()) & set(replication.tolist())
    with pytest.raises(ValueError):
        seeds_of("other", 3)


def test_both_arms_play_the_same_duplicate_deals():
    never = Rule("never", "Never.", lambda o, m, lay: np.zeros(len(o), bool), lambda o, m, lay: np.ones(m.shape, bool))
    plan = AdvicePlan("heuristic", "heuristic", 8)
    measured = measure_rule("skull_king_v0", plan, never, seeds_of("discovery", 8))
    # a rule that never applies leaves both arms the same games, deal for deal
    assert measured["win_effect"]["mean"] == 0 and measured["score_effect"]["mean"] == 0
    assert measured["follows"]["trials"] == 0 and measured["came_up"] == 0
    assert measured["win_with"] == pytest.approx(measured["win_without"])
    # ... and the agent as it plays too: nothing gained over its own play
    assert measured["win_gain"]["mean"] == 0 and measured["score_gain"]["mean"] == 0
    assert measured["win_own"] == pytest.approx(measured["win_with"])


def test_a_rule_changes_the_games_where_it_applies():
    from agents.skull_king.advice import ADVICE

    zero = next(r for r in ADVICE if r.name == "zero_bid_without_strength")
    measured = measure_rule("skull_king_v0", AdvicePlan("heuristic", "heuristic", 16), zero, seeds_of("discovery", 16))
    assert measured["follows"]["trials"] > 0 and 0 < measured["came_up"] <= 1
    assert measured["score_with"] != measured["score_without"]


def test_the_analysis_guide_describes_the_advice_measure_as_the_pages_print_it():
    """The guide's paragraph on the advice uses the pages' own words for the headline and the forced opposite."""
    root = Path(__file__).resolve().parents[3]
    stats = json.loads((root / "docs" / "strategy" / "stats" / "piratenpoker_advice.json").read_text())
    page = " ".join(advice_section(stats))
    guide = " ".join((root / "docs" / "guides" / "analyze.md").read_text().split())
    for phrase in (
        "AS IT PLAYS",
        "**The headline of each rule is its gain over the agent's own play** (WITH minus AS-IT-PLAYS)",
        "it may be below 0",
        "(WITH minus WITHOUT, the secondary line)",
    ):
        assert phrase in page, phrase
        assert phrase in guide, phrase
    assert f"by more than {BAR * 100:.0f} points" in guide


def test_the_page_says_a_truncated_game_gives_no_seat_a_win_share():
    """Own-play shares below 1/n (copies of one agent playing to the engine's guard) are explained on the page."""
    root = Path(__file__).resolve().parents[3]
    stats = json.loads((root / "docs" / "strategy" / "stats" / "piratenpoker_advice.json").read_text())
    text = " ".join(advice_section(stats))
    assert "0 for every seat of a game the engine truncates" in text
    assert "the agent's own-play share at n seats is below 1/n" in text
