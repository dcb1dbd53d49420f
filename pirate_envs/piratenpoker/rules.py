"""Piratenpoker rules: the pure helpers (who wins a round, final scores, ranking) and rule constants.

The helpers work on readable names (see `pirate_envs.piratenpoker.cards`) and are the
ones the engine uses:

* `bid_winner` - the round's winner from everybody's revealed bid;
* `final_score` - one player's total of displayed loot with the set bonuses;
* `final_winners` - the final ranking's winners with the loot-card tie-break.
"""

from __future__ import annotations

from collections.abc import Sequence

from pirate_envs.piratenpoker.cards import (
    COLOUR_MULTIPLIER,
    DISPLAYED_INDEX,
    DISPLAYED_POINTS,
    IS_FRONT,
    IS_SHARK,
    KIND_COLOUR,
    KIND_VALUE,
    POKER_INDEX,
    SET_BONUS,
    SET_SIZE,
    parse_colour,
    parse_displayed,
    parse_poker_card,
)

MIN_PLAYERS, MAX_PLAYERS = 3, 5
MAX_LOOT_PER_COLOUR = 20


# ----------------------------------------------------------------------------- rounds
def bid_strength(bid: Sequence[str], loot_colour: str | None) -> tuple[int, tuple[int, ...]]:
    """``(total, card values high to low)`` of a bid; cards of ``loot_colour`` count double."""
    return _strength(bid, None if loot_colour is None else parse_colour(loot_colour))


def _strength(bid: Sequence[str], doubled: int | None) -> tuple[int, tuple[int, ...]]:
    values = []
    for name in bid:
        kind = POKER_INDEX.get(name)
        if kind is None:
            kind = parse_poker_card(name)  # raises the ValueError naming the card
        value = KIND_VALUE[kind]
        values.append(value * COLOUR_MULTIPLIER if KIND_COLOUR[kind] == doubled else value)
    values.sort(reverse=True)
    return sum(values), tuple(values)


def bid_winner(bids: Sequence[Sequence[str]], loot_colour: str | None, empty_can_win: bool = True) -> int | None:
    """Index of the round's winner, or ``None`` when nobody can win (all tied).

    ``bids[i]`` is player ``i``'s revealed poker cards (``[]``: the Pass, worth 0, or nothing
    to play). ``loot_colour`` is the last loot card's colour in round 3 (its cards count
    double) and ``None`` in rounds 1 and 2. The highest total wins; a tie goes to the higher
    card values compared from the highest down; players still exactly tied are set aside and
    the best of the others wins (the second-highest total, and so on). With
    ``empty_can_win=False`` an empty bid never wins.
    """
    doubled = None if loot_colour is None else parse_colour(loot_colour)
    strengths = [_strength(bid, doubled) for bid in bids]
    copies: dict[tuple[int, tuple[int, ...]], int] = {}
    for strength in strengths:
        copies[strength] = copies.get(strength, 0) + 1
    best = None
    for i, strength in enumerate(strengths):
        if copies[strength] == 1 and (empty_can_win or bids[i]) and (best is None or strength > strengths[best]):
            best = i
    return best


# ----------------------------------------------------------------------------- scoring
def final_score(displayed: Sequence[str]) -> int:
    """One player's total: displayed loot points plus the bonuses.

    Front cards score their value, backs their (negative) value, a shark back 4. Bonuses:
    +5 for each complete set of three sharks and +5 for each set of three front cards of the
    same value (colour ignored; a card counts in at most one set).
    """
    total = sharks = 0
    fronts: dict[int, int] = {}
    for name in displayed:
        kind = DISPLAYED_INDEX.get(name)
        if kind is None:
            kind = parse_displayed(name)  # raises the ValueError naming the card
        points = DISPLAYED_POINTS[kind]
        total += points
        if IS_SHARK[kind]:
            sharks += 1
        elif IS_FRONT[kind]:
            fronts[points] = fronts.get(points, 0) + 1
    sets = sharks // SET_SIZE + sum(n // SET_SIZE for n in fronts.values())
    return total + SET_BONUS * sets


def final_rank_key(displayed: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Sort key of the final ranking: the total, then loot card values from the highest down."""
    values = sorted((DISPLAYED_POINTS[parse_displayed(name)] for name in displayed), reverse=True)
    return final_score(displayed), tuple(values)


def final_winners(displayed: Sequence[Sequence[str]]) -> list[int]:
    """Players with the best final total, ties broken by the highest loot cards (a remaining tie is shared)."""
    keys = [final_rank_key(d) for d in displayed]
    best = max(keys)
    return [i for i, k in enumerate(keys) if k == best]
