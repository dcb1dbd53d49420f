"""Shared pieces of the seat screens: one layout and one set of conventions for every game.

A seat screen (``pirate_envs.<game>.text.seat_text``) is built from one seat's View only and
reads, top to bottom: a title line (game, stage, who you are), the turn line (``your turn:
...`` or ``on turn: player_2 ...``, or the final standings once the game is over), the players
table (one row per seat, ``>`` marks the player on turn, ``(you)`` the viewer) and the
game's own lines (the trick, the dice, the pile, your hand). No line is wider than
`WIDTH` columns: `screen` wraps a longer one, indenting its continuation lines.

Typed moves have one parser, `parse_move`, used by the terminal player and the web table
alike; each game's text module gives it a `MoveReader` for the position on the table. Its
answer is a legal action, an `Ambiguous` (the input could mean several legal moves: which?)
or a `Refusal` (why not, in the game's words). What a typed line means, in this order:

* ``#k``: the k-th move of the menu (the legal moves listed, numbered from 1);
* a move's label, any case (``commit bid``, ``play red-7``, ``stop``);
* a bare number: the value it names where the game has one (a bid, a card value, a die count,
  a seat); a menu position only where a number could mean nothing else;
* the game's own short forms (``r 2p 1s``, ``2x5``, ``b g5``), read by the game's reader.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

from pirate_envs.core.actions import ActionTable
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


def counted(n: int, noun: str) -> str:
    """``"1 skull"``, ``"2 skulls"``: ``n`` and ``noun``, plural unless ``n`` is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def count_words(counts: Sequence[int], names: Sequence[str]) -> list[str]:
    """``["2 parrot", "1 sabre"]`` from counts per name (zeros left out)."""
    return [f"{n} {names[i]}" for i, n in enumerate(counts) if n]


# ----------------------------------------------------------------------------- typed moves
#: Most candidates an `Ambiguous` or a generic refusal lists by label.
SHOWN_CHOICES = 12
#: Most digits a typed number may have (longer ones are refused, never converted).
MAX_DIGITS = 3
_NUMBER = re.compile(r"^[+-]?[0-9]+$")


@dataclass(frozen=True)
class Ambiguous:
    """A typed move that could mean several legal moves: ``choices`` (actions) and their ``labels``."""

    typed: str
    choices: tuple[int, ...]
    labels: tuple[str, ...]

    @property
    def message(self) -> str:
        """``'7' could mean: play yellow-7, play black-7; type one of them``."""
        return f"'{shorten(self.typed)}' could mean: {shown_list(self.labels)}; type one of them"


@dataclass(frozen=True)
class Refusal:
    """A typed move that is not a legal move now, and why (one line, in the game's words)."""

    reason: str

    @property
    def message(self) -> str:
        return self.reason


def shorten(text: str, size: int = 30) -> str:
    """``text`` cut to ``size`` characters (``...`` marks a cut)."""
    text = " ".join(text.split())
    return text if len(text) <= size else text[:size] + "..."


def shown_list(labels: Sequence[str]) -> str:
    """At most `SHOWN_CHOICES` labels, comma-separated (``...`` when more)."""
    return ", ".join([*labels[:SHOWN_CHOICES], *(["..."] if len(labels) > SHOWN_CHOICES else [])])


def is_number(word: str) -> bool:
    """Whether ``word`` is an ASCII integer, sign allowed (``²`` and ``٣`` are not)."""
    return bool(_NUMBER.match(word))


class MoveReader:
    """What typed words mean in one game at one position; `parse_move` asks it.

    A game's text module subclasses it, setting `actions` (the game's action table) and
    `menu_left_out` (blocks too big to list), and overriding the hooks that apply:
    `number` (what a bare number names), `words` (the game's short forms), `why` (why named
    moves are not legal now) and `hint` (what may be typed).
    """

    actions: ClassVar[ActionTable]
    #: Action blocks named by typing, not listed in the menu (Kapern's 2,073 re-rolls).
    menu_left_out: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, view: Any, legal: Sequence[int]):
        self.view = view
        self.legal = [int(a) for a in legal]

    def label(self, action: int) -> str:
        """The action's label, as the menu shows it."""
        return self.actions.to_string(action)

    def menu(self) -> list[int]:
        """The legal moves listed, in action order (blocks of `menu_left_out` left out)."""
        hidden = [b for b in self.actions.blocks if b.name in self.menu_left_out]
        return [a for a in self.legal if not any(a in b for b in hidden)]

    def number(self, value: int) -> list[int] | Refusal | None:
        """The actions (legal or not) a bare number names; ``None``: numbers name nothing here."""
        return None

    def words(self, words: list[str]) -> list[int] | Refusal | None:
        """The actions (legal or not) the game's short forms name; ``None``: not understood."""
        return None

    def why(self, named: list[int]) -> str:
        """Why none of ``named`` (typed moves, none legal now) may be played."""
        return f"not legal now; legal: {shown_list([self.label(a) for a in self.menu()])}"

    def hint(self) -> str:
        """What may be typed now (one line)."""
        return f"type a move ({shown_list([self.label(a) for a in self.menu()])}) or #1-{len(self.menu())}"

    def choose(self, typed: str, named: list[int]) -> int | Ambiguous | Refusal:
        """The one legal action of ``named``, an `Ambiguous` among several, or a `Refusal` (`why`)."""
        legal = set(self.legal)
        choices = list(dict.fromkeys(a for a in named if a in legal))
        if len(choices) == 1:
            return choices[0]
        if choices:
            return Ambiguous(typed, tuple(choices), tuple(self.label(a) for a in choices))
        return Refusal(self.why(named) if named else f"'{shorten(typed)}' names no move; {self.hint()}")


@functools.cache
def _labels(actions: ActionTable) -> dict[str, int]:
    """Every action by its label, lower case."""
    return {actions.to_string(a).lower(): a for a in range(len(actions))}


def parse_move(text: str, legal: Sequence[int], reader_type: type[MoveReader], view: Any) -> int | Ambiguous | Refusal:
    """The legal action ``text`` types, an `Ambiguous` (which of these?) or a `Refusal` (why not).

    The one reading of typed moves (see the module docstring): ``legal`` are the legal actions,
    ``reader_type`` the game's `MoveReader` class, ``view`` the typing seat's view.
    """
    reader = reader_type(view, legal)
    typed = " ".join(text.split())
    lowered = typed.lower()
    if not lowered:
        return Refusal(f"nothing typed; {reader.hint()}")
    menu = reader.menu()
    if lowered.startswith("#"):
        position = lowered[1:].strip()
        short_number = position.isascii() and position.isdigit() and len(position) <= MAX_DIGITS
        if short_number and 0 < int(position) <= len(menu):
            return menu[int(position) - 1]
        return Refusal(f"'{shorten(typed)}': the menu has moves #1 to #{len(menu)}" if menu else "no move is listed")
    labelled = _labels(reader.actions).get(lowered)
    if labelled is not None:
        return reader.choose(typed, [labelled])
    if is_number(lowered):
        if len(lowered.lstrip("+-")) > MAX_DIGITS:
            return Refusal(f"'{shorten(typed)}' is too long a number; {reader.hint()}")
        named = reader.number(int(lowered))
        if named is None:  # numbers name nothing here: a menu position
            if 1 <= int(lowered) <= len(menu):
                return menu[int(lowered) - 1]
            return Refusal(f"'{shorten(typed)}': the menu has moves 1 to {len(menu)}")
    else:
        named = reader.words(lowered.replace(",", " ").split())
    if isinstance(named, Refusal):
        return Refusal(f"{named.reason}; {reader.hint()}")
    if named is None:
        return Refusal(f"'{shorten(typed)}' is not a move here; {reader.hint()}")
    return reader.choose(typed, named)


__all__ = [
    "WIDTH",
    "Ambiguous",
    "MoveReader",
    "Refusal",
    "count_words",
    "counted",
    "env_seat_text",
    "is_number",
    "item_lines",
    "parse_move",
    "players_table",
    "screen",
    "seat_label",
    "shorten",
    "shown_list",
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
