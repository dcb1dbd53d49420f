"""A replay checks what it replays: a record whose scores its moves do not give is refused."""

from __future__ import annotations

import pytest

from tests.web.conftest import new_game, play_out, require_module

require_module("starlette", "web")
require_module("httpx", "web")

import pirate_envs  # noqa: E402


@pytest.fixture
def record(client) -> dict:
    """A finished one-hand Skull King game's record."""
    state = play_out(client, new_game(client, options={"num_hands": 1}).json())
    return client.get(f"/api/sessions/{state['id']}/record").json()


def replayed_scores(record: dict, actions: list[int]) -> list[float] | None:
    """The final scores of ``actions`` from the record's deal, or None if one is illegal or the game is not over."""
    env = pirate_envs.make(record["env_id"], raw=True, **record["env_kwargs"])
    env.reset(seed=record["seed"])
    for action in actions:
        if not env.is_legal(action):
            return None
        env.step(action)
    return env.game.scores().tolist() if env.game.done else None


def swapped_record(record: dict) -> dict:
    """The record with one action swapped for another legal one, every later action still legal, other scores."""
    env = pirate_envs.make(record["env_id"], raw=True, **record["env_kwargs"])
    env.reset(seed=record["seed"])
    actions = record["actions"]
    for i, action in enumerate(actions):
        for other in env.game.legal_actions():
            swapped = [*actions[:i], other, *actions[i + 1 :]]
            scores = replayed_scores(record, swapped) if other != action else None
            if scores is not None and scores != record["scores"]:
                return dict(record, actions=swapped)
        env.step(action)
    raise AssertionError("no legal swap changes this game's result")


def test_a_record_with_forged_scores_is_refused(client, record):
    forged = dict(record, scores=[s + 10 for s in record["scores"]])
    response = client.post("/api/replays", json=forged)
    assert response.status_code == 400, response.json()
    assert "are not the scores its moves give" in response.json()["error"]
    assert client.post("/api/replays", json=record).status_code == 200


def test_a_record_with_a_swapped_legal_action_is_refused(client, record):
    response = client.post("/api/replays", json=swapped_record(record))
    assert response.status_code == 400 and "the record was changed" in response.json()["error"], response.json()


@pytest.mark.parametrize(
    ("scores", "message"),
    [([1, 2], "scores must be a list of 3 numbers"), ("high", "scores must be"), ([True, 0, 0], "scores must be")],
)
def test_malformed_scores_are_refused(client, record, scores, message):
    response = client.post("/api/replays", json=dict(record, scores=scores))
    assert response.status_code == 400 and message in response.json()["error"], response.json()


def test_a_record_without_scores_replays_unchecked(client, record):
    unscored = {k: v for k, v in record.items() if k != "scores"}
    replay = client.post("/api/replays", json=unscored)
    assert replay.status_code == 200 and replay.json()["scores_checked"] is False
    assert client.post("/api/replays", json=record).json()["scores_checked"] is True


def test_a_record_with_agents_not_one_per_seat_is_refused(client, record):
    response = client.post("/api/replays", json=dict(record, agents=["a"] * 100))
    assert response.status_code == 400 and "one name per seat" in response.json()["error"]
