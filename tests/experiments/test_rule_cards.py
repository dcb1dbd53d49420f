"""python -m experiments.rule_cards at a tiny budget: a card, its figures and the page."""

from __future__ import annotations

import json

import pytest

from agents.rules.card import load_card
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


def test_bad_arguments_end_with_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--env-ids", "chess_v0"])
    assert stop.value.code == 2 and "no rule card" in capsys.readouterr().err
