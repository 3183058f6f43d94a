"""Hex geometry for the Commands & Colors board (13 x 9, alternately offset rows).

People write hexes as ``<column letter><row number>``, e.g. ``C4``:

* rows are numbered 1..9 from South's baseline (row 1) to North's baseline (row 9);
* odd rows (1, 3, 5, 7, 9) hold 13 hexes, columns ``A``..``M``;
* even rows (2, 4, 6, 8) hold 12 hexes, columns ``A``..``L``, each shifted half a
  hex to the right of the hex with the same letter in the rows around it;
* columns run left to right as South sees the board.

Inside, a hex is a pair of *doubled* coordinates ``(x, y)`` with ``y = row - 1``
and ``x = 2 * column_index + (1 if the row is even else 0)``, so ``x`` counts
half-hex widths from the left edge (0..24) and ``x + y`` is always even.
Axial/cube coordinates follow from them (``q = (x - y) / 2``, ``r = y``).
See ``docs/board.md`` for a picture.

The geometry is generic: nothing here is specific to one game system, and the
board size is a parameter of :class:`Board` (C&C uses the default 13 x 9).
:class:`Board` implements the grid protocol (:class:`engine.core.grid.Grid`);
the flat-top GBoH map is :mod:`engine.gboh.grid`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Literal, NamedTuple

from engine.core.cube import cube_line

__all__ = [
    "STANDARD_BOARD",
    "Board",
    "Hex",
    "HexNotationError",
    "Section",
]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NOTATION = re.compile(r"^\s*([A-Za-z])\s*(\d{1,2})\s*$")

# Neighbour offsets in doubled coordinates, clockwise from east.
_DIRECTIONS: tuple[tuple[int, int], ...] = ((2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1), (1, -1))


_LINES: dict[tuple[int, int, int, int], tuple[tuple[Hex, ...], ...]] = {}
"""Lines drawn so far (:meth:`Hex.line_to`), by the two hexes' coordinates."""

_PARSED: dict[str, Hex] = {}
"""Hex names read so far (orders and states name hexes as text, read again every turn)."""

_SECTIONS: dict[tuple[int, int, int, bool], frozenset[str]] = {}
"""Sections by (section lines, doubled column, South's view) (:meth:`Board.sections_for`)."""

_SHAPES: dict[tuple[str, int, int], object] = {}
"""Each board shape's hexes, hex set and neighbours, computed once per shape (a state
loaded from JSON makes a new :class:`Board`; its geometry is the same)."""


class HexNotationError(ValueError):
    """A hex name that cannot be read, or a hex that is not on the board."""


class Section:
    """Board sections, named from South's seat (North's left is South's right)."""

    LEFT = "left"
    CENTRE = "centre"
    RIGHT = "right"
    ALL = ("left", "centre", "right")

    @staticmethod
    def mirror(section: str) -> str:
        """Return the section as seen from the other baseline."""
        return {"left": "right", "right": "left", "centre": "centre"}[section]


class _XY(NamedTuple):
    x: int
    y: int


class Hex(_XY):
    """One hex in doubled coordinates; ``x + y`` must be even.

    A tuple ``(x, y)`` underneath, so hashing and comparing a hex run in C:
    hexes are the keys of the rules' hottest look-ups (a Python ``__hash__``
    was about a seventh of a random game). The hash, the equality between
    hexes and the order are the ones the frozen dataclass it replaces had
    (those of the tuple ``(x, y)``), so sets of hexes iterate as before.
    """

    __slots__ = ()

    def __new__(cls, x: int, y: int) -> Hex:
        if (x + y) % 2:
            raise ValueError(f"not a hex in doubled coordinates: ({x}, {y})")
        return tuple.__new__(cls, (x, y))

    # --- people's notation -------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> Hex:
        """Read ``C4`` (case and surrounding spaces forgiven); no board check."""
        got = _PARSED.get(text)
        if got is not None and cls is Hex:
            return got
        h = cls._parse(text)
        if cls is Hex:
            if len(_PARSED) >= 65536:
                _PARSED.clear()
            _PARSED[text] = h
        return h

    @classmethod
    def _parse(cls, text: str) -> Hex:
        m = _NOTATION.match(text)
        if not m:
            raise HexNotationError(
                f"{text.strip()!r} is not a hex: write a column letter and a row number, e.g. C4"
            )
        col = _LETTERS.index(m.group(1).upper())
        row = int(m.group(2))
        if row < 1:
            raise HexNotationError(f"{text.strip()!r}: rows are numbered from 1")
        return cls.from_offset(col, row)

    @classmethod
    def from_offset(cls, col: int, row: int) -> Hex:
        """Hex at 0-based ``col`` in 1-based ``row`` (row 1 = South's baseline)."""
        y = row - 1
        return cls(2 * col + (y % 2), y)

    @property
    def row(self) -> int:
        """Row number, 1 = South's baseline."""
        return self.y + 1

    @property
    def col(self) -> int:
        """0-based column index within the row."""
        return (self.x - (self.y % 2)) // 2

    def __str__(self) -> str:
        col = (self.x - (self.y % 2)) // 2  # self.col, once (events print many hexes)
        if 0 <= col < len(_LETTERS):
            return f"{_LETTERS[col]}{self.y + 1}"
        return f"({self.x},{self.y})"

    def __repr__(self) -> str:
        return (
            f"Hex.parse({str(self)!r})"
            if self.y >= 0 and self.col >= 0
            else (f"Hex({self.x}, {self.y})")
        )

    # --- cube coordinates --------------------------------------------------
    @property
    def q(self) -> int:
        return (self.x - self.y) // 2

    @property
    def r(self) -> int:
        return self.y

    @property
    def s(self) -> int:
        return -self.q - self.r

    @classmethod
    def from_cube(cls, q: int, r: int) -> Hex:
        return cls(2 * q + r, r)

    # --- arithmetic ----------------------------------------------------------
    def neighbours(self) -> tuple[Hex, ...]:
        """The six neighbours, clockwise from east, ignoring the board's edges."""
        return tuple(Hex(self.x + dx, self.y + dy) for dx, dy in _DIRECTIONS)

    def distance(self, other: Hex) -> int:
        """Hex distance (number of steps)."""
        dx = abs(self.x - other.x)
        dy = abs(self.y - other.y)
        return dy + max(0, (dx - dy) // 2)

    def is_adjacent(self, other: Hex) -> bool:
        return self.distance(other) == 1

    def toward(self, side_baseline_row: int) -> tuple[Hex, ...]:
        """The (up to two) neighbours one row closer to ``side_baseline_row``."""
        if side_baseline_row == self.row:
            return ()
        dy = -1 if side_baseline_row < self.row else 1
        return (Hex(self.x - 1, self.y + dy), Hex(self.x + 1, self.y + dy))

    def line_to(self, other: Hex) -> tuple[tuple[Hex, ...], ...]:
        """Hexes a centre-to-centre line crosses, as steps from self to other.

        Each step is a tuple of one hex, or of two hexes where the line runs
        exactly along their shared edge (a tie). The first step is ``(self,)``
        and the last ``(other,)``. Exact rational arithmetic: no floats, so
        the result is the same on every machine. Lines are kept once drawn
        (they depend on the two hexes only; line of sight asks for the same
        ones all game long).
        """
        key = (self.x, self.y, other.x, other.y)
        line = _LINES.get(key)
        if line is None:
            line = self._line_to(other)
            if len(_LINES) >= 65536:
                _LINES.clear()
            _LINES[key] = line
        return line

    def _line_to(self, other: Hex) -> tuple[tuple[Hex, ...], ...]:
        n = self.distance(other)
        if n == 0:
            return ((self,),)
        steps: list[tuple[Hex, ...]] = []
        for pa, pb in cube_line((self.q, self.r), (other.q, other.r), n):
            a, b = Hex.from_cube(*pa), Hex.from_cube(*pb)
            steps.append((a,) if a == b else tuple(sorted((a, b))))
        return tuple(steps)


@dataclass(frozen=True)
class Board:
    """A rectangular board of alternately offset rows.

    ``wide`` hexes in odd rows, ``wide - 1`` in even rows, ``deep`` rows.
    Section lines sit at half-hex positions ``section_lines`` (doubled x); a
    hex whose centre is on a line belongs to both sections it touches.
    """

    wide: int = 13
    deep: int = 9
    section_lines: tuple[int, int] = (8, 16)
    orientation: ClassVar[Literal["pointy", "flat"]] = "pointy"
    """The grid protocol's orientation (:mod:`engine.core.grid`)."""

    @cached_property
    def hexes(self) -> tuple[Hex, ...]:
        """Every hex, row by row from South's baseline, left to right."""
        key = ("hexes", self.wide, self.deep)
        got = _SHAPES.get(key)
        if got is None:
            out: list[Hex] = []
            for row in range(1, self.deep + 1):
                count = self.wide if row % 2 else self.wide - 1
                out.extend(Hex.from_offset(c, row) for c in range(count))
            got = _SHAPES[key] = tuple(out)
        return got  # type: ignore[return-value]

    @cached_property
    def _hexset(self) -> frozenset[Hex]:
        key = ("hexset", self.wide, self.deep)
        got = _SHAPES.get(key)
        if got is None:
            got = _SHAPES[key] = frozenset(self.hexes)
        return got  # type: ignore[return-value]

    def __contains__(self, h: object) -> bool:
        return h in self._hexset

    def __iter__(self) -> Iterator[Hex]:
        return iter(self.hexes)

    def parse(self, text: str) -> Hex:
        """Read a hex name and check that it is on this board."""
        h = Hex.parse(text)
        if h not in self:
            row_len = self.wide if h.row % 2 else self.wide - 1
            if not 1 <= h.row <= self.deep:
                why = f"rows run 1..{self.deep}"
            else:
                why = f"row {h.row} has columns A..{_LETTERS[row_len - 1]}"
            raise HexNotationError(f"{text.strip()!r} is off the board: {why}")
        return h

    def notation(self, h: Hex) -> str:
        """``C4``: the grid protocol's name for a hex."""
        return str(h)

    def distance(self, a: Hex, b: Hex) -> int:
        """Steps from ``a`` to ``b``."""
        return a.distance(b)

    def line(self, a: Hex, b: Hex) -> tuple[tuple[Hex, ...], ...]:
        """The hexes a centre-to-centre line crosses (:meth:`Hex.line_to`)."""
        return a.line_to(b)

    @cached_property
    def _adjacent(self) -> dict[Hex, tuple[Hex, ...]]:
        # Rules ask for neighbours in their inner loops (reach, supports).
        key = ("adjacent", self.wide, self.deep)
        got = _SHAPES.get(key)
        if got is None:
            got = _SHAPES[key] = {
                h: tuple(n for n in h.neighbours() if n in self) for h in self.hexes
            }
        return got  # type: ignore[return-value]

    def indexed(self) -> tuple[tuple[Hex, ...], dict[Hex, int], tuple[tuple[int, ...], ...]]:
        """The board as integers for searches: ``hexes`` (:attr:`hexes`), each hex's position
        in it, and each position's neighbours' positions (in :meth:`neighbours`' order)."""
        key = ("indexed", self.wide, self.deep)
        got = _SHAPES.get(key)
        if got is None:
            where = {h: i for i, h in enumerate(self.hexes)}
            near = tuple(tuple(where[n] for n in self.neighbours(h)) for h in self.hexes)
            got = _SHAPES[key] = (self.hexes, where, near)
        return got  # type: ignore[return-value]

    def neighbours(self, h: Hex) -> tuple[Hex, ...]:
        """Neighbours of ``h`` that are on the board."""
        near = self._adjacent.get(h)
        if near is None:  # ``h`` itself is off the board
            near = tuple(n for n in h.neighbours() if n in self)
        return near

    def sections(self, h: Hex) -> frozenset[str]:
        """Sections of ``h`` from South's seat; a line hex is in two."""
        lo, hi = self.section_lines
        out: set[str] = set()
        if h.x <= lo:
            out.add(Section.LEFT)
        if lo <= h.x <= hi:
            out.add(Section.CENTRE)
        if h.x >= hi:
            out.add(Section.RIGHT)
        return frozenset(out)

    def sections_for(self, h: Hex, south: bool) -> frozenset[str]:
        """Sections of ``h`` as the player on the given baseline names them."""
        key = (*self.section_lines, h.x, south)
        got = _SECTIONS.get(key)
        if got is None:  # a hex's sections depend on its column and the lines only
            secs = self.sections(h)
            got = secs if south else frozenset(Section.mirror(s) for s in secs)
            _SECTIONS[key] = got
        return got

    def baseline_row(self, south: bool) -> int:
        return 1 if south else self.deep

    def is_edge(self, h: Hex) -> bool:
        return len(self.neighbours(h)) < 6


STANDARD_BOARD = Board()
