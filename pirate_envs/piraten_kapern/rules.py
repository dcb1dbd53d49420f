"""Piraten Kapern rules helpers: pure scoring functions of the dice showing and the fortune card.

Dice are handled as counts per face in the order of `FACES`. Every number comes from
the printed rules and the readings of ``docs/rulings.md``; the constants name them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

FACES: tuple[str, ...] = ("coin", "diamond", "monkey", "parrot", "sabre", "skull")
COIN, DIAMOND, MONKEY, PARROT, SABRE, SKULL = range(6)
NUM_FACES = len(FACES)
NON_SKULL_FACES = (COIN, DIAMOND, MONKEY, PARROT, SABRE)
NUM_DICE = 8

CARDS: tuple[str, ...] = (
    "treasure_chest",
    "captain",
    "sorceress",
    "gold",
    "diamond",
    "monkey_business",
    "sea_battle_2",
    "sea_battle_3",
    "sea_battle_4",
    "skulls_1",
    "skulls_2",
    "storm",
    "peace",
)
CARD_INDEX = {name: i for i, name in enumerate(CARDS)}
#: The 35-card fortune deck of the base game.
STANDARD_DECK: dict[str, int] = {
    "treasure_chest": 4,
    "captain": 4,
    "sorceress": 4,
    "gold": 4,
    "diamond": 4,
    "monkey_business": 4,
    "sea_battle_2": 2,
    "sea_battle_3": 2,
    "sea_battle_4": 2,
    "skulls_1": 3,
    "skulls_2": 2,
}
PROMO_CARDS = ("storm", "peace")
#: The base game's cards in deck order: the entries of the option ``fortune_deck`` (copies of each).
BASE_CARDS: tuple[str, ...] = tuple(STANDARD_DECK)
#: The most copies of one card a deck may hold (the base game's largest count).
MAX_CARD_COPIES = 4

#: Points of a set of n identical objects (n >= 8 scores as 8).
SET_POINTS = {3: 100, 4: 200, 5: 500, 6: 1000, 7: 2000, 8: 4000}
MIN_SET = 3
MAX_SET = 8
OBJECT_POINTS = 100  # each coin and diamond, on top of its set
FULL_CHEST_BONUS = 500
DISQUALIFYING_SKULLS = 3
ISLAND_SKULLS = 4
ISLAND_PENALTY_PER_SKULL = 100
PEACE_PENALTY_PER_SABRE = 1000
CAPTAIN_FACTOR = 2
STORM_FACTOR = 2
#: Sea Battle cards: (sabres needed, bonus won or lost).
SEA_BATTLES: dict[str, tuple[int, int]] = {
    "sea_battle_2": (2, 300),
    "sea_battle_3": (3, 500),
    "sea_battle_4": (4, 1000),
}
CARD_SKULLS: dict[str, int] = {"skulls_1": 1, "skulls_2": 2}
#: Cards that add one object of a face to the set counts.
CARD_OBJECTS: dict[str, int] = {"gold": COIN, "diamond": DIAMOND}


def set_points(n: int) -> int:
    """Points of a set of ``n`` identical objects (0 below three)."""
    if n < MIN_SET:
        return 0
    return SET_POINTS[min(n, MAX_SET)]


def card_skulls(card: str) -> int:
    """Skulls a fortune card adds to the turn."""
    return CARD_SKULLS.get(card, 0)


def _object_counts(counts: Sequence[int], card: str) -> list[int]:
    """Non-skull object counts (coin, diamond, monkey, parrot, sabre), the card's object added."""
    objects = [counts[f] for f in NON_SKULL_FACES]
    if card in CARD_OBJECTS:
        objects[CARD_OBJECTS[card]] += 1
    return objects


def objects_points(counts: Sequence[int], card: str) -> int:
    """Sets plus 100 per coin and diamond, of these non-skull dice and the card's object.

    No full-chest bonus, no card factor: the worth of a partial collection (the dice saved on
    the Treasure Chest, say).
    """
    objects = _object_counts(counts, card)
    points = OBJECT_POINTS * (objects[COIN] + objects[DIAMOND])
    if card == "monkey_business":
        groups = (objects[COIN], objects[DIAMOND], objects[MONKEY] + objects[PARROT], objects[SABRE])
    else:
        groups = objects
    return points + sum(set_points(n) for n in groups)


def is_full_chest(counts: Sequence[int], card: str, num_dice: int = NUM_DICE) -> bool:
    """Whether all ``num_dice`` dice contribute points (no skull, rolled or from the card)."""
    if counts[SKULL] or card_skulls(card) or sum(counts) != num_dice:
        return False
    objects = _object_counts(counts, card)
    monkeys = objects[MONKEY] + objects[PARROT] if card == "monkey_business" else None
    for face in (MONKEY, PARROT):
        group = monkeys if monkeys is not None else objects[face]
        if counts[face] and group < MIN_SET:
            return False
    sabres = counts[SABRE]
    if sabres and objects[SABRE] < MIN_SET:
        needed = SEA_BATTLES[card][0] if card in SEA_BATTLES else None
        if needed is None or sabres < needed:
            return False
    return True


def disqualified_score(counts: Sequence[int], card: str) -> int:
    """The player's points when the turn ends on three or more skulls (no chest saving)."""
    if card in SEA_BATTLES:
        return -SEA_BATTLES[card][1]
    if card == "peace":
        return -PEACE_PENALTY_PER_SABRE * counts[SABRE]
    return 0


def score_counts(counts: Sequence[int], card: str, num_dice: int = NUM_DICE) -> int:
    """Points of stopping voluntarily with these face counts of ``num_dice`` dice showing (see `score_dice`).

    The counts become Python integers first, so numpy counts never put numpy results in the cache.
    """
    return _score_counts(tuple(map(int, counts)), card, num_dice)


@functools.cache
def _score_counts(counts: tuple[int, ...], card: str, num_dice: int) -> int:
    if counts[SKULL] + card_skulls(card) >= DISQUALIFYING_SKULLS:
        return disqualified_score(counts, card)
    if card == "storm":
        gems = [0] * NUM_FACES
        gems[COIN], gems[DIAMOND] = counts[COIN], counts[DIAMOND]
        return STORM_FACTOR * objects_points(gems, card)
    if card == "peace" and counts[SABRE]:
        return -PEACE_PENALTY_PER_SABRE * counts[SABRE]
    points = objects_points(counts, card)
    if card in SEA_BATTLES:
        needed, bonus = SEA_BATTLES[card]
        if counts[SABRE] < needed:
            return -bonus
        points += bonus
    if is_full_chest(counts, card, num_dice):
        points += FULL_CHEST_BONUS
    if card == "captain":
        points *= CAPTAIN_FACTOR
    return points


def face_counts(faces: Sequence[str]) -> list[int]:
    """Counts per face of a list of face names (``ValueError`` on an unknown name)."""
    counts = [0] * NUM_FACES
    for face in faces:
        try:
            counts[FACES.index(face)] += 1
        except ValueError:
            raise ValueError(f"unknown face {face!r}; valid faces: {list(FACES)}") from None
    return counts


def check_card(card: str) -> None:
    """Raise ``ValueError`` unless ``card`` is a fortune card name."""
    if card not in CARD_INDEX:
        raise ValueError(f"unknown fortune card {card!r}; valid cards: {list(CARDS)}")


def score_dice(faces: Sequence[str], card: str) -> int:
    """Points the turn scores if the player stops voluntarily now with these eight faces.

    Card skulls count; three or more skulls give the disqualified result (0, minus the Sea
    Battle bonus, or the Peace penalty); a Sea Battle is won or lost; no chest saving.
    """
    check_card(card)
    if len(faces) != NUM_DICE:
        raise ValueError(f"expected {NUM_DICE} faces, got {len(faces)}")
    return score_counts(face_counts(faces), card)


def island_penalty(skulls: int, card: str) -> int:
    """What each opponent loses when an Island of Skulls turn ends with ``skulls`` skulls."""
    factor = CAPTAIN_FACTOR if card == "captain" else 1
    return ISLAND_PENALTY_PER_SKULL * skulls * factor
