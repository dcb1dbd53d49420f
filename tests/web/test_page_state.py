"""The drawn table's data (each game's ``page_state``): from the seat's view only, every legal move on a drawn element.

For every game at its smallest and largest table, random moves are played; at each position
the page state of every seat must survive JSON, must equal the page state of a copy of the
game whose hidden cards (other hands, deck, dice to come) were redrawn by ``resample_hidden``
(so nothing hidden leaks into it), and the seat on turn must reach every legal action, and
only legal ones, from a drawn card, die, seat, loot card or button.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import numpy as np
import pytest

import pirate_envs
from tests.game_data import short_game

#: Positions checked per game and table size (a few hands or turns of each game).
STEPS = 160


def actions_in(node: Any) -> set[int]:
    """Every ``action`` named anywhere in ``node`` (the moves a click on a drawn element sends)."""
    found: set[int] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "action":
                found.add(value)
            else:
                found |= actions_in(value)
    elif isinstance(node, list):
        for item in node:
            found |= actions_in(item)
    return found


def sizes(env_id: str) -> list[int]:
    counts = pirate_envs.game_spec(env_id).player_counts
    return sorted({min(counts), max(counts)})


CASES = [(env_id, n) for env_id in pirate_envs.ENV_IDS for n in sizes(env_id)]


@pytest.mark.parametrize(("env_id", "num_players"), CASES)
def test_the_page_state_comes_from_the_view_and_reaches_every_legal_move(env_id, num_players):
    env = pirate_envs.make(env_id, raw=True, num_players=num_players, **short_game(env_id, "page_state"))
    text = importlib.import_module(f"{type(env.game).__module__.rsplit('.', 1)[0]}.text")
    env.reset(seed=11)
    game = env.game
    rng = np.random.default_rng(5)
    for _ in range(STEPS):
        on_turn = None if game.done else game.current_player
        for seat in range(num_players):
            legal = game.legal_actions() if seat == on_turn else []
            state = text.page_state(game.view(seat), legal)
            assert json.loads(json.dumps(state)) == state
            twin = game.clone()
            twin.resample_hidden(seat, np.random.default_rng(int(rng.integers(2**31))))
            assert twin.view(seat) == game.view(seat)
            twin_legal = twin.legal_actions() if seat == on_turn else []
            assert text.page_state(twin.view(seat), twin_legal) == state, f"seat {seat} sees a hidden card"
            drawn = actions_in(state["table"])
            assert drawn == set(legal), (sorted(set(legal) - drawn), sorted(drawn - set(legal)))
        if game.done:
            break
        env.step(int(rng.choice(game.legal_actions())))


def test_a_drawn_card_names_its_suit_value_and_rule():
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=2)
    env.reset(seed=0)
    from pirate_envs.skull_king.text import card_face, page_state

    state = page_state(env.game.view(0))["table"]
    assert state["hand"] and all(card["rule"] and card["name"] for card in state["hand"])
    yellow_6 = card_face(5)
    assert (yellow_6["suit"], yellow_6["value"], yellow_6["kind"], yellow_6["name"]) == (
        "yellow",
        6,
        "suit",
        "yellow-6",
    )
    assert "follow" in yellow_6["rule"].lower() and not yellow_6["symbol"]
    pirate = card_face(53)
    assert pirate["kind"] == "pirate" and pirate["symbol"] and "Pirate" in pirate["rule"]
