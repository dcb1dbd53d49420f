"""Piraten Kapern turns traced by hand with scripted dice (printed rules + docs/rulings.md)."""

from __future__ import annotations

import numpy as np
import pytest

from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, STOP, reroll_action
from pirate_envs.piraten_kapern.engine import Config, KapernEngine, Phase
from pirate_envs.piraten_kapern.rules import FACES

COIN_PUT = CHEST_PUT_OFFSET + FACES.index("coin")
COIN_TAKE = CHEST_TAKE_OFFSET + FACES.index("coin")


def counts(**faces: int) -> list[int]:
    """Counts per face in FACES order."""
    return [faces.get(face, 0) for face in FACES]


def reroll(**faces: int) -> int:
    """The re-roll action for these per-face counts."""
    return reroll_action(counts(**faces))


class ScriptedDice:
    """A dice source returning the given rolls in order (each a dict of face counts).

    Once the script is used up, every die shows a monkey (a roll that ends nothing).
    """

    def __init__(self, *rolls: dict[str, int]):
        self.rolls = [counts(**roll) for roll in rolls]

    def __call__(self, n: int) -> list[int]:
        if not self.rolls:
            return counts(monkey=n)
        roll = self.rolls.pop(0)
        assert sum(roll) == n, f"script rolls {sum(roll)} dice, the engine asked for {n}"
        return roll


def engine_with(
    card: str, *rolls: dict[str, int], num_players: int = 3, next_cards: tuple[str, ...] = (), **config
) -> KapernEngine:
    """An engine whose first turn gets ``card`` and the scripted ``rolls``.

    ``next_cards`` are stacked on the deck for the following turns (default: harmless Sorceresses).
    """
    engine = KapernEngine(Config(num_players=num_players, **config), dice_source=ScriptedDice(*rolls))
    original_start = engine._start_turn

    def start_first_turn() -> None:
        engine.deck[-1:-1] = reversed(next_cards or ("sorceress",) * 3)  # under the first card
        engine._start_turn = original_start
        original_start()

    engine._start_turn = start_first_turn
    engine.reset(np.random.default_rng(0), {"first_card": card})
    return engine


def legal(engine: KapernEngine) -> set[int]:
    return set(engine.legal_actions())


def test_first_card_option_deals_that_card():
    for card in ("captain", "treasure_chest", "skulls_2", "sea_battle_4"):
        engine = KapernEngine(Config(), dice_source=ScriptedDice(dict(coin=8)))
        engine.reset(np.random.default_rng(1), {"first_card": card})
        assert engine.turn.card == card
        assert sum(engine.deck_counts()) == 34


def test_first_card_option_rejects_unknown_or_absent_cards():
    engine = KapernEngine(Config())
    with pytest.raises(ValueError, match="unknown fortune card"):
        engine.reset(np.random.default_rng(1), {"first_card": "joker"})
    with pytest.raises(ValueError, match="not in this game's fortune deck"):
        engine.reset(np.random.default_rng(1), {"first_card": "storm"})


def test_stop_scores_the_dice_and_passes_the_turn():
    # 3 monkeys 100 + 2 coins 200 + 1 diamond 100 = 400
    e = engine_with("sorceress", dict(monkey=3, coin=2, diamond=1, parrot=2))
    assert e.turn_points == 400
    e.apply(STOP)
    assert e.scores().tolist() == [400, 0, 0]
    assert e.current_player == 1


def test_reroll_then_three_skulls_scores_nothing():
    e = engine_with(
        "gold",
        dict(coin=2, monkey=3, parrot=2, skull=1),
        dict(skull=2),  # the two parrots come back as skulls: three in all
    )
    e.apply(reroll(parrot=2))
    assert e.scores().tolist() == [0, 0, 0]
    assert e.current_player == 1


def test_reroll_needs_two_non_skull_dice():
    e = engine_with("captain", dict(coin=1, skull=2, monkey=5))
    with pytest.raises(ValueError):
        reroll(monkey=1)  # a single die is no action at all
    assert reroll(monkey=2) in legal(e)
    assert reroll(coin=1, monkey=1) in legal(e)
    assert reroll(coin=1, monkey=5) in legal(e)
    assert reroll(coin=2) not in legal(e)  # only one coin showing
    assert reroll(skull=1, monkey=2) not in legal(e)  # skulls stay without the Sorceress
    # 1 + 5 dice can be rolled: every legal re-roll takes 2..6 of them
    rerolls = [a for a in legal(e) if a != STOP]
    assert len(rerolls) == sum(1 for c in range(2) for m in range(6) if c + m >= 2)


def test_no_reroll_when_fewer_than_two_free_dice():
    e = engine_with("treasure_chest", dict(coin=6, skull=2))
    for _ in range(5):
        e.apply(COIN_PUT)
    # one free coin and two skulls: no re-roll is possible, only stop and chest moves
    assert legal(e) == {STOP, COIN_PUT, COIN_TAKE}


def test_sorceress_rerolls_one_skull_once():
    e = engine_with(
        "sorceress",
        dict(skull=2, coin=3, monkey=3),
        dict(coin=1),  # the skull re-rolled alone comes up a coin
        dict(skull=3, coin=5),
    )
    assert reroll(skull=1) in legal(e)
    assert reroll(skull=1, monkey=3) in legal(e)
    e.apply(reroll(skull=1))
    assert e.turn.sorceress_used
    assert e.turn.free == counts(skull=1, coin=4, monkey=3)
    assert reroll(skull=1) not in legal(e)
    assert reroll(skull=1, monkey=3) not in legal(e)
    e.apply(STOP)
    # 4 coins: set 200 + 400; 3 monkeys 100
    assert e.scores()[0] == 700


def test_island_of_skulls_costs_each_opponent_100_per_skull():
    e = engine_with(
        "sorceress",
        dict(skull=4, coin=4),
        dict(skull=2, monkey=2),  # two more skulls: stay on the island
        dict(monkey=2),  # no skull: the turn ends
    )
    assert e.phase is Phase.ISLAND
    assert reroll(skull=1, coin=2) not in legal(e)  # no Sorceress on the Island
    assert COIN_PUT not in legal(e)
    e.apply(reroll(coin=4))
    assert e.phase is Phase.ISLAND and e.turn.island_skulls == 6
    e.apply(reroll(monkey=2))
    # six skulls: each opponent loses 600, the player scores nothing
    assert e.scores().tolist() == [0, -600, -600]
    assert e.current_player == 1


def test_island_with_captain_doubles_and_stop_is_allowed():
    e = engine_with("captain", dict(skull=5, coin=3), dict(skull=3, coin=5))
    e.apply(STOP)
    assert e.scores().tolist() == [0, -1000, -1000]


def test_island_ends_when_fewer_than_two_dice_are_left():
    e = engine_with("sorceress", dict(skull=4, coin=4), dict(skull=3, monkey=1), dict(skull=3, coin=5))
    e.apply(reroll(coin=4))  # seven skulls, one die left: the turn ends
    assert e.scores().tolist() == [0, -700, -700]


def test_card_skulls_send_to_the_island():
    e = engine_with("skulls_2", dict(skull=2, coin=6), dict(skull=3, coin=5))
    assert e.phase is Phase.ISLAND and e.turn.island_skulls == 4
    e.apply(STOP)
    assert e.scores().tolist() == [0, -400, -400]


def test_sea_battle_has_no_island():
    e = engine_with("sea_battle_3", dict(skull=4, sabre=4))
    # four skulls on the first roll simply end the turn: the battle is lost
    assert e.scores().tolist() == [-500, 0, 0]
    assert e.current_player == 1


def test_treasure_chest_saves_dice_from_three_skulls():
    e = engine_with(
        "treasure_chest",
        dict(coin=3, skull=2, monkey=3),
        dict(skull=1, parrot=2),  # a third skull
        dict(skull=3, coin=5),
    )
    for _ in range(3):
        e.apply(COIN_PUT)
    assert e.turn.chest == counts(coin=3)
    assert COIN_PUT not in legal(e) and COIN_TAKE in legal(e)
    assert reroll(coin=1, monkey=2) not in legal(e)  # dice on the chest are not rolled
    e.apply(reroll(monkey=3))
    # only the chest scores: 3 coins = set 100 + 300, no full chest
    assert e.scores().tolist() == [400, 0, 0]


def test_treasure_chest_dice_can_be_taken_back_and_rerolled():
    e = engine_with("treasure_chest", dict(coin=3, skull=2, monkey=3), dict(coin=2), dict(skull=3, coin=5))
    e.apply(COIN_PUT)
    e.apply(COIN_TAKE)
    assert e.turn.chest == counts()
    e.apply(reroll(coin=1, monkey=1))
    assert e.turn.free == counts(coin=4, skull=2, monkey=2)


def test_storm_allows_one_reroll_and_three_skulls_count_as_island():
    e = engine_with(
        "storm",
        dict(coin=2, monkey=4, skull=2),
        dict(skull=1, coin=3),
        dict(skull=3, coin=5),
        promo_cards=True,
    )
    e.apply(reroll(monkey=4))
    # three skulls under After the Storm: scored as an Island turn, 300 from each opponent
    assert e.scores().tolist() == [0, -300, -300]
    e2 = engine_with("storm", dict(coin=2, monkey=4, skull=2), dict(coin=4), dict(skull=3, coin=5), promo_cards=True)
    e2.apply(reroll(monkey=4))
    assert legal(e2) == {STOP}
    e2.apply(STOP)
    # 6 coins: (set 1000 + 600) x 2
    assert e2.scores()[0] == 3200


def test_final_round_gives_everyone_else_one_turn():
    e = engine_with("sorceress", dict(coin=8), target_score=5000)  # then everyone rolls 8 monkeys
    e.apply(STOP)  # 8 coins: 4000 + 800 + 500 = 5300 >= 5000
    assert e.final_trigger == 0 and not e.terminated
    assert e.final_turns_left == [False, True, True]
    e.apply(STOP)  # player 1: 8 monkeys, 4000 + 500 = 4500
    assert not e.terminated and e.final_turns_left == [False, False, True]
    e.apply(STOP)  # player 2: 4500, and the game is over
    assert e.terminated and e.phase is Phase.GAME_OVER
    assert e.scores().tolist() == [5300, 4500, 4500]
    assert e.winners() == [0]


def test_a_tie_is_a_shared_win():
    e = engine_with("sorceress", dict(coin=8), dict(coin=8), num_players=2, target_score=5000)
    e.apply(STOP)
    e.apply(STOP)
    assert e.terminated and e.winners() == [0, 1]


def test_scores_can_go_negative():
    e = engine_with("sea_battle_4", dict(sabre=1, coin=7), num_players=2)
    e.apply(STOP)
    assert e.scores().tolist() == [-1000, 0]


def test_turn_limit_guard_truncates():
    e = engine_with("sorceress", num_players=2, max_turns=3)
    for _ in range(3):
        e.apply(STOP)
    assert e.truncated and not e.terminated


def test_turns_ending_on_their_first_roll_follow_each_other_in_a_loop():
    """Eight skulls on every first roll end every turn at once (an Island turn with no dice left
    to re-roll, or three skulls under a Sea Battle); a thousand such turns in a row run in one
    reset, without recursion, up to the turn-limit guard."""
    engine = KapernEngine(Config(num_players=2, max_turns=1000))
    expected_losses = [0, 0]

    def all_skulls(n: int) -> list[int]:
        card = engine.turn.card
        if card not in ("sea_battle_2", "sea_battle_3", "sea_battle_4"):
            # Island of Skulls: the opponent loses 100 per skull (card skulls too), doubled by the Captain
            skulls = n + {"skulls_1": 1, "skulls_2": 2}.get(card, 0)
            expected_losses[1 - engine.current_player] -= 100 * skulls * (2 if card == "captain" else 1)
        # under a Sea Battle three skulls disqualify: the player loses its bonus
        elif card == "sea_battle_2":
            expected_losses[engine.current_player] -= 300
        elif card == "sea_battle_3":
            expected_losses[engine.current_player] -= 500
        else:
            expected_losses[engine.current_player] -= 1000
        return counts(skull=n)

    engine.dice_source = all_skulls
    engine.reset(np.random.default_rng(3))
    assert engine.guard.turns == 1000 and engine.truncated and engine.phase is Phase.GAME_OVER
    assert engine.scores().tolist() == expected_losses


def test_final_round_is_cancelled_when_the_trigger_falls_below_target():
    rolls = [dict(coin=8), dict(skull=5, coin=3), dict(skull=3, coin=5), dict(coin=8)]
    e = engine_with("sorceress", *rolls, num_players=2, target_score=5000)
    e.apply(STOP)  # player 0: 5300, final round
    assert e.current_player == 1 and e.phase is Phase.ISLAND
    e.apply(STOP)  # five skulls: player 0 loses 500 and falls to 4800
    assert e.scores().tolist() == [4800, 0]
    assert e.final_trigger is None and not e.terminated
    # player 0 busts (three skulls); player 1 rolls 8 coins, 5300: he triggers a new final round
    assert e.current_player == 1
    e.apply(STOP)
    assert e.final_trigger == 1 and e.final_turns_left == [True, False]


def test_deck_is_reshuffled_when_it_runs_out():
    e = engine_with("sorceress", num_players=2, max_turns=100)  # everyone rolls 8 monkeys
    e.deck = []  # the next draw finds the deck empty
    e.apply(STOP)
    # a full 35-card deck was reshuffled and one card drawn from it
    assert sum(e.deck_counts()) == 34


def test_dice_are_conserved_in_random_play():
    from agents.base import sample_legal

    rng = np.random.default_rng(5)
    engine = KapernEngine(Config(num_players=4, promo_cards=True))
    blocks = [(b.start, b.stop) for b in engine.ACTIONS.blocks]
    for seed in range(30):
        engine.reset(np.random.default_rng(seed))
        while not engine.done:
            t = engine.turn
            assert sum(t.free) + sum(t.chest) == 8
            assert t.chest[-1] == 0  # skulls never sit on the chest
            assert all(c >= 0 for c in t.free + t.chest)
            assert sum(engine.deck_counts()) == len(engine.deck)
            engine.apply(sample_legal(engine.legal_mask(), rng, blocks))
