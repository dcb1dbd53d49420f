"""A Piratenpoker hint is about the position the person sees: the bid cards staged on the page (not sent yet) count."""

from __future__ import annotations

import copy

import pytest

from tests.web.conftest import require_module, table_client
from tests.web.tables_helpers import open_table, seat_headers, settled

require_module("starlette", "web")
require_module("httpx", "web")

from agents.analysis.hint_text import hint_named  # noqa: E402
from experiments.web.server import create_app  # noqa: E402

POKER = {"env_id": "piratenpoker_v0", "seats": ["you", "heuristic", "heuristic"], "seed": 4}


@pytest.fixture
def app():
    return create_app()


@pytest.fixture
def client(app):
    with table_client(app) as c:
        yield c


def ask(client, tid, token, staged=None, agent="heuristic"):
    params = {"agent": agent} | ({} if staged is None else {"staged": ",".join(map(str, staged))})
    return client.get(f"/api/tables/{tid}/hint", params=params, headers=seat_headers(token))


def test_the_hint_is_about_the_position_after_the_staged_cards(client, app):
    tid, tokens = open_table(client, POKER)
    now = settled(client, tid, tokens[0])
    assert now["your_turn"] and now["table"]["phase"] == "bid"
    cards = [m["action"] for m in now["moves"] if m["block"] == "add"]
    assert len(cards) >= 3
    game = app.state.tables.get(tid).game
    for staged in ([], cards[:1], cards[:2]):
        answer = ask(client, tid, tokens[0], staged, agent="ppo:piratenpoker_v0")
        assert answer.status_code == 200, answer.json()
        hint = answer.json()
        seen = copy.deepcopy(game.env)  # the position on the page: the staged cards added to the bid
        for action in staged:
            seen.step(action)
        expected = hint_named(seen, "ppo:piratenpoker_v0").to_dict()
        assert hint == {**expected, "version": now["version"], "staged": staged}
        assert not {line["action"] for line in hint["lines"]} & set(staged)  # a staged card is not offered again
    assert settled(client, tid, tokens[0])["version"] == now["version"]  # nothing was played
    assert game.env.game.legal_mask()[cards[0]]  # the game's own bid is untouched


def test_staged_moves_that_are_not_bid_cards_or_not_legal_are_refused(client):
    tid, tokens = open_table(client, POKER)
    now = settled(client, tid, tokens[0])
    cards = [m["action"] for m in now["moves"] if m["block"] == "add"]
    other = [m["action"] for m in now["moves"] if m["block"] != "add"]
    for staged in ([cards[0], cards[0]], [other[0]], [10**5]):
        answer = ask(client, tid, tokens[0], staged)
        assert answer.status_code == 400 and "staged action" in answer.json()["error"], answer.json()
    for text in ("1,,2", "-3", "x", "1;2"):
        answer = client.get(f"/api/tables/{tid}/hint", params={"staged": text}, headers=seat_headers(tokens[0]))
        assert answer.status_code == 400 and "staged must be" in answer.json()["error"]
    assert ask(client, tid, None, cards[:1]).status_code == 409  # a spectator has no turn
