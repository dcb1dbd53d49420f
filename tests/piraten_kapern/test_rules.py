"""score_dice, hand-computed from the printed rules and docs/rulings.md (each number derived in a comment)."""

from __future__ import annotations

import pytest

from pirate_envs.piraten_kapern.rules import score_dice


def dice(**counts: int) -> list[str]:
    """Eight faces from counts, e.g. ``dice(coin=3, skull=2, monkey=3)``."""
    faces = [face for face, n in counts.items() for _ in range(n)]
    assert len(faces) == 8
    return faces


CASES = [
    # card without a scoring effect (Sorceress): 3 monkeys 100 + 2 coins 200 + 1 diamond 100; parrots idle
    ("plain sets and gems", dice(monkey=3, coin=2, diamond=1, parrot=2), "sorceress", 400),
    # 3 monkeys 100 + 3 parrots 100 + 2 coins 200 = 400, all eight dice score: +500
    ("full chest", dice(monkey=3, parrot=3, coin=2), "sorceress", 900),
    # 8 coins: set of 8 4000 + 8 x 100 + full chest 500
    ("eight coins", dice(coin=8), "sorceress", 5300),
    ("set of 4", dice(parrot=4, skull=2, monkey=2), "sorceress", 200),
    ("set of 5", dice(parrot=5, skull=2, monkey=1), "sorceress", 500),
    ("set of 6", dice(parrot=6, skull=2), "sorceress", 1000),
    ("set of 7", dice(parrot=7, skull=1), "sorceress", 2000),
    # two skulls: nothing but the 2 coins (200); no full chest with a skull
    ("two skulls still score", dice(skull=2, coin=2, monkey=2, parrot=2), "sorceress", 200),
    ("three skulls score nothing", dice(skull=3, coin=5), "sorceress", 0),
    # Captain doubles the full-chest example: 900 x 2
    ("captain doubles", dice(monkey=3, parrot=3, coin=2), "captain", 1800),
    # 3 diamonds 100 + 300 + 3 sabres 100 = 500, skulls block the chest, x2
    ("captain with skulls", dice(diamond=3, skull=2, sabre=3), "captain", 1000),
    ("captain three skulls", dice(skull=3, coin=5), "captain", 0),
    # Gold: coins 2 + card 1 = set of 3 (100) + 3 x 100 = 400; monkeys 100; sabres 100; all dice score +500
    ("gold card completes a set", dice(coin=2, monkey=3, sabre=3), "gold", 1100),
    # Gold with 8 coins: nine objects score as eight (4000) + 9 x 100 + full chest 500
    ("gold nine coins", dice(coin=8), "gold", 5400),
    ("diamond nine diamonds", dice(diamond=8), "diamond", 5400),
    # Diamond card: 1 diamond die + card = 2 diamonds (200); 3 monkeys 100; 2 parrots, 2 sabres idle
    ("diamond card", dice(diamond=1, monkey=3, parrot=2, sabre=2), "diamond", 300),
    # Monkey Business: 2 monkeys + 2 parrots = a set of 4 (200) + 1 coin (100)
    ("monkey business", dice(monkey=2, parrot=2, coin=1, sabre=1, skull=2), "monkey_business", 300),
    ("same dice without it", dice(monkey=2, parrot=2, coin=1, sabre=1, skull=2), "sorceress", 100),
    # Monkey Business full chest: 4 monkeys + 4 parrots = set of 8 (4000) + 500
    ("monkey business full chest", dice(monkey=4, parrot=4), "monkey_business", 4500),
    # Sea Battle 2: won (+300); 3 coins 100 + 300; 3 monkeys 100; the 2 sabres are needed: full chest +500
    ("sea battle 2 won", dice(sabre=2, coin=3, monkey=3), "sea_battle_2", 1300),
    ("sea battle 3 lost", dice(sabre=2, coin=3, monkey=3), "sea_battle_3", -500),
    # Sea Battle 4 won with 4 sabres: set of 4 (200) + 1000; 4 parrots 200; full chest +500
    ("sea battle 4 won", dice(sabre=4, parrot=4), "sea_battle_4", 1900),
    ("sea battle 4 three skulls", dice(sabre=4, skull=3, coin=1), "sea_battle_4", -1000),
    # Skulls 2 + one rolled skull = three skulls
    ("skulls card disqualifies", dice(skull=1, coin=7), "skulls_2", 0),
    # Skulls 1: 8 coins 4000 + 800, the card's skull rules out the full chest
    ("card skull blocks full chest", dice(coin=8), "skulls_1", 4800),
    # Treasure Chest has no effect on a voluntary stop
    ("treasure chest stop", dice(monkey=3, parrot=3, coin=2), "treasure_chest", 900),
    # After the Storm (assumption): only coins and diamonds, doubled: (3 coins 100 + 300 + 1 diamond 100) x 2
    ("storm gems only", dice(coin=3, diamond=1, monkey=3, sabre=1), "storm", 1000),
    # Peace (assumption): any sabre showing scores -1000 each
    ("peace broken", dice(sabre=2, coin=3, monkey=3), "peace", -2000),
    # Peace kept: 3 coins 100 + 300 + 5 monkeys 500 + full chest 500
    ("peace kept", dice(coin=3, monkey=5), "peace", 1400),
]


@pytest.mark.parametrize(("name", "faces", "card", "expected"), CASES, ids=[c[0] for c in CASES])
def test_score_dice(name, faces, card, expected):
    assert score_dice(faces, card) == expected


def test_score_dice_rejects_bad_input():
    with pytest.raises(ValueError, match="unknown fortune card"):
        score_dice(dice(coin=8), "joker")
    with pytest.raises(ValueError, match="unknown face"):
        score_dice(["coin"] * 7 + ["banana"], "captain")
    with pytest.raises(ValueError, match="expected 8 faces"):
        score_dice(["coin"] * 7, "captain")


def test_numpy_counts_do_not_put_numpy_points_in_the_cache():
    """A first call with numpy counts (the oracle, the batched tables) must not make later engine scores numpy."""
    import numpy as np

    from pirate_envs.piraten_kapern import rules

    rules._score_counts.cache_clear()
    assert type(rules.score_counts(np.array([3, 0, 0, 2, 3, 0]), "gold")) is int
    assert type(rules.score_counts([3, 0, 0, 2, 3, 0], "gold")) is int
    rules._score_counts.cache_clear()
