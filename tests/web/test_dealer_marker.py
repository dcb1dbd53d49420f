"""Lucky Pirate's drawn seats mark the dealer (public): every seat's view names the engine's dealer."""

from __future__ import annotations

import numpy as np

import pirate_envs
from pirate_envs.lucky_pirate.text import page_state


def test_every_seat_sees_the_lucky_pirate_dealer_marked_on_its_drawn_table():
    env = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=3, wins_to_win=2, set_aside_dealer="random")
    env.reset(seed=4)
    game, rng = env.game, np.random.default_rng(0)
    dealers = set()
    for _ in range(20_000):  # a tournament to two wins takes a few hundred actions
        dealers.add(game.dealer)
        for seat in range(game.num_players):
            view = game.view(seat)
            assert (seat + view.dealer) % game.num_players == game.dealer
            marked = [s["seat"] for s in page_state(view)["table"]["seats"] if s["dealer"]]
            assert marked == [game.dealer]
        if game.done:
            break
        env.step(int(rng.choice(game.legal_actions())))
    assert game.done and len(dealers) > 1  # the marker followed the deal from game to game
