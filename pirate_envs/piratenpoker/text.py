"""Piratenpoker as text for one seat: the seat screen, and the reader of typed moves.

Built from the seat's `pirate_envs.piratenpoker.view.View` (his hand, his own bid of
this round, the public table) and who is on turn, which every player sees. Typed moves
(`Reader`, read by `pirate_envs.core.text.parse_move`), one action per line as the menu has
them: ``bid green-5`` (short ``b g5``, ``g5``) adds that card to your bid, ``5`` a 5 (which
colour, if you hold several), ``commit bid`` (``commit``, ``c``) ends it, ``pass``; ``choose
green`` (``green``, or ``8`` for the +8 on offer) picks a loot card; ``give red:-4`` (``4``) or
``keep``; ``to player_2`` (``to self``, or the seat number) names who receives the loot card.
Moves the rules forbid say why (``you hold no green-5``, ``you have played your Pass card``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pirate_envs.core.text import (
    Ambiguous,
    MoveReader,
    Refusal,
    is_number,
    item_lines,
    players_table,
    screen,
    standings_lines,
    title_line,
    turn_line,
)
from pirate_envs.core.text import parse_move as core_parse_move
from pirate_envs.piratenpoker.actions import ACTIONS, ADD, COMMIT, GIVE, KEEP, LOOT, PASS, RECIPIENT
from pirate_envs.piratenpoker.cards import (
    BACK_OF_FRONT,
    COLOURS,
    DISPLAYED_NAMES,
    DISPLAYED_POINTS,
    FRONT_VALUES,
    KIND_VALUE,
    MAX_VALUE,
    MIN_VALUE,
    NEGATIVE_KINDS,
    POKER_INDEX,
    POKER_NAMES,
    names_of,
)
from pirate_envs.piratenpoker.rules import final_winners
from pirate_envs.piratenpoker.spec import SPEC
from pirate_envs.piratenpoker.view import View

GAME_NAME = SPEC.name
ROUND_NAMES = ("overboard", "below deck", "loot")
_BID, _PICK_LOOT, _GIFT, _RECIPIENT, _OVER = range(5)
_DOING = {
    _BID: "bid: add cards and commit, or pass",
    _PICK_LOOT: "choose a loot card",
    _GIFT: "give a negative card or keep them",
    _RECIPIENT: "say who gets the loot card",
}
_SHORT_COLOURS = {c[0]: c for c in COLOURS}


def _front(index: int) -> str:
    """``+8/-4`` for a front value index, ``-`` for none."""
    if index < 0:
        return "-"
    front = FRONT_VALUES[index]
    return f"+{front}/{BACK_OF_FRONT[front]}"


def seat_text(view: View, on_turn: int | None = None) -> str:
    """What ``view.seat`` sees (``on_turn``: the seat on turn, public), at most 100 columns wide."""
    table, seat = view.table, view.seat
    n = table.num_players
    if view.on_turn:
        on_turn = seat
    elif table.phase not in (_BID, _OVER):
        on_turn = table.chooser
    over = table.phase == _OVER
    stage = "" if over else f"game {table.games_played}, round {table.round + 1} of 3: {ROUND_NAMES[table.round]}"
    lines = [title_line(GAME_NAME, stage, seat)]
    displayed = [names_of(table.displayed[s], DISPLAYED_NAMES) for s in range(n)]
    if over:
        lines += standings_lines(table.scores, final_winners(displayed), seat)
    elif on_turn is not None:
        lines.append(turn_line(seat, on_turn, _DOING[table.phase]))
    passes = ["yes" if p else "no" for p in table.pass_available]
    rows = [[f"{table.scores[s]:g}", table.hand_sizes[s], passes[s], " ".join(displayed[s])] for s in range(n)]
    lines += ["", players_table(["score", "cards", "pass", "loot shown"], rows, seat, None if over else on_turn)]
    if table.last_round >= 0:
        bids = []
        for s in range(n):
            cards = names_of(table.last_bids[s], POKER_NAMES)
            bids.append(f"player_{s} " + ("pass" if table.last_passed[s] else " ".join(cards) or "nothing"))
        winner = f"player_{table.last_winner} won" if table.last_winner >= 0 else "nobody won"
        lines += item_lines(f"last bids ({ROUND_NAMES[table.last_round]}, {winner})", ["; ".join(bids)])
    if over:
        return screen(lines)
    offer = [f"{c} {_front(f)}" for c, f in zip(COLOURS, table.face_up) if f >= 0]
    lines += item_lines("loot on offer", [", ".join(offer)])
    if table.phase == _RECIPIENT and table.pending >= 0:
        lines.append(f"player_{table.chooser} gives {DISPLAYED_NAMES[table.pending]}")
    stacks = [f"{c} {size} (top {_front(top)})" for c, size, top in zip(COLOURS, table.stack_sizes, table.stack_tops)]
    lines += item_lines("stacks", [", ".join(stacks)])
    if table.round == 2:
        lines.append("this round, poker cards of the last loot card's colour count double")
    lines += item_lines("your hand", names_of(view.hand, POKER_NAMES))
    if view.committed:
        lines.append("your bid: " + ("pass" if view.passed else " ".join(names_of(view.bid, POKER_NAMES))))
    elif view.bid.any():
        lines += item_lines("your bid so far", names_of(view.bid, POKER_NAMES))
    return screen(lines)


def _poker_kind(word: str) -> int:
    """A poker card from ``green-5`` or ``g5`` (``ValueError`` naming the word)."""
    if word in POKER_INDEX:
        return POKER_INDEX[word]
    if len(word) >= 2 and word[0] in _SHORT_COLOURS and word[1:].lstrip("-").isdigit():
        name = f"{_SHORT_COLOURS[word[0]]}-{word[1:].lstrip('-')}"
        if name in POKER_INDEX:
            return POKER_INDEX[name]
    raise ValueError(f"'{word[:20]}' is not a poker card (green-5 or g5)")


class Reader(MoveReader):
    """Piratenpoker's typed moves: a number is a poker value, a loot front, a negative or a seat."""

    actions = ACTIONS

    def number(self, value: int) -> list[int] | Refusal | None:
        table = self.view.table
        if table.phase == _BID:
            if not MIN_VALUE <= value <= MAX_VALUE:
                return Refusal(f"poker cards are {MIN_VALUE} to {MAX_VALUE}")
            return [ADD + POKER_INDEX[f"{colour}-{value}"] for colour in COLOURS]
        if table.phase == _PICK_LOOT:
            shown = [LOOT + c for c, front in enumerate(table.face_up) if front >= 0 and FRONT_VALUES[front] == value]
            offer = " ".join(f"+{FRONT_VALUES[f]}" for f in table.face_up if f >= 0)
            return shown or Refusal(f"no loot card on offer shows +{value} (on offer: {offer})")
        if table.phase == _GIFT:
            return [GIVE + i for i, kind in enumerate(NEGATIVE_KINDS) if DISPLAYED_POINTS[kind] == -abs(value)] or (
                Refusal(f"no negative loot card is worth -{abs(value)}")
            )
        if table.phase == _RECIPIENT:
            return self._seat(str(value))
        return None

    def words(self, words: list[str]) -> list[int] | Refusal | None:
        verb, rest = words[0], words[1:]
        phase = self.view.table.phase
        try:
            if phase == _BID:
                if verb in ("pass", "p") and not rest:
                    return [PASS]
                if verb in ("commit", "c") and not rest:
                    return [COMMIT]
                cards = rest if verb in ("bid", "b", "add", "a") else words
                if len(cards) != 1:
                    return Refusal("one card at a time: 'bid green-5', then the next card, then 'commit bid'")
                if is_number(cards[0]):
                    return self.number(int(cards[0]))
                return [ADD + _poker_kind(cards[0])]
            if phase == _PICK_LOOT:
                colour = rest[0] if verb in ("choose", "pick") and len(rest) == 1 else verb
                colour = _SHORT_COLOURS.get(colour, colour)
                if colour not in COLOURS or (rest and verb not in ("choose", "pick")):
                    return Refusal(f"'{' '.join(words)[:30]}' names no loot colour")
                return [LOOT + COLOURS.index(colour)]
            if phase == _GIFT:
                if verb == "keep":
                    return [KEEP]
                name = rest[0] if verb == "give" and len(rest) == 1 else verb
                kinds = [i for i, k in enumerate(NEGATIVE_KINDS) if DISPLAYED_NAMES[k] == name]
                if not kinds:
                    return Refusal(f"'{name[:20]}' is not a negative loot card (e.g. red:-4)")
                return [GIVE + kinds[0]]
            if phase == _RECIPIENT:
                return self._seat(rest[0] if verb == "to" and len(rest) == 1 else verb)
        except ValueError as error:
            return Refusal(str(error))
        return None

    def _seat(self, target: str) -> list[int] | Refusal:
        """The recipient action of ``self``, ``player_2`` or ``2``."""
        table = self.view.table
        n = table.num_players
        if target in ("self", "me"):
            return [RECIPIENT]
        number = target.removeprefix("player_")
        if not (number.isascii() and number.isdigit() and len(number) <= 2 and int(number) < n):
            return Refusal(f"'{target[:20]}' names no seat; the seats are player_0 to player_{n - 1}")
        return [RECIPIENT + (int(number) - table.chooser) % n]

    def why(self, named: list[int]) -> str:
        view, action = self.view, named[0]
        phase = view.table.phase
        if phase == _BID and ADD <= action < COMMIT:
            kinds = [a - ADD for a in named]
            values = {KIND_VALUE[k] for k in kinds}
            what = POKER_NAMES[kinds[0]] if len(kinds) == 1 or len(values) != 1 else f"{values.pop()}"
            return f"you hold no {what}"
        if phase == _BID and action == COMMIT:
            return "your bid holds no card yet: add one first (bid <card>)"
        if phase == _BID and action == PASS:
            return (
                "you have started a bid: pass only before adding a card"
                if view.bid.any()
                else ("you have played your Pass card this game")
            )
        if phase == _PICK_LOOT and LOOT <= action < GIVE:
            return f"no {COLOURS[action - LOOT]} loot card is on offer"
        if phase == _GIFT and GIVE <= action < KEEP:
            return f"you show no {DISPLAYED_NAMES[NEGATIVE_KINDS[action - GIVE]]}"
        if phase == _RECIPIENT and action == RECIPIENT:
            return "the loot card may not go to yourself now"
        return super().why(named)

    def hint(self) -> str:
        view, legal = self.view, self.legal
        phase = view.table.phase
        if phase == _BID:
            held = names_of(view.hand, POKER_NAMES)
            example = f"'bid {held[0]}'" if held else "'bid green-5'"
            extra = ", or pass" if PASS in legal else (", or commit bid" if COMMIT in legal else "")
            return f"type bid and a card, e.g. {example} (a number: that value){extra}"
        if phase == _PICK_LOOT:
            return "type a colour: " + " ".join(COLOURS[a - LOOT] for a in legal)
        if phase == _GIFT:
            gifts = [DISPLAYED_NAMES[NEGATIVE_KINDS[a - GIVE]] for a in legal if a != KEEP]
            return "type keep, or give one of: " + " ".join(gifts)
        if phase == _RECIPIENT:
            n, chooser = view.table.num_players, view.table.chooser
            return "type to and a seat: " + " ".join(f"player_{(chooser + a - RECIPIENT) % n}" for a in legal)
        return "the game is over"


def parse_move(text: str, view: View, legal: list[int]) -> int | Ambiguous | Refusal:
    """The move typed in ``text`` (see `pirate_envs.core.text.parse_move`)."""
    return core_parse_move(text, legal, Reader, view)


def move_hint(view: View, legal: list[int]) -> str:
    """What may be typed now."""
    return Reader(view, legal).hint()


#: The tooltip of a drawn poker card, of the Pass and of a loot card.
POKER_RULE = "Poker card: played face down into a bid; the highest total wins (round 3: one colour counts double)."
PASS_RULE = "Pass: play it instead of a bid (worth 0); you sit out the rest of this game's rounds."
LOOT_RULE = (
    "Loot card: its front scores the value, its back the negative value (a +5's back is a shark, worth 4); "
    "three sharks or three equal fronts score 5 more."
)


def loot_face(colour: int, front_index: int, side: str) -> dict[str, Any]:
    """A drawn loot card of ``colour`` with front value index ``front_index``, ``side`` ``front`` or ``back``."""
    front = FRONT_VALUES[front_index]
    back = BACK_OF_FRONT[front]
    shown = f"+{front}" if side == "front" else (str(back) if back != "shark" else "shark")
    return {
        "id": f"{COLOURS[colour]}:{shown}",
        "suit": COLOURS[colour],
        "value": shown,
        "kind": "loot",
        "side": side,
        "name": f"{COLOURS[colour]} loot {shown}",
        "rule": LOOT_RULE,
        "front": f"+{front}",
        "back": str(back),
    }


def _displayed_face(kind: int) -> dict[str, Any]:
    """A drawn displayed loot card (displayed kind ``kind``)."""
    colour, rest = divmod(kind, 2 * len(FRONT_VALUES))
    side, front_index = divmod(rest, len(FRONT_VALUES))
    return {**loot_face(colour, front_index, ("front", "back")[side]), "points": DISPLAYED_POINTS[kind]}


def _poker_face(kind: int) -> dict[str, Any]:
    """A drawn poker card of poker kind ``kind``."""
    colour = COLOURS[kind // (MAX_VALUE - MIN_VALUE + 1)]
    return {
        "id": kind,
        "suit": colour,
        "value": KIND_VALUE[kind],
        "kind": "poker",
        "name": POKER_NAMES[kind],
        "rule": POKER_RULE,
    }


def _cards(counts: Any, face: Any, choices: Any = lambda kind: []) -> list[dict[str, Any]]:
    """One drawn card per counted kind (``counts[k]`` copies of ``face(k)``, each with ``choices(k)``)."""
    return [{**face(k), "choices": choices(k)} for k in np.flatnonzero(counts).tolist() for _ in range(int(counts[k]))]


def page_state(view: View, legal: Sequence[int] = ()) -> dict[str, Any]:
    """What the web table draws, from ``view`` only: ``{"table": ...}``.

    ``hand`` (poker cards; the ``choices`` add one to the bid), ``bid`` (your own bid of this
    round), ``offer`` (per colour: the face-up loot card's front, the stack's top back and size;
    ``choices`` pick it), ``seats`` (score, cards in hand, Pass, loot shown (your negatives carry
    the give ``choices``), the last revealed bid, the recipient ``choices``), ``pending`` (the
    loot card being given) and ``buttons`` (commit, pass, keep). ``legal``: the seat's legal actions.
    """
    table, seat = view.table, view.seat
    n = table.num_players
    legal_set = set(legal)

    def chosen(*actions: int) -> list[dict[str, Any]]:
        return [_choice(a) for a in actions if a in legal_set]

    over = table.phase == _OVER
    stage = "" if over else f"game {table.games_played}, round {table.round + 1} of 3: {ROUND_NAMES[table.round]}"
    on_turn = seat if view.on_turn else (table.chooser if table.phase not in (_BID, _OVER) else None)
    seats = []
    for s in range(n):
        gives = (
            (lambda k: chosen(GIVE + NEGATIVE_KINDS.index(k)) if k in NEGATIVE_KINDS else [])
            if s == seat
            else (lambda k: [])
        )
        seats.append(
            {
                "seat": s,
                "score": float(table.scores[s]),
                "hand_size": int(table.hand_sizes[s]),
                "pass_available": bool(table.pass_available[s]),
                "on_turn": not over and s == on_turn,
                "dealer": False,  # the rules name no dealer: the bids are simultaneous, nobody leads
                "loot": _cards(table.displayed[s], _displayed_face, gives),
                "last_bid": _cards(table.last_bids[s], _poker_face) if table.last_round >= 0 else [],
                "last_passed": bool(table.last_passed[s]) if table.last_round >= 0 else False,
                "choices": chosen(RECIPIENT + view.relative(s)) if table.phase == _RECIPIENT else [],
            }
        )
    offer = []
    for c in range(len(COLOURS)):
        offer.append(
            {
                "colour": COLOURS[c],
                "face_up": loot_face(c, table.face_up[c], "front") if table.face_up[c] >= 0 else None,
                "stack_top": loot_face(c, table.stack_tops[c], "back") if table.stack_tops[c] >= 0 else None,
                "stack_size": int(table.stack_sizes[c]),
                "choices": chosen(LOOT + c),
            }
        )
    return {
        "table": {
            "game": "piratenpoker",
            "phase": ("bid", "pick_loot", "gift", "recipient", "over")[table.phase],
            "round": stage,
            "seats": seats,
            "hand": _cards(view.hand, _poker_face, lambda k: chosen(ADD + k)),
            "bid": _cards(view.bid, _poker_face),
            "committed": bool(view.committed),
            "passed": bool(view.passed),
            "pass_card": {"name": "Pass", "rule": PASS_RULE, "choices": chosen(PASS)} if view.pass_available else None,
            "offer": [] if over else offer,
            "pending": _displayed_face(table.pending) if table.phase == _RECIPIENT and table.pending >= 0 else None,
            "chooser": table.chooser if table.chooser >= 0 else None,
            "last_winner": table.last_winner if table.last_round >= 0 and table.last_winner >= 0 else None,
            "last_round": ROUND_NAMES[table.last_round] if table.last_round >= 0 else None,
            "buttons": chosen(COMMIT, PASS, KEEP),
        }
    }


def _choice(action: int) -> dict[str, Any]:
    """A clickable move: its action and label."""
    return {"action": action, "label": ACTIONS.to_string(action)}


__all__ = ["GAME_NAME", "Reader", "loot_face", "move_hint", "page_state", "parse_move", "seat_text"]
