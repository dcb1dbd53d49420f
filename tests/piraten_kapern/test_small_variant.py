"""The small variants of Piraten Kapern: fewer dice (``num_dice``), a chosen fortune deck (``fortune_deck``)
and a roll limit (``max_rolls``), in the engine, the env and the batched engine."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.chance import ScriptedChance
from pirate_envs.piraten_kapern.actions import STOP, reroll_action
from pirate_envs.piraten_kapern.engine import STANDARD_COPIES, Config, KapernEngine, Phase
from pirate_envs.piraten_kapern.rules import BASE_CARDS, STANDARD_DECK, score_counts

KAPERN = "piraten_kapern_v0"


def deck(**copies: int) -> tuple[int, ...]:
    """A ``fortune_deck`` value holding ``copies`` of the cards named (no other card)."""
    return tuple(copies.get(card, 0) for card in BASE_CARDS)


def dice(coin: int = 0, diamond: int = 0, monkey: int = 0, parrot: int = 0, sabre: int = 0, skull: int = 0) -> list:
    return [coin, diamond, monkey, parrot, sabre, skull]


# ----------------------------------------------------------------------------- options
def test_defaults_are_the_printed_game() -> None:
    config = Config()
    assert config.num_dice == 8 and config.max_rolls == 0
    assert config.deck() == STANDARD_DECK and sum(STANDARD_COPIES) == 35


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_dice": 1}, r"^num_dice=1 is out of range; allowed: 2\.\.8$"),
        ({"num_dice": 9}, r"^num_dice=9 is out of range; allowed: 2\.\.8$"),
        ({"num_dice": 2.0}, r"^num_dice=2\.0 must be an integer; allowed: 2\.\.8$"),
        ({"max_rolls": -1}, r"^max_rolls=-1 is out of range; allowed: >= 0$"),
        ({"fortune_deck": (0,) * 11}, r"^fortune_deck=\(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0\) holds no card; "),
        ({"fortune_deck": (1, 2)}, r"^fortune_deck=\(1, 2\) must be 11 copy counts, one per card of \['treasure_"),
        ({"fortune_deck": "4,4"}, r"^fortune_deck='4,4' must be 11 copy counts"),
        ({"fortune_deck": deck(gold=5)}, r"^fortune_deck\[gold\]=5 is out of range; allowed: 0\.\.4$"),
        ({"fortune_deck": deck(gold=-1)}, r"^fortune_deck\[gold\]=-1 is out of range; allowed: 0\.\.4$"),
    ],
)
def test_bad_option_values_are_refused_in_one_line(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        pirate_envs.make(KAPERN, **options)
    assert "\n" not in str(error.value)


def test_an_empty_base_deck_with_the_promo_cards_is_a_deck() -> None:
    assert Config(fortune_deck=(0,) * 11, promo_cards=True).deck() == {"storm": 1, "peace": 1}


def test_first_card_must_be_in_the_chosen_deck() -> None:
    engine = KapernEngine(Config(fortune_deck=deck(gold=1)))
    message = r"^first_card='captain' is not in this game's fortune deck; its cards: \['gold'\]$"
    with pytest.raises(ValueError, match=message):
        engine.reset(np.random.default_rng(0), {"first_card": "captain"})


def test_full_chest_is_all_the_dice_of_the_variant() -> None:
    """Three coins of three dice: a set and 100 per coin, plus the full chest (500) as all three dice score."""
    assert score_counts(dice(coin=3), "gold", num_dice=3) == 200 + 400 + 500  # four coins with the card
    assert score_counts(dice(coin=3), "captain", num_dice=3) == 2 * (100 + 300 + 500)
    assert score_counts(dice(coin=3), "captain") == 2 * (100 + 300)  # eight dice: three of them are not all


# ----------------------------------------------------------------------------- a game traced by hand
def test_a_game_of_the_variant_traced_by_hand() -> None:
    """Two players, three dice, a deck of one Gold and one Skulls 1, two rolls a turn, target 400.

    Script: the deck shuffle puts Gold on top (the end of the list), then the dice.

    * Seat 0 draws Gold (a fourth coin): rolls coin, coin, monkey -> 2 coins + the card's coin = a set
      of three coins (100) and 300 for the coins: 400 at stake. The monkey spoils the full chest.
      He may re-roll two coins, a coin and the monkey, or all three (at least two dice); he stops.
      400 >= target 400: the final round begins, seat 1 has one more turn.
    * Seat 1 draws Skulls 1 (one skull to start): rolls skull, sabre, parrot -> two skulls, 0 at
      stake. He re-rolls the sabre and the parrot (the roll limit: 2 rolls): coin, diamond ->
      200 at stake (no set; skulls rule out the full chest); the limit leaves only stopping.
      He stops: 200. The final round is over: seat 0 wins 400 to 200.
    """
    script = [
        ["skulls_1", "gold"],  # the shuffled deck; its top is the end of the list
        dice(coin=2, monkey=1),
        dice(sabre=1, parrot=1, skull=1),
        dice(coin=1, diamond=1),
    ]
    config = Config(num_dice=3, fortune_deck=deck(gold=1, skulls_1=1), max_rolls=2, target_score=400)
    engine = KapernEngine(config)
    engine.reset(ScriptedChance(script))
    assert engine.turn.card == "gold" and engine.turn_points == 400
    rerolls = [dice(coin=2), dice(coin=1, monkey=1), dice(coin=2, monkey=1)]
    assert engine.legal_actions() == sorted([STOP] + [reroll_action(counts) for counts in rerolls])
    engine.apply(STOP)
    assert engine.scores().tolist() == [400, 0] and engine.final_trigger == 0
    assert engine.current_player == 1 and engine.turn.card == "skulls_1" and engine.turn_points == 0
    reroll = reroll_action(dice(sabre=1, parrot=1))
    assert reroll in engine.legal_actions()
    engine.apply(reroll)
    assert engine.turn.rolls == 2 and engine.turn_points == 200
    assert engine.legal_actions() == [STOP]  # the roll limit
    engine.apply(STOP)
    assert engine.terminated and engine.phase is Phase.GAME_OVER
    assert engine.scores().tolist() == [400, 200] and engine.winners() == [0]


# ----------------------------------------------------------------------------- the batched engine
SMALL = {"num_dice": 3, "fortune_deck": deck(gold=1, skulls_2=1, sorceress=1, sea_battle_2=1), "max_rolls": 3}


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_batched_engine_in_lockstep_with_the_env_on_small_variants(reward_mode: str) -> None:
    """Fewer dice, the roll limit and a chosen deck (Skulls 2 reaches the Island with two dice) step alike."""
    pytest.importorskip("numba")
    from pirate_envs.testing import check_lockstep

    chest = {**SMALL, "num_dice": 5, "max_rolls": 0, "fortune_deck": deck(treasure_chest=2, skulls_2=1)}
    for options in (SMALL, chest):
        report = check_lockstep(
            KAPERN,
            8,
            games=24,
            seed=11,
            num_players=2,
            reward_mode=reward_mode,
            target_score=300,
            max_turns=12,
            **options,
        )
        assert report.games >= 24 and report.engine_checks > 0


def test_batched_heuristic_plays_the_small_variant_as_the_one_game_heuristic() -> None:
    """Training's default opponent: with fewer dice the batched heuristic picks the one-game heuristic's moves."""
    pytest.importorskip("numba")
    from agents.piraten_kapern.batched_heuristic import KapernHeuristicBatch
    from agents.piraten_kapern.heuristic import KapernHeuristic

    decisions = 0
    for num_dice in (2, 3, 5):
        cards = deck(treasure_chest=1, sorceress=1, gold=1, sea_battle_2=1, skulls_1=1)
        env = pirate_envs.make(
            KAPERN, raw=True, num_players=2, num_dice=num_dice, target_score=800, max_turns=30, fortune_deck=cards
        )
        heuristic, batched = KapernHeuristic(), KapernHeuristicBatch(env, num_games=1, seed=0)
        for game in range(3):
            env.reset(seed=game)
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                action = heuristic.act(obs, env.game.view(env.game.current_player))
                rows = np.zeros(1, dtype=np.int64)
                assert batched.act_batch(rows, obs["observation"][None], obs["action_mask"][None])[0] == action
                decisions += 1
                env.step(action)
    assert decisions > 30


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_dice": 3}, r"^the oracle solves the 8-dice game; this game rolls 3 dice \(num_dice\)$"),
        ({"max_rolls": 1}, r"^the oracle plays re-rolls without limit; this game caps a turn's rolls \(max_rolls\)$"),
    ],
)
def test_the_oracle_refuses_the_variants_it_was_not_solved_for_in_one_line(options: dict, message: str) -> None:
    from agents.piraten_kapern.oracle import KapernOracleAgent

    env = pirate_envs.make(KAPERN, **options)
    oracle = KapernOracleAgent()
    with pytest.raises(ValueError, match=message):
        for seed in range(20):  # until a turn where the oracle would re-roll
            env.reset(seed=seed)
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    break
                env.step(oracle.act(obs, env.unwrapped.game.view(env.unwrapped.game.current_player)))
