"""Piraten Kapern as text for one seat: the seat screen, and the reader of typed moves.

Typed moves (`Reader`, read by `pirate_envs.core.text.parse_move`): a number is a die count
(``2``: a re-roll of two dice, which asks which ones unless only one pair may go). A re-roll
is named by its dice: ``reroll 2 parrot 1 sabre``, or short ``r 2p 1s`` (``r p p s`` too: a
face without a count is one die). Faces: ``c`` coin, ``d`` diamond, ``m`` monkey, ``p``
parrot, ``s`` sabre, ``sk`` skull (the Sorceress). ``stop`` (``s`` alone) ends the turn;
``put coin`` / ``take coin`` move a die on or off the Treasure Chest. A re-roll the dice do
not allow says why (held dice, skulls); the hint's example is built from the dice on the table.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from pirate_envs.core.rewards import winners_by_score
from pirate_envs.core.text import (
    Ambiguous,
    MoveReader,
    Refusal,
    count_words,
    item_lines,
    players_table,
    screen,
    standings_lines,
    title_line,
    turn_line,
)
from pirate_envs.core.text import parse_move as core_parse_move
from pirate_envs.piraten_kapern.actions import (
    ACTIONS,
    CHEST_PUT_OFFSET,
    CHEST_TAKE_OFFSET,
    REROLL_OFFSET,
    REROLL_TUPLES,
    STOP,
    reroll_action,
    reroll_counts,
)
from pirate_envs.piraten_kapern.rules import (
    DISQUALIFYING_SKULLS,
    FACES,
    NON_SKULL_FACES,
    NUM_DICE,
    NUM_FACES,
    card_skulls,
    island_penalty,
)
from pirate_envs.piraten_kapern.spec import SPEC
from pirate_envs.piraten_kapern.view import View

GAME_NAME = SPEC.name
SKULL_INDEX = FACES.index("skull")
#: Short forms of the face names (any unambiguous prefix works too).
FACE_SHORT: dict[str, int] = {"c": 0, "d": 1, "m": 2, "p": 3, "s": 4, "sk": 5, "x": 5}
_STOP_WORDS = {"stop", "s", "st", "end"}
_REROLL_WORDS = {"reroll", "re-roll", "r", "roll"}


def dice_words(counts: tuple[int, ...] | list[int]) -> list[str]:
    """One face name per die, in face order (``coin coin parrot skull``)."""
    return [FACES[f] for f, n in enumerate(counts) for _ in range(n)]


def seat_text(view: View, on_turn: int | None = None) -> str:
    """What ``view.seat`` sees, at most 100 columns wide (``on_turn`` is unused: the view says it).

    Cached by view (a pure function of it): OpenSpiel's explicit chance asks for the same screens
    again and again across a game tree. A view built by hand with lists is drawn uncached.
    """
    try:
        hash(view)
    except TypeError:
        return _draw_seat_text(view)
    return _cached_seat_text(view)


def _draw_seat_text(view: View) -> str:
    seat = view.seat
    lines = [title_line(GAME_NAME, f"first to {view.target_score}", seat)]
    over = view.phase == "game_over"
    if over:
        truncated = view.final_trigger is None  # a finished game always had its final round
        lines += standings_lines(view.scores, winners_by_score(list(view.scores)), seat, truncated)
    else:
        doing = "Island of Skulls" if view.island else "stop or re-roll"
        lines.append(turn_line(seat, view.current_player, f"{doing}, roll {view.rolls}"))
    rows = [[score, _final_mark(view, s)] for s, score in enumerate(view.scores)]
    lines += ["", players_table(["score", ""], rows, seat, None if over else view.current_player)]
    if over:
        return screen(lines)
    lines.append(f"fortune card: {view.card}")
    lines += item_lines("dice", dice_words(view.free))
    if any(view.chest):
        lines += item_lines("on the chest", dice_words(view.chest))
    skulls = view.free[-1] + card_skulls(view.card)
    if view.island:
        penalty = island_penalty(view.island_skulls, view.card)
        lines.append(f"Island of Skulls: {view.island_skulls} skulls; the others lose {penalty} each if it ends now")
    else:
        limit = f"{DISQUALIFYING_SKULLS} end the turn"
        lines.append(f"skulls: {skulls} ({limit}); points if stopped now: {view.turn_points}")
    if view.final_trigger is not None:
        lines.append(f"final round: player_{view.final_trigger} reached {view.target_score}")
    return screen(lines)


_cached_seat_text = functools.lru_cache(maxsize=4096)(_draw_seat_text)


def _final_mark(view: View, seat: int) -> str:
    if view.final_trigger == seat:
        return "reached the target"
    return "last turn to come" if view.final_turns_left[seat] else ""


_TOKEN = re.compile(r"^(\d*)([a-z-]*)$")


def _face(word: str) -> int | None:
    if word in FACE_SHORT:
        return FACE_SHORT[word]
    word = word.rstrip("s") if word not in FACES and word.rstrip("s") in FACES else word
    matches = [f for f, name in enumerate(FACES) if name.startswith(word)] if len(word) >= 2 else []
    return matches[0] if len(matches) == 1 else None


def parse_dice(words: list[str]) -> list[int]:
    """Counts per face from ``["2p", "1", "sabre"]``-like words (``ValueError`` naming a bad word)."""
    counts = [0] * NUM_FACES
    pending: int | None = None
    for word in words:
        match = _TOKEN.match(word)
        if not match or (not match.group(1) and not match.group(2)):
            raise ValueError(f"'{word[:20]}' is neither a number nor a face")
        number, name = match.groups()
        if number and len(number) > 1:
            raise ValueError(f"'{word[:20]}': at most 8 dice")
        if number and pending is not None:
            raise ValueError(f"'{word}' follows another number")
        if not name:
            pending = int(number)
            continue
        face = _face(name)
        if face is None:
            raise ValueError(f"'{name[:20]}' is not a face; faces: {', '.join(FACES)} (short c d m p s sk)")
        count = int(number) if number else (pending if pending is not None else 1)
        pending = None
        counts[face] += count
    if pending is not None:
        raise ValueError(f"the number {pending} names no face")
    return counts


class Reader(MoveReader):
    """Kapern's typed moves: a number is a die count (``2``: which two dice?), dice are named."""

    actions = ACTIONS
    menu_left_out = frozenset({"reroll"})

    def number(self, value: int) -> list[int] | Refusal:
        if not 1 <= value <= NUM_DICE:
            return Refusal(f"a re-roll takes 2 to {NUM_DICE} dice")
        return [REROLL_OFFSET + i for i, counts in enumerate(REROLL_TUPLES) if sum(counts) == value] or Refusal(
            "a re-roll takes two dice or more (or the Sorceress's one skull)"
        )

    def words(self, words: list[str]) -> list[int] | Refusal | None:
        verb, rest = words[0], words[1:]
        if verb in _STOP_WORDS and not rest:
            return [STOP]
        if verb in ("put", "take") and len(rest) in (1, 3):  # "put coin" or the label's "put coin on chest"
            face = _face(rest[0])
            if face is None or face not in NON_SKULL_FACES:
                return Refusal(f"'{rest[0][:20]}' is not a face the chest holds")
            return [(CHEST_PUT_OFFSET if verb == "put" else CHEST_TAKE_OFFSET) + NON_SKULL_FACES.index(face)]
        if verb in _REROLL_WORDS:
            words = rest
        try:
            counts = parse_dice(words)
        except ValueError as error:
            return Refusal(str(error))
        if self._too_many(counts):
            return Refusal(self._too_many(counts))
        if counts[SKULL_INDEX] > 1:
            return Refusal("skulls stay put (the Sorceress re-rolls one skull)")
        try:
            return [reroll_action(counts)]
        except ValueError:
            return Refusal("a re-roll takes two dice or more (or the Sorceress's one skull)")

    def why(self, named: list[int]) -> str:
        view = self.view
        if self.legal == [STOP]:
            if view.card == "storm":
                return "after the Storm you re-roll once only: stop"
            return "you may only stop now"
        action = named[0]
        if len(named) > 1:  # a die count
            free = sum(view.free[:SKULL_INDEX])
            return f"you have {free} free dice to re-roll (skulls stay put)"
        if REROLL_OFFSET <= action < CHEST_PUT_OFFSET:
            counts = reroll_counts(action)
            if self._too_many(counts):
                return self._too_many(counts)
            if counts[SKULL_INDEX]:
                if view.island:
                    return "on the Island of Skulls the skulls stay put"
                if view.card != "sorceress":
                    return "skulls stay put (only the Sorceress re-rolls one)"
                if view.sorceress_used:
                    return "the Sorceress has re-rolled her skull already"
                return "you have no skull to re-roll"
        if action >= CHEST_PUT_OFFSET:
            face = NON_SKULL_FACES[(action - CHEST_PUT_OFFSET) % len(NON_SKULL_FACES)]
            if view.card != "treasure_chest":
                return "the chest is played with the Treasure Chest card only"
            if action < CHEST_TAKE_OFFSET and not view.free[face]:
                return f"no free {FACES[face]} die to put on the chest"
            if action >= CHEST_TAKE_OFFSET and not view.chest[face]:
                return f"no {FACES[face]} die on the chest"
            return "no more chest moves this roll"
        return super().why(named)

    def _too_many(self, counts: Sequence[int]) -> str:
        """Why a re-roll of ``counts`` takes more dice of a face than lie free (``""``: it does not)."""
        view = self.view
        for face in NON_SKULL_FACES:
            if counts[face] > view.free[face]:
                held = f" ({view.chest[face]} held on the chest)" if view.chest[face] else ""
                return f"not that many free {FACES[face]} dice: you have {view.free[face]}{held}"
        return ""

    def hint(self) -> str:
        if self.legal == [STOP]:
            return "type stop"
        free = ", ".join(count_words(self.view.free[:SKULL_INDEX], FACES[:SKULL_INDEX]))
        chest = "; put <face> / take <face> for the chest" if any(a >= CHEST_PUT_OFFSET for a in self.legal) else ""
        return f"type stop, or re-roll by naming free dice ({free}), e.g. '{self.example()}'{chest}"

    def example(self) -> str:
        """A legal re-roll typed short, from the dice on the table (``r 2c 1p``)."""
        short = {face: letter for letter, face in FACE_SHORT.items() if len(letter) == 1 and face != SKULL_INDEX}
        faces = [f for f in NON_SKULL_FACES if self.view.free[f]]
        if len(faces) >= 2:
            return f"r {min(2, self.view.free[faces[0]])}{short[faces[0]]} 1{short[faces[1]]}"
        return f"r {self.view.free[faces[0]]}{short[faces[0]]}" if faces else "stop"


def parse_move(text: str, view: View, legal: list[int]) -> int | Ambiguous | Refusal:
    """The move typed in ``text`` (see `pirate_envs.core.text.parse_move`)."""
    return core_parse_move(text, legal, Reader, view)


def move_hint(view: View, legal: list[int]) -> str:
    """What may be typed now."""
    return Reader(view, legal).hint()


#: One line per fortune card: what it does (the tooltip of the drawn card).
CARD_RULES: dict[str, str] = {
    "treasure_chest": "Treasure Chest: dice put on the chest score even if the turn ends with three skulls.",
    "captain": "Captain: this turn's points, won or lost, are doubled.",
    "sorceress": "Sorceress: re-roll one skull once this turn.",
    "gold": "Gold: you start with one extra gold coin.",
    "diamond": "Diamond: you start with one extra diamond.",
    "monkey_business": "Monkey Business: monkeys and parrots count as one kind for sets.",
    "sea_battle_2": "Sea Battle: roll at least 2 sabres for a 300 bonus, or lose 300.",
    "sea_battle_3": "Sea Battle: roll at least 3 sabres for a 500 bonus, or lose 500.",
    "sea_battle_4": "Sea Battle: roll at least 4 sabres for a 1000 bonus, or lose 1000.",
    "skulls_1": "Skull card: counts as one skull already rolled.",
    "skulls_2": "Skull card: counts as two skulls already rolled.",
    "storm": "After the Storm: one re-roll only; only coins and diamonds score, and double.",
    "peace": "Peace: end the turn without sabres, or lose 1000 per sabre and score nothing else.",
}


def page_state(view: View, legal: Sequence[int] = ()) -> dict[str, Any]:
    """What the web table draws, from ``view`` only: the dice one by one, the fortune card, the seats.

    ``table.dice``: every die (``face``, ``where``: ``free``/``chest``, the ``choices`` that move
    it to or from the chest now); ``table.rerolls``: each legal re-roll with its dice counts
    by face (the page selects dice and sends the re-roll of the selected counts);
    ``table.buttons``: stop. ``dice``: the counts by face (free and chest), as before.
    ``legal`` is the seat's legal actions (none off turn).
    """
    legal_set = set(legal)
    dice = []
    for where, counts, offset in (("free", view.free, CHEST_PUT_OFFSET), ("chest", view.chest, CHEST_TAKE_OFFSET)):
        for face in range(NUM_FACES):
            move = offset + NON_SKULL_FACES.index(face) if face in NON_SKULL_FACES else None
            choices = [_choice(move)] if move is not None and move in legal_set else []
            dice += [{"face": FACES[face], "where": where, "choices": choices} for _ in range(counts[face])]
    rerolls = [{"action": a, "counts": list(reroll_counts(a))} for a in legal if REROLL_OFFSET <= a < CHEST_PUT_OFFSET]
    over = view.phase == "game_over"
    seats = [
        {
            "seat": s,
            "score": int(view.scores[s]),
            "on_turn": not over and s == view.current_player,
            "final": _final_mark(view, s),
        }
        for s in range(view.num_players)
    ]
    card = None if over else {"id": view.card, "name": view.card.replace("_", " "), "rule": CARD_RULES[view.card]}
    return {
        "dice": {"free": list(view.free), "chest": list(view.chest)},
        "table": {
            "game": "piraten_kapern",
            "phase": "over" if over else ("island" if view.island else "roll"),
            "round": f"first to {view.target_score}",
            "seats": seats,
            "card": card,
            "dice": [] if over else dice,
            "faces": list(FACES),
            "rolls": view.rolls,
            "skulls": view.free[SKULL_INDEX] + card_skulls(view.card),
            "island_skulls": view.island_skulls if view.island else None,
            "turn_points": view.turn_points,
            "rerolls": rerolls,
            "buttons": [_choice(a) for a in legal if a == STOP],
        },
    }


def _choice(action: int) -> dict[str, Any]:
    """A clickable move: its action and label."""
    return {"action": action, "label": ACTIONS.to_string(action)}


__all__ = [
    "CARD_RULES",
    "FACE_SHORT",
    "GAME_NAME",
    "Reader",
    "dice_words",
    "move_hint",
    "page_state",
    "parse_dice",
    "parse_move",
    "seat_text",
]
