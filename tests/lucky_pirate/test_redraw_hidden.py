"""``VectorEnv.redraw_hidden`` in Lucky Pirate: a search's determinization in the batch.

Positions of seeded random games (the set-up with chosen up cards, two-player deals with a hand
put aside, six seats, a tournament whose later games are dealt after the redraw) are loaded into
a row, copied, and the copies redrawn from the seat on turn. Checked: the seat's view is the same
in every world; every hand, set of up cards and down slot keeps its size, the cards taken in
public stay where they are and no card is made or lost; what the seat cannot see depends on
nothing it cannot see; a card the seat has not seen lies in each hidden place in proportion to
its size; and a redrawn row plays on in lockstep with the reference engine holding that world.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from pirate_envs import vector
from pirate_envs.core.chance import SplitMix64Stream
from pirate_envs.lucky_pirate.cards import NUM_KINDS
from pirate_envs.lucky_pirate.engine import EMPTY_SLOT
from pirate_envs.testing import _Where
from tests.vector.test_load_rows import aec_on, row_state
from tests.vector.test_redraw_hidden import game_positions, play_worlds_in_lockstep, redrawn

LUCKY_PIRATE = "lucky_pirate_v0"
#: Per case: the options and the table size (short games; the set-up and the tournament covered).
CASES: dict[str, tuple[dict[str, Any], int]] = {
    "two_players": ({"max_turns": 200}, 2),
    "four_players": ({"max_turns": 200}, 4),
    "six_players": ({"max_turns": 200}, 6),
    "set_up_and_tournament": ({"max_turns": 60, "wins_to_win": 2, "choose_up_cards": True}, 3),
}
ROWS = 48


def positions(options: dict[str, Any], num_players: int, seed: int, every: int = 7) -> list[Any]:
    """Positions of one seeded random game: the first decision (the set-up) and every ``every``-th one."""
    return game_positions(LUCKY_PIRATE, num_players, options, seed, every)


def world_engine(venv: vector.VectorEnv, row: int, position: Any) -> Any:
    """The reference engine holding row ``row``'s world: ``position`` with the row's cards and stream."""
    backend = venv._backend
    engine = position.clone(SplitMix64Stream(int(backend.rng[row])))
    engine.hands[:] = backend.hands[row]
    engine.ups[:] = backend.ups[row]
    engine.downs = [
        [int(kind) for kind in slots[: len(mine)]] for slots, mine in zip(backend.downs[row], position.downs)
    ]
    engine.set_aside[:] = np.bincount(engine._deck, minlength=NUM_KINDS) - placed(backend, row)
    engine._mask = None
    return engine


def placed(backend: Any, row: int) -> np.ndarray:
    """Copies per kind of the cards in play in row ``row``: hands, up and down cards, the pile, the removed."""
    downs = backend.downs[row].ravel()
    counts = backend.hands[row].sum(axis=0) + backend.ups[row].sum(axis=0) + backend.pile_counts[row]
    return counts.astype(np.int64) + backend.removed[row] + np.bincount(downs[downs != EMPTY_SLOT], minlength=NUM_KINDS)


@pytest.mark.parametrize("case", list(CASES))
def test_the_seat_sees_the_same_game_and_the_rest_is_dealt_anew(case: str) -> None:
    options, num_players = CASES[case]
    seen_set_up = False
    for position in positions(options, num_players, seed=num_players):
        seat = position.current_player
        seen_set_up |= position.setting_up
        venv, rows = redrawn(position, np.arange(ROWS, dtype=np.uint64) * 7919 + 1, LUCKY_PIRATE, options)
        backend = venv._backend
        deck = np.bincount(position._deck, minlength=NUM_KINDS)
        changed = False
        for row in rows.tolist():
            world = world_engine(venv, row, position)
            assert world.view(seat) == position.view(seat)
            assert (world.hands.sum(axis=1) == position.hands.sum(axis=1)).all()
            assert (world.ups.sum(axis=1) == position.ups.sum(axis=1)).all()
            assert empty_slots(world) == empty_slots(position)
            assert (world.hands >= position.known).all(), "a card taken in public left its hand"
            assert (placed(backend, row) <= deck).all() and world.set_aside.sum() == position.set_aside.sum()
            changed |= not (np.array_equal(world.hands, position.hands) and world.downs == position.downs)
        assert changed or not hidden_cards(position, seat), "nothing hidden was redrawn"
    if options.get("choose_up_cards"):
        assert seen_set_up, "no position of the set-up was tried"


def empty_slots(engine: Any) -> list[list[bool]]:
    """Which of each seat's down slots are played."""
    return [[kind == EMPTY_SLOT for kind in slots] for slots in engine.downs]


def hidden_cards(position: Any, seat: int) -> int:
    """How many cards ``seat`` cannot see that lie in a hidden place it could swap with another."""
    downs = sum(k != EMPTY_SLOT for slots in position.downs for k in slots)
    others = sum(int((position.hands[q] - position.known[q]).sum()) for q in range(position.num_players) if q != seat)
    return downs + others + int(position.set_aside.sum())


def test_what_the_seat_cannot_see_depends_on_nothing_it_cannot_see() -> None:
    options, num_players = CASES["set_up_and_tournament"]
    for k, position in enumerate(positions(options, num_players, seed=5)):
        seat = position.current_player
        other = position.clone()
        other.resample_hidden(seat, np.random.default_rng(k))  # the same to the seat, other hidden cards
        assert other.view(seat) == position.view(seat)
        seeds = np.arange(8, dtype=np.uint64) + 100
        first, rows = redrawn(position, seeds, LUCKY_PIRATE, options)
        second, _ = redrawn(other, seeds, LUCKY_PIRATE, options)
        for row in rows.tolist():
            mine, theirs = row_state(first, row), row_state(second, row)
            for name in mine.keys() - {"history", "start_state"}:
                assert np.array_equal(mine[name], theirs[name]), name


def test_an_unseen_card_lies_in_each_hidden_place_in_proportion_to_its_size() -> None:
    options, num_players = CASES["four_players"]
    position = next(p for p in positions(options, num_players, seed=9, every=1)[4:] if not p.setting_up)
    seat, draws = position.current_player, 3000
    venv, rows = redrawn(position, np.arange(draws, dtype=np.uint64) * 31 + 5, LUCKY_PIRATE, options)
    backend = venv._backend
    places = {f"hand {q}": int((position.hands[q] - position.known[q]).sum()) for q in range(num_players) if q != seat}
    places |= {f"downs {q}": sum(k != EMPTY_SLOT for k in position.downs[q]) for q in range(num_players)}
    pool = sum(places.values()) + int(position.set_aside.sum())
    unseen = np.bincount(position._deck, minlength=NUM_KINDS) - position.hands[seat] - position.ups.sum(axis=0)
    unseen = unseen - position.pile_counts - position.removed - position.known.sum(axis=0) + position.known[seat]
    kind = int(np.argmax(unseen))  # the most copies: the count per place is large enough to test
    for place, size in places.items():
        q = int(place.split()[1])
        if place.startswith("hand"):
            counts = backend.hands[rows, q, kind].astype(np.int64) - position.known[q, kind]
        else:
            counts = (backend.downs[rows, q] == kind).sum(axis=1)
        expected = draws * unseen[kind] * size / pool
        spread = 5 * np.sqrt(expected) + 1
        assert abs(int(counts.sum()) - expected) < spread, (place, int(counts.sum()), expected)


@pytest.mark.parametrize("case", ["four_players", "set_up_and_tournament"])
def test_a_redrawn_row_plays_on_in_lockstep_with_its_world(case: str) -> None:
    options, num_players = CASES[case]
    rng = np.random.default_rng(num_players)
    where = _Where("redraw", LUCKY_PIRATE, num_players)
    for position in positions(options, num_players, seed=20 + num_players)[::4]:
        venv, rows = redrawn(position, np.arange(4, dtype=np.uint64) + 9, LUCKY_PIRATE, options)
        envs = {row: aec_on(LUCKY_PIRATE, world_engine(venv, row, position), num_players=num_players, **options)
                for row in rows.tolist()}  # fmt: skip
        play_worlds_in_lockstep(venv, envs, rng, where, max_steps=5000)
