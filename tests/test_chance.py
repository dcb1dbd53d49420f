"""Chance as a seam: scripted deals and dice, recorded outcomes, clones, and no draw outside the chance source."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.actions import sample_legal
from pirate_envs.core.chance import (
    GeneratorChance,
    RecordingChance,
    ScriptedChance,
    SplitMix64Stream,
    as_chance,
)
from pirate_envs.piraten_kapern.actions import STOP
from pirate_envs.piraten_kapern.dice import roller
from pirate_envs.piraten_kapern.engine import Config as KapernConfig
from pirate_envs.piraten_kapern.engine import KapernEngine
from pirate_envs.piratenpoker.engine import Config as PokerConfig
from pirate_envs.piratenpoker.engine import PiratenpokerEngine
from pirate_envs.skull_king.actions import BID_OFFSET, CARD_OFFSET
from pirate_envs.skull_king.cards import DECK, kind_index, token_index
from pirate_envs.skull_king.engine import Config as SkullKingConfig
from pirate_envs.skull_king.engine import SkullKingEngine
from tests.games import GAME_SPECS

ENV_IDS = [spec.env_id for spec in GAME_SPECS]


def new_engine(env_id: str):
    """A fresh engine of ``env_id``'s game at its default table (not reset)."""
    env = pirate_envs.make(env_id, raw=True)
    return type(env.game)(env.config)


def play(engine, seed: int, moves: int | None = None) -> list[str]:
    """Random legal moves (seeded) until the end or ``moves``; every rendering on the way."""
    rng = np.random.default_rng(seed)
    blocks = tuple((block.start, block.stop) for block in engine.ACTIONS.blocks)
    renders = [engine.render()]
    while not engine.done and (moves is None or len(renders) <= moves):
        engine.apply(sample_legal(engine.legal_mask(), rng, blocks))
        renders.append(engine.render())
    return renders


# ----------------------------------------------------------------------------- scripted games, traced by hand
def test_scripted_kapern_game_by_the_rules():
    """Gold, then a bust, then a full chest, scored by hand from the rules (sets, coins and diamonds, all 8 dice)."""
    engine = KapernEngine(KapernConfig(num_players=2))
    deck = list(engine.deck_cards)
    for card in ("treasure_chest", "diamond", "gold"):  # the top of the deck is the end of the list
        deck.remove(card)
        deck.append(card)
    # dice as counts of (coin, diamond, monkey, parrot, sabre, skull)
    script = [deck, (3, 1, 2, 1, 0, 1), (0, 2, 0, 0, 3, 3), (0, 0, 4, 4, 0, 0)]
    engine.reset(ScriptedChance(script))
    assert (engine.turn.card, engine.turn.free) == ("gold", [3, 1, 2, 1, 0, 1])
    engine.apply(STOP)  # 4 coins with the Gold card: set of 4 (200) + 4 coins (400) + a diamond (100)
    # seat 1: the Diamond card, three skulls on the first roll: the turn ends with nothing
    # seat 0 again: the Treasure Chest card, 4 monkeys (200) and 4 parrots (200), all 8 dice score (+500)
    assert engine.scores().tolist() == [700.0, 0.0]
    assert (engine.current_player, engine.turn.card, engine.turn.free) == (0, "treasure_chest", [0, 0, 4, 4, 0, 0])
    with pytest.raises(ValueError, match=r"^ScriptedChance: the script ran out at draw 4 \(roll of 8 dice\)"):
        engine.apply(STOP)  # seat 1's next turn needs a roll the script does not hold
    assert engine.scores().tolist() == [1600.0, 0.0]


def test_scripted_skull_king_hand_by_the_rules():
    """One card each: the Skull King takes the yellow 7; both bids are made (20 per trick; a made zero: 10 x hand)."""
    engine = SkullKingEngine(SkullKingConfig(num_players=2, num_hands=1))
    deck = DECK.tolist()
    for name in ("yellow-7", "skull_king"):  # seat 0 gets the first card dealt, seat 1 the second
        deck.remove(kind_index(name))
    deck = [kind_index("skull_king"), kind_index("yellow-7"), *deck]
    engine.reset(ScriptedChance([deck]))
    assert engine.hands[0, kind_index("skull_king")] == 1 and engine.hands[1, kind_index("yellow-7")] == 1
    assert engine.current_player == 1  # left of the dealer, seat 0
    engine.apply(BID_OFFSET + 0)
    engine.apply(BID_OFFSET + 1)
    engine.apply(CARD_OFFSET + token_index("yellow-7"))
    engine.apply(CARD_OFFSET + token_index("skull_king"))
    assert engine.done and engine.scores().tolist() == [20.0, 10.0] and engine.winners() == [0]


def test_scripted_lucky_pirate_deal():
    """The dealer is the first draw, the deal the second: hands dealt in turn from the dealer's left."""
    env = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=3)
    engine = type(env.game)(env.config)
    order = engine._deck[::-1].copy()  # any rearrangement of the deck
    engine.reset(ScriptedChance([2, order]))
    assert engine.dealer == 2 and engine.current_player == 0
    for h in range(3):
        seat = (2 + 1 + h) % 3
        dealt = order[h::3]
        assert engine.downs[seat] == dealt[: env.config.up_down].tolist()
        up = np.bincount(dealt[env.config.up_down : 2 * env.config.up_down], minlength=engine.ups.shape[1])
        assert engine.ups[seat].tolist() == up.tolist()


def test_scripted_piratenpoker_deal():
    """The deck's shuffle, then the three loot stacks; hands are dealt from the top (the end), seat 0 first."""
    engine = PiratenpokerEngine(PokerConfig(num_players=3))
    recording = RecordingChance(GeneratorChance(np.random.default_rng(0)))
    engine.reset(recording)
    deck, *stacks = recording.outcomes
    deck = deck[::-1]  # another order of the same cards
    engine.reset(ScriptedChance([deck, *stacks]))
    size = engine.config.hand_size
    for seat in range(3):
        dealt = deck[len(deck) - size * (seat + 1) : len(deck) - size * seat]
        assert engine.hands[seat].tolist() == np.bincount(dealt, minlength=engine.hands.shape[1]).tolist()
    assert engine.face_up == [stack[0] for stack in stacks]  # each stack's top card is turned up for the round
    assert engine.stacks == [stack[1:] for stack in stacks]


# ----------------------------------------------------------------------------- scripts and records
def test_scripted_chance_refuses_in_one_line():
    with pytest.raises(ValueError, match=r"^ScriptedChance: the script ran out at draw 0 \(integer in 0\.\.2\)"):
        ScriptedChance([]).integers(3)
    with pytest.raises(ValueError, match=r"^ScriptedChance: outcome 3 of draw 0 \(integer in 0\.\.2\) is invalid"):
        ScriptedChance([3]).integers(3)
    with pytest.raises(ValueError, match=r"expected a rearrangement of \[1, 2, 2\]"):
        ScriptedChance([[1, 2, 3]]).permutation(np.array([1, 2, 2]))
    with pytest.raises(ValueError, match=r"expected 6 counts per face summing to 2"):
        ScriptedChance([(1, 0, 0, 0, 0, 0)]).roll_dice(2)
    with pytest.raises(ValueError, match="ScriptedChance: outcome True"):
        ScriptedChance([True]).integers(2)
    messages = []
    for bad in ([], [5]):
        with pytest.raises(ValueError) as error:
            ScriptedChance(bad).integers(2)
        messages.append(str(error.value))
    assert all("\n" not in m for m in messages)
    with pytest.raises(TypeError, match=r"expected a chance source .* or a numpy Generator, got int"):
        as_chance(7)  # type: ignore[arg-type]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_recorded_outcomes_replay_the_game(env_id):
    engine = new_engine(env_id)
    recording = RecordingChance(np.random.default_rng(4))
    engine.reset(recording)
    renders = play(engine, seed=4)
    assert recording.outcomes
    replay = ScriptedChance(recording.outcomes)
    engine.reset(replay)
    assert play(engine, seed=4) == renders
    assert not replay.script  # every outcome was drawn again


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_generator_chance_deals_what_the_generator_dealt(env_id):
    """A generator and its GeneratorChance start the same game (the engines' draws are the numpy calls)."""
    first, second = new_engine(env_id), new_engine(env_id)
    first.reset(np.random.default_rng(9))
    second.reset(GeneratorChance(np.random.default_rng(9)))
    assert play(first, seed=1, moves=30) == play(second, seed=1, moves=30)


def test_generator_chance_makes_the_numpy_calls():
    chance, rng = GeneratorChance(np.random.default_rng(3)), np.random.default_rng(3)
    assert chance.permutation(DECK).tolist() == rng.permutation(DECK).tolist()
    assert chance.integers(5) == rng.integers(5) and chance.integers(2, 9) == rng.integers(2, 9)
    items, expected = list("abcdef"), list("abcdef")
    chance.shuffle(items)
    rng.shuffle(expected)
    assert items == expected
    chance.seed_dice()
    dice = roller(rng)
    assert [chance.roll_dice(n) for n in (8, 3, 5)] == [dice(n) for n in (8, 3, 5)]


# ----------------------------------------------------------------------------- clones
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_clone_is_independent(env_id):
    """Stepping the clone leaves the original as it was, and the other way round; both play on as a deep copy."""
    engine = new_engine(env_id)
    engine.reset(np.random.default_rng(2))
    play(engine, seed=2, moves=12)
    reference = copy.deepcopy(engine)
    clone = engine.clone()
    assert play(clone, seed=5) == play(copy.deepcopy(reference), seed=5)  # the clone draws what the original would
    assert engine.render() == reference.render()
    assert [engine.view(s) for s in range(engine.num_players)] == [
        reference.view(s) for s in range(reference.num_players)
    ]
    clone = engine.clone()
    before = clone.render(), [clone.view(s) for s in range(clone.num_players)]
    play(engine, seed=6)
    assert (clone.render(), [clone.view(s) for s in range(clone.num_players)]) == before
    assert play(clone, seed=5) == play(copy.deepcopy(reference), seed=5)


def test_lucky_pirate_clone_keeps_its_table_views():
    engine = new_engine("lucky_pirate_v0")
    engine.reset(np.random.default_rng(1))
    clone = engine.clone()
    for name in ("ups", "hand_size", "down_left", "wins"):
        assert np.shares_memory(getattr(clone, name), clone.table)
        assert not np.shares_memory(getattr(clone, name), engine.table)


# ----------------------------------------------------------------------------- nothing but the chance source
def _refuse(*args, **kwargs):
    raise AssertionError("an engine drew outside its chance source")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_engine_draws_only_from_its_chance_source(env_id, monkeypatch):
    """Given a stream, reset and a whole game touch no numpy generator, global state or ``random``."""
    engine = new_engine(env_id)
    for name in ("default_rng", "permutation", "shuffle", "randint", "random", "choice", "integers", "seed"):
        monkeypatch.setattr(np.random, name, _refuse, raising=False)
    monkeypatch.setattr(random, "Random", _refuse)
    monkeypatch.setattr(random, "random", _refuse)
    stream = SplitMix64Stream(77)
    engine.reset(stream)
    rng = random.getstate()
    moves = np.random.PCG64(1)  # the moves' own bits, made before any draw could be refused
    blocks = tuple((block.start, block.stop) for block in engine.ACTIONS.blocks)
    picks = np.random.Generator(moves)
    while not engine.done:
        engine.apply(sample_legal(engine.legal_mask(), picks, blocks))
    assert random.getstate() == rng
    assert engine.chance is stream and stream.state != SplitMix64Stream(77).state  # it drew from the stream
