"""Piraten Kapern as text for one seat: the seat screen, and moves typed by naming dice.

A re-roll is named by its dice: ``reroll 2 parrot 1 sabre``, or short ``r 2p 1s`` (``r p p s``
too: a face without a count is one die). Faces: ``c`` coin, ``d`` diamond, ``m`` monkey, ``p``
parrot, ``s`` sabre, ``sk`` skull (the Sorceress). ``stop`` (``s`` alone) ends the turn;
``put coin`` / ``take coin`` move a die on or off the Treasure Chest.
"""

from __future__ import annotations

import re

from pirate_envs.core.rewards import winners_by_score
from pirate_envs.core.text import (
    count_words,
    item_lines,
    players_table,
    screen,
    standings_lines,
    title_line,
    turn_line,
)
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, STOP, reroll_action
from pirate_envs.piraten_kapern.rules import (
    DISQUALIFYING_SKULLS,
    FACES,
    NON_SKULL_FACES,
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
    """What ``view.seat`` sees, at most 100 columns wide (``on_turn`` is unused: the view says it)."""
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


def parse_move(text: str, view: View, legal: list[int]) -> int:
    """The legal action typed as ``stop``, a re-roll by dice, or a chest move (``ValueError`` with a hint)."""
    words = text.strip().lower().replace(",", " ").split()
    if not words:
        raise ValueError(f"nothing typed; {move_hint(view, legal)}")
    verb, rest = words[0], words[1:]
    try:
        if verb in _STOP_WORDS and not rest:
            action = STOP
        elif verb in ("put", "take") and len(rest) == 1:
            face = _face(rest[0])
            if face is None or face not in NON_SKULL_FACES:
                raise ValueError(f"'{rest[0][:20]}' is not a face the chest holds")
            action = (CHEST_PUT_OFFSET if verb == "put" else CHEST_TAKE_OFFSET) + NON_SKULL_FACES.index(face)
        else:
            if verb in _REROLL_WORDS:
                words = rest
            counts = parse_dice(words)
            over = [FACES[f] for f in range(NUM_FACES) if counts[f] > view.free[f]]
            if over:
                raise ValueError(f"not that many free {', '.join(over)} dice")
            try:
                action = reroll_action(counts)
            except ValueError:
                raise ValueError("a re-roll takes two dice or more (or the Sorceress's one skull)") from None
    except ValueError as error:
        raise ValueError(f"{error}; {move_hint(view, legal)}") from None
    if action not in legal:
        raise ValueError(f"'{text.strip()[:30]}' is not allowed now; {move_hint(view, legal)}")
    return action


def parse_moves(text: str, view: View, legal: list[int]) -> list[int]:
    """The action typed in ``text`` as a one-item list (the interface every game's text module has)."""
    return [parse_move(text, view, legal)]

def move_hint(view: View, legal: list[int]) -> str:
    """What may be typed now."""
    free = ", ".join(count_words(view.free[:SKULL_INDEX], FACES[:SKULL_INDEX]))
    if legal == [STOP]:
        return "type stop"
    chest = "; put <face> / take <face> for the chest" if any(a >= CHEST_PUT_OFFSET for a in legal) else ""
    return f"type stop, or re-roll by naming free dice ({free}), e.g. 'r 2p 1s'{chest}"


__all__ = ["FACE_SHORT", "GAME_NAME", "dice_words", "move_hint", "parse_dice", "parse_move", "parse_moves", "seat_text"]
