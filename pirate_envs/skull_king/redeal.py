"""Redealing hidden cards consistently with the public voids (for ``resample_hidden``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from pirate_envs.skull_king.cards import NUM_KINDS, NUM_RANKS, NUM_SUIT_CARDS, NUM_SUITS, suit_of

#: Uniform shuffles tried before the constructive fallback.
REJECTION_TRIES = 200
#: Attempts of the constructive fallback.
GREEDY_TRIES = 100
#: Pseudo-seat of the undealt cards in the constructive fallback.
_DECK = -1
#: The "suit" column of special cards in a seat's forbidden-suit row (never forbidden).
_SPECIAL_COLUMN = NUM_SUITS
_SUIT_COLUMN_OF_KIND = np.array([k // NUM_RANKS if k < NUM_SUIT_CARDS else _SPECIAL_COLUMN for k in range(NUM_KINDS)])


def redeal(
    pool: np.ndarray,
    sizes: Mapping[int, int],
    voids: Mapping[int, Sequence[bool]],
    rng: np.random.Generator,
) -> dict[int, np.ndarray] | None:
    """Deal the card kinds of ``pool`` into hands of ``sizes`` (seat -> count); the rest stays undealt.

    No seat gets a card of a suit it is void in (``voids[seat][suit]``). Uniform over such deals
    by rejection sampling; if that keeps failing (many voids), a constructive deal that places
    the most constrained cards first. ``None`` if both fail.
    """
    seats = list(sizes)
    forbidden = {s: np.array([*voids[s], False]) for s in seats}
    constrained = [s for s in seats if forbidden[s].any()]
    columns = _SUIT_COLUMN_OF_KIND[pool]
    cuts = np.cumsum([sizes[s] for s in seats])
    for _ in range(1 if not constrained else REJECTION_TRIES):
        order = rng.permutation(len(pool))
        parts = dict(zip(seats, np.split(order[: cuts[-1]], cuts[:-1])))
        if not any(forbidden[s][columns[parts[s]]].any() for s in constrained):
            return {s: pool[parts[s]] for s in seats}
    return _constructive_deal(pool, sizes, voids, rng)


def _constructive_deal(
    pool: np.ndarray,
    sizes: Mapping[int, int],
    voids: Mapping[int, Sequence[bool]],
    rng: np.random.Generator,
) -> dict[int, np.ndarray] | None:
    """Place the cards that fewer seats may hold first, each with a random seat (or the deck) with room."""
    suits = [suit_of(int(k)) for k in pool]

    def may_hold(seat: int, card: int) -> bool:
        return seat == _DECK or suits[card] < 0 or not voids[seat][suits[card]]

    destinations = [*sizes, _DECK]
    eligible = [sum(may_hold(s, i) for s in destinations) for i in range(len(pool))]
    for _ in range(GREEDY_TRIES):
        room = {**sizes, _DECK: len(pool) - sum(sizes.values())}
        hands: dict[int, list[int]] = {s: [] for s in destinations}
        for i in sorted(rng.permutation(len(pool)).tolist(), key=eligible.__getitem__):
            seats = [s for s in destinations for _ in range(room[s]) if may_hold(s, i)]
            if not seats:
                break
            seat = seats[int(rng.integers(len(seats)))]  # weighted by the room left
            hands[seat].append(int(pool[i]))
            room[seat] -= 1
        else:
            return {s: np.array(hands[s], dtype=np.int64) for s in sizes}
    return None
