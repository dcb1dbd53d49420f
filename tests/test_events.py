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
from tests.games import GAME_IDS, require

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
    for env_id in GAME_IDS:
        env = pirate_envs.make(env_id, raw=True)
        env.reset(seed=0)
        assert events_since(env) == []
        record_events(env.game)
        env.reset(seed=0)
        first = list(events_since(env))
        env.step(env.game.legal_actions()[0])
        env.reset(seed=0)
        assert events_since(env) == first


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_events_of_a_move_never_depend_on_what_its_player_cannot_see(env_id):
    """Redraw everything the player on turn cannot see, play the same move in both worlds: the
    events agree up to the first one that makes something hidden public (a reveal, a roll)."""
    require(env_id, "events")
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


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_every_event_has_a_text_and_json_fields(env_id):
    require(env_id, "events")
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


# ----------------------------------------------------------------------------- Piratenpoker
def test_piratenpoker_scripted_game_event_text():
    """Three players, one +5 loot card per colour (every stack empties at the first deal).

    Overboard: green-8 (8) beats green-7 (7) and a Pass; seat 0 throws the red card overboard,
    back side up (the +5's back is a shark, worth 4) and gives it to seat 1. Below deck:
    yellow-8 beats red-6 and red-3; seat 2 puts the green card under its stack (he has no
    negative card to give). Loot: yellow counts double: yellow-7 (14) beats yellow-4 (8) and
    yellow-2 (4); seat 2 displays yellow +5. The next deal finds the red and yellow stacks
    empty: the episode ends, seat 2 (5) before seat 1 (4) and seat 0 (0).
    """
    from pirate_envs.piratenpoker.actions import ADD, COMMIT, LOOT, PASS, RECIPIENT
    from pirate_envs.piratenpoker.cards import COLOURS, POKER_INDEX

    env = recording_env("piratenpoker_v0", num_players=3, loot_fronts=[5])
    hands = [
        ["green-8", "red-1", "red-2", "red-3", "yellow-1", "yellow-2"],
        ["green-7", "red-4", "red-5", "red-6", "yellow-3", "yellow-4"],
        ["green-1", "green-2", "green-3", "yellow-6", "yellow-7", "yellow-8"],
    ]
    env.reset(seed=0, options={"hands": hands})

    def bid(card: str) -> None:
        env.step(ADD + POKER_INDEX[card])
        env.step(COMMIT)

    bid("green-8")
    bid("green-7")
    env.step(PASS)
    env.step(LOOT + COLOURS.index("red"))
    env.step(RECIPIENT + 1)  # to the next seat: seat 1
    for card in ("red-3", "red-6", "yellow-8"):
        bid(card)
    env.step(LOOT + COLOURS.index("green"))
    for card in ("yellow-2", "yellow-4", "yellow-7"):
        bid(card)
    assert env.game.terminated
    bids = ["player_0 has bid", "player_1 has bid", "player_2 has bid"]
    assert events_text(events_since(env)) == "\n".join(
        [
            "game 1: loot on offer green +5, red +5, yellow +5",
            *bids,
            "bids revealed: player_0 [green-8], player_1 [green-7], player_2 pass",
            "player_0 wins the overboard round",
            "player_0 throws the red loot card overboard: red:shark",
            "player_0 gives red:shark to player_1",
            "player_1 +4 (gets red:shark, player_0): 4",
            *bids,
            "bids revealed: player_0 [red-3], player_1 [red-6], player_2 [yellow-8]",
            "player_2 wins the below deck round",
            "player_2 puts the green loot card under its stack",
            *bids,
            "bids revealed: player_0 [yellow-2], player_1 [yellow-4], player_2 [yellow-7]",
            "player_2 wins the loot round",
            "player_2 +5 (displays yellow:+5): 5",
            "game over, player_2 wins; scores: player_0 0, player_1 4, player_2 5",
        ]
    )


def test_piratenpoker_bid_events_do_not_depend_on_the_bid():
    """A Pass and a bid of three cards leave the same events until the reveal."""
    from pirate_envs.piratenpoker.actions import ADD, COMMIT, PASS

    logs = []
    for first in ([PASS], [ADD + a for a in range(3)] + [COMMIT]):
        env = recording_env("piratenpoker_v0", num_players=3)
        env.reset(seed=0, options={"hands": [["green-1", "green-2", "green-3", "red-1", "red-2", "red-3"], [], []]})
        for action in first:
            env.step(action)
        logs.append(list(events_since(env)))
    assert logs[0] == logs[1] and logs[0][-1] == Event("bid", 0, {})


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_env_exposes_events_and_seat_screens(env_id):
    require(env_id, "events")
    from pirate_envs.core.errors import UnknownAgentError
    from pirate_envs.core.text import env_seat_text

    env = pirate_envs.make(env_id)  # the wrapped env: through env.unwrapped
    raw = env.unwrapped
    env.reset(seed=0)
    assert raw.events_since() == []
    raw.record_events()
    env.reset(seed=0)
    first = raw.events_since()
    assert first and all(isinstance(e, Event) for e in first)
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert raw.events_since(len(first)) == raw.events_since()[len(first) :]
    assert raw.seat_text(agent) == env_seat_text(env, agent)
    with pytest.raises(UnknownAgentError):
        raw.seat_text("player_9")


def test_event_dicts_are_json_even_with_numpy_values():
    import json

    from pirate_envs.core.events import Event

    event = Event("score", np.int64(1), {"delta": np.int64(-400), "total": np.int64(200), "cause": "Island of Skulls"})
    assert json.loads(json.dumps(event.to_dict())) == {
        "kind": "score",
        "seat": 1,
        "delta": -400,
        "total": 200,
        "cause": "Island of Skulls",
    }
