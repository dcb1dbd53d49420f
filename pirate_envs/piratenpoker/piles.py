"""Where Piratenpoker's poker cards came from, and which piles a seat's unseen cards may have come from.

Once the discard is reshuffled into a new draw pile while players still hold cards of the older
pile, a revealed card may have come from either pile: copies are alike, so nobody can tell. The
engine keeps only what every seat knows, a `PileHistory`: each pile's make-up (public: the deck, then
each reshuffled discard), how many cards each seat drew from which pile and when (public), the bids
revealed (public), and the cards each seat drew (each seat knows its own row only).

`PileHistory.sample_world` replays that history for one seat and weighs every attribution of the
others' revealed cards to piles, under the model that a bid is a uniformly random choice among the
bidder's cards (the model under which the cards a seat has not seen are exchangeable within their
pile): a seat holding ``h_k`` cards from pile ``k`` who reveals ``m`` cards reveals ``j_k`` of pile
``k`` with probability ``prod_k C(h_k, j_k) / C(sum h, m)``, and those ``j_k`` cards are a uniform
choice among the cards of pile ``k`` the resampling seat has not seen. Attributions that lead to
the same counts are merged in a forward pass over the history, and one attribution is drawn back
along it: the worlds' distribution is exact under that model and depends only on what the seat knows.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from math import comb
from typing import NamedTuple

import numpy as np

from pirate_envs.core.engine import read_only
from pirate_envs.piratenpoker.cards import NUM_POKER_KINDS

#: A guard on the attributions kept apart (seen: a few dozen); past it the heaviest are kept.
MAX_ATTRIBUTIONS = 4096

Counts = tuple[int, ...]
#: Per pile: the cards of the pile the seat has not seen (per kind), and how many revealed cards each seat took from it.
Attribution = tuple[tuple[Counts, ...], tuple[Counts, ...]]
#: A way into an attribution: the one before, the factor of the step and the split ``(pile, kind, copies)``.
Step = tuple[Attribution, float, tuple[tuple[int, int, int], ...]]


class PileEvent(NamedTuple):
    """A public moment of the poker cards: ``seat`` drew ``count`` cards from ``pile``, or (``pile`` -1)
    revealed ``played`` (``(kind, copies)`` pairs)."""

    seat: int
    pile: int
    count: int = 0
    played: tuple[tuple[int, int], ...] = ()


@dataclass
class PileHistory:
    """The piles of one episode: make-up, draws per seat (private rows) and the public events in order."""

    compositions: list[np.ndarray]  # per pile, (24,) read-only: the cards it was made of
    drawn: list[np.ndarray]  # per pile, (num_players, 24): the cards each seat drew from it
    events: list[PileEvent]
    cache: ForwardCache = field(default_factory=lambda: ForwardCache())

    @classmethod
    def start(cls, num_players: int) -> PileHistory:
        """A history with one pile whose make-up `set_first` gives once the deck is laid out."""
        return cls([read_only(np.zeros(NUM_POKER_KINDS, dtype=np.int16))], [_no_draws(num_players)], [])

    def set_first(self, composition: np.ndarray) -> None:
        """The first pile's make-up: the deck less the cards laid in the discard at the reset."""
        self.compositions[0] = read_only(np.array(composition, dtype=np.int16))

    def reshuffle(self, composition: np.ndarray) -> None:
        """A new draw pile made of ``composition`` (the discard)."""
        self.drawn[-1].flags.writeable = False  # nobody draws from an old pile again: clones share it
        self.compositions.append(read_only(np.array(composition, dtype=np.int16)))
        self.drawn.append(_no_draws(len(self.drawn[-1])))

    def draw(self, seat: int, kind: int) -> None:
        """``seat`` takes a ``kind`` card from the current pile."""
        pile = len(self.compositions) - 1
        self.drawn[pile][seat, kind] += 1
        last = self.events[-1] if self.events else None
        if last is not None and last.seat == seat and last.pile == pile:
            self.events[-1] = PileEvent(seat, pile, last.count + 1)
        else:
            self.events.append(PileEvent(seat, pile, 1))

    def reveal(self, played: np.ndarray) -> None:
        """Every seat's revealed cards (``(num_players, 24)`` counts)."""
        for seat, row in enumerate(played):
            kinds = np.flatnonzero(row)
            if kinds.size:
                self.events.append(PileEvent(seat, -1, 0, tuple((int(k), int(row[k])) for k in kinds)))

    def redrawn(self, seats: list[int], drawn: dict[int, np.ndarray]) -> None:
        """A resampled world's draws: ``drawn[s]`` (``(piles, 24)``) the cards seat ``s`` drew from each pile."""
        for pile, rows in enumerate(self.drawn):
            frozen = not rows.flags.writeable
            rows = self.drawn[pile] = rows.copy()
            for s in seats:
                rows[s] = drawn[s][pile]
            rows.flags.writeable = not frozen

    def sample_world(self, seat: int, uniform: Callable[[], float]) -> PileWorld:
        """One attribution of the others' cards to piles, drawn with its probability for ``seat``.

        A forward pass over the history weighs every attribution ``seat`` cannot rule out (see the
        module docstring; those leading to the same counts merged), then one is drawn backwards,
        each choice by ``uniform()`` (a float in ``[0, 1)``, called only where there is a choice).
        An attribution is the cards of each pile ``seat`` has not seen and how many of his revealed
        cards each other seat took from each pile; what a seat holds from a pile is then what he
        drew from it (public) less that.
        """
        n, piles = len(self.drawn[0]), len(self.compositions)
        drawn, states, steps = self._forward_pass(seat)
        return _backward(states, steps, drawn, n, piles, uniform)

    def final_attributions(self, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The attributions `sample_world` draws its world from for ``seat``, as arrays, in its order.

        Per attribution: the cards of each pile ``seat`` has not seen (``(K, piles, 24)``), how many of
        his cards each seat holds from each pile (``(K, piles, n)``) and its probability (``(K,)``).
        One drawn by its probability is `sample_world`'s ``unseen`` and ``held`` in law: what the
        batched engine's redraw needs (it leaves out which cards each seat revealed from which pile).
        """
        drawn, states, _ = self._forward_pass(seat)
        n, piles = len(self.drawn[0]), len(self.compositions)
        unseen = np.zeros((len(states), piles, NUM_POKER_KINDS), dtype=np.int64)
        held = np.zeros((len(states), piles, n), dtype=np.int64)
        for k, (left, taken) in enumerate(states):
            unseen[k] = left
            held[k] = np.subtract(drawn, taken)
        return unseen, held, np.fromiter(states.values(), dtype=np.float64, count=len(states))

    def _forward_pass(
        self, seat: int
    ) -> tuple[list[list[int]], dict[Attribution, float], list[tuple[int, dict[Attribution, float], dict]]]:
        """`_forward` for ``seat``, from the cache while the history has not moved on."""
        unseen = tuple(tuple((c - d[seat]).tolist()) for c, d in zip(self.compositions, self.drawn))
        key = (seat, unseen, len(self.events))
        last = self.events[-1] if self.events else None
        cached = self.cache.get(key)
        if cached is None or cached[0] is not last:
            cached = (last, *self._forward(seat, unseen))
            self.cache.put(key, cached)
        return cached[1:]

    def _forward(
        self, seat: int, unseen: tuple[Counts, ...]
    ) -> tuple[list[list[int]], dict[Attribution, float], list[tuple[int, dict[Attribution, float], dict]]]:
        """The forward pass of `sample_world`: the draws per pile and seat, the attributions at the end with
        their probabilities, and per revealed bid the attributions before it and the ways into those after."""
        n, piles = len(self.drawn[0]), len(self.compositions)
        drawn = [[0] * n for _ in range(piles)]  # cards each seat drew from each pile so far (public)
        states: dict[Attribution, float] = {(unseen, ((0,) * n,) * piles): 1.0}
        steps: list[tuple[int, dict[Attribution, float], dict[Attribution, list[Step]]]] = []
        for event in self.events:
            if event.seat == seat:
                continue  # the seat's own cards: known, never among the unseen
            if event.pile >= 0:
                drawn[event.pile][event.seat] += event.count
                continue
            s = event.seat
            into: dict[Attribution, list[Step]] = {}
            merged: dict[Attribution, float] = {}
            for key, w in states.items():
                left, taken = key
                held = [drawn[k][s] - taken[k][s] for k in range(piles)]
                for new_left, took, f, split in _attributions(left, held, event.played):
                    new = (new_left, tuple(_added(row, s, t) if t else row for row, t in zip(taken, took)))
                    merged[new] = merged.get(new, 0.0) + w * f
                    into.setdefault(new, []).append((key, f, split))
            if len(merged) > MAX_ATTRIBUTIONS:
                merged = dict(sorted(merged.items(), key=lambda item: -item[1])[:MAX_ATTRIBUTIONS])
            total = sum(merged.values())
            steps.append((s, states, into))
            states = {key: w / total for key, w in merged.items()}
        return drawn, states, steps


def _backward(
    states: dict[Attribution, float],
    steps: list[tuple[int, dict[Attribution, float], dict[Attribution, list[Step]]]],
    drawn: list[list[int]],
    n: int,
    piles: int,
    uniform: Callable[[], float],
) -> PileWorld:
    """An attribution drawn from the end of the forward pass, and back along it the cards each seat revealed."""
    key = list(states)[_weighted(list(states.values()), uniform)]
    left, taken = key
    held = tuple(tuple(d - t for d, t in zip(drawn[k], taken[k])) for k in range(piles))
    played = np.zeros((piles, n, NUM_POKER_KINDS), dtype=np.int16)
    for s, before, into in reversed(steps):
        ways = into[key]
        way = ways[_weighted([before[k] * f for k, f, _ in ways], uniform)]
        key = way[0]
        for pile, kind, copies in way[2]:
            played[pile, s, kind] += copies
    return PileWorld(left, held, played)


class ForwardCache:
    """The last few forward passes, shared by a game's clones (a search redraws one position many times).

    An entry is used only while the history's last event is the very object it was made after. A pass
    made at a later position (more events; the key's last item) drops those of earlier ones: a game
    that moves on never asks for them again, and late passes are large (a 5-player game's reached
    megabytes each, kept by every game a benchmark batch follows).
    """

    SIZE = 8

    def __init__(self) -> None:
        self.entries: dict[tuple, tuple] = {}

    def get(self, key: tuple) -> tuple | None:
        return self.entries.get(key)

    def put(self, key: tuple, value: tuple) -> None:
        events = key[-1]
        for earlier in [k for k in self.entries if k[-1] < events]:
            del self.entries[earlier]
        if len(self.entries) >= self.SIZE:
            del self.entries[next(iter(self.entries))]
        self.entries[key] = value


class PileWorld(NamedTuple):
    """An attribution for one seat: per pile, the cards it has not seen (per kind), how many cards each
    other seat holds from the pile, and the cards each other seat revealed from it (``(piles, n, 24)``)."""

    unseen: tuple[Counts, ...]
    held: tuple[Counts, ...]
    played: np.ndarray


def _weighted(weights: list[float], uniform: Callable[[], float]) -> int:
    """An index drawn with probability proportional to ``weights`` (no draw when there is one)."""
    if len(weights) == 1:
        return 0
    target = uniform() * sum(weights)
    for i, cumulative in enumerate(itertools.accumulate(weights)):
        if target < cumulative:
            return i
    return len(weights) - 1


def _no_draws(num_players: int) -> np.ndarray:
    return np.zeros((num_players, NUM_POKER_KINDS), dtype=np.int16)


def _added(row: Counts, index: int, count: int) -> Counts:
    return (*row[:index], row[index] + count, *row[index + 1 :])


def _attributions(
    unseen: tuple[Counts, ...], held: list[int], played: tuple[tuple[int, int], ...]
) -> list[tuple[tuple[Counts, ...], list[int], float, tuple[tuple[int, int, int], ...]]]:
    """The ways revealed cards split over the piles their owner holds ``held`` cards from (per pile).

    Each way: the piles' unseen cards after it, the cards taken from each pile, its weight and the
    split as ``(pile, kind, copies)``.
    """
    piles = [k for k, count in enumerate(held) if count]
    if len(piles) == 1:  # all from one pile: the common case, at a tenth of the cost
        k = piles[0]
        row = list(unseen[k])
        draws = 1
        for kind, copies in played:
            draws *= comb(row[kind], copies)
            row[kind] -= copies
        took = [0] * len(held)
        took[k] = sum(copies for _, copies in played)
        if not draws or took[k] > held[k]:
            return []
        new_unseen = (*unseen[:k], tuple(row), *unseen[k + 1 :])
        return [(new_unseen, took, draws / comb(sum(unseen[k]), took[k]), tuple((k, *pair) for pair in played))]
    per_kind = [
        [s for s in _compositions(copies, len(piles)) if all(a <= unseen[k][kind] for a, k in zip(s, piles))]
        for kind, copies in played
    ]
    out = []
    for choice in itertools.product(*per_kind):
        taken = [sum(split[i] for split in choice) for i in range(len(piles))]
        if any(t > held[k] for t, k in zip(taken, piles)):
            continue
        weight = 1.0
        new_unseen = list(unseen)
        took = [0] * len(held)
        for i, k in enumerate(piles):
            if not taken[i]:
                continue
            row = list(unseen[k])
            draws = 1
            for (kind, _), split in zip(played, choice):
                draws *= comb(row[kind], split[i])
                row[kind] -= split[i]
            weight *= comb(held[k], taken[i]) * draws / comb(sum(unseen[k]), taken[i])
            new_unseen[k] = tuple(row)
            took[k] = taken[i]
        kinds = [kind for kind, _ in played]
        split = tuple((k, kind, part[i]) for i, k in enumerate(piles) for kind, part in zip(kinds, choice) if part[i])
        out.append((tuple(new_unseen), took, weight, split))
    return out


def _compositions(total: int, parts: int) -> list[Counts]:
    """Every way to write ``total`` as ``parts`` non-negative integers, in order."""
    if parts == 1:
        return [(total,)]
    return [(first, *rest) for first in range(total + 1) for rest in _compositions(total - first, parts - 1)]


__all__ = ["MAX_ATTRIBUTIONS", "PileEvent", "PileHistory", "PileWorld"]
