"""Piratenpoker as text for one seat: the seat screen, and bids built by naming cards.

Built from the seat's `pirate_envs.piratenpoker.view.View` (his hand, his own bid of
this round, the public table) and who is on turn, which every player sees. Moves:
``bid green-5 red-3`` (short ``b g5 r3``) adds those cards and commits the bid, ``add g5`` adds
one without committing, ``commit``, ``pass``; ``choose green`` (or ``green``) picks a loot card;
``give red:-4`` or ``keep``; ``to player_2`` (or ``to self``, or the seat number) names who
receives the loot card.
"""

from __future__ import annotations

from pirate_envs.core.text import item_lines, players_table, screen, standings_lines, title_line, turn_line
from pirate_envs.piratenpoker.actions import ADD, COMMIT, GIVE, KEEP, LOOT, PASS, RECIPIENT
from pirate_envs.piratenpoker.cards import (
    BACK_OF_FRONT,
    COLOURS,
    DISPLAYED_NAMES,
    FRONT_VALUES,
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


def parse_moves(text: str, view: View, legal: list[int]) -> list[int]:
    """The actions typed in ``text``, checked against ``legal`` and the hand (``ValueError`` with a hint)."""
    words = text.strip().lower().replace(",", " ").split()
    try:
        actions = _parse(words, view, legal)
    except ValueError as error:
        raise ValueError(f"{error}; {move_hint(view, legal)}") from None
    if not actions or actions[0] not in legal:
        raise ValueError(f"'{text.strip()[:30]}' is not allowed now; {move_hint(view, legal)}")
    return actions


def parse_move(text: str, view: View, legal: list[int]) -> int:
    """The first action typed in ``text`` (see `parse_moves`)."""
    return parse_moves(text, view, legal)[0]


def _parse(words: list[str], view: View, legal: list[int]) -> list[int]:
    if not words:
        raise ValueError("nothing typed")
    verb, rest = words[0], words[1:]
    phase = view.table.phase
    if phase == _BID:
        if verb in ("pass", "p") and not rest:
            return [PASS]
        if verb in ("commit", "c") and not rest:
            return [COMMIT]
        commit = verb in ("bid", "b")
        cards = rest if verb in ("bid", "b", "add", "a") else words
        if not cards:
            raise ValueError("name the cards")
        kinds = [_poker_kind(w) for w in cards]
        held = view.hand
        for kind in set(kinds):
            if kinds.count(kind) > held[kind]:
                raise ValueError(f"you hold {held[kind]} {POKER_NAMES[kind]}")
        return [ADD + k for k in kinds] + ([COMMIT] if commit else [])
    if phase == _PICK_LOOT:
        colour = rest[0] if verb in ("choose", "pick") and len(rest) == 1 else verb
        colour = _SHORT_COLOURS.get(colour, colour)
        if colour not in COLOURS or (rest and verb not in ("choose", "pick")):
            raise ValueError(f"'{' '.join(words)[:30]}' names no loot colour")
        return [LOOT + COLOURS.index(colour)]
    if phase == _GIFT:
        if verb == "keep":
            return [KEEP]
        name = rest[0] if verb == "give" and len(rest) == 1 else verb
        kinds = [i for i, k in enumerate(NEGATIVE_KINDS) if DISPLAYED_NAMES[k] == name]
        if not kinds:
            raise ValueError(f"'{name[:20]}' is not a negative loot card (e.g. red:-4)")
        return [GIVE + kinds[0]]
    if phase == _RECIPIENT:
        n = view.table.num_players
        target = rest[0] if verb == "to" and len(rest) == 1 else verb
        if target in ("self", "me"):
            seat = view.seat
        else:
            number = target.removeprefix("player_")
            if not (number.isascii() and number.isdigit() and len(number) <= 2 and int(number) < n):
                raise ValueError(f"'{target[:20]}' names no seat; the seats are player_0 to player_{n - 1}")
            seat = int(number)
        return [RECIPIENT + (seat - view.table.chooser) % n]
    raise ValueError("the game is over")


def move_hint(view: View, legal: list[int]) -> str:
    """What may be typed now."""
    phase = view.table.phase
    if phase == _BID:
        extra = ", or pass" if PASS in legal else (", or commit" if COMMIT in legal else "")
        return f"type bid and your cards, e.g. 'bid green-5 red-3' or 'b g5 r3'{extra}"
    if phase == _PICK_LOOT:
        return "type a colour: " + " ".join(COLOURS[a - LOOT] for a in legal)
    if phase == _GIFT:
        gifts = [DISPLAYED_NAMES[NEGATIVE_KINDS[a - GIVE]] for a in legal if a != KEEP]
        return "type keep, or give one of: " + " ".join(gifts)
    if phase == _RECIPIENT:
        n, chooser = view.table.num_players, view.table.chooser
        return "type to and a seat: " + " ".join(f"player_{(chooser + a - RECIPIENT) % n}" for a in legal)
    return "the game is over"


__all__ = ["GAME_NAME", "move_hint", "parse_move", "parse_moves", "seat_text"]
