"""Plain data the Chariots of Fire rule modules read: counters, leaders and the ground.

The rule modules (:mod:`engine.cof.reaction`, :mod:`engine.cof.segment`, :mod:`engine.cof.rout`,
:mod:`engine.cof.leaders`, :mod:`engine.cof.elevation`) are pure functions over these small
frozen records, so the game state can hand them a view of itself without the rules knowing
its classes: a :class:`Piece` per combat counter (a CH-2 with its runners is one piece of type
``CH2RI``), a :class:`Chief` per leader or hero, and a :class:`Ground` for terrain, elevation
and hexsides. Every function returns what changes; none mutates its arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.gboh.grid import VERTICES, GHex, HexMap, front_hexes

__all__ = [
    "CHARIOTS",
    "Chief",
    "Ground",
    "Piece",
    "adjacent",
    "at",
    "enemies_of",
    "facings_toward",
    "ground_of",
    "occupied",
    "view",
    "view_chief",
]

CHARIOTS = frozenset({"CH2", "CH3", "CH2RI"})
"""The chariot types (cof.md §2.4): a battle wagon is not one."""


@dataclass(frozen=True)
class Piece:
    """One combat counter as the rules see it (cof.md §2.3, §14 #1).

    ``type`` is a ``units.toml`` code; ``facing`` a vertex (a hexside in column); ``tq`` and
    ``ma`` the printed values; ``supply`` ``full``, ``low`` or ``no`` (cof.md §7.5).
    """

    id: str
    side: str
    type: str
    hex: GHex
    facing: str = "E"
    tq: int = 5
    ma: int = 5
    hits: int = 0
    weapon: str | None = None
    wing: str = ""
    engaged: bool = False
    routed: bool = False
    column: bool = False
    supply: str = "full"

    @property
    def chariot(self) -> bool:
        """CH-2, CH-3 or the CH-2 + RI stack (cof.md §2.4)."""
        return self.type in CHARIOTS

    def fronts(self) -> tuple[GHex, GHex]:
        """Its two front hexes (cof.md §6.5)."""
        return front_hexes(self.hex, self.facing)


@dataclass(frozen=True)
class Chief:
    """A leader or hero (cof.md §2.5, §10.1): ``role`` ``OC``, ``WC`` or ``hero``."""

    id: str
    side: str
    role: str
    hex: GHex | None
    wing: str | None = None
    initiative: int = 0
    command_range: int = 0
    charisma: int = 0
    ability: int = 0
    combat: int = 0
    endurance: int = 0
    hits: int = 0
    wounded: bool = False
    hero: bool = False
    archer: bool = False
    on_foot: bool = False
    replacement: bool = False


@dataclass(frozen=True)
class Ground:
    """The map: its extent, terrain by hex (clear when absent), elevation level by hex (0 when
    absent) and hexside features by ordered pair of hexes (either order)."""

    grid: HexMap = field(default_factory=HexMap)
    terrain: Mapping[GHex, str] = field(default_factory=dict)
    levels: Mapping[GHex, int] = field(default_factory=dict)
    sides: Mapping[frozenset[GHex], tuple[str, ...]] = field(default_factory=dict)

    def kind(self, h: GHex) -> str:
        """The terrain code of ``h`` (a ``movement.toml`` row)."""
        return self.terrain.get(h, "clear")

    def level(self, h: GHex) -> int:
        """The elevation level of ``h`` (0 = the plain)."""
        return self.levels.get(h, 0)

    def hexsides(self, a: GHex, b: GHex) -> tuple[str, ...]:
        """The hexside features crossed going from ``a`` to ``b``."""
        return self.sides.get(frozenset((a, b)), ())


def at(pieces: Iterable[Piece], h: GHex) -> list[Piece]:
    """The pieces in hex ``h``."""
    return [p for p in pieces if p.hex == h]


def occupied(pieces: Iterable[Piece], side: str | None = None) -> frozenset[GHex]:
    """Hexes holding a combat unit (of ``side`` when given)."""
    return frozenset(p.hex for p in pieces if side is None or p.side == side)


def enemies_of(pieces: Iterable[Piece], side: str) -> list[Piece]:
    """The pieces not of ``side``."""
    return [p for p in pieces if p.side != side]


def adjacent(a: GHex, b: GHex) -> bool:
    """Whether two hexes touch."""
    return a.distance(b) == 1


def facings_toward(h: GHex, target: GHex) -> tuple[str, ...]:
    """The vertices a unit in ``h`` may face to have the adjacent ``target`` in its front
    (two: either end of the hexside between them), clockwise order."""
    return tuple(v for v in VERTICES if target in front_hexes(h, v))


class UnitLike(Protocol):
    """What :func:`view` reads of a state's counter (the scenario contract's names)."""

    id: str
    side: str
    wing: str
    type: str
    tq: int
    ma: int
    hex: str
    facing: str
    hits: int
    supply: str
    column: bool
    engaged: bool
    routed: bool

    @property
    def missile(self) -> str | None:
        """Its weapon letter; ``""`` or ``None`` without one."""


class LeaderLike(Protocol):
    """What :func:`view_chief` reads of a state's leader."""

    id: str
    side: str
    role: str
    hex: str
    initiative: int
    command_range: int
    charisma: int
    ability: int
    combat: int
    endurance: int
    hero: bool
    archer: bool
    on_foot: bool
    wounded: bool

    @property
    def wing(self) -> str | None:
        """The wing he leads; ``""`` or ``None`` for none."""


def view(u: UnitLike, *, as_type: str | None = None) -> Piece:
    """The rules' view of a counter; ``as_type`` names its chart type when it differs (a
    CH-2 with its runners: ``CH2RI``)."""
    return Piece(
        id=u.id,
        side=u.side,
        type=as_type or u.type,
        hex=GHex.parse(u.hex),
        facing=u.facing,
        tq=u.tq,
        ma=u.ma,
        hits=u.hits,
        weapon=u.missile or None,
        wing=u.wing,
        engaged=u.engaged,
        routed=u.routed,
        column=u.column,
        supply=u.supply,
    )


def view_chief(ld: LeaderLike, *, hits: int = 0) -> Chief:
    """The rules' view of a leader (off the map when his hex is empty)."""
    return Chief(
        id=ld.id,
        side=ld.side,
        role=ld.role,
        hex=GHex.parse(ld.hex) if ld.hex else None,
        wing=ld.wing or None,
        initiative=ld.initiative,
        command_range=ld.command_range,
        charisma=ld.charisma,
        ability=ld.ability,
        combat=ld.combat,
        endurance=ld.endurance,
        hits=hits,
        wounded=ld.wounded,
        hero=ld.hero,
        archer=ld.archer,
        on_foot=ld.on_foot,
    )


def ground_of(
    columns: tuple[int, int],
    rows: tuple[int, int],
    terrain: Mapping[str, str],
    elevation: Mapping[str, int],
    hexsides: Iterable[Sequence[str]],
) -> Ground:
    """The rules' ground from a map as the scenario contract writes it: hex ids as text,
    hexsides as ``(hex, side, kind)`` with ``side`` a direction (``N``, ``NE``...)."""
    sides: dict[frozenset[GHex], tuple[str, ...]] = {}
    for h, side, kind in hexsides:
        a = GHex.parse(h)
        key = frozenset((a, a.neighbour(side)))
        sides[key] = (*sides.get(key, ()), kind)
    return Ground(
        HexMap(last_col=columns[1], last_row=rows[1], first_col=columns[0], first_row=rows[0]),
        {GHex.parse(h): k for h, k in terrain.items()},
        {GHex.parse(h): v for h, v in elevation.items()},
        sides,
    )
