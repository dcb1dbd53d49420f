"""Lucky Pirate as text for one seat: the seat screen, and the reader of typed moves.

Built from the seat's `pirate_envs.lucky_pirate.view.View` only: his hand,
every up card, hand and down-card counts, the pile, the direction of play, the cards out of the
game and the cards every player saw go into a hand. Typed moves (`Reader`, read by
`pirate_envs.core.text.parse_move`): a number is a card value, ``5`` plays a 5 (``9`` a Captain,
``10`` a Kraken) and asks how many when more than one may go, ``play 5`` plays one 5,
``2x5`` (or ``5 5``, ``play 2 x 5``) two of them, ``captain`` a Captain (asking how many, as
``5``); ``down 2`` turns down card 2 over; ``pick up`` takes the pile;
``lay captain`` (or ``captain``) lays a card face up during the set-up. A card that may not go
on the pile says why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pirate_envs.core.text import (
    Ambiguous,
    MoveReader,
    Refusal,
    item_lines,
    players_table,
    screen,
    shown_list,
    standings_lines,
    title_line,
    turn_line,
)
from pirate_envs.core.text import parse_move as core_parse_move
from pirate_envs.lucky_pirate.actions import ACTIONS, DOWN_OFFSET, LAY_UP_OFFSET, PICK_UP, decode_play, play_action
from pirate_envs.lucky_pirate.cards import CAPTAIN, FACE_VALUE, KINDS, MAX_COPIES, MAX_UP_DOWN, NUM_KINDS
from pirate_envs.lucky_pirate.rules import Mode
from pirate_envs.lucky_pirate.spec import SPEC
from pirate_envs.lucky_pirate.view import View

GAME_NAME = SPEC.name
_SHORT = {"cap": "captain", "fm": "first_mate", "mate": "first_mate", "plank": "walk_the_plank"}


def _names(counts) -> list[str]:
    return [KINDS[k] for k in range(NUM_KINDS) for _ in range(int(counts[k]))]


def seat_text(view: View, on_turn: int | None = None) -> str:
    """What ``view.seat`` sees, at most 100 columns wide (``on_turn`` is unused: the view says it)."""
    n, me = view.num_players, view.seat
    absolute = [(me + i) % n for i in range(n)]  # table row i is seat absolute[i]
    rows_by_seat = {absolute[i]: i for i in range(n)}
    empty = [
        s
        for s in range(n)
        if not (view.hand_sizes[rows_by_seat[s]] or view.up[rows_by_seat[s]].any() or view.down_counts[rows_by_seat[s]])
    ]
    lines = [title_line(GAME_NAME, "set-up: lay up cards" if view.setting_up else "", me)]
    current = (me + view.to_play) % n
    if empty:  # a player has shed every card: the episode is over
        wins = [int(view.wins[rows_by_seat[s]]) for s in range(n)]
        lines += standings_lines(wins, empty, me)
    else:
        doing = "lay up cards" if view.setting_up else f"play from {_source(view, current)}"
        lines.append(turn_line(me, current, doing))
    rows = []
    for s in range(n):
        r = rows_by_seat[s]
        up = " ".join(_names(view.up[r])) or "-"
        rows.append([int(view.hand_sizes[r]), int(view.down_counts[r]), int(view.wins[r]), up])
    lines += ["", players_table(["hand", "down", "wins", "up cards"], rows, me, None if empty else current)]
    if empty:
        return screen(lines)
    lines.append(_pile_line(view))  # wrapped by screen, under the text after "pile: "
    lines.append(f"play passes to player_{(current + view.direction) % n} next (direction {view.direction:+d})")
    if view.removed.any():
        lines += item_lines("out of the game", _names(view.removed))
    for s in range(n):
        known = view.known[rows_by_seat[s]]
        if s != me and known.any():
            lines += item_lines(f"player_{s} holds (seen going in)", _names(known))
    lines += item_lines("your hand", _names(view.hand))
    slots = [str(i + 1) for i, filled in enumerate(view.down_slots) if filled]
    lines += item_lines("your down cards, slots", slots)
    return screen(lines)


def _source(view: View, seat: int) -> str:
    r = (seat - view.seat) % view.num_players
    if view.hand_sizes[r]:
        return "the hand"
    return "the up cards" if view.up[r].any() else "a down card"


def _pile_line(view: View) -> str:
    if not view.pile_size:
        return "pile: empty (any card may start it)"
    top = " ".join(KINDS[k] for k in view.pile_top)
    text = f"pile: {view.pile_size} card{'s' * (view.pile_size > 1)}, top first: {top}; value {view.pile_value}"
    if view.pile_mode == Mode.CAPTAIN:
        text += "; after the Captain only a First Mate or a Porthole"
    elif view.pile_mode == Mode.FREE:
        text += "; after the Parrot any card"
    if view.run_kind >= 0 and view.run_length > 1:
        text += f"; {view.run_length} x {KINDS[view.run_kind]} in a row"
    return text


def _kind(word: str) -> int | None:
    word = _SHORT.get(word, word)
    if word in KINDS:
        return KINDS.index(word)
    matches = [k for k, name in enumerate(KINDS) if name.startswith(word)] if len(word) >= 3 else []
    return matches[0] if len(matches) == 1 else None


_COUNT_KIND = re.compile(r"^([0-9]+)x(.+)$")


class Reader(MoveReader):
    """Lucky Pirate's typed moves: a number is a card value (``7`` plays one 7, ``10`` a Kraken)."""

    actions = ACTIONS

    def number(self, value: int) -> list[int] | Refusal:
        kinds = [k for k, face in enumerate(FACE_VALUE) if face == value]
        if not kinds:
            top = max(face for face in FACE_VALUE if face is not None)
            return Refusal(f"card values are 1 to {top} (9 the Captain, 10 the Kraken)")
        return [a for k in kinds for a in _any_count(k)]

    def words(self, words: list[str]) -> list[int] | Refusal | None:
        if len(words) == 1 and _kind(words[0]) is not None and not _COUNT_KIND.match(words[0]):
            return _any_count(_kind(words[0]))  # a card named without a count: asks when several counts are legal
        try:
            action = _parse(" ".join(words).replace(" x ", "x").split())
        except ValueError as error:
            return Refusal(str(error))
        if action < DOWN_OFFSET and decode_play(action)[1] == 1:  # one card: played, or laid up in the set-up
            return [action, LAY_UP_OFFSET + decode_play(action)[0]]
        return [action]

    def why(self, named: list[int]) -> str:
        view, action = self.view, named[0]
        own_hand, own_up = view.hand, view.up[0]
        if action >= LAY_UP_OFFSET:
            kind = KINDS[action - LAY_UP_OFFSET]
            return f"you hold no {kind}" if view.setting_up else "the up cards are laid: play"
        if view.setting_up:
            return "lay your up cards first (lay <card>)"
        if action == PICK_UP:
            return "you pick up the pile only when you cannot play"
        if action >= DOWN_OFFSET:
            if own_hand.any() or own_up.any():
                return "down cards come last: play your hand, then your up cards"
            return f"down slot {action - DOWN_OFFSET + 1} is empty"
        kind, count = decode_play(action)
        source, where = (own_hand, "in your hand") if view.hand_sizes[0] else (own_up, "among your up cards")
        if not source.any():
            return "your hand and up cards are gone: play a down card (down <slot>)"
        if not source[kind]:
            return f"you hold no {KINDS[kind]} {where}"
        if count > source[kind]:
            return f"you hold {int(source[kind])} x {KINDS[kind]} {where}"
        if view.pile_mode == Mode.CAPTAIN:
            return "after the Captain only a First Mate or a Porthole"
        if FACE_VALUE[kind] is not None and FACE_VALUE[kind] < view.pile_value:
            return f"a {KINDS[kind]} does not match or beat the pile's value {view.pile_value}"
        if kind == CAPTAIN:
            return "a Captain does not go on the Kraken"
        return f"a {KINDS[kind]} may not go on this pile (value {view.pile_value})"

    def hint(self) -> str:
        options = []
        plays = [decode_play(action) for action in self.legal if action < DOWN_OFFSET]
        several = {kind for kind, count in plays if count > 1}  # a bare name of these asks how many
        for action in self.legal:
            if action < DOWN_OFFSET:
                kind, count = decode_play(action)
                options.append(KINDS[kind] if count == 1 and kind not in several else f"{count}x{KINDS[kind]}")
            elif action < PICK_UP:
                options.append(f"down {action - DOWN_OFFSET + 1}")
            elif action == PICK_UP:
                options.append("pick up")
            else:
                options.append(f"lay {KINDS[action - LAY_UP_OFFSET]}")
        return "type one of: " + shown_list(options)


def parse_move(text: str, view: View, legal: list[int]) -> int | Ambiguous | Refusal:
    """The move typed in ``text`` (see `pirate_envs.core.text.parse_move`)."""
    return core_parse_move(text, legal, Reader, view)


def move_hint(view: View, legal: list[int]) -> str:
    """What may be typed now."""
    return Reader(view, legal).hint()


def _parse(words: list[str]) -> int:
    if not words:
        raise ValueError("nothing typed")
    if words[0] == "pick" or words == ["p"]:
        return PICK_UP
    if words[0] in ("down", "blind", "d") and len(words) == 2 and _is_number(words[1]):
        if not 1 <= int(words[1]) <= MAX_UP_DOWN:
            raise ValueError(f"'{words[1][:20]}': down-card slots are 1 to {MAX_UP_DOWN}")
        return DOWN_OFFSET + int(words[1]) - 1
    if words[0] == "lay" and len(words) == 2:
        kind = _kind(words[1])
        if kind is None:
            raise ValueError(f"'{words[1][:20]}' is not a card")
        return LAY_UP_OFFSET + kind
    if words[0] == "play":
        words = words[1:]
    if len(words) == 1 and (match := _COUNT_KIND.match(words[0])):
        words = [match.group(2)] * _count(match.group(1))
    elif len(words) == 2 and _is_number(words[0]) and _kind(words[1]) is not None and not words[1].isdigit():
        words = [words[1]] * _count(words[0])  # "2 captain"
    kinds = {_kind(w) for w in words}
    if not words or None in kinds:
        bad = next((w for w in words if _kind(w) is None), "")
        raise ValueError(f"'{bad[:20]}' is not a card" if bad else "name the cards to play")
    if len(kinds) > 1:
        raise ValueError("play cards of one kind at a time")
    return play_action(kinds.pop(), _count(len(words)))


def _any_count(kind: int) -> list[int]:
    """Every move a card named without a count may mean: playing 1 to `MAX_COPIES` of it, or laying it up."""
    return [*(play_action(kind, n) for n in range(1, MAX_COPIES + 1)), LAY_UP_OFFSET + kind]


def _is_number(word: str) -> bool:
    """Whether ``word`` is ASCII digits only (``²`` and ``٣`` are not)."""
    return word.isascii() and word.isdigit()


def _count(number: int | str) -> int:
    """A set size typed or counted (``ValueError`` unless 1 to `MAX_COPIES`)."""
    text = str(number)
    if len(text) > 2 or not 1 <= int(text) <= MAX_COPIES:
        raise ValueError(f"{text[:20]} cards: play 1 to {MAX_COPIES} cards of a kind")
    return int(text)


#: One line per card kind: what it does on the pile (the tooltip of a drawn card).
CARD_RULES: dict[str, str] = {
    **{n: f"{n}: plays on a pile of value {n} or less; three {n}s in a row clear the pile." for n in KINDS[:8]},
    "captain": "Captain (9): goes on anything but the Kraken; only a First Mate or a Porthole goes on it.",
    "kraken": "Kraken (10): the highest number.",
    "first_mate": "First Mate (9): goes on the Captain and turns the pile into a plain 9.",
    "porthole": "Porthole: copies the card below it.",
    "walk_the_plank": "Walk the Plank: goes on anything but the Captain and clears the pile.",
    "mermaid": "Mermaid (wild): goes on anything but the Captain and stays worth 7.",
    "parrot": "Parrot (wild): goes on anything but the Captain; any card may follow it.",
    "reverse": "Reverse: play turns the other way (two Reverses cancel out).",
    "skip": "Skip: the next player misses a turn (one skipped per Skip).",
}
#: The symbol a drawn special card shows.
CARD_SYMBOLS: dict[str, str] = {
    "captain": "\u2693",
    "kraken": "\u2646",
    "first_mate": "\u2694",
    "porthole": "\u25ce",
    "walk_the_plank": "\u2620",
    "mermaid": "\u2652",
    "parrot": "\u2726",
    "reverse": "\u21c4",
    "skip": "\u2298",
}


def card_face(kind: int) -> dict[str, Any]:
    """A drawn card of kind index ``kind``: ``{id, suit, value, kind, name, rule, symbol}``."""
    name = KINDS[kind]
    number = name.isdigit()
    return {
        "id": kind,
        "suit": "number" if number else "special",
        "value": FACE_VALUE[kind],
        "kind": "number" if number else name,
        "name": name.replace("_", " "),
        "rule": CARD_RULES[name],
        "symbol": "" if number else CARD_SYMBOLS[name],
    }


def page_state(view: View, legal: Sequence[int] = ()) -> dict[str, Any]:
    """What the web table draws, from ``view`` only: ``{"table": ...}``.

    ``hand`` (one card per card held; ``choices`` play 1..n of its kind, or lay it up in the
    set-up), ``seats`` (absolute: hand size, up cards, down cards (yours carry the blind-play
    ``choices``; your up cards the play ``choices`` once your hand is empty), wins, turn, dealer),
    ``pile`` (top cards topmost first, size, value, mode; ``choices``: pick it up),
    ``direction`` and ``buttons`` (pick up). ``legal``: the seat's legal actions.
    """
    n, me = view.num_players, view.seat
    legal_set = set(legal)

    def plays(kind: int) -> list[dict[str, Any]]:
        actions = [play_action(kind, c) for c in range(1, MAX_COPIES + 1)] + [LAY_UP_OFFSET + kind]
        return [_choice(a) for a in actions if a in legal_set]

    def cards(counts: Any, choices: Any) -> list[dict[str, Any]]:
        return [{**card_face(k), "choices": choices(k)} for k in range(NUM_KINDS) for _ in range(int(counts[k]))]

    current = (me + view.to_play) % n
    over = not view.setting_up and any(
        not (view.hand_sizes[r] or view.up[r].any() or view.down_counts[r]) for r in range(n)
    )
    seats = []
    for s in range(n):
        r = (s - me) % n
        mine = s == me
        down = (
            [
                {"slot": i, "choices": [_choice(DOWN_OFFSET + i)] if DOWN_OFFSET + i in legal_set else []}
                for i, filled in enumerate(view.down_slots)
                if filled
            ]
            if mine
            else [{"slot": None, "choices": []} for _ in range(int(view.down_counts[r]))]
        )
        seats.append(
            {
                "seat": s,
                "hand_size": int(view.hand_sizes[r]),
                "up": cards(view.up[r], plays if mine else lambda k: []),
                "down": down,
                "wins": int(view.wins[r]),
                "score": int(view.wins[r]),
                "known": cards(view.known[r], lambda k: []) if not mine else [],
                "on_turn": not over and s == current,
                "dealer": r == view.dealer,
            }
        )
    mode = {Mode.CAPTAIN: "captain", Mode.FREE: "free"}.get(view.pile_mode, "normal")
    return {
        "table": {
            "game": "lucky_pirate",
            "phase": "over" if over else ("set_up" if view.setting_up else "play"),
            "round": "set-up: lay up cards" if view.setting_up else "",
            "seats": seats,
            "hand": cards(view.hand, plays),
            "pile": {
                "top": [card_face(k) for k in view.pile_top],
                "size": int(view.pile_size),
                "value": int(view.pile_value),
                "mode": mode,
                "run": [KINDS[view.run_kind], int(view.run_length)] if view.run_kind >= 0 else None,
                "choices": [_choice(PICK_UP)] if PICK_UP in legal_set else [],
            },
            "removed": _names(view.removed),
            "direction": int(view.direction),
            "next": (current + view.direction) % n,
            "buttons": [_choice(PICK_UP)] if PICK_UP in legal_set else [],
        }
    }


def _choice(action: int) -> dict[str, Any]:
    """A clickable move: its action and label."""
    return {"action": action, "label": ACTIONS.to_string(action)}


__all__ = ["CARD_RULES", "GAME_NAME", "Reader", "card_face", "move_hint", "page_state", "parse_move", "seat_text"]
