"""Situations a player recognises, named from the deciding seat's View and its legal moves.

`situation(env_id, view, legal)` gives one short phrase per decision (every decision gets one): the
rows of a page's "Where play goes wrong" table. Each game's agents package declares its own, in
``agents/<game>/mistakes.py``, found from the env id (`agents.games.game_module`):

* ``situation(view, legal) -> str``: the phrase, read only from what the seat sees;
* ``NOTE``: how the game's situations are named, for the page;
* optionally ``alike(legal) -> bool``: the legal moves are all alike to the seat, so no choice at all
  (Lucky Pirate's blind down cards), and the decision is not counted;
* optionally ``EXACT_MEASURE``: a regret measure class that needs no search (`agents.analysis.mistakes.regret`).

`band` names a value's band, for the games' modules.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from agents.games import game_module


def band(value: int, bands: tuple[tuple[int, str], ...]) -> str:
    """The words of the first band ``(largest value, words)`` that holds ``value`` (the last band past them all)."""
    return next((words for high, words in bands if value <= high), bands[-1][1])


def mistakes_module(env_id: str) -> ModuleType:
    """``agents/<game>/mistakes.py`` of ``env_id`` (``LookupError`` when the game's agents package has none)."""
    try:
        return game_module(env_id, "mistakes")
    except ModuleNotFoundError as error:
        if not (error.name or "").endswith(".mistakes"):
            raise  # the module exists and imports something missing
        raise LookupError(f"{env_id} has no situations of where play goes wrong (agents/<game>/mistakes.py)") from error


def situation(env_id: str, view: object, legal: np.ndarray) -> str:
    """The situation of a decision of ``env_id`` in words."""
    return mistakes_module(env_id).situation(view, legal)


def note(env_id: str) -> str:
    """How ``env_id``'s situations are named, for the page."""
    return mistakes_module(env_id).NOTE


def interchangeable(env_id: str, legal: np.ndarray) -> bool:
    """Whether the legal moves are all alike to the seat, so no choice at all (the module's ``alike``)."""
    alike = getattr(mistakes_module(env_id), "alike", None)
    return alike is not None and bool(alike(legal))


__all__ = ["band", "interchangeable", "mistakes_module", "note", "situation"]
