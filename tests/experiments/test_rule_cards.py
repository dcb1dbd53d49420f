"""python -m experiments.rule_cards at a tiny budget: a card, its figures and the page."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.rules.card import load_card
from agents.rules.vocabulary import shipped_card_path
from experiments.rule_cards import main


def test_the_command_distils_measures_and_writes(tmp_path):
    out, cards = tmp_path / "out", tmp_path / "cards"
    args = ["--env-ids", "skull_king_v0", "--out", str(out), "--cards", str(cards)]
    figures = main([*args, "--train-games", "4", "--holdout-games", "2", "--deals", "2"])
    card = load_card(cards / "skull_king_v0.json", "skull_king_v0")
    saved = json.loads((out / "rule_cards.json").read_text())
    assert saved == json.loads(json.dumps(figures))
    entry = saved["skull_king_v0"]
    assert entry["rules"] == len(card.rules) and 0 <= entry["heldout_agreement"] <= 1
    assert entry["vs_heuristic"]["deals"] == 2 and entry["vs_heuristic"]["players"] == 4
    assert entry["seeds"]["eval"] not in (entry["seeds"]["train"], entry["seeds"]["heldout"])
    page = (out / "rule_cards.md").read_text()
    assert "## skull_king_v0" in page and card.fallback_text() in page
    assert all(rule.text in page for rule in card.rules)


def test_a_costly_teachers_figures_play_fewer_deals_and_the_page_says_so(monkeypatch):
    """Lucky Pirate's teacher is a search: the figures where it plays take the budget's teacher deals."""
    from agents.analysis.rule_cards import report

    played = []

    def strength(env_id, agent, opponent, players, deals):
        played.append((agent, opponent, deals))
        return {"agent": agent, "opponent": opponent, "players": players, "deals": deals, "win_rate": 0.3,
                "win_low": 0.28, "win_high": 0.32, "chance": 1 / players, "cpu_s": 0.0}  # fmt: skip

    monkeypatch.setattr(report, "strength", strength)
    assert report.BUDGETS["lucky_pirate_v0"].teacher_deals < report.BUDGETS["lucky_pirate_v0"].deals
    card = load_card(shipped_card_path("lucky_pirate_v0"), "lucky_pirate_v0")
    vocabulary = card.vocabulary
    X, A = np.zeros((1, len(vocabulary.features))), np.full((1, len(vocabulary.choices)), -1)
    empty = report.Positions(X, A, np.zeros(1, np.int64), np.zeros(1, np.int64))
    figures = report.measure("lucky_pirate_v0", "rules:x", card, card.vocabulary, empty, empty, 300, 60)
    teacher = report.TEACHERS["lucky_pirate_v0"]
    assert played == [("rules:x", "heuristic", 300), (teacher, "heuristic", 60), ("rules:x", teacher, 60)]
    page = report.markdown({"lucky_pirate_v0": {**figures, "command": "c"}})
    assert "(4 players, 300 / 60 deals)" in page


def test_bad_arguments_end_with_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--env-ids", "chess_v0"])
    assert stop.value.code == 2 and "no rule card" in capsys.readouterr().err
