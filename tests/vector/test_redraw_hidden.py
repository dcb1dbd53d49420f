"""``VectorEnv.redraw_hidden``: a search's determinization in the batch, honest and by the rules.

Skull King positions of seeded random games (bids hidden and shown, tricks half played, public
voids) are loaded into a row, copied, and the copies redrawn from the seat on turn. Checked:
the seat's view is the same in every redrawn world; what it cannot see depends on nothing it
cannot see (two positions that look the same to it give identical rows under the same seeds);
every world keeps the hand sizes, the public voids and the cards; a card the seat has not seen
lies with each other seat in proportion to its hand; and a redrawn row plays on in lockstep with
the reference engine holding that world.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
from pirate_envs import vector
from pirate_envs.core.chance import GeneratorChance, SplitMix64Stream
from pirate_envs.skull_king import batched as sk_batched
from pirate_envs.skull_king.cards import NUM_KINDS, NUM_RANKS, NUM_SUIT_CARDS
from pirate_envs.testing import _compare_row, _Where, block_first_actions
from tests.vector.test_load_rows import aec_on, row_state

SKULL_KING = "skull_king_v0"
OPTIONS = {"num_hands": 5}
ROWS = 64


def game_positions(
    env_id: str, num_players: int, options: dict[str, Any], seed: int, every: int, first: int = 0
) -> list[Any]:
    """Positions of one seeded random game of ``env_id``: its decisions ``first``, ``first + every``, ..."""
    engine = pirate_envs.make(env_id, raw=True, num_players=num_players, **options).game
    engine.reset(GeneratorChance(np.random.default_rng(seed)))
    rng = np.random.default_rng(seed + 1)
    kept = []
    for move in range(100_000):
        if engine.done:
            return kept
        if move % every == first:
            kept.append(engine.clone())
        legal = engine.legal_actions()
        engine.apply(legal[int(rng.integers(len(legal)))])
    raise AssertionError("the game did not end")


def positions(num_players: int, seed: int) -> list[Any]:
    """Positions of one seeded random game: every tenth decision (bids hidden mid-bidding, tricks under way)."""
    return game_positions(SKULL_KING, num_players, OPTIONS, seed, every=10, first=3)


def redrawn(
    position: Any, seeds: np.ndarray, env_id: str = SKULL_KING, options: dict[str, Any] = OPTIONS
) -> tuple[vector.VectorEnv, np.ndarray]:
    """A batch (rows to spare) whose rows ``1..len(seeds)`` are ``position`` redrawn from its seat by ``seeds``."""
    venv = vector.make(env_id, max(ROWS, len(seeds)) + 1, seed=0, num_players=position.num_players, **options)
    venv.reset()
    venv.load(0, position, seeds=11)
    rows = np.arange(1, len(seeds) + 1)
    venv.copy_rows(0, rows)
    failed = venv.redraw_hidden(rows, position.current_player, seeds)
    assert not failed.any()
    return venv, rows


def world_engine(venv: vector.VectorEnv, row: int, position: Any) -> Any:
    """The reference engine holding row ``row``'s world.

    That is ``position`` with the row's hands, bids, later deals and stream.
    """
    backend = venv._backend
    n, k = position.num_players, position.hand_number
    engine = position.clone(SplitMix64Stream(int(backend.rng[row])))
    engine._set_hands(backend.hands[row].astype(np.int64))
    engine.bids = backend.seats[row, :, sk_batched.S_BID].tolist()
    later = []
    for hand in range(k + 1, engine.config.num_hands + 1):
        cards = backend.deals[row, hand - 1, : n * hand].reshape(n, hand)
        later.append(np.stack([np.bincount(seat_cards, minlength=NUM_KINDS) for seat_cards in cards]))
    engine._pending_deals = later
    engine._mask = None
    return engine


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_the_seat_sees_the_same_game_and_the_rest_is_dealt_by_the_rules(num_players: int) -> None:
    for position in positions(num_players, seed=num_players):
        seat = position.current_player
        venv, rows = redrawn(position, np.arange(ROWS, dtype=np.uint64) * 7919 + 1)
        backend = venv._backend
        deck = np.bincount(position.config.deck, minlength=NUM_KINDS)
        for row in rows.tolist():
            world = world_engine(venv, row, position)
            assert world.view(seat) == position.view(seat)
            hands = backend.hands[row].astype(np.int64)
            assert (hands.sum(axis=1) == position.hands.sum(axis=1)).all()
            assert ((hands.sum(axis=0) + backend.played[row]) <= deck).all()
            suited = hands[:, :NUM_SUIT_CARDS].reshape(num_players, -1, NUM_RANKS).sum(axis=2)
            voids = np.array(position.voids, dtype=bool)
            assert not suited[voids].any(), "a seat got a card of a suit it showed void in"
            if position.bids_revealed:
                assert world.bids == position.bids
            assert backend.deals[row, : position.hand_number].sum() == 0


def test_what_the_seat_cannot_see_depends_on_nothing_it_cannot_see() -> None:
    for position in positions(4, seed=5):
        seat = position.current_player
        other = position.clone()
        other.resample_hidden(seat, np.random.default_rng(3))  # the same to the seat, other hidden cards
        assert other.view(seat) == position.view(seat)
        seeds = np.arange(8, dtype=np.uint64) + 100
        first, rows = redrawn(position, seeds)
        second, _ = redrawn(other, seeds)
        for row in rows.tolist():
            mine, theirs = row_state(first, row), row_state(second, row)
            for name in mine.keys() - {"history", "start_state"}:
                assert np.array_equal(mine[name], theirs[name]), name


def test_an_unseen_card_lies_with_each_seat_in_proportion_to_its_hand() -> None:
    engine = pirate_envs.make(SKULL_KING, raw=True, num_players=3, **OPTIONS).game
    engine.reset(GeneratorChance(np.random.default_rng(8)))
    while engine.hand_number < 5 or engine.phase.name != "PLAY":  # the last hand's first card: no voids yet
        engine.apply(engine.legal_actions()[0])
    seat, draws = engine.current_player, 2000
    venv = vector.make(SKULL_KING, draws + 1, seed=0, num_players=3, **OPTIONS)
    venv.reset()
    venv.load(0, engine, seeds=1)
    rows = np.arange(1, draws + 1)
    venv.copy_rows(0, rows)
    assert not venv.redraw_hidden(rows, seat, np.arange(draws, dtype=np.uint64) * 31 + 5).any()
    unseen = np.bincount(engine.config.deck, minlength=NUM_KINDS) - engine.hands[seat] - engine.played
    share = {s: engine.hands[s].sum() / unseen.sum() for s in range(3) if s != seat}
    held = venv._backend.hands[rows].astype(np.int64)
    for kind in np.flatnonzero(unseen == 1).tolist():
        for s, p in share.items():
            count = int((held[:, s, kind] > 0).sum())
            spread = 5 * np.sqrt(draws * p * (1 - p))
            assert abs(count - draws * p) < spread, (kind, s, count, draws * p)


@pytest.mark.parametrize("num_players", [3, 5])
def test_a_redrawn_row_plays_on_in_lockstep_with_its_world(num_players: int) -> None:
    rng = np.random.default_rng(num_players)
    where = _Where("redraw", SKULL_KING, num_players)
    for position in positions(num_players, seed=20 + num_players)[::3]:
        venv, rows = redrawn(position, np.arange(4, dtype=np.uint64) + 9)
        envs = {row: aec_on(SKULL_KING, world_engine(venv, row, position), num_players=num_players, **OPTIONS)
                for row in rows.tolist()}  # fmt: skip
        play_worlds_in_lockstep(venv, envs, rng, where, max_steps=400)


def play_worlds_in_lockstep(
    venv: vector.VectorEnv, envs: dict[int, Any], rng: np.random.Generator, where: _Where, max_steps: int
) -> None:
    """Step the rows ``envs`` (row -> the AEC env on its world) by random legal moves to their ends, comparing."""
    for row, env in envs.items():
        where.details = {"row": row, "step": 0}
        _compare_row(venv, env, row, where)
    for step in range(1, max_steps):
        if not envs:
            return
        active = np.zeros(venv.num_envs, dtype=bool)
        active[list(envs)] = True
        actions = block_first_actions(venv, rng)
        venv.step(actions, active)
        for row, env in list(envs.items()):
            env.step(int(actions[row]))
            where.details = {"row": row, "step": step}
            _compare_row(venv, env, row, where)
            if env.game.done:
                del envs[row]
    assert not envs, "the redrawn games did not end"


def test_a_redrawn_row_has_no_reference_engine_until_a_new_game() -> None:
    position = positions(2, seed=1)[2]
    venv, _rows = redrawn(position, np.array([5], dtype=np.uint64))
    for call in (venv.engine, venv.start_engine, venv.reference_engine, venv.reset_options):
        with pytest.raises(RuntimeError, match="redraw"):
            call(1)
    venv.copy_rows(1, [2])
    with pytest.raises(RuntimeError, match="redraw"):
        venv.engine(2)
    venv.load(2, position, seeds=3)
    assert venv.engine(2).view(0) == position.view(0)
    venv.reset()
    assert venv.reset_options(1)["deals"]


def test_a_row_no_redraw_fits_keeps_its_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    position = positions(4, seed=2)[4]
    venv = vector.make(SKULL_KING, 3, seed=0, num_players=4, **OPTIONS)
    venv.reset()
    venv.load([0, 1], [position, position], seeds=[4, 4])
    monkeypatch.setattr(sk_batched, "REDRAW_TRIES", 0)
    before = venv._backend.hands[1].copy()
    assert venv.redraw_hidden([1], position.current_player, [9]).tolist() == [True]
    assert np.array_equal(venv._backend.hands[1], before)
    assert venv.engine(1).view(0) == position.view(0)  # still the loaded game


def test_bad_input_is_refused_in_one_line() -> None:
    position = positions(2, seed=3)[1]
    venv, _ = redrawn(position, np.array([1], dtype=np.uint64))
    cases = [
        (([1], 2, [1]), ValueError, "seat=2 is not valid"),
        (([1], 0, [1, 2]), ValueError, "2 seeds given for 1 rows"),
        (([1], 0, [-1]), ValueError, "seeds: -1 is not valid"),
        (([1, 1], 0, [1, 2]), ValueError, "repeats a game index"),
        (([99], 0, [1]), ValueError, "is not a game index"),
    ]
    for args, error, message in cases:
        with pytest.raises(error, match=message):
            venv.redraw_hidden(*args)
    kapern = vector.make("piraten_kapern_v0", 2, seed=0, num_players=2)
    kapern.reset()
    with pytest.raises(NotImplementedError, match=r"^the batched piraten_kapern engine cannot redraw hidden cards"):
        kapern.redraw_hidden([0], 0, [1])
