"""Public game events: one record type for every game, and their text.

An engine whose ``events`` attribute is a list appends an `Event` for everything the
whole table sees happen (a card played, dice rolled, bids revealed, a trick won, a score
change and its cause); while ``events`` is ``None`` (the default) it records nothing and pays
one attribute test. Events never carry hidden information: a bid appears as "has bid" until
the bids are revealed, a card drawn into a hand is not named.

Every event has a ``kind``, the ``seat`` it is about (``None`` for the whole table) and a small
JSON-friendly ``data`` dict; `event_text` writes it as one line, the same way in every
game. Seats inside ``data`` are the values of the keys in `SEAT_KEYS`; per-seat lists are
under ``bids``, ``scores`` and ``tricks``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from pirate_envs.core.errors import plain_ints

#: Keys of ``data`` whose value is a seat (written with the seat's name).
SEAT_KEYS: frozenset[str] = frozenset({"by", "to", "dealer"})


class Event(NamedTuple):
    """One public event: ``kind``, the ``seat`` it concerns (``None``: the table) and its ``data``."""

    kind: str
    seat: int | None
    data: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-friendly dict (``kind``, ``seat`` and the data fields)."""
        return plain_ints({"kind": self.kind, "seat": self.seat, **self.data})


def record_events(engine: Any) -> list[Event]:
    """Turn event recording on for ``engine`` (a fresh list, emptied again by every reset)."""
    engine.events = []
    return engine.events


def emit(engine: Any, kind: str, seat: int | None = None, **data: Any) -> None:
    """Append an event to ``engine.events`` if recording is on (for code off the hot path)."""
    if engine.events is not None:
        engine.events.append(Event(kind, seat, data))


SeatName = Callable[[int], str]


def default_name(seat: int) -> str:
    """The agent name of a seat, as the envs name them."""
    return f"player_{seat}"


def _count_list(counts: Mapping[str, int]) -> str:
    """``{"parrot": 2, "skull": 1}`` as ``2 parrot, 1 skull``."""
    return ", ".join(f"{n} {face}" for face, n in counts.items() if n) or "nothing"


def _per_seat(values: Sequence[Any], name: SeatName) -> str:
    return ", ".join(f"{name(s)} {_value_text(v)}" for s, v in enumerate(values))


def _value_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "[" + " ".join(str(v) for v in value) + "]" if value else "[]"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _signed(value: float) -> str:
    return f"{value:+g}"


def _score_text(e: Event, who: str, name: SeatName) -> str:
    d = e.data
    cause = d.get("cause", "")
    by = d.get("by")
    if by is not None:
        cause = f"{cause}, {name(by)}"
    return f"{who} {_signed(d['delta'])} ({cause}): {d['total']:g}"


def _game_over_text(e: Event, who: str, name: SeatName) -> str:
    d = e.data
    winners = d.get("winners") or []
    if d.get("truncated"):
        head = "game truncated (turn limit), no winner"
    else:
        names = " and ".join(name(w) for w in winners) or "nobody"
        head = f"game over, {names} win" + ("" if len(winners) > 1 else "s")
    return f"{head}; scores: {_per_seat(d['scores'], name)}"


_TEXTS: dict[str, Callable[[Event, str, SeatName], str]] = {
    "deal": lambda e, who, name: e.data["what"] + (f": {name(e.data['dealer'])} deals" if "dealer" in e.data else ""),
    "turn": lambda e, who, name: f"{who}'s turn" + (f" ({e.data['what']})" if e.data.get("what") else ""),
    "bid": lambda e, who, name: f"{who} has bid",
    "bids_revealed": lambda e, who, name: f"bids revealed: {_per_seat(e.data['bids'], name)}",
    "play": lambda e, who, name: (
        f"{who} plays {' '.join(e.data['cards'])}" + (f" ({e.data['how']})" if e.data.get("how") else "")
    ),
    "draw": lambda e, who, name: f"{who} draws {e.data['card']}",
    "roll": lambda e, who, name: f"{who} rolls {_count_list(e.data['dice'])}",
    "move": lambda e, who, name: f"{who} {e.data['what']}",
    "trick_won": lambda e, who, name: (
        f"{who} wins the trick" + (f" (bonus {e.data['bonus']})" if e.data.get("bonus") else "")
    ),
    "round_won": lambda e, who, name: f"{who} wins {e.data['what']}",
    "no_winner": lambda e, who, name: f"nobody wins {e.data['what']}",
    "score": _score_text,
    "game_over": _game_over_text,
}

#: Every event kind, as the games emit them.
EVENT_KINDS: tuple[str, ...] = tuple(_TEXTS)


def event_text(event: Event, name: SeatName = default_name) -> str:
    """One line of text for ``event``; ``name(seat)`` writes a seat (``player_1`` by default)."""
    text = _TEXTS.get(event.kind)
    if text is None:
        raise ValueError(f"unknown event kind {event.kind!r}; known: {list(EVENT_KINDS)}")
    return text(event, name(event.seat) if event.seat is not None else "the table", name)


def events_text(events: Sequence[Event], name: SeatName = default_name) -> str:
    """Events as text, one line each."""
    return "\n".join(event_text(e, name) for e in events)


def events_since(env: Any, start: int = 0) -> list[Event]:
    """The events of ``env`` (raw or wrapped) from index ``start`` on; ``[]`` while recording is off.

    Indices count from the last reset, which empties the log.
    """
    events = env.unwrapped.game.events
    return [] if events is None else events[start:]


__all__ = ["EVENT_KINDS", "Event", "default_name", "emit", "event_text", "events_since", "events_text", "record_events"]
