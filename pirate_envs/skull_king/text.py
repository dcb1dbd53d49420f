"""Skull King as text for one seat: the seat screen, and moves typed by name.

Built from the seat's `pirate_envs.skull_king.view.View` only, so it shows
what that player knows: his hand, the trick, every bid once all are revealed (before that
only his own), the tricks won and the scores.
"""

from __future__ import annotations

from pirate_envs.core.text import (
    item_lines,
    players_table,
    screen,
    standings_lines,
    title_line,
    turn_line,
)
from pirate_envs.skull_king.actions import ACTIONS, BID_OFFSET, CARD_OFFSET
from pirate_envs.skull_king.cards import SUITS, TOKEN_NAMES
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


def parse_move(text: str, view: View, legal: list[int]) -> int:
    """The legal action typed as a bid number or a card name (``ValueError`` with a hint)."""
    words = text.strip().lower().replace("bid", "").replace("play", "").split()
    if len(words) == 1:
        word = words[0]
        if view.phase == _BID and word.isascii() and word.isdigit() and len(word) <= 2:
            action = BID_OFFSET + int(word)
            if action in legal:
                return action
        if view.phase == _PLAY:
            for action in legal:
                if ACTIONS.to_string(action).split()[-1] in (word, f"scary_mary:{word}") or TOKEN_NAMES[
                    action - CARD_OFFSET
                ] == word:
                    return action
    raise ValueError(f"'{text.strip()[:30]}' is not possible now; {move_hint(view, legal)}")


def parse_moves(text: str, view: View, legal: list[int]) -> list[int]:
    """The action typed in ``text`` as a one-item list (the interface every game's text module has)."""
    return [parse_move(text, view, legal)]

def move_hint(view: View, legal: list[int]) -> str:
    """What may be typed now."""
    if view.phase == _BID:
        top = max(legal) - BID_OFFSET
        return f"type a bid from 0 to {top}"
    return "type a card: " + " ".join(TOKEN_NAMES[a - CARD_OFFSET] for a in legal)


__all__ = ["GAME_NAME", "move_hint", "parse_move", "parse_moves", "seat_text"]
