"""The agents' moves since the person's last move come with the table the person's seat saw after each."""

from __future__ import annotations

import json

import pytest

from tests.web.conftest import require_module, short_options

require_module("starlette", "web")

import pirate_envs  # noqa: E402
from experiments.web import sessions  # noqa: E402
from experiments.web.sessions import GameSession, make_env  # noqa: E402
from pirate_envs.core.text import text_module  # noqa: E402


def _seen_after(session: GameSession, steps: int) -> dict:
    """The table the person's seat saw after the first ``steps`` actions, rebuilt from the seed and moves."""
    env = make_env(session.env_id, session.env.game.num_players, session.options)
    env.reset(seed=session.seed)
    for action in session.actions[:steps]:
        env.step(action)
    return text_module(env).page_state(env.game.view(session.seat), ())["table"]


@pytest.mark.parametrize("env_id", pirate_envs.ENV_IDS)
def test_each_agent_move_carries_the_table_the_persons_seat_saw_right_after_it(env_id):
    extra = ["random"] * (pirate_envs.game_spec(env_id).min_players - 2)  # a seat more than the fewest
    session = GameSession(
        {
            "env_id": env_id,
            "opponents": ["random", "heuristic", *extra],
            "seat": 1,
            "seed": 5,
            "options": short_options(env_id),
        },
        sessions.AgentCatalog(),
    )
    checked = 0
    for _ in range(40):  # the first forty answers of the game are enough
        state = session.state()
        moves = state["agent_moves"]
        start = len(session.actions) - len(moves)  # the agent moves are the last actions played
        for k, move in enumerate(moves):
            assert move["seat"] != session.seat
            assert move["events"] <= len(state["events"])
            expected = _seen_after(session, start + k + 1)
            assert json.dumps(move["table"], sort_keys=True) == json.dumps(expected, sort_keys=True)
            checked += 1
        if state["done"]:
            break
        session.move({"action": state["moves"][0]["action"] if state["moves"] else session.env.game.legal_actions()[0]})
    assert checked > 0


def test_an_answer_carries_at_most_the_last_agent_moves(monkeypatch):
    monkeypatch.setattr(sessions, "MAX_AGENT_MOVES", 2)
    session = GameSession(
        {
            "env_id": "skull_king_v0",
            "opponents": ["random"] * 4,
            "seat": 4,
            "seed": 1,
            "options": short_options("skull_king_v0"),
        },
        sessions.AgentCatalog(),
    )
    moves = session.state()["agent_moves"]
    assert len(session.actions) > 2 and len(moves) == 2
    assert [m["seat"] for m in moves] == [2, 3]  # the last two of the agents' moves before seat 4's turn
    assert json.dumps(moves[-1]["table"]) == json.dumps(_seen_after(session, len(session.actions)))
