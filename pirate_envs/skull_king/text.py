"""Skull King as text for one seat: the seat screen, and the reader of typed moves.

Built from the seat's `pirate_envs.skull_king.view.View` only, so it shows
what that player knows: his hand, the trick, every bid once all are revealed (before that
only his own), the tricks won and the scores.

Typed moves (`Reader`, read by `pirate_envs.core.text.parse_move`): at bid time a number is a
bid (``2``, ``bid 2``); at card time a number is a rank (``7``: your legal 7, or which 7?),
a card is named (``red-7``, ``play red-7``, ``scary_mary`` asks which mode). A card you may
not play says why (``you must follow black: you hold black-5``).
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
from pirate_envs.skull_king.actions import ACTIONS, BID_OFFSET, CARD_OFFSET, MAX_BID
from pirate_envs.skull_king.cards import (
    KIND_NAMES,
    KIND_OF_TOKEN,
    MARY_ESCAPE,
    MARY_PIRATE,
    NUM_RANKS,
    NUM_SUIT_CARDS,
    NUM_SUITS,
    SUITS,
    TOKEN_NAMES,
)
from pirate_envs.skull_king.spec import SPEC
from pirate_envs.skull_king.view import View

GAME_NAME = SPEC.name
_BID, _PLAY, _DONE = 0, 1, 2


def seat_text(view: View, on_turn: int | None = None) -> str:
    """What ``view.seat`` sees, at most 100 columns wide (``on_turn`` is unused: the view says it)."""
    seat = view.seat
    lines = [title_line(GAME_NAME, f"hand {view.hand_number} of {view.num_hands}", seat)]
    done = view.phase == _DONE
    if done:
        best = max(view.scores)
        lines += standings_lines(view.scores, [s for s, v in enumerate(view.scores) if v == best], seat)
    else:
        lines.append(turn_line(seat, view.current_player, "bid" if view.phase == _BID else "play a card"))
    rows = []
    for s in range(view.num_players):
        bid = view.bids[s]
        shown = str(bid) if bid >= 0 else ("?" if view.phase == _BID and s != seat else "-")
        rows.append(["dealer" if s == view.dealer else "", shown, view.tricks_won[s], view.scores[s]])
    lines += ["", players_table(["", "bid", "tricks", "score"], rows, seat, None if done else view.current_player)]
    if not done:
        if view.phase == _BID:
            lines.append("bids: hidden until everybody has bid")
        played = [f"player_{view.trick_seat(i)} {TOKEN_NAMES[t]}," for i, t in enumerate(view.trick)]
        led = f"; led suit {SUITS[view.led_suit]}" if view.has_led_suit else ""
        if played:
            played[-1] = played[-1].rstrip(",") + led
        lines += item_lines("trick", played, "(empty)" + (f", player_{view.leader} leads" if view.phase else ""))
        lines += item_lines("your hand", view.hand_cards())
    return screen(lines)


class Reader(MoveReader):
    """Skull King's typed moves: a number is a bid at bid time and a card rank at card time."""

    actions = ACTIONS

    def number(self, value: int) -> list[int] | Refusal:
        if self.view.phase == _BID:
            return [BID_OFFSET + value] if 0 <= value <= MAX_BID else Refusal(f"bids are 0 to {self._top_bid()}")
        if not 1 <= value <= NUM_RANKS:
            return Refusal(f"suit cards are ranked 1 to {NUM_RANKS}")
        return [CARD_OFFSET + suit * NUM_RANKS + value - 1 for suit in range(NUM_SUITS)]

    def words(self, words: list[str]) -> list[int] | Refusal | None:
        verb, rest = words[0], words[1:]
        if verb in ("bid", "b") and len(rest) == 1 and is_number(rest[0]):
            return (
                [BID_OFFSET + int(rest[0])]
                if 0 <= int(rest[0]) <= MAX_BID
                else Refusal(f"bids are 0 to {self._top_bid()}")
            )
        if verb in ("play", "p") and len(rest) == 1:
            words = rest
        if len(words) != 1:
            return None
        word = words[0]
        if is_number(word) and len(word) <= 2:
            return (
                [CARD_OFFSET + suit * NUM_RANKS + int(word) - 1 for suit in range(NUM_SUITS)]
                if (1 <= int(word) <= NUM_RANKS)
                else Refusal(f"suit cards are ranked 1 to {NUM_RANKS}")
            )
        if word in ("scary_mary", "mary"):
            return [CARD_OFFSET + MARY_PIRATE, CARD_OFFSET + MARY_ESCAPE]
        if word in TOKEN_NAMES:
            return [CARD_OFFSET + TOKEN_NAMES.index(word)]
        return None

    def why(self, named: list[int]) -> str:
        view = self.view
        if view.phase == _BID:
            if named[0] < CARD_OFFSET:
                return f"bids are 0 to {self._top_bid()} this hand"
            return "bid first: the cards are played once everybody has bid"
        if named[0] < CARD_OFFSET:
            return "the bids are made; play a card"
        kinds = [int(KIND_OF_TOKEN[a - CARD_OFFSET]) for a in named]
        held = [k for k in kinds if view.hand[k]]
        if not held:
            ranks = {k % NUM_RANKS + 1 for k in kinds if k < NUM_SUIT_CARDS}
            what = KIND_NAMES[kinds[0]] if len(kinds) == 1 or len(ranks) != 1 else f"{ranks.pop()}"
            return f"you hold no {what}"
        if view.has_led_suit:
            follow = [name for name in view.hand_cards() if name.startswith(f"{SUITS[view.led_suit]}-")]
            if follow:
                return f"you must follow {SUITS[view.led_suit]}: you hold {' '.join(follow)}"
        return super().why(named)

    def hint(self) -> str:
        if self.view.phase == _BID:
            return f"type a bid from 0 to {self._top_bid()}"
        return "type a card: " + " ".join(TOKEN_NAMES[a - CARD_OFFSET] for a in self.legal)

    def _top_bid(self) -> int:
        bids = [a - BID_OFFSET for a in self.legal if a < CARD_OFFSET]
        return max(bids) if bids else self.view.hand_number


def parse_move(text: str, view: View, legal: list[int]) -> int | Ambiguous | Refusal:
    """The move typed in ``text`` (see `pirate_envs.core.text.parse_move`)."""
    return core_parse_move(text, legal, Reader, view)


def move_hint(view: View, legal: list[int]) -> str:
    """What may be typed now."""
    return Reader(view, legal).hint()


#: One line per card kind: what it does in a trick (the tooltip of a drawn card).
CARD_RULES: dict[str, str] = {
    "suit": "Follow the suit led if you can; the highest card of the led suit wins unless trumped.",
    "black": "Trump: black beats every other suit (follow black when it is led).",
    "escape": "Escape: always loses the trick (if only Escapes are played, the first one wins).",
    "pirate": "Pirate: beats every suit card and the Mermaid; the first Pirate wins among Pirates.",
    "mermaid": "Mermaid: beats every suit card, loses to Pirates, captures the Skull King (bonus).",
    "skull_king": "Skull King: beats Pirates and suit cards (bonus per Pirate), loses to a Mermaid.",
    "scary_mary": "Scary Mary: play her as a Pirate or as an Escape.",
}
#: The symbol a drawn special card shows.
CARD_SYMBOLS: dict[str, str] = {
    "escape": "\u2691",
    "pirate": "\u2620",
    "mermaid": "\u2652",
    "skull_king": "\u265b",
    "scary_mary": "\u2640",
}


def card_face(token: int, in_hand: bool = False) -> dict[str, Any]:
    """A drawn card: ``{id, suit, value, kind, name, rule, symbol}`` of trick token ``token``.

    ``in_hand``: the card as held (Scary Mary without her mode).
    """
    kind = int(KIND_OF_TOKEN[token])
    name = KIND_NAMES[kind] if in_hand else TOKEN_NAMES[token]
    if kind < NUM_SUIT_CARDS:
        suit = SUITS[kind // NUM_RANKS]
        rule = CARD_RULES["black" if suit == "black" else "suit"]
        return {
            "id": kind,
            "suit": suit,
            "value": kind % NUM_RANKS + 1,
            "kind": "suit",
            "name": name,
            "rule": rule,
            "symbol": "",
        }
    base = KIND_NAMES[kind]
    return {
        "id": kind,
        "suit": None,
        "value": None,
        "kind": base,
        "name": name.replace("_", " "),
        "rule": CARD_RULES[base],
        "symbol": CARD_SYMBOLS[base],
    }


def page_state(view: View, legal: Sequence[int] = ()) -> dict[str, Any]:
    """What the web table draws, from ``view`` only: ``{"table": ...}``.

    ``seats`` (score, bid, tricks, dealer, turn), ``hand`` (each card with the ``choices`` that
    play it now: Scary Mary has two), ``trick`` (cards with the seat that played them) and
    ``buttons`` (the legal bids). ``legal`` is the seat's legal actions (none off turn).
    """
    legal_set = set(legal)
    hand = []
    for kind in np.flatnonzero(view.hand).tolist():
        tokens = [MARY_PIRATE, MARY_ESCAPE] if kind == MARY_PIRATE else [kind]
        choices = [_choice(CARD_OFFSET + t) for t in tokens if CARD_OFFSET + t in legal_set]
        hand += [{**card_face(kind, in_hand=True), "choices": choices} for _ in range(int(view.hand[kind]))]
    bidding = view.phase == _BID
    in_trick = {view.trick_seat(i) for i in range(len(view.trick))}
    tricks_done = sum(view.tricks_won)
    seats = [
        {
            "seat": s,
            "score": int(view.scores[s]),
            "bid": int(view.bids[s]) if view.bids[s] >= 0 else None,
            "tricks": int(view.tricks_won[s]),
            "hand_size": 0 if view.phase == _DONE else view.hand_number - tricks_done - (s in in_trick),
            "dealer": s == view.dealer,
            "on_turn": view.phase != _DONE and s == view.current_player,
        }
        for s in range(view.num_players)
    ]
    trick = [{**card_face(t), "seat": view.trick_seat(i)} for i, t in enumerate(view.trick)]
    return {
        "table": {
            "game": "skull_king",
            "phase": ("bid", "play", "over")[view.phase],
            "round": f"hand {view.hand_number} of {view.num_hands}",
            "seats": seats,
            "hand": hand,
            "trick": trick,
            "led_suit": SUITS[view.led_suit] if view.has_led_suit else None,
            "leader": view.leader,
            "buttons": [_choice(a) for a in legal if a < CARD_OFFSET] if bidding else [],
        }
    }


def _choice(action: int) -> dict[str, Any]:
    """A clickable move: its action and label."""
    return {"action": action, "label": ACTIONS.to_string(action)}


__all__ = ["CARD_RULES", "GAME_NAME", "Reader", "card_face", "move_hint", "page_state", "parse_move", "seat_text"]
