"""Observation layouts: a table of named pieces laid into one flat ``float32`` vector.

A game declares its layout once, for example:

    LAYOUT = ObservationLayout([("dice", (6,)), ("scores", (4,))])
    vec = LAYOUT.zeros()
    vec[LAYOUT["dice"]] = counts

``LAYOUT.table()`` renders the index table pasted into the game's docstring.

The env option ``table_layout`` picks how the per-player pieces (one row per seat, the
observer first) are laid out: ``"seated"`` (the default) gives them one row per player at the
table, ``"max"`` lays them out for the game's largest table (`max_table_layout`) with a
``seat_present`` flag per row, so that one network sees one vector size at every table size.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from pirate_envs.core.errors import check_choice


@dataclass(frozen=True)
class Piece:
    """One named piece of the observation vector."""

    name: str
    shape: tuple[int, ...]
    start: int
    description: str = ""
    #: Number of floats the piece occupies.
    size: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", math.prod(self.shape))

    @property
    def stop(self) -> int:
        """One past the last index of the piece."""
        return self.start + self.size


class ObservationLayout:
    """An ordered table of named pieces; ``layout[name]`` is the slice of that piece."""

    def __init__(self, pieces: Iterable[tuple[str, tuple[int, ...]] | tuple[str, tuple[int, ...], str]]):
        self.pieces: list[Piece] = []
        start = 0
        for entry in pieces:
            name, shape = entry[0], tuple(entry[1])
            description = entry[2] if len(entry) > 2 else ""
            if any(p.name == name for p in self.pieces):
                raise ValueError(f"duplicate observation piece {name!r}")
            piece = Piece(name, shape, start, description)
            self.pieces.append(piece)
            start = piece.stop
        self.size = start
        self._slices = {p.name: slice(p.start, p.stop) for p in self.pieces}
        self._by_name = {p.name: p for p in self.pieces}

    def __getitem__(self, name: str) -> slice:
        return self._slices[name]

    def __contains__(self, name: str) -> bool:
        return name in self._slices

    def __len__(self) -> int:
        return self.size

    def piece(self, name: str) -> Piece:
        """The piece called ``name``."""
        return self._by_name[name]

    def zeros(self) -> np.ndarray:
        """A new all-zero observation vector."""
        return np.zeros(self.size, dtype=np.float32)

    def unpack(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat vector into ``{name: array of the piece's shape}``."""
        return {p.name: vector[p.start : p.stop].reshape(p.shape) for p in self.pieces}

    def table(self) -> str:
        """A markdown index table of the layout."""
        lines = ["| index | name | shape | meaning |", "|---|---|---|---|"]
        for p in self.pieces:
            span = f"{p.start}" if p.size == 1 else f"{p.start}-{p.stop - 1}"
            lines.append(f"| {span} | {p.name} | {p.shape} | {p.description} |")
        return "\n".join(lines)


#: The bounds of a piece that `piece_bounds` does not name: counts and flags scaled into [0, 1].
UNIT_BOUNDS = (0.0, 1.0)


def layout_bounds(layout: ObservationLayout, bounds: dict[str, tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` ``float32`` vectors of ``layout``: each piece's bounds from ``bounds``, else `UNIT_BOUNDS`.

    A piece named ``prefix/name`` (the pieces of ``state()``) takes the bounds of ``name``.
    """
    low, high = layout.zeros(), layout.zeros()
    for p in layout.pieces:
        low[p.start : p.stop], high[p.start : p.stop] = bounds.get(p.name.rpartition("/")[2], UNIT_BOUNDS)
    return low, high


def float32_bytes(values: Sequence[float]) -> bytes:
    """``values`` as packed ``float32`` bytes: pieces that encoders join with ``b"".join``."""
    return struct.pack(f"{len(values)}f", *values)


#: Values of the env option ``table_layout``.
TABLE_LAYOUTS = ("seated", "max")
#: The piece that ``table_layout="max"`` appends: 1 for each seat-relative row with a player.
SEAT_PRESENT = "seat_present"


def max_table_layout(largest: ObservationLayout, max_players: int) -> ObservationLayout:
    """The ``table_layout="max"`` layout: ``largest`` (the seated layout of the largest table)
    with a ``seat_present`` piece appended, so every other piece keeps its offset there."""
    return ObservationLayout(
        [
            *((p.name, p.shape, p.description) for p in largest.pieces),
            (SEAT_PRESENT, (max_players,), "1 for each seat-relative row with a player (table_layout='max')"),
        ]
    )


def scatter_index(seated: ObservationLayout, padded: ObservationLayout) -> np.ndarray:
    """For every index of a ``seated`` vector, its index in a ``padded`` one.

    A piece of the same shape in both maps one to one; a per-player piece (``(n, ...)`` seated,
    ``(max_players, ...)`` padded) fills the first ``n`` rows of the padded piece.
    """
    index = np.empty(seated.size, dtype=np.intp)
    for piece in seated.pieces:
        target = padded.piece(piece.name)
        if piece.shape != target.shape and (piece.shape[1:] != target.shape[1:] or piece.shape[0] > target.shape[0]):
            raise ValueError(f"piece {piece.name!r} of shape {piece.shape} does not fit the padded {target.shape}")
        index[piece.start : piece.stop] = np.arange(target.start, target.start + piece.size)
    return index


class MaxTableEncoder:
    """Wraps a game's seated encoder: its vector scattered into the largest table's layout.

    Rows of absent seats stay zero; ``seat_present`` is 1 for the ``num_players`` first rows.
    """

    def __init__(self, seated: Any, largest: ObservationLayout, max_players: int, num_players: int):
        self.seated = seated
        self.layout = max_table_layout(largest, max_players)
        self._index = scatter_index(seated.layout, self.layout)
        self._template = self.layout.zeros()
        self._template[self.layout.piece(SEAT_PRESENT).start + np.arange(num_players)] = 1.0

    def __call__(self, view: Any) -> np.ndarray:
        """The padded observation vector of ``view``."""
        vec = self._template.copy()
        vec[self._index] = self.seated(view)
        return vec


class TableLayoutOption:
    """Env mixin: the keyword option ``table_layout`` (``"seated"`` or ``"max"``), checked up front.

    List it before the env base class; the game's ``make_encoder`` reads ``self.table_layout``.
    """

    ENV_KEYWORDS: ClassVar[tuple[str, ...]] = ("render_mode", "reward_mode", "table_layout")

    def __init__(self, *args: Any, table_layout: str = "seated", **kwargs: Any):
        check_choice("table_layout", table_layout, TABLE_LAYOUTS)
        #: ``"seated"`` (one row per player at the table) or ``"max"`` (rows of the largest table).
        self.table_layout = table_layout
        super().__init__(*args, **kwargs)


def table_layout_encoder(
    table_layout: str, seated: Any, largest: ObservationLayout, max_players: int, num_players: int
) -> Any:
    """The encoder for the env option ``table_layout``: ``seated`` itself, or a `MaxTableEncoder`."""
    check_choice("table_layout", table_layout, TABLE_LAYOUTS)
    if table_layout == "max":
        return MaxTableEncoder(seated, largest, max_players, num_players)
    return seated
