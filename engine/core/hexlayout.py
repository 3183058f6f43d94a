"""Where each hex of a grid is drawn: centres and corners for the picture model.

The grid protocol (:mod:`engine.core.grid`) says which hexes touch; a layout
says where they sit on paper. Two layouts, one per grid family:

* :func:`offset_rows`: pointy-top hexes in alternately offset rows (C&C
  boards); a hex is placed by its doubled column ``x`` (half-hex steps) and
  its row index ``y`` counted from the bottom edge.
* :func:`offset_columns`: flat-top hexes in offset columns (GBoH maps); a hex
  is placed by its printed column and row (row 1 at the top), odd columns
  half a hex lower.

Geometry is in units of the hex circumradius, origin at the top left of the
hex field, y growing downwards. Pure and deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

__all__ = ["HexLayout", "Pt", "offset_columns", "offset_rows"]

Pt = tuple[float, float]
H = TypeVar("H")

SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class HexLayout:
    """Hex names with their centres, the grid's orientation and the field's size."""

    orientation: str
    size: Pt
    centres: tuple[tuple[str, Pt], ...]

    @cached_property
    def _index(self) -> dict[str, Pt]:
        return dict(self.centres)

    def ids(self) -> tuple[str, ...]:
        return tuple(h for h, _ in self.centres)

    def centre(self, hex_id: str) -> Pt:
        """The centre of the hex named ``hex_id`` (``KeyError`` if the layout has none)."""
        return self._index[hex_id]

    @cached_property
    def _corners(self) -> dict[str, tuple[Pt, ...]]:
        start = -30 if self.orientation == "pointy" else -60
        unit = [(math.cos(math.radians(start + 60 * i)), math.sin(math.radians(start + 60 * i)))
                for i in range(6)]  # fmt: skip
        return {h: tuple((cx + dx, cy + dy) for dx, dy in unit) for h, (cx, cy) in self.centres}

    def corners(self, hex_id: str) -> tuple[Pt, ...]:
        """The six corners, clockwise, starting right of the top (pointy) or at top right (flat)."""
        return self._corners[hex_id]


def offset_rows(
    hexes: Iterable[H], name: Callable[[H], str], doubled: Callable[[H], tuple[int, int]],
    wide: int, deep: int,
) -> HexLayout:  # fmt: skip
    """Pointy-top rows: ``doubled(h)`` is (half-hex column from the left, row from the bottom).

    ``wide`` hexes in the long rows, ``deep`` rows.
    """
    centres = []
    for h in hexes:
        x, y = doubled(h)
        centres.append((name(h), ((x + 1) * SQRT3 / 2, 1 + (deep - 1 - y) * 1.5)))
    return HexLayout("pointy", (wide * SQRT3, 2 + (deep - 1) * 1.5), tuple(centres))


def offset_columns(
    hexes: Iterable[H], name: Callable[[H], str], col_row: Callable[[H], tuple[int, int]],
    first: tuple[int, int], last: tuple[int, int],
) -> HexLayout:  # fmt: skip
    """Flat-top columns: ``col_row(h)`` is the printed (column, row); odd columns sit lower.

    ``first`` and ``last`` are the map's first and last (column, row).
    """
    (c0, r0), (c1, _) = first, last
    raw = []
    for h in hexes:
        c, r = col_row(h)
        raw.append((name(h), (1 + (c - c0) * 1.5, SQRT3 * (r - r0 + (0.5 if c % 2 else 0.0)))))
    if not raw:
        return HexLayout("flat", (0.0, 0.0), ())
    shift = SQRT3 / 2 - min(p[1] for _, p in raw)
    centres = tuple((n, (x, y + shift)) for n, (x, y) in raw)
    height = max(p[1] for _, p in centres) + SQRT3 / 2
    return HexLayout("flat", (2 + (c1 - c0) * 1.5, height), centres)
