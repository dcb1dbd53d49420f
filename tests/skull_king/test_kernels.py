"""The Skull King rule kernels against the reference rules helpers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("numba")

from pirate_envs.skull_king.batched import hand_score_kernel, trick_bonus_kernel, trick_winner_kernel
from pirate_envs.skull_king.cards import MARY_ESCAPE, MARY_PIRATE, NUM_SUIT_CARDS, NUM_TOKENS
from pirate_envs.skull_king.rules import bonus_of_tokens, hand_score, led_suit_of, winner_of_tokens


def _random_trick(rng: np.random.Generator, length: int) -> list[int]:
    """A trick of ``length`` tokens with the special cards over-represented (copies not enforced: the rules
    functions take any tokens)."""
    tokens = []
    for _ in range(length):
        if rng.random() < 0.5:
            tokens.append(int(rng.integers(NUM_SUIT_CARDS, NUM_TOKENS)))
        else:
            tokens.append(int(rng.integers(NUM_SUIT_CARDS)))
    return tokens


def test_trick_winner_and_bonus_kernels_match_the_rules() -> None:
    rng = np.random.default_rng(3)
    checked = 0
    for length in range(1, 7):
        for _ in range(4000):
            tokens = _random_trick(rng, length)
            trick = np.array(tokens + [0] * (6 - length), dtype=np.int8)
            led = led_suit_of(tokens)
            assert trick_winner_kernel(trick, length, led) == winner_of_tokens(tokens), tokens
            assert trick_bonus_kernel(trick, length) == bonus_of_tokens(tokens), tokens
            checked += 1
    assert checked == 24000


def test_trick_kernels_on_every_pair_of_special_cards() -> None:
    specials = list(range(NUM_SUIT_CARDS, NUM_TOKENS))
    for first, second in itertools.product([*specials, 0, 13, 39, 51], repeat=2):
        tokens = [first, second, 12]
        trick = np.array(tokens, dtype=np.int8)
        assert trick_winner_kernel(trick, 3, led_suit_of(tokens)) == winner_of_tokens(tokens), tokens
        assert trick_bonus_kernel(trick, 3) == bonus_of_tokens(tokens), tokens
    assert MARY_PIRATE in specials and MARY_ESCAPE in specials


def test_hand_score_kernel_matches_the_rules() -> None:
    for k in range(1, 11):
        for bid in range(k + 1):
            for tricks in range(k + 1):
                for bonus in (0, 30, 50, 90) if tricks else (0,):
                    assert hand_score_kernel(bid, tricks, k, bonus) == hand_score(bid, tricks, k, bonus)
