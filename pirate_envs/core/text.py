"""Shared pieces of the seat screens: one layout and one set of conventions for every game.

A seat screen (``pirate_envs.<game>.text.seat_text``) is built from one seat's View only and
reads, top to bottom: a title line (game, stage, who you are), the turn line (``your turn:
...`` or ``on turn: player_2 ...``, or the final standings once the game is over), the players
table (one row per seat, ``>`` marks the player on turn, ``(you)`` the viewer) and the
game's own lines (the trick, the dice, the pile, your hand). No line is wider than
`WIDTH` columns: `screen` wraps a longer one, indenting its continuation lines.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Any

from pirate_envs.core.events import default_name
from pirate_envs.core.render import WIDTH, fit_lines, format_table, wrap_hanging


def seat_label(seat: int, viewer: int) -> str:
    """``player_1 (you)`` for the viewer, ``player_1`` for the others."""
    return default_name(seat) + (" (you)" if seat == viewer else "")


def title_line(game: str, stage: str, viewer: int) -> str:
    """``Skull King | hand 3 of 10 | you are player_1``."""
    return " | ".join(part for part in (game, stage, f"you are {default_name(viewer)}") if part)


def turn_line(viewer: int, on_turn: int, doing: str = "") -> str:
    """``your turn: bid`` or ``on turn: player_2 (bid)``."""
    if on_turn == viewer:
        return "your turn" + (f": {doing}" if doing else "")
    return f"on turn: {default_name(on_turn)}" + (f" ({doing})" if doing else "")


def players_table(headers: Sequence[str], rows: Sequence[Sequence[object]], viewer: int, on_turn: int | None) -> str:
    """The per-seat table: row ``s`` is seat ``s``; ``>`` marks the player on turn, ``(you)`` the viewer.

    Wide cells wrap within their columns (`pirate_envs.core.render.format_table`).
    """
    marked = [[f"{'>' if seat == on_turn else ' '} {seat_label(seat, viewer)}", *row] for seat, row in enumerate(rows)]
    return format_table(["  seat", *headers], marked)


def standings_lines(scores: Sequence[float], winners: Iterable[int], viewer: int, truncated: bool = False) -> list[str]:
    """The end-of-game lines: ``game over`` and every seat ranked by score (``winner`` marked)."""
    won = set(winners)
    order = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
    head = "game over (turn limit reached, no winner)" if truncated else "game over: final standings"
    lines = [head]
    for rank, seat in enumerate(order, start=1):
        tag = "  winner" if seat in won and not truncated else ""
        lines.append(f"  {rank}. {seat_label(seat, viewer)}: {scores[seat]:g}{tag}")
    return lines


def item_lines(label: str, items: Iterable[str], empty: str = "(none)") -> list[str]:
    """``label: a b c`` wrapped at `WIDTH`, continuation lines indented under the first item."""
    return wrap_hanging(f"{label}: {' '.join(items) or empty}", len(label) + 2)


def screen(lines: Iterable[str]) -> str:
    """Join the screen lines, wrapping any wider than `WIDTH` (see `pirate_envs.core.render.fit_line`)."""
    return "\n".join(fit_lines(lines))


def count_words(counts: Sequence[int], names: Sequence[str]) -> list[str]:
    """``["2 parrot", "1 sabre"]`` from counts per name (zeros left out)."""
    return [f"{n} {names[i]}" for i, n in enumerate(counts) if n]


__all__ = [
    "WIDTH",
    "count_words",
    "env_seat_text",
    "item_lines",
    "players_table",
    "screen",
    "seat_label",
    "standings_lines",
    "text_module",
    "title_line",
    "turn_line",
]


def text_module(env: Any) -> ModuleType:
    """The ``text`` module of the game ``env`` plays (``pirate_envs.<game>.text``)."""
    package = type(env.unwrapped.game).__module__.rsplit(".", 1)[0]
    return importlib.import_module(f"{package}.text")


def env_seat_text(env: Any, agent: str) -> str:
    """The seat screen of ``agent`` (a name of ``env.possible_agents``) in ``env``, raw or wrapped."""
    raw = env.unwrapped
    game = raw.game
    return text_module(env).seat_text(game.view(raw.seat_of(agent)), None if game.done else game.current_player)
