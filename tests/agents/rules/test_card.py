"""The rule-card format: the loader refuses malformed and hostile files; a card prints as words."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from agents.rules.card import MAX_BYTES, MAX_RULES, CardError, card_text, load_card, make_card, parse_card
from agents.rules.vocabulary import shipped_card_path, vocabulary_of

ENV_IDS = ("skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0", "piraten_kapern_v0")

GOOD = {
    "format": "pirate_envs.rule_card",
    "version": 1,
    "env_id": "skull_king_v0",
    "teacher": "hand",
    "fallback": "heuristic",
    "rules": [
        {
            "when": [
                {"feature": "bidding", "op": ">=", "value": 1},
                {"feature": "trumps", "op": "<=", "value": 0},
                {"feature": "strong", "op": "<=", "value": 0},
            ],
            "then": "bid_0",
        }
    ],
}


def _mutated(change) -> dict:
    data = copy.deepcopy(GOOD)
    change(data)
    return data


BAD = {
    "value as text": lambda d: d["rules"][0]["when"][0].update(value="1"),
    "value as bool": lambda d: d["rules"][0]["when"][0].update(value=True),
    "unknown feature": lambda d: d["rules"][0]["when"][0].update(feature="opponents_hand"),
    "unknown op": lambda d: d["rules"][0]["when"][0].update(op="=="),
    "unknown choice": lambda d: d["rules"][0].update(then="cheat"),
    "unknown fallback": lambda d: d.update(fallback="cheat"),
    "extra key": lambda d: d["rules"][0].update(code="__import__('os')"),
    "rules not a list": lambda d: d.update(rules={"0": GOOD["rules"][0]}),
    "too many rules": lambda d: d.update(rules=[GOOD["rules"][0]] * (MAX_RULES + 1)),
    "too many conditions": lambda d: d["rules"][0].update(when=[GOOD["rules"][0]["when"][0]] * 9),
    "wrong format": lambda d: d.update(format="pickle"),
    "wrong version": lambda d: d.update(version=2),
    "unknown env": lambda d: d.update(env_id="chess_v0"),
    "teacher not text": lambda d: d.update(teacher=["x"]),
    "missing key": lambda d: d.pop("fallback"),
}


def test_a_good_card_loads():
    card = parse_card(GOOD)
    assert [rule.then for rule in card.rules] == ["bid_0"] and card.fallback == "heuristic"


@pytest.mark.parametrize("case", sorted(BAD))
def test_the_loader_refuses_malformed_cards(case):
    with pytest.raises(CardError):
        parse_card(_mutated(BAD[case]))


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        json.dumps(GOOD).replace('"value": 0', '"value": NaN'),
        json.dumps(GOOD).replace('"value": 0', '"value": Infinity'),
        "[" * 100_000 + "]" * 100_000,
        '"just a string"',
    ],
)
def test_the_loader_refuses_hostile_files(tmp_path: Path, text):
    path = tmp_path / "card.json"
    path.write_text(text)
    with pytest.raises(CardError):
        load_card(path)


def test_the_loader_refuses_huge_files(tmp_path: Path):
    path = tmp_path / "card.json"
    path.write_text(json.dumps(GOOD) + " " * MAX_BYTES)
    with pytest.raises(CardError, match="bytes"):
        load_card(path)


def test_the_loader_refuses_a_card_of_another_game(tmp_path: Path):
    path = tmp_path / "card.json"
    path.write_text(json.dumps(GOOD))
    assert load_card(path, "skull_king_v0").env_id == "skull_king_v0"
    with pytest.raises(CardError):
        load_card(path, "piratenpoker_v0")


def test_a_card_prints_as_words():
    text = card_text(parse_card(GOOD))
    assert "1. If you are bidding and your black (trump) cards: none and your strong cards" in text
    assert text.endswith("2. Otherwise: " + vocabulary_of("skull_king_v0").choice("heuristic").text + ".")
    assert ": bid 0." in text


def test_bounds_of_one_feature_print_as_a_range():
    card = make_card(
        "skull_king_v0",
        "hand",
        [parse_card(GOOD).rules[0].__class__(parse_card(GOOD).rules[0].when[:1], "bid_0")],
        "heuristic",
    )
    assert card.rules[0].text == "If you are bidding: bid 0."
    data = _mutated(
        lambda d: d["rules"][0].update(
            when=[{"feature": "trumps", "op": ">=", "value": 2}, {"feature": "trumps", "op": "<=", "value": 3}]
        )
    )
    assert parse_card(data).rules[0].text == "If your black (trump) cards: 2 to 3: bid 0."


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_shipped_cards_load_and_are_short(env_id):
    card = load_card(shipped_card_path(env_id), env_id)
    assert len(card.rules) <= 20
    assert card_text(card).count("\n") == len(card.rules) + 1  # title, the rules, the fallback
