"""Shared tables: seats by secret token, each seat sees and moves only itself, spectators see public facts."""

from __future__ import annotations

import json
import logging
import re

import pytest

from tests.web.conftest import require_module, table_client
from tests.web.tables_helpers import TABLE, open_table, play_table, seat_headers, settled, state, unlimited

require_module("starlette", "web")
require_module("httpx", "web")

from experiments.web.host_controls import OpeningGate  # noqa: E402
from experiments.web.server import create_app  # noqa: E402


@pytest.fixture
def app():
    return create_app(gate=OpeningGate(unlimited()))  # a test may open up to 50 tables


@pytest.fixture
def client(app):
    with table_client(app) as c:
        yield c


def test_two_people_and_an_agent_finish_a_game_and_everyone_sees_the_record(client, app):
    tid, tokens = open_table(client)
    first = state(client, tid, tokens[1])
    assert first["table_status"] == "playing" and first["seat"] == 1 and first["players"][1] == "you"
    assert first["players"][0] == "player_0" and first["players"][2] == "heuristic"
    final = play_table(client, tid, tokens)
    assert final["done"] and final["table_status"] == "finished"
    record = client.get(f"/api/tables/{tid}/record").json()
    assert record["agents"] == ["player_0", "guest1", "heuristic"] and record["scores"] == final["scores"]
    assert str(record["seed"]) == str(app.state.tables.get(tid).seed)
    lobby = client.get("/api/lobby").json()
    assert [t["id"] for t in lobby["finished"]] == [tid] and lobby["open"] == []


def test_a_seat_token_moves_only_its_seat_and_the_version_guards_every_move(client):
    tid, tokens = open_table(client)
    now = settled(client, tid, tokens[0])
    mover = next(t for t in tokens if state(client, tid, t)["your_turn"])
    other = next(t for t in tokens if t != mover)
    moves = state(client, tid, mover)["moves"]
    body = {"action": moves[0]["action"], "version": now["version"]}
    wrong = client.post(f"/api/tables/{tid}/move", json=body, headers=seat_headers(other))
    assert wrong.status_code == 409 and "not your turn" in wrong.json()["error"]
    spectator = client.post(f"/api/tables/{tid}/move", json=body)
    assert spectator.status_code == 403
    unversioned = client.post(f"/api/tables/{tid}/move", json={"action": body["action"]}, headers=seat_headers(mover))
    assert unversioned.status_code == 400 and "version" in unversioned.json()["error"]
    assert state(client, tid, mover)["version"] == now["version"]
    assert client.post(f"/api/tables/{tid}/move", json=body, headers=seat_headers(mover)).status_code == 200
    again = client.post(f"/api/tables/{tid}/move", json=body, headers=seat_headers(mover))
    assert again.status_code == 409 and "repeated or stale" in again.json()["error"]


def test_bad_tokens_are_refused_and_never_echoed(client, caplog):
    caplog.set_level(logging.DEBUG)
    tid, tokens = open_table(client)
    _, other_tokens = open_table(client)
    forged = tokens[1][:-1] + ("A" if tokens[1][-1] != "A" else "B")
    for token in (forged, other_tokens[0], "x" * 43, "not a token!", "a" * 200):
        for method, path in (("GET", ""), ("GET", "/stream"), ("POST", "/move"), ("POST", "/join")):
            answer = client.request(
                method, f"/api/tables/{tid}{path}", json={"action": 0, "version": 0}, headers=seat_headers(token)
            )
            assert answer.status_code == 403, (token, path, answer.text)
            assert token not in answer.text
    # the host's powers are the host's: a guest neither starts nor reads the invites
    assert client.get(f"/api/tables/{tid}/invites", headers=seat_headers(tokens[1])).status_code == 403
    assert client.get(f"/api/tables/{tid}/invites").status_code == 403
    for token in (*tokens, *other_tokens):
        assert token not in caplog.text


def _hand_names(table_state: dict) -> set[str]:
    return {card["name"] for card in table_state["table"]["hand"] if card["kind"] == "suit"}


def test_nothing_hidden_reaches_another_seat_a_spectator_the_lobby_or_an_error(client, app):
    body = {**TABLE, "seats": ["you", "person", "person"]}
    for _ in range(50):  # a deal where every seat holds a suit card (a name no other card has)
        tid, tokens = open_table(client, body)
        answers = {token: client.get(f"/api/tables/{tid}", headers=seat_headers(token)) for token in tokens}
        hands = {token: _hand_names(answer.json()) for token, answer in answers.items()}
        if all(hands.values()):
            break
    assert all(hands.values()), hands
    seed = str(app.state.tables.get(tid).seed)
    spectator = client.get(f"/api/tables/{tid}")
    assert spectator.json()["seat"] is None and spectator.json()["table"]["hand"] == []
    errors = [
        client.post(f"/api/tables/{tid}/move", json={"action": 10**6, "version": 0}, headers=seat_headers(t))
        for t in tokens
    ] + [
        client.get(f"/api/tables/{tid}/record"),
        client.get(f"/api/tables/{tid}/hint", headers=seat_headers(tokens[0])),
    ]
    public = [spectator, client.get("/api/lobby"), *errors]
    for token, hand in hands.items():
        for other, answer in answers.items():
            if other != token:
                seen = set(re.findall(r"[a-z]+-\d+", answer.text))
                assert not hand & seen, (hand, seen)
        for answer in public:
            assert not hand & set(re.findall(r"[a-z]+-\d+", answer.text)), answer.text[:300]
    for answer in [*answers.values(), *public]:
        assert seed not in answer.text
        for token in tokens:
            if answer is not answers.get(token):
                assert token not in answer.text
        assert not {"seed", "actions", "token"} & set(json.loads(answer.text))


def test_the_host_starts_early_and_agents_take_the_seats_nobody_took(client):
    opened = client.post("/api/tables", json={**TABLE, "fill_agent": "random"}).json()
    tid, host = opened["id"], opened["token"]
    assert opened["state"]["table_status"] == "waiting"
    invite = client.get(f"/api/tables/{tid}/invites", headers=seat_headers(host)).json()["invites"][0]["token"]
    assert client.post(f"/api/tables/{tid}/start", json={}, headers=seat_headers(invite)).status_code == 403
    started = client.post(f"/api/tables/{tid}/start", json={}, headers=seat_headers(host))
    assert started.status_code == 200 and started.json()["table_status"] == "playing"
    assert [s["agent"] for s in started.json()["seats"]] == [None, "random", "heuristic"]
    assert client.get(f"/api/tables/{tid}", headers=seat_headers(invite)).status_code == 403  # the seat is an agent's
    assert play_table(client, tid, [host])["done"]


def test_a_move_answer_says_which_agent_is_thinking(client):
    tid, tokens = open_table(client, {**TABLE, "seats": ["you", "heuristic", "heuristic"]})
    now = settled(client, tid, tokens[0])
    body = {"action": now["moves"][0]["action"], "version": now["version"]}
    answer = client.post(f"/api/tables/{tid}/move", json=body, headers=seat_headers(tokens[0])).json()
    assert answer["thinking"] == answer["on_turn"] and answer["thinking"] in (1, 2)  # the agents answer after it
    assert not answer["your_turn"] and answer["version"] == now["version"] + 1


def test_the_searches_are_warmed_when_the_first_table_of_a_game_starts(client, app, monkeypatch):
    from types import SimpleNamespace

    import experiments.web.sessions as sessions_module
    import experiments.web.tables as tables_module

    asked = []

    def hint(env, agent, name, seed=0):
        asked.append(name)
        return SimpleNamespace(to_dict=dict)

    monkeypatch.setattr(sessions_module, "hint", hint)
    warmer = tables_module.Warmer()  # a fresh process's
    monkeypatch.setattr(tables_module, "WARMER", warmer)
    open_table(client, {**TABLE, "seats": ["you", "random", "random"]})
    open_table(client, {**TABLE, "seats": ["you", "random", "random"]})
    warmer.executor.shutdown(wait=True)  # the warming is done
    assert "halving" in asked and "ppo:skull_king_v0" in asked  # the searches and the hint's default agent
    assert len(asked) == len(set(asked))  # once per game, not per table
