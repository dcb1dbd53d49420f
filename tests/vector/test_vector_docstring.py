"""The batched engine's guide and module docstring tell the truth about the options it covers."""

from __future__ import annotations

import re

import pytest

import pirate_envs
import pirate_envs.vector as vector
from tests.doc_pages import doc_page

pytest.importorskip("numba")


def test_the_refused_short_piratenpoker_deck_is_named_in_the_guide_and_the_docstring():
    short = (1, 1, 1, 1, 1, 1, 1, 1)  # 24 cards: enough for three players' hands
    pirate_envs.make("piratenpoker_v0", raw=True, num_players=3, poker_copies=short)  # the AEC env plays it
    with pytest.raises(ValueError, match="poker_copies"):
        vector.make("piratenpoker_v0", 1, num_players=3, poker_copies=short)
    for doc in (" ".join(doc_page("guides/batched.md").split()), " ".join(vector.__doc__.split())):
        assert "(``poker_copies`` other than the full 84 cards) are refused" in doc
        assert not re.search(r"each with every option of its env,", doc), "the text claims every option"
