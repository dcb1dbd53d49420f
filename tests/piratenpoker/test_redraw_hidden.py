"""``VectorEnv.redraw_hidden`` in Piratenpoker: a search's determinization in the batch.

Positions of seeded random games (bids half built and committed, the Pass held or used, the
discard reshuffled into new draw piles while older cards are still held) are loaded into a row,
copied, and the copies redrawn from the seat on turn. Checked: the seat's observation is the same
in every world and what is public stays; every seat keeps his number of cards, no poker card is
made or lost; what the seat cannot see depends on nothing it cannot see; the worlds are drawn as
the reference engine's ``resample_hidden`` draws them (each seat's cards, his bid's size and the
draw pile, in distribution); a row moved since its load is redrawn from its replayed history; and
a redrawn row plays on in lockstep with the reference engine holding that world.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from pirate_envs import vector
from pirate_envs.core.chance import SplitMix64Stream
from pirate_envs.piratenpoker import batched as pp_batched
from pirate_envs.piratenpoker.cards import DECK_SIZE, NUM_POKER_KINDS, POKER_NAMES, names_of
from pirate_envs.piratenpoker.engine import BID_ROW, HAND_ROW
from pirate_envs.testing import _Where
from tests.vector.test_load_rows import aec_on, row_state
from tests.vector.test_redraw_hidden import game_positions, play_worlds_in_lockstep, redrawn

PIRATENPOKER = "piratenpoker_v0"
ROWS = 48
#: The per-game arrays a redraw leaves as they are: what every seat sees.
PUBLIC = ("discard", "displayed", "last_bids", "face_up", "stack_len")


def positions(num_players: int, seed: int, every: int = 9) -> list[Any]:
    """Positions of one seeded random game: every ``every``-th decision."""
    return game_positions(PIRATENPOKER, num_players, {}, seed, every, first=2)


def reshuffled(position: Any) -> bool:
    """Whether the discard was made a new draw pile while the others still hold cards of an older one."""
    return len(position.piles.compositions) > 1


def cards_of(backend: Any, row: int) -> np.ndarray:
    """Per seat, the poker cards of row ``row``'s hand and bid together (per kind)."""
    return backend.hands[row].astype(np.int64) + backend.bids[row]


def poker_cards(backend: Any, row: int) -> np.ndarray:
    """Per kind, row ``row``'s poker cards in hands, bids, the discard and the draw pile."""
    draw = backend.draw[row, : backend.game[row, pp_batched.F_DRAW_LEN]]
    return cards_of(backend, row).sum(axis=0) + backend.discard[row] + np.bincount(draw, minlength=NUM_POKER_KINDS)


def world_engine(venv: vector.VectorEnv, row: int, position: Any) -> Any:
    """The reference engine holding row ``row``'s world: ``position`` with the row's cards, bids, piles and stream."""
    backend = venv._backend
    engine = position.clone(SplitMix64Stream(int(backend.rng[row])))
    seats = backend.seats[row]
    engine.cards[:, HAND_ROW] = backend.hands[row]
    engine.cards[:, BID_ROW] = backend.bids[row]
    engine.hand_size = seats[:, pp_batched.S_HAND_SIZE].tolist()
    engine.bid_names = [names_of(bid, POKER_NAMES) for bid in backend.bids[row]]
    engine.passed = [bool(x) for x in seats[:, pp_batched.S_PASSED]]
    engine.pass_available = [bool(x) for x in seats[:, pp_batched.S_PASS_AVAILABLE]]
    engine.draw = backend.draw[row, : backend.game[row, pp_batched.F_DRAW_LEN]].tolist()
    engine.stacks = [stack[:length].tolist() for stack, length in zip(backend.stacks[row], backend.stack_len[row])]
    engine._mask = None
    engine._table = None
    return engine


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_the_seat_sees_the_same_game_and_every_card_stays_in_play(num_players: int) -> None:
    kept = positions(num_players, seed=num_players)
    assert any(reshuffled(position) for position in kept), "no position after a reshuffle: cover one"
    for position in kept:
        seat = position.current_player
        venv, rows = redrawn(position, np.arange(ROWS, dtype=np.uint64) * 7919 + 1, PIRATENPOKER, {})
        backend = venv._backend
        in_hand = position.hands.sum(axis=1) + position.bids.sum(axis=1)
        for row in rows.tolist():
            assert np.array_equal(venv.observation[row], venv.observation[0])
            assert np.array_equal(venv.action_mask[row], venv.action_mask[0])
            for name in PUBLIC:
                assert np.array_equal(getattr(backend, name)[row], getattr(backend, name)[0]), name
            assert np.array_equal(backend.hands[row, seat], position.hands[seat])
            assert np.array_equal(backend.bids[row, seat], position.bids[seat])
            assert np.array_equal(cards_of(backend, row).sum(axis=1), in_hand)
            assert np.array_equal(poker_cards(backend, row), poker_cards(backend, 0))
            assert poker_cards(backend, row).sum() == DECK_SIZE
            world = world_engine(venv, row, position)
            assert world.view(seat) == position.view(seat)
            for colour, stack in enumerate(position.stacks):
                top, bottom = len(stack) - position.known_bottom[colour], position.known_bottom[colour]
                mine = backend.stacks[row, colour, : len(stack)].tolist()
                assert mine[:1] == stack[:1] and mine[top:] == stack[top:] and sorted(mine) == sorted(stack), bottom


def test_what_the_seat_cannot_see_depends_on_nothing_it_cannot_see() -> None:
    for position in positions(4, seed=5, every=13):
        seat = position.current_player
        other = position.clone()
        other.resample_hidden(seat, np.random.default_rng(3))  # the same to the seat, other hidden cards
        assert other.view(seat) == position.view(seat)
        seeds = np.arange(8, dtype=np.uint64) + 100
        first, rows = redrawn(position, seeds, PIRATENPOKER, {})
        second, _ = redrawn(other, seeds, PIRATENPOKER, {})
        for row in rows.tolist():
            mine, theirs = row_state(first, row), row_state(second, row)
            for name in mine.keys() - {"history", "start_state"}:
                assert np.array_equal(mine[name], theirs[name]), name


def summary(cards: np.ndarray, bid_sizes: np.ndarray, passed: np.ndarray, draw: np.ndarray) -> np.ndarray:
    """One world's figures compared in distribution: each seat's cards per kind, bid size and Pass; the draw pile."""
    return np.concatenate([cards.ravel(), bid_sizes, passed, draw]).astype(np.float64)


def test_the_worlds_are_drawn_as_the_reference_engine_draws_them() -> None:
    """Over many draws, the batch's worlds and the engine's ``resample_hidden``'s agree figure by figure."""
    draws = 3000
    chosen = [p for p in positions(4, seed=9, every=5) if reshuffled(p) and p.phase.name == "BID"]
    assert chosen, "no bidding position after a reshuffle"
    position = chosen[len(chosen) // 2]
    seat = position.current_player
    assert len(position.piles.final_attributions(seat)[2]) > 1, "the pile history leaves no choice: pick another"
    venv, rows = redrawn(position, np.arange(draws, dtype=np.uint64) * 31 + 5, PIRATENPOKER, {})
    backend = venv._backend
    batch = np.array([
        summary(cards_of(backend, row), backend.seats[row, :, pp_batched.S_BID_LEN],
                backend.seats[row, :, pp_batched.S_PASSED],
                np.bincount(backend.draw[row, : backend.game[row, pp_batched.F_DRAW_LEN]], minlength=NUM_POKER_KINDS))
        for row in rows.tolist()
    ])  # fmt: skip
    rng = np.random.default_rng(17)
    reference = []
    for _ in range(draws):
        world = position.clone()
        world.resample_hidden(seat, rng)
        cards = world.hands.astype(np.int64) + world.bids
        sizes = np.array([len(bid) for bid in world.bid_names])
        draw = np.bincount(world.draw, minlength=NUM_POKER_KINDS)
        reference.append(summary(cards, sizes, np.array(world.passed), draw))
    reference = np.array(reference)
    spread = np.sqrt(batch.var(axis=0) / draws + reference.var(axis=0) / draws)
    varies = spread > 0
    assert varies.sum() > 20, "the position leaves too little hidden to compare"
    assert np.array_equal(batch[:, ~varies], reference[:, ~varies])  # fixed figures: equal
    z = np.abs(batch.mean(axis=0) - reference.mean(axis=0))[varies] / spread[varies]
    assert z.max() < 5.0, z.max()


def test_the_final_attributions_are_those_sample_world_ends_on_with_their_probabilities() -> None:
    """`PileHistory.final_attributions`, which the kernel draws from, against `sample_world`'s own draws."""
    chosen = [
        (p, p.piles.final_attributions(p.current_player))
        for seed in range(6)
        for p in positions(4, seed=seed, every=3)
        if reshuffled(p)
    ]
    position, (unseen, held, weights) = max(chosen, key=lambda item: len(item[1][2]))
    assert len(weights) > 2, "no position whose history leaves a choice of attributions"
    assert weights.sum() == pytest.approx(1.0)
    index = {(u.tobytes(), h.tobytes()): k for k, (u, h) in enumerate(zip(unseen, held))}
    stream, draws = SplitMix64Stream(3), 4000
    tally = np.zeros(len(weights))
    for _ in range(draws):
        world = position.piles.sample_world(position.current_player, lambda: stream.below(1 << 52) / (1 << 52))
        key = (np.array(world.unseen, dtype=np.int64).tobytes(), np.array(world.held, dtype=np.int64).tobytes())
        tally[index[key]] += 1
    z = np.abs(tally / draws - weights) / np.sqrt(weights * (1 - weights) / draws)
    assert z.max() < 5.0, z.max()


def test_a_row_moved_since_its_load_is_redrawn_from_its_replayed_history() -> None:
    position = positions(4, seed=3)[6]
    action = int(position.legal_actions()[-1])
    moved = position.clone()
    moved.apply(action)
    venv = vector.make(PIRATENPOKER, 4, seed=0, num_players=4)
    venv.reset()
    venv.load([0, 1], [position, moved], seeds=[5, 6])
    actions = np.zeros(4, dtype=np.int64)
    actions[0] = action
    venv.step(actions, np.arange(4) == 0)
    seat = moved.current_player
    venv.redraw_hidden([0, 1], seat, [21, 21])
    first, second = row_state(venv, 0), row_state(venv, 1)
    for state in (first, second):  # the moves since the load and the last mover: not the position
        state["game"][[pp_batched.F_MOVES, pp_batched.F_SHOWN]] = 0
    for name in first.keys() - {"history", "start_state"}:
        assert np.array_equal(first[name], second[name]), name
    with pytest.raises(RuntimeError, match="redrawn already"):
        venv.redraw_hidden([1], seat, [3])


@pytest.mark.parametrize("num_players", [3, 5])
def test_a_redrawn_row_plays_on_in_lockstep_with_its_world(num_players: int) -> None:
    rng = np.random.default_rng(num_players)
    where = _Where("redraw", PIRATENPOKER, num_players)
    for position in positions(num_players, seed=30 + num_players)[::4]:
        venv, rows = redrawn(position, np.arange(3, dtype=np.uint64) + 9, PIRATENPOKER, {})
        envs = {row: aec_on(PIRATENPOKER, world_engine(venv, row, position), num_players=num_players)
                for row in rows.tolist()}  # fmt: skip
        play_worlds_in_lockstep(venv, envs, rng, where, max_steps=2000)


def test_the_forward_cache_keeps_only_passes_of_the_current_position() -> None:
    """A game that moves on drops the forward passes of its earlier positions (a followed game kept up to
    eight of them, megabytes late in a 5-player game); a pass of the position is served again as before."""
    import pirate_envs

    env = pirate_envs.make(PIRATENPOKER, raw=True, num_players=5)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    game, asked = env.game, 0
    while not game.done:
        seat = game.current_player
        first = game.piles.final_attributions(seat)
        asked += 1
        cache = game.piles.cache
        assert {key[-1] for key in cache.entries} == {len(game.piles.events)}, asked
        assert len(cache.entries) <= 5
        again = game.piles.final_attributions(seat)  # served from the cache: the very same arrays' source
        for a, b in zip(first, again, strict=True):
            np.testing.assert_array_equal(a, b)
        assert len(cache.entries) == len({key[0] for key in cache.entries})
        env.step(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    assert asked > 50
