"""Hex geometry for Great Battles of History maps: flat-top hexes numbered ``CCRR``, with facing.

People write a hex as four digits, column then row: ``1423`` is column 14,
row 23 (three digits are read with a leading zero: ``523`` is ``0523``).
Hexes are flat-topped; columns run vertically and rows increase downward;
**odd-numbered columns sit half a hex lower** than even ones. This is the
geometry of the Chariots of Fire digest (cof.md §2.2, derived from the
rulebook's movement, shock and line-of-sight examples; the tests check it
against every one of them).

Directions. The six **hexsides** of a hex, clockwise from the top, are
``N NE SE S SW NW``; the neighbour across each is listed in
:data:`SIDES`. The six **vertices**, clockwise from the right-hand point,
are ``E SE SW W NW NE`` (:data:`VERTICES`); vertex ``E`` lies between
hexsides ``NE`` and ``SE``.

Facing (cof.md §6.5). A combat unit faces a vertex: the two hexes across
the hexsides meeting at that vertex are its **front**, the next two (one
each side) its **flanks**, the last two its **rear**. A unit in column
faces a hexside (:func:`column_front`). Turning one vertex is one step
round :data:`VERTICES` (:func:`turns`).

Zones of control: in the GBoH volumes that use them, a unit's zone of
control is its front hexes (:func:`zone_of_control`). Chariots of Fire has
none (cof.md §6.5); the function is here for the other volumes.

Inside, distance and lines use cube coordinates (``x = c``,
``z = r - (c - c mod 2) / 2``, ``y = -x - z``), with exact rational
arithmetic, so results are the same on every machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import ClassVar, Literal, NamedTuple

from engine.core.cube import cube_line

__all__ = [
    "SIDES",
    "VERTICES",
    "GHex",
    "HexMap",
    "MapNotationError",
    "column_front",
    "flank_hexes",
    "front_hexes",
    "rear_hexes",
    "sectors",
    "side_between",
    "side_vertices",
    "turns",
    "zone_of_control",
]

SIDES: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
"""Hexside directions, clockwise from the top."""

VERTICES: tuple[str, ...] = ("E", "SE", "SW", "W", "NW", "NE")
"""Vertex (facing) directions, clockwise from the right-hand point; vertex ``i``
lies between hexsides ``i + 1`` and ``i + 2``."""

# (dc, dr) per hexside, for even and for odd columns (cof.md §2.2's table).
_EVEN: tuple[tuple[int, int], ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1))
_ODD: tuple[tuple[int, int], ...] = ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))
_ID = re.compile(r"^\s*(\d{3,4})\s*$")


class MapNotationError(ValueError):
    """A hex number that cannot be read, or a hex that is not on the map."""


class _ColRow(NamedTuple):
    col: int
    row: int


_PARSED: dict[str, GHex] = {}
"""Hex numbers read so far (a state names hexes as text; rules read them all game long)."""

_NEAR: dict[GHex, tuple[GHex, ...]] = {}
"""Each hex's six neighbours, once computed (:meth:`GHex.neighbours`)."""

_SIDE_INDEX = {side: i for i, side in enumerate(SIDES)}


class GHex(_ColRow):
    """One hex of a GBoH map: ``col`` and ``row`` as printed (``1423`` = column 14, row 23).

    A tuple ``(col, row)`` underneath, so hashing and comparing run in C; the hash, the
    equality between hexes and the order are the ones the frozen dataclass it replaces had.
    """

    __slots__ = ()

    def __new__(cls, col: int, row: int) -> GHex:
        return tuple.__new__(cls, (col, row))

    @classmethod
    def parse(cls, text: str) -> GHex:
        """Read ``1423`` (or ``523`` for ``0523``); no map check."""
        got = _PARSED.get(text)
        if got is not None and cls is GHex:
            return got
        m = _ID.match(text)
        if not m:
            raise MapNotationError(
                f"{text.strip()!r} is not a hex: write its four-digit number, e.g. 1423"
            )
        digits = m.group(1).zfill(4)
        h = cls(int(digits[:2]), int(digits[2:]))
        if cls is GHex:
            if len(_PARSED) >= 65536:
                _PARSED.clear()
            _PARSED[text] = h
        return h

    def __str__(self) -> str:
        return f"{self.col:02d}{self.row:02d}"

    def __repr__(self) -> str:
        return f"GHex.parse({str(self)!r})"

    # --- cube coordinates --------------------------------------------------
    @property
    def cube(self) -> tuple[int, int, int]:
        """``(x, y, z)`` with ``x + y + z == 0``."""
        x = self.col
        z = self.row - (self.col - (self.col & 1)) // 2
        return x, -x - z, z

    @classmethod
    def from_cube(cls, x: int, z: int) -> GHex:
        return cls(x, z + (x - (x & 1)) // 2)

    # --- neighbours and distance -------------------------------------------
    def neighbour(self, side: str) -> GHex:
        """The hex across hexside ``side`` (``N``, ``NE``... ; see :data:`SIDES`)."""
        return self.neighbours()[_SIDE_INDEX[side]]

    def neighbours(self) -> tuple[GHex, ...]:
        """The six neighbours, clockwise from ``N``, ignoring the map's edges."""
        near = _NEAR.get(self)
        if near is None:
            col, row = self
            offsets = _ODD if col & 1 else _EVEN
            near = tuple(GHex(col + dc, row + dr) for dc, dr in offsets)
            if len(_NEAR) >= 65536:
                _NEAR.clear()
            _NEAR[self] = near
        return near

    def distance(self, other: GHex) -> int:
        """Hex distance (number of steps)."""
        ax, ar = self
        bx, br = other
        az = ar - (ax - (ax & 1)) // 2
        bz = br - (bx - (bx & 1)) // 2
        dx, dz = ax - bx, az - bz
        return max(abs(dx), abs(dz), abs(dx + dz))

    def line_to(self, other: GHex) -> tuple[tuple[GHex, ...], ...]:
        """Hexes a centre-to-centre line crosses, as steps from ``self`` to ``other``.

        Each step is one hex, or two where the line runs exactly along their
        shared hexside (a tie the rules settle). First ``(self,)``, last ``(other,)``.
        """
        n = self.distance(other)
        if n == 0:
            return ((self,),)
        ax, _, az = self.cube
        bx, _, bz = other.cube
        steps: list[tuple[GHex, ...]] = []
        for pa, pb in cube_line((ax, az), (bx, bz), n):
            a, b = GHex.from_cube(*pa), GHex.from_cube(*pb)
            steps.append((a,) if a == b else tuple(sorted((a, b))))
        return tuple(steps)


# --- facing ------------------------------------------------------------------


_SIDE_AS_VERTEX = {"N": "NE", "S": "SW"}
"""A unit in column faces a hexside (cof.md §6.3). Where a rule asks for its front, flank or
rear hexes or sectors, hexside ``N`` reads as vertex ``NE``, ``S`` as ``SW`` and the other
four as the vertices of the same name: its front hexes then always include the hex ahead."""


def _vertex(facing: str) -> str:
    return _SIDE_AS_VERTEX.get(facing, facing)


def _sides_of(facing: str, offsets: tuple[int, ...]) -> tuple[str, ...]:
    facing = _vertex(facing)
    if facing not in VERTICES:
        raise ValueError(f"facing must be one of {' '.join(VERTICES)}, not {facing!r}")
    v = VERTICES.index(facing)
    return tuple(SIDES[(v + k) % 6] for k in offsets)


def front_hexes(h: GHex, facing: str) -> tuple[GHex, GHex]:
    """The two front hexes of a unit in ``h`` facing vertex ``facing`` (kept once worked
    out: the rules ask for the same ones again and again)."""
    got = _FRONT.get((h, facing))
    if got is None:
        a, b = _sides_of(facing, (1, 2))
        got = h.neighbour(a), h.neighbour(b)
        if len(_FRONT) >= 65536:
            _FRONT.clear()
        _FRONT[h, facing] = got
    return got


_FRONT: dict[tuple[GHex, str], tuple[GHex, GHex]] = {}


def flank_hexes(h: GHex, facing: str) -> tuple[GHex, GHex]:
    """The two flank hexes (one each side of the front)."""
    a, b = _sides_of(facing, (0, 3))
    return h.neighbour(a), h.neighbour(b)


def rear_hexes(h: GHex, facing: str) -> tuple[GHex, GHex]:
    """The two rear hexes."""
    a, b = _sides_of(facing, (4, 5))
    return h.neighbour(a), h.neighbour(b)


# Vertex directions as (x, y / sqrt 3) with x right and y down, half-hex units: E is (1, 0).
_VERTEX_DIR: dict[str, tuple[Fraction, Fraction]] = {
    "E": (Fraction(1), Fraction(0)),
    "SE": (Fraction(1, 2), Fraction(1, 2)),
    "SW": (Fraction(-1, 2), Fraction(1, 2)),
    "W": (Fraction(-1), Fraction(0)),
    "NW": (Fraction(-1, 2), Fraction(-1, 2)),
    "NE": (Fraction(1, 2), Fraction(-1, 2)),
}


def _centre(h: GHex) -> tuple[Fraction, Fraction]:
    """A hex centre as (x, y / sqrt 3): columns 3/2 apart, odd columns half a hex lower."""
    return Fraction(3, 2) * h.col, Fraction(h.row) + Fraction(h.col & 1, 2)


def sectors(h: GHex, facing: str, target: GHex) -> frozenset[str]:
    """The sectors of a unit in ``h`` facing vertex ``facing`` that ``target`` lies in.

    By the angle between the facing vertex and the line from centre to centre (cof.md
    §7.2): up to 60 degrees ``front``, 60 to 120 ``flank``, from 120 ``rear``; a hex exactly on a
    boundary is in both sectors. Adjacent hexes agree with :func:`front_hexes`,
    :func:`flank_hexes` and :func:`rear_hexes`. Exact arithmetic: no floating point.
    """
    if target == h:
        raise ValueError("a hex is in no sector of itself")
    facing = _vertex(facing)
    if facing not in _VERTEX_DIR:
        raise ValueError(f"facing must be one of {' '.join(VERTICES)}, not {facing!r}")
    (ax, ay), (bx, by) = _centre(h), _centre(target)
    dx, dy = bx - ax, by - ay
    fx, fy = _VERTEX_DIR[facing]
    dot = fx * dx + 3 * fy * dy  # y is in units of sqrt 3
    norms = (fx * fx + 3 * fy * fy) * (dx * dx + 3 * dy * dy)
    quarter = 4 * dot * dot  # cos^2 = dot^2 / norms; cos = 1/2 at 60 and -1/2 at 120 degrees
    found: set[str] = set()
    if dot > 0 and quarter >= norms:
        found.add("front")
    if quarter <= norms:
        found.add("flank")
    if dot < 0 and quarter >= norms:
        found.add("rear")
    return frozenset(found)


def zone_of_control(h: GHex, facing: str) -> tuple[GHex, GHex]:
    """A unit's zone of control where a volume uses one: its front hexes (not in CoF)."""
    return front_hexes(h, facing)


def column_front(h: GHex, side: str) -> tuple[GHex, GHex, GHex]:
    """A unit in column facing hexside ``side``: the hex ahead, then the two flanking it."""
    i = SIDES.index(side)
    return h.neighbour(side), h.neighbour(SIDES[(i - 1) % 6]), h.neighbour(SIDES[(i + 1) % 6])


def side_vertices(side: str) -> tuple[str, str]:
    """The two vertices at the ends of hexside ``side``, in :data:`VERTICES` order: a unit
    leaving column faces one of them (cof.md §6.3)."""
    j = SIDES.index(side)
    a, b = sorted(((j - 2) % 6, (j - 1) % 6))
    return VERTICES[a], VERTICES[b]


def turns(start: str, end: str) -> int:
    """Vertices turned from facing ``start`` to facing ``end`` (0 to 3, the short way)."""
    d = (VERTICES.index(end) - VERTICES.index(start)) % 6
    return min(d, 6 - d)


def side_between(a: GHex, b: GHex) -> str:
    """The hexside of ``a`` that ``b`` lies across (``ValueError`` if not adjacent)."""
    for s in SIDES:
        if a.neighbour(s) == b:
            return s
    raise ValueError(f"{a} and {b} are not adjacent")


# --- the map -------------------------------------------------------------------


@dataclass(frozen=True)
class HexMap:
    """A rectangular GBoH map: columns ``first_col..last_col``, rows ``first_row..last_row``.

    Implements the grid protocol (:class:`engine.core.grid.Grid`).
    """

    last_col: int = 40
    last_row: int = 30
    first_col: int = 1
    first_row: int = 1
    orientation: ClassVar[Literal["pointy", "flat"]] = "flat"

    def __post_init__(self) -> None:
        cols_ok = 0 <= self.first_col <= self.last_col <= 99
        if not (cols_ok and 0 <= self.first_row <= self.last_row <= 99):
            raise ValueError("a map's columns and rows run 0..99, first <= last")

    @cached_property
    def hexes(self) -> tuple[GHex, ...]:
        """Every hex, column by column, top to bottom."""
        return tuple(
            GHex(c, r)
            for c in range(self.first_col, self.last_col + 1)
            for r in range(self.first_row, self.last_row + 1)
        )

    def __contains__(self, h: object) -> bool:
        return (
            isinstance(h, GHex)
            and self.first_col <= h.col <= self.last_col
            and self.first_row <= h.row <= self.last_row
        )

    def __iter__(self) -> Iterator[GHex]:
        return iter(self.hexes)

    def parse(self, text: str) -> GHex:
        """Read a hex number and check that it is on this map."""
        h = GHex.parse(text)
        if h not in self:
            raise MapNotationError(
                f"{text.strip()!r} is off the map: columns run {self.first_col:02d}.."
                f"{self.last_col:02d}, rows {self.first_row:02d}..{self.last_row:02d}"
            )
        return h

    def notation(self, h: GHex) -> str:
        return str(h)

    def neighbours(self, h: GHex) -> tuple[GHex, ...]:
        """Neighbours of ``h`` on the map, clockwise from ``N``."""
        near: dict[GHex, tuple[GHex, ...]] = self.__dict__.setdefault("_near", {})
        got = near.get(h)
        if got is None:
            got = near[h] = tuple(n for n in h.neighbours() if n in self)
        return got

    def distance(self, a: GHex, b: GHex) -> int:
        return a.distance(b)

    def line(self, a: GHex, b: GHex) -> tuple[tuple[GHex, ...], ...]:
        return a.line_to(b)
