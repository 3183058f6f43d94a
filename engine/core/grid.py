"""Hex grids as pictures see them: hex ids, centres, corners, neighbours, distance.

A game system's board is one :class:`Grid`. Two implementations:

* :class:`OffsetGrid`: C&C boards, pointy-top hexes in alternately offset rows
  (``wide`` hexes in odd rows, ``wide - 1`` in even rows), hexes named
  ``C4`` (column letter, row number; row 1 is South's baseline, drawn at the
  bottom). Wraps :class:`engine.hexgrid.Board`, which the C&C rules use.
* :class:`FlatGrid`: Great Battles of History maps, flat-top hexes in columns,
  odd-numbered columns half a hex higher, hexes named ``1423`` (column 14,
  row 23; row 1 at the top).

Geometry is in units of the hex circumradius, with the origin at the top left
of the grid's bounding box and y growing downwards, so a renderer scales by
its radius and adds its margins. Pure and deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from engine.hexgrid import Board, Hex, HexNotationError

__all__ = ["FlatGrid", "Grid", "OffsetGrid", "Pt"]

Pt = tuple[float, float]

SQRT3 = math.sqrt(3.0)


class Grid(Protocol):
    """What a renderer and a rules module may ask of any hex grid."""

    @property
    def orientation(self) -> str:
        """``pointy`` (a corner at the top) or ``flat`` (an edge at the top)."""
        ...

    def ids(self) -> tuple[str, ...]:
        """Every hex id, in a stable order."""
        ...

    def parse(self, text: str) -> str:
        """The canonical id of a hex written ``text`` (raise ``ValueError`` if off the grid)."""
        ...

    def centre(self, hex_id: str) -> Pt:
        """The hex's centre, in circumradius units."""
        ...

    def corners(self, hex_id: str) -> tuple[Pt, ...]:
        """The hex's six corners, clockwise from the first one right of the top."""
        ...

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        """The ids of the hexes sharing an edge with ``hex_id`` that are on the grid."""
        ...

    def distance(self, a: str, b: str) -> int:
        """Steps from ``a`` to ``b``."""
        ...

    @property
    def size(self) -> Pt:
        """Width and height of the grid's bounding box."""
        ...


def _corners(c: Pt, start_deg: float) -> tuple[Pt, ...]:
    out = []
    for i in range(6):
        a = math.radians(start_deg + 60 * i)
        out.append((c[0] + math.cos(a), c[1] + math.sin(a)))
    return tuple(out)


@dataclass(frozen=True)
class OffsetGrid:
    """A C&C board: pointy-top, offset rows, hexes named ``C4``."""

    board: Board
    orientation: str = "pointy"

    def ids(self) -> tuple[str, ...]:
        return self._ids

    @cached_property
    def _ids(self) -> tuple[str, ...]:
        return tuple(str(h) for h in self.board)

    def parse(self, text: str) -> str:
        return str(self.board.parse(text))

    def hex(self, hex_id: str) -> Hex:
        return self.board.parse(hex_id)

    def centre(self, hex_id: str) -> Pt:
        h = self.board.parse(hex_id)
        return ((h.x + 1) * SQRT3 / 2, 1 + (self.board.deep - 1 - h.y) * 1.5)

    def corners(self, hex_id: str) -> tuple[Pt, ...]:
        return _corners(self.centre(hex_id), -30)

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        return tuple(str(n) for n in self.board.neighbours(self.board.parse(hex_id)))

    def distance(self, a: str, b: str) -> int:
        return self.board.parse(a).distance(self.board.parse(b))

    @property
    def size(self) -> Pt:
        return (self.board.wide * SQRT3, 2 + (self.board.deep - 1) * 1.5)

    def column_x(self, x: int) -> float:
        """The x of doubled column ``x`` (section lines, column letters)."""
        return (x + 1) * SQRT3 / 2

    def row_y(self, row: int) -> float:
        """The y of the centres of 1-based ``row``."""
        return 1 + (self.board.deep - row) * 1.5


@dataclass(frozen=True)
class FlatGrid:
    """A GBoH map: flat-top hexes in columns, ids ``CCRR`` (column, row, from 1).

    Odd columns stand half a hex higher than even ones, as on the printed maps.
    """

    columns: int
    rows: int
    orientation: str = "flat"

    def __post_init__(self) -> None:
        if not (1 <= self.columns <= 99 and 1 <= self.rows <= 99):
            raise ValueError("a map has 1..99 columns and rows")

    def ids(self) -> tuple[str, ...]:
        return tuple(
            f"{c:02d}{r:02d}" for c in range(1, self.columns + 1) for r in range(1, self.rows + 1)
        )

    def _split(self, hex_id: str) -> tuple[int, int]:
        t = hex_id.strip()
        if len(t) != 4 or not t.isdigit():
            raise HexNotationError(f"{hex_id.strip()!r} is not a hex: write four digits, e.g. 1423")
        c, r = int(t[:2]), int(t[2:])
        if not (1 <= c <= self.columns and 1 <= r <= self.rows):
            raise HexNotationError(
                f"{t!r} is off the map: columns 01..{self.columns:02d}, rows 01..{self.rows:02d}"
            )
        return c, r

    def parse(self, text: str) -> str:
        c, r = self._split(text)
        return f"{c:02d}{r:02d}"

    def centre(self, hex_id: str) -> Pt:
        c, r = self._split(hex_id)
        return (1 + (c - 1) * 1.5, SQRT3 * (r - 0.5 * (c % 2)))

    def corners(self, hex_id: str) -> tuple[Pt, ...]:
        return _corners(self.centre(hex_id), -60)

    def _cube(self, hex_id: str) -> tuple[int, int]:
        c, r = self._split(hex_id)
        q = c
        return q, r - (q + (q & 1)) // 2

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        q, r = self._cube(hex_id)
        out = []
        for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)):
            nq, nr = q + dq, r + dr
            row = nr + (nq + (nq & 1)) // 2
            if 1 <= nq <= self.columns and 1 <= row <= self.rows:
                out.append(f"{nq:02d}{row:02d}")
        return tuple(out)

    def distance(self, a: str, b: str) -> int:
        (aq, ar), (bq, br) = self._cube(a), self._cube(b)
        return (abs(aq - bq) + abs(ar - br) + abs(aq + ar - bq - br)) // 2

    @property
    def size(self) -> Pt:
        return (2 + (self.columns - 1) * 1.5, SQRT3 * (self.rows + 0.5))

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids())
