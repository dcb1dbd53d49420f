"""Plain-text (ansi) rendering helpers."""

from __future__ import annotations

from collections.abc import Sequence


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A left-aligned text table with a header rule."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def seat_name(seat: int) -> str:
    """The agent name of a seat (``player_0``...)."""
    return f"player_{seat}"


def format_block(title: str, lines: Sequence[str]) -> str:
    """A titled block of lines."""
    return "\n".join([f"== {title} =="] + [f"  {line}" for line in lines])
