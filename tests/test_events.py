"""The public event log: scripted games traced by hand from the rule texts, and honesty checks."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pirate_envs
from agents.base import action_blocks, sample_legal
from pirate_envs.core.events import Event, event_text, events_since, events_text, record_events
from pirate_envs.piraten_kapern.actions import STOP, reroll_action
from pirate_envs.piraten_kapern.rules import FACES
from pirate_envs.skull_king.actions import BID_OFFSET, CARD_OFFSET
from pirate_envs.skull_king.cards import token_index

#: Events that make hidden or future things public: after one of these, two worlds that agree on
#: everything public may emit different events.
REVEALING_KINDS = {"bids_revealed", "roll", "draw", "deal"}


def reveals(event: Event) -> bool:
    """Whether ``event`` makes something hidden public (a Lucky Pirate down card turned over too)."""
    data = event.data
    blind = data.get("how", "").endswith("blind") or data.get("what", "").startswith("turns down card")
    return event.kind in REVEALING_KINDS or blind


def recording_env(env_id: str, **kwargs):
    env = pirate_envs.make(env_id, raw=True, **kwargs)
    record_events(env.game)
    return env


# ----------------------------------------------------------------------------- Skull King
def sk_card(name: str) -> int:
    return CARD_OFFSET + token_index(name)


def test_skull_king_scripted_game_event_text():
    """Two players, two hands, seat 0 deals first (so seat 1 bids and leads first).

    Hand 1: seat 1 (red-9) bids 1, seat 0 (red-5) bids 0; red-9 beats red-5, both bids are made:
    seat 0 +10 (a made zero bid in hand 1), seat 1 +20. Hand 2 (seat 1 deals, seat 0 leads):
    seat 0 bids 2 holding the Skull King and yellow-3, seat 1 bids 1 holding a Pirate and
    yellow-4. The Skull King takes the Pirate (bonus 30, paid only on a made bid), then yellow-4
    beats yellow-3: seat 0 took 1 of 2 (-10, no bonus), seat 1 made 1 (+20).
    """
    env = recording_env("skull_king_v0", num_players=2, num_hands=2)
    deals = [[["red-5"], ["red-9"]], [["skull_king", "yellow-3"], ["pirate", "yellow-4"]]]
    env.reset(seed=0, options={"deals": deals})
    script = [BID_OFFSET + 1, BID_OFFSET + 0, sk_card("red-9"), sk_card("red-5")]
    script += [BID_OFFSET + 2, BID_OFFSET + 1, sk_card("skull_king"), sk_card("pirate")]
    script += [sk_card("yellow-3"), sk_card("yellow-4")]
    for action in script:
        env.step(action)
    assert env.game.terminated
    assert events_text(events_since(env)) == "\n".join(
        [
            "hand 1 of 2, 1 card each: player_0 deals",
            "player_1 has bid",
            "player_0 has bid",
            "bids revealed: player_0 0, player_1 1",
            "player_1 plays red-9",
            "player_0 plays red-5",
            "player_1 wins the trick",
            "player_0 +10 (bid 0 made): 10",
            "player_1 +20 (bid 1 made): 20",
            "hand 2 of 2, 2 cards each: player_1 deals",
            "player_0 has bid",
            "player_1 has bid",
            "bids revealed: player_0 2, player_1 1",
            "player_0 plays skull_king",
            "player_1 plays pirate",
            "player_0 wins the trick (bonus 30)",
            "player_0 plays yellow-3",
            "player_1 plays yellow-4",
            "player_1 wins the trick",
            "player_0 -10 (missed bid 2, took 1 trick): 0",
            "player_1 +20 (bid 1 made): 40",
            "game over, player_1 wins; scores: player_0 0, player_1 40",
        ]
    )
    assert events_since(env, 21) == [Event("game_over", None, {"winners": [1], "scores": [0, 40]})]


def test_skull_king_bid_events_do_not_depend_on_the_bid():
    """Until the reveal, a bid of 0 and a bid of 3 leave the same events (a bid is hidden)."""
    logs = []
    for bid in (0, 3):
        env = recording_env("skull_king_v0", num_players=3, num_hands=3)
        env.reset(seed=4, options={"first_hand": 3})
        env.step(BID_OFFSET + bid)
        env.step(BID_OFFSET + 1)
        logs.append(list(events_since(env)))
    assert logs[0] == logs[1]
    assert [e.kind for e in logs[0]] == ["deal", "bid", "bid"]


# ----------------------------------------------------------------------------- Piraten Kapern
def counts(**faces: int) -> list[int]:
    return [faces.get(face, 0) for face in FACES]


class ScriptedDice:
    """Returns the given rolls (dicts of face counts) in order."""

    def __init__(self, *rolls: dict[str, int]):
        self.rolls = [counts(**roll) for roll in rolls]

    def __call__(self, n: int) -> list[int]:
        roll = self.rolls.pop(0)
        assert sum(roll) == n
        return roll


def test_piraten_kapern_scripted_game_event_text():
    """Two players, first to 1000, the cards and dice scripted.

    Seat 0 draws 2 skulls and rolls 2 skulls: 4 skulls, the Island of Skulls. He re-rolls his 6
    parrots (1 more skull: 5) and stops: seat 1 loses 100 per skull, 500. Seat 1 draws the Sea
    Battle (2 sabres) and rolls 3 skulls at once: out, and the missed battle costs its 300.
    Seat 0 draws Gold and rolls 3 coins, 2 diamonds, 3 monkeys and stops: coins 3 + the gold
    coin = 4 of a kind (200), 3 monkeys (100), 6 coins and diamonds (600), all 8 dice count
    (full chest, 500): 1400, past the target, so seat 1 has one last turn: the Captain and 3
    skulls, 0 points; seat 0 wins.
    """
    env = recording_env("piraten_kapern_v0", num_players=2, target_score=1000)
    rolls = [dict(skull=2, parrot=6), dict(skull=1, parrot=5), dict(coin=4, sabre=1, skull=3)]
    rolls += [dict(coin=3, diamond=2, monkey=3), dict(coin=5, skull=3)]
    env.game.dice_source = ScriptedDice(*rolls)
    cards = iter(["skulls_2", "sea_battle_2", "gold", "captain"])
    env.game._draw_card = lambda: next(cards)
    env.reset(seed=0)
    for action in (reroll_action(counts(parrot=6)), STOP, STOP):
        env.step(action)
    assert env.game.terminated
    assert events_text(events_since(env)) == "\n".join(
        [
            "player_0 draws the fortune card skulls_2",
            "player_0 rolls 6 parrot, 2 skull",
            "player_0 lands on the Island of Skulls (4 skulls)",
            "player_0 re-rolls 6 parrot",
            "player_0 rolls 5 parrot, 1 skull",
            "player_0 stops",
            "player_0 +0 (Island of Skulls): 0",
            "player_1 -500 (Island of Skulls, player_0): -500",
            "player_1 draws the fortune card sea_battle_2",
            "player_1 rolls 4 coin, 1 sabre, 3 skull",
            "player_1 -300 (failed Sea Battle): -800",
            "player_0 draws the fortune card gold",
            "player_0 rolls 3 coin, 2 diamond, 3 monkey",
            "player_0 stops",
            "player_0 +1400 (stopped): 1400",
            "player_0 reaches 1000: the final round begins",
            "player_1 draws the fortune card captain",
            "player_1 rolls 5 coin, 3 skull",
            "player_1 +0 (three skulls): -800",
            "game over, player_0 wins; scores: player_0 1400, player_1 -800",
        ]
    )


# ----------------------------------------------------------------------------- every game
def test_recording_is_off_by_default_and_reset_empties_the_log():
    for env_id in pirate_envs.ENV_IDS:
        env = pirate_envs.make(env_id, raw=True)
        env.reset(seed=0)
        assert events_since(env) == []
        record_events(env.game)
        env.reset(seed=0)
        first = list(events_since(env))
        env.step(env.game.legal_actions()[0])
        env.reset(seed=0)
        assert events_since(env) == first


@pytest.mark.parametrize("env_id", pirate_envs.ENV_IDS)
def test_events_of_a_move_never_depend_on_what_its_player_cannot_see(env_id):
    """Redraw everything the player on turn cannot see, play the same move in both worlds: the
    events agree up to the first one that makes something hidden public (a reveal, a roll)."""
    rng = np.random.default_rng(1)
    env = recording_env(env_id)
    blocks = action_blocks(env)
    compared = 0
    for game in range(4):
        env.reset(seed=game)
        steps = 0
        while not env.game.done and steps < 400:
            seat = env.game.current_player
            action = sample_legal(env.game.legal_mask(), rng, blocks)
            other = copy.deepcopy(env.game)
            other.resample_hidden(seat, np.random.default_rng(steps))
            start = len(env.game.events)
            env.game.apply(action)
            other.apply(action)
            mine, theirs = env.game.events[start:], other.events[start:]
            for a, b in zip(mine, theirs):
                if reveals(a) or reveals(b):
                    break
                assert a == b, (env_id, event_text(a), event_text(b))
                compared += 1
            steps += 1
    assert compared > 50


@pytest.mark.parametrize("env_id", pirate_envs.ENV_IDS)
def test_every_event_has_a_text_and_json_fields(env_id):
    import json

    env = recording_env(env_id)
    rng = np.random.default_rng(0)
    blocks = action_blocks(env)
    env.reset(seed=2)
    steps = 0
    while not env.game.done and steps < 3000:
        env.step(sample_legal(env.game.legal_mask(), rng, blocks))
        steps += 1
    events = events_since(env)
    assert events
    for event in events:
        assert event_text(event)
        json.dumps(event.to_dict())


# ----------------------------------------------------------------------------- Lucky Pirate
def test_lucky_pirate_scripted_game_event_text():
    """Two players, hands only, seat 1 deals so seat 0 starts.

    Seat 0 starts the pile with a 5; seat 1 must beat it and plays his 6; seat 0 adds two 6s:
    three equal numbers in a row clear the pile (4 cards) out of the game and he plays again,
    an 8. Seat 1 holds only a 3, cannot play and picks up the pile (the 8); seat 0 starts a new
    pile with his Kraken, his last card, and wins.
    """
    from pirate_envs.lucky_pirate.actions import PICK_UP, play_action
    from pirate_envs.lucky_pirate.cards import KIND_INDEX

    env = recording_env("lucky_pirate_v0", num_players=2)
    deal = [{"hand": ["5", "6", "6", "8", "kraken"]}, {"hand": ["3", "6"]}]
    env.reset(seed=0, options={"deal": deal, "dealer": 1})
    for card, count in (("5", 1), ("6", 1), ("6", 2), ("8", 1)):
        env.step(play_action(KIND_INDEX[card], count))
    env.step(PICK_UP)
    env.step(play_action(KIND_INDEX["kraken"], 1))
    assert env.game.terminated
    assert events_text(events_since(env)) == "\n".join(
        [
            "game 1: player_1 deals",
            "player_0 plays 5",
            "player_1 plays 6",
            "player_0 plays 6 6",
            "player_0 clears the pile out of the game (4 cards)",
            "player_0 plays 8",
            "player_1 picks up the pile (1 card)",
            "player_0 plays kraken",
            "player_0 wins the game: no cards left",
            "player_0 +1 (game won): 1",
            "game over, player_0 wins; scores: player_0 1, player_1 0",
        ]
    )


def test_lucky_pirate_up_cards_laid_in_the_set_up_stay_unnamed():
    env = recording_env("lucky_pirate_v0", num_players=3, choose_up_cards=True)
    env.reset(seed=1)
    from pirate_envs.lucky_pirate.actions import LAY_UP_OFFSET

    env.step(env.game.legal_actions()[0])
    assert env.game.legal_actions()[0] >= LAY_UP_OFFSET
    assert [event_text(e) for e in events_since(env)][-1] == f"player_{env.game.dealer + 1} lays a card face up"
