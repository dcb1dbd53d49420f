"""Every move carries the state version it was made on: a repeated or stale move is refused and changes nothing."""

from __future__ import annotations

from tests.web.conftest import new_game, require_module

require_module("starlette", "web")
require_module("httpx", "web")


def _reroll(state: dict) -> int:
    """A Kapern re-roll's action from the drawn table (the move a double click on "Re-roll" sends twice)."""
    return state["table"]["rerolls"][0]["action"]


def test_a_double_click_plays_once(client):
    """Kapern's re-roll is legal again after a re-roll: without the version the second click re-rolled again."""
    state = new_game(client, "piraten_kapern_v0", ("heuristic",)).json()
    assert state["version"] == state["steps"]
    move = f"/api/sessions/{state['id']}/move"
    body = {"action": _reroll(state), "version": state["version"]}
    first = client.post(move, json=body)
    assert first.status_code == 200, first.json()
    after = first.json()
    assert after["version"] == state["version"] + 1
    assert after["table"]["rerolls"], "the test needs a position where the re-roll is legal again"
    again = client.post(move, json=body)
    assert again.status_code == 409 and "repeated or stale" in again.json()["error"]
    now = client.get(f"/api/sessions/{state['id']}").json()
    assert now["version"] == after["version"] and now["events"] == after["events"]


def test_a_stale_or_malformed_version_is_refused_without_effect(client):
    state = new_game(client).json()
    move = f"/api/sessions/{state['id']}/move"
    action = state["moves"][0]["action"]
    for version, status in ((state["version"] - 1, 409), (state["version"] + 5, 409), ("3", 400), (True, 400)):
        answer = client.post(move, json={"action": action, "version": version})
        assert answer.status_code == status, answer.json()
    assert client.get(f"/api/sessions/{state['id']}").json()["version"] == state["version"]
    assert client.post(move, json={"action": action, "version": state["version"]}).status_code == 200
