"""The numba kernels of `agents.piraten_kapern.race`: one turn of Piraten Kapern solved for a utility of its outcomes.

A turn's utility is given per outcome: ``u_own[d - min_points]`` for the mover's own result ``d``
(units of 100 points) and ``u_skulls[k]`` for an Island of Skulls turn that ends with ``k`` skulls.
The dice tables are `agents.piraten_kapern.oracle`'s (states, kept multisets, transitions, legal re-rolls),
flattened by `agents.piraten_kapern.race`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["card_turn", "island", "island_utilities", "iterate", "own_utilities"]

_P_SKULL = 1.0 / 6.0


@njit(cache=True, nogil=True)
def iterate(u_stop, u_bust, bust, options, extra, bonus, kept_ptr, next_state, prob, value, worth, tol, limit):
    """Value iteration of one table, in place from ``value``; ``worth`` gets each kept multiset's worth.

    A state is worth the best of stopping (``u_stop``), its best re-roll (the kept multisets in its
    row of ``options``, padded with ``len(bonus)``) and ``extra`` (a re-roll into another table);
    a bust state is worth ``u_bust``. Returns the iterations made (``limit + 1``: not converged).
    """
    n, width = options.shape
    kept = bonus.shape[0]
    for s in range(n):
        if bust[s]:
            value[s] = u_bust[s]
    iterations = limit + 1
    for it in range(limit):
        _worths(value, bonus, kept_ptr, next_state, prob, worth)
        change = 0.0
        for s in range(n):
            if bust[s]:
                continue
            best = max(u_stop[s], extra[s])
            for j in range(width):
                k = options[s, j]
                if k >= kept:
                    break
                best = max(best, worth[k])
            change = max(change, abs(best - value[s]))
            value[s] = best
        if change <= tol:
            iterations = it + 1
            break
    _worths(value, bonus, kept_ptr, next_state, prob, worth)
    return iterations


@njit(cache=True, nogil=True)
def _worths(value, bonus, kept_ptr, next_state, prob, worth):
    """``worth[k] = bonus[k] + sum of prob * value[next]`` over kept multiset ``k``'s transitions."""
    for k in range(bonus.shape[0]):
        acc = bonus[k]
        for i in range(kept_ptr[k], kept_ptr[k + 1]):
            acc += prob[i] * value[next_state[i]]
        worth[k] = acc


@njit(cache=True, nogil=True)
def island(u_skulls, card_skulls, dice, value, choice, tie):
    """``value[sd]``: the Island of Skulls with ``sd`` skull dice showing, played best; ``choice[sd]``:
    how many non-skull dice to re-roll (0: stop).

    Stop, or re-roll ``r >= 2`` of the non-skull dice: no skull ends the turn, else it goes on
    (and ends by itself when fewer than two non-skull dice are left). Ties go to stopping, then
    to fewer dice.
    """
    for sd in range(dice, -1, -1):
        stop = u_skulls[sd + card_skulls]
        best = chosen = stop
        choice[sd] = 0
        for r in range(2, dice - sd + 1):
            acc = stop * (1.0 - _P_SKULL) ** r
            ways = 1.0  # r choose j
            for j in range(1, r + 1):
                ways = ways * (r - j + 1) / j
                acc += ways * _P_SKULL**j * (1.0 - _P_SKULL) ** (r - j) * value[sd + j]
            if acc > chosen + tie:
                chosen = acc
                choice[sd] = r
            best = max(best, acc)
        value[sd] = best


@njit(cache=True, nogil=True)
def _outcome(values, x, y, floor, target):
    """The mover's worth when his turn leaves him at ``x`` and the other player at ``y``."""
    if y >= target:  # the final round is over
        return 1.0 if x > y else (0.5 if x == y else 0.0)
    return 1.0 - values[y - floor, x - floor]


@njit(cache=True, nogil=True)
def own_utilities(values, a, b, floor, target, min_points, u_own):
    """``u_own[d - min_points]``: the mover's worth at ``(a, b)`` of ending his turn with ``d`` points."""
    for i in range(u_own.shape[0]):
        u_own[i] = _outcome(values, max(a + min_points + i, floor), b, floor, target)


@njit(cache=True, nogil=True)
def island_utilities(values, a, b, floor, target, penalty, u_skulls):
    """``u_skulls[k]``: the mover's worth at ``(a, b)`` of an Island turn ending with ``k`` skulls."""
    for k in range(u_skulls.shape[0]):
        u_skulls[k] = _outcome(values, a, max(b - penalty[k], floor), floor, target)


@njit(cache=True, nogil=True)
def card_turn(
    u_own,
    u_skulls,
    stop,
    bust,
    island_first,
    card_skulls,
    is_chest,
    is_sorceress,
    min_points,
    dice_skulls,
    first_roll,
    kept_ptr,
    next_state,
    prob,
    plain,
    skull,
    bust_prob,
    chest_points,
    tol,
    tie,
    limit,
    closed,
    opened,
    worth_closed,
    worth_open,
    island_values,
    island_choice,
):
    """One card's turn for the utility; fills the tables and returns the turn's worth before its first roll.

    ``closed`` (and, for the Sorceress, ``opened``: her skull re-roll still open) hold each state's
    worth, ``worth_*`` each kept multiset's, ``island_values`` and ``island_choice`` the Island's by
    skull dice (`island`; ``tie``: the margin a re-roll must beat stopping by). On entry,
    ``closed`` and ``opened`` are the warm start (a previous solution, or the stop worths).
    Returns ``(worth, iterations)``: the most iterations one table took (``limit + 1``: one did not converge).
    """
    n = stop.shape[0]
    kept = kept_ptr.shape[0] - 1
    u_stop = np.empty(n)
    u_bust = np.empty(n)
    for s in range(n):
        u_stop[s] = u_own[stop[s] - min_points]
        u_bust[s] = 0.0 if is_chest else u_stop[s]  # the chest's bust is worth its dice: the bonus
    bonus = np.zeros(kept)
    if is_chest:
        for k in range(kept):
            bonus[k] = bust_prob[k] * u_own[chest_points[k] - min_points]
    none = np.full(n, -np.inf)
    iterations = iterate(
        u_stop, u_bust, bust, plain, none, bonus, kept_ptr, next_state, prob, closed, worth_closed, tol, limit
    )
    if is_sorceress:
        extra = np.full(n, -np.inf)
        for s in range(n):
            for j in range(skull.shape[1]):
                k = skull[s, j]
                if k >= kept:
                    break
                extra[s] = max(extra[s], worth_closed[k])
        iterations = max(
            iterations,
            iterate(
                u_stop, u_bust, bust, plain, extra, bonus, kept_ptr, next_state, prob, opened, worth_open, tol, limit
            ),
        )
    dice = 0
    for s in range(n):
        dice = max(dice, dice_skulls[s])
    island(u_skulls, card_skulls, dice, island_values, island_choice, tie)
    total = 0.0
    for s in range(n):
        if island_first[s]:
            total += first_roll[s] * island_values[dice_skulls[s]]
        elif bust[s]:
            total += first_roll[s] * u_stop[s]
        elif is_sorceress:
            total += first_roll[s] * opened[s]
        else:
            total += first_roll[s] * closed[s]
    return total, iterations
