"""Pig as text for one seat: the seat screen, and the reader of typed moves (``roll``/``r``, ``hold``/``h``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from examples.pig.actions import ACTIONS, HOLD, ROLL
from examples.pig.view import View
from pirate_envs.core.actions import ActionTable
from pirate_envs.core.text import (
    Ambiguous,
    MoveReader,
    Refusal,
    players_table,
    screen,
    standings_lines,
    title_line,
    turn_line,
)
from pirate_envs.core.text import parse_move as core_parse_move

GAME_NAME = "Pig"
_WORDS = {"r": ROLL, "roll": ROLL, "h": HOLD, "hold": HOLD, "bank": HOLD}


def seat_text(view: View, on_turn: int | None = None) -> str:
    """What ``view.seat`` sees, at most 100 columns wide (``on_turn`` is unused: the view says it)."""
    seat = view.seat
    lines = [title_line(GAME_NAME, f"first to {view.target_score}", seat)]
    if view.over:
        lines += standings_lines(view.scores, view.winners, seat, truncated=not view.winners)
    else:
        lines.append(turn_line(seat, view.current_player, "roll or hold"))
    rows = [[score] for score in view.scores]
    lines += ["", players_table(["score"], rows, seat, None if view.over else view.current_player)]
    if not view.over:
        last = view.last_roll or "-"
        lines.append(f"turn total: {view.turn_total} after {view.rolls} rolls; last roll: {last} (a 1 loses the total)")
    return screen(lines)


class Reader(MoveReader):
    """Typed moves: ``roll`` (``r``) and ``hold`` (``h``, ``bank``); hold needs a turn total."""

    actions: ClassVar[ActionTable] = ACTIONS

    def words(self, words: list[str]) -> list[int] | Refusal | None:
        return [_WORDS[words[0]]] if len(words) == 1 and words[0] in _WORDS else None

    def why(self, named: list[int]) -> str:
        if HOLD in named:
            return "hold needs a turn total: roll at least once this turn"
        return super().why(named)


def parse_move(text: str, view: View, legal: list[int]) -> int | Ambiguous | Refusal:
    """The move typed in ``text`` (see `pirate_envs.core.text.parse_move`)."""
    return core_parse_move(text, legal, Reader, view)


def move_hint(view: View, legal: list[int]) -> str:
    """What may be typed now."""
    return Reader(view, legal).hint()


def page_state(view: View, legal: Sequence[int] = ()) -> dict[str, Any]:
    """What the web table draws beside the text: nothing (Pig declares no web page)."""
    return {}


__all__ = ["GAME_NAME", "Reader", "move_hint", "page_state", "parse_move", "seat_text"]
