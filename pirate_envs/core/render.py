"""Rendering helpers: plain-text (ansi) tables, blocks and lines that fit `WIDTH` columns, and
`text_image`, the ``rgb_array`` picture of a rendering.

Every text the games draw (the env's ``render()``, the seat screens of
`pirate_envs.core.text`) goes through `fit_lines`, so no line is wider than
`WIDTH`: a long line wraps, its continuation lines indented under the text after its
label (``trick: ...``). A table from `format_table` first wraps its widest cells within
their columns, so that its rows stay rows.
"""

from __future__ import annotations

import importlib.util
import re
import textwrap
from collections.abc import Iterable, Sequence

import numpy as np

#: The most columns a line of text uses (a seat screen, a render, a line of the terminal game).
WIDTH = 100
#: The most columns a line inside :func:`format_block` uses (it indents every line by 2).
BLOCK_WIDTH = WIDTH - 2
#: A leading ``label: `` (no colon, comma or semicolon in it); continuation lines hang under what follows it.
_LABEL = re.compile(r"\s*[^\s:;,][^:;,]*?: ")
#: Continuation lines of a line without a short label are indented this much more than it.
HANGING_INDENT = 4


def wrap_hanging(text: str, indent: int, width: int = WIDTH) -> list[str]:
    """``text`` in lines of at most ``width`` columns, every line after the first indented ``indent`` columns.

    Leading spaces of ``text`` are kept, words are not broken at hyphens, a word longer than a
    line is cut.
    """
    indent = min(indent, width // 2)
    return textwrap.wrap(text, width, subsequent_indent=" " * indent, break_on_hyphens=False) or [""]


def fit_line(line: str, width: int = WIDTH) -> list[str]:
    """``line`` (right spaces dropped) as lines of at most ``width`` columns.

    A line that fits is kept as it is. A longer one wraps; its continuation lines hang under the
    text after a leading ``label: `` of at most half the width, else `HANGING_INDENT`
    columns more than the line's own indentation.
    """
    line = line.rstrip()
    if len(line) <= width:
        return [line]
    label = _LABEL.match(line)
    own_indent = len(line) - len(line.lstrip(" "))
    indent = label.end() if label and label.end() <= width // 2 else own_indent + HANGING_INDENT
    return wrap_hanging(line, indent, width)


def fit_lines(lines: Iterable[str], width: int = WIDTH) -> list[str]:
    """Every line of ``lines`` (each may hold several) fitted to ``width`` columns by `fit_line`."""
    return [part for line in lines for text in (line.splitlines() or [""]) for part in fit_line(text, width)]


def fit_text(text: str, width: int = WIDTH) -> str:
    """``text`` with every line fitted to ``width`` columns (see `fit_line`)."""
    return "\n".join(fit_lines([text], width))


def column_widths(cells: Sequence[Sequence[str]], width: int = WIDTH, gap: int = 2) -> list[int]:
    """Widths of the table ``cells`` (rows of equal length) so that a row fits ``width`` columns.

    Each column starts as wide as its widest cell; while the row is too wide, the widest column
    (the last of equals) gives a column, down to its header's width or 10 columns, whichever is
    more. When every column is that narrow the row may still be too wide (`fit_lines` then wraps it).
    """
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    floors = [min(w, max(len(cells[0][i]), 10)) for i, w in enumerate(widths)]
    excess = sum(widths) + gap * (len(widths) - 1) - width
    while excess > 0:
        shrinkable = [i for i, w in enumerate(widths) if w > floors[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: (widths[i], i))
        widths[widest] -= 1
        excess -= 1
    return widths


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]], width: int = WIDTH) -> str:
    """A left-aligned text table with a header rule, at most ``width`` columns wide where it can be.

    A cell wider than its column (see `column_widths`) wraps within the column; its row
    takes as many lines as its tallest cell. A table too wide even so is left as it is (the
    screens and renders pass it through `fit_lines`).
    """
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = column_widths(cells, width)
    lines = []
    for i, row in enumerate(cells):
        parts = [[c] if len(c) <= w else wrap_hanging(c, 0, w) for c, w in zip(row, widths)]
        for k in range(max(len(p) for p in parts)):
            lines.append("  ".join((p[k] if k < len(p) else "").ljust(w) for p, w in zip(parts, widths)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def seat_name(seat: int) -> str:
    """The agent name of a seat (``player_0``...)."""
    return f"player_{seat}"


def format_block(title: str, lines: Sequence[str]) -> str:
    """A titled block of lines, each fitted to `BLOCK_WIDTH` (see `fit_line`) and indented 2 columns."""
    return "\n".join([f"== {title} =="] + [f"  {line}" for line in fit_lines(lines, BLOCK_WIDTH)])


# ----------------------------------------------------------------------------- rgb_array
#: Text rows of an ``rgb_array`` frame below its title (every game's render fits; more are cut, and
#: the last row says how many): every frame of a game has the same size, as a video needs.
IMAGE_ROWS = 24
#: Pixels per column and per row of Pillow's built-in bitmap font (monospaced, nothing downloaded).
_CELL_WIDTH, _CELL_HEIGHT = 6, 12
_MARGIN = 8
#: The frame is drawn at this scale (nearest neighbour) so that the small bitmap font stays readable.
IMAGE_SCALE = 2
#: Colours of a frame: the felt of the table, its title bar, the text and the title's text.
_FELT, _TITLE_BAR, _INK, _TITLE_INK = (16, 82, 48), (8, 44, 26), (240, 232, 208), (255, 214, 102)
_PILLOW_MISSING = 'render_mode="rgb_array" needs pillow, the "render" extra: pip install -e ".[render]"'


def check_pillow() -> None:
    """``ImportError`` (one line naming the extra) unless pillow is installed."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ImportError(_PILLOW_MISSING) from None


def pillow_installed() -> bool:
    """Whether pillow (the ``render`` extra) can be imported; nothing is imported to tell."""
    return importlib.util.find_spec("PIL") is not None


def working_render_modes(*modes: str) -> list[str]:
    """``modes`` less ``rgb_array`` where pillow is missing: the modes an env advertises are the ones that work
    (Gymnasium's ``check_env`` and PettingZoo's ``render_test`` build every advertised mode)."""
    return [mode for mode in modes if mode != "rgb_array" or pillow_installed()]


def image_size() -> tuple[int, int]:
    """``(height, width)`` of every frame of `text_image`."""
    width = 2 * _MARGIN + WIDTH * _CELL_WIDTH
    height = 2 * _MARGIN + (IMAGE_ROWS + 2) * _CELL_HEIGHT  # the title, a blank row, the text
    return height * IMAGE_SCALE, width * IMAGE_SCALE


def text_image(text: str, title: str) -> np.ndarray:
    """``text`` (a rendering, fitted to `WIDTH` columns) drawn under ``title`` on the table's felt.

    An ``(H, W, 3)`` ``uint8`` array of `image_size`, the same for the same text, drawn with
    Pillow's built-in bitmap font (no font file is read or downloaded). Rows beyond `IMAGE_ROWS`
    are cut; the last row drawn then says how many were.
    """
    check_pillow()
    from PIL import Image, ImageDraw, ImageFont

    lines = fit_lines([text])
    if len(lines) > IMAGE_ROWS:
        lines = [*lines[: IMAGE_ROWS - 1], f"... {len(lines) - IMAGE_ROWS + 1} more lines"]
    height, width = (size // IMAGE_SCALE for size in image_size())
    image = Image.new("RGB", (width, height), _FELT)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default_imagefont()
    draw.rectangle((0, 0, width, _MARGIN + _CELL_HEIGHT + _MARGIN // 2), fill=_TITLE_BAR)
    draw.text((_MARGIN, _MARGIN), fit_line(title)[0], font=font, fill=_TITLE_INK)
    for row, line in enumerate(lines, start=2):
        draw.text((_MARGIN, _MARGIN + row * _CELL_HEIGHT), line, font=font, fill=_INK)
    image = image.resize((width * IMAGE_SCALE, height * IMAGE_SCALE), Image.Resampling.NEAREST)
    return np.asarray(image, dtype=np.uint8)
