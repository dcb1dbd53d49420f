"""Observation layouts: a table of named pieces laid into one flat ``float32`` vector.

A game declares its layout once, for example::

    LAYOUT = ObservationLayout([("dice", (6,)), ("scores", (4,))])
    vec = LAYOUT.zeros()
    vec[LAYOUT["dice"]] = counts

``LAYOUT.table()`` renders the index table pasted into the game's docstring.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np


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


def float32_bytes(values: Sequence[float]) -> bytes:
    """``values`` as packed ``float32`` bytes: pieces that encoders join with ``b"".join``."""
    return struct.pack(f"{len(values)}f", *values)
