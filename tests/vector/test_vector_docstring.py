"""The batched engine's module docstring tells the truth about the options it covers."""

from __future__ import annotations

import re

import pytest

import pirate_envs
import pirate_envs.vector as vector

pytest.importorskip("numba")


def test_the_refused_short_piratenpoker_deck_is_named_in_the_docstring():
    short = (1, 1, 1, 1, 1, 1, 1, 1)  # 24 cards: enough for three players' hands
    pirate_envs.make("piratenpoker_v0", raw=True, num_players=3, poker_copies=short)  # the AEC env plays it
    with pytest.raises(ValueError, match="poker_copies"):
        vector.make("piratenpoker_v0", 1, num_players=3, poker_copies=short)
    doc = " ".join(vector.__doc__.split())
    assert "poker_copies" in doc and "refused" in doc
    assert not re.search(r"each with every option of its env,", doc), "the docstring claims every option"
