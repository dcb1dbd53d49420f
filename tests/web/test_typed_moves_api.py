"""The web table's text box reads typed moves as the terminal does (`pirate_envs.core.text.parse_move`)."""

from __future__ import annotations

import re

from tests.web.conftest import new_game, require_module

require_module("starlette", "web")
require_module("httpx", "web")


def typed(client, state, text: str):
    """POST ``text`` as the person's typed move; the response."""
    return client.post(f"/api/sessions/{state['id']}/move", json={"command": text})


def test_a_number_is_a_bid_and_hash_k_the_menu(client):
    state = new_game(client, "skull_king_v0", ("random", "random"), seed=2, options={}).json()
    bids = [move["label"] for move in state["moves"]]
    assert bids == ["bid 0", "bid 1"]  # hand 1: one card
    refused = typed(client, state, "2")
    assert refused.status_code == 400 and refused.json()["error"] == "'2' is not a move: bids are 0 to 1 this hand"
    answer = typed(client, state, "1")
    assert answer.status_code == 200, answer.json()
    revealed = next(e["text"] for e in answer.json()["events"] if e["kind"] == "bids_revealed")
    assert revealed.startswith("bids revealed: player_0 1,")
    card = answer.json()["moves"][0]["label"]
    answer = typed(client, answer.json(), "#1")
    assert answer.status_code == 200, answer.json()
    assert any(e["text"] == f"player_0 plays {card.removeprefix('play ')}" for e in answer.json()["events"])


def test_labels_any_case_and_piratenpoker_bid_rules(client):
    state = new_game(client, "piratenpoker_v0", ("random", "random"), seed=4, options={}).json()
    assert state["your_turn"]
    refused = typed(client, state, "commit bid")
    assert refused.status_code == 400 and "your bid holds no card yet" in refused.json()["error"]
    first_add = next(move["label"] for move in state["moves"] if move["block"] == "add")
    answer = typed(client, state, first_add.upper())
    assert answer.status_code == 200, answer.json()
    refused = typed(client, answer.json(), "pass")
    assert refused.status_code == 400 and "you have started a bid" in refused.json()["error"]
    answer = typed(client, answer.json(), "Commit Bid")
    assert answer.status_code == 200, answer.json()
    assert any(e["kind"] == "bid" and e["seat"] == 0 for e in answer.json()["events"])


def test_an_ambiguous_number_lists_the_moves_and_plays_nothing(client):
    state = new_game(client, "piraten_kapern_v0", ("heuristic",), seed=1, options={}).json()
    answer = typed(client, state, "2")
    assert answer.status_code == 400
    asked = re.fullmatch(r"'2' could mean: (.+); type one of them", answer.json()["error"])
    assert asked, answer.json()
    labels = [label for label in asked.group(1).split(", ") if label != "..."]
    assert len(labels) > 1 and all(sum(map(int, re.findall(r"x(\d)", label))) == 2 for label in labels)
    assert client.get(f"/api/sessions/{state['id']}").json()["steps"] == state["steps"]
    answer = typed(client, state, labels[0])
    assert answer.status_code == 200, answer.json()
