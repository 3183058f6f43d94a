"""The neutral picture of a board that every game system builds and pbem draws.

A system's optional ``picture`` capability turns its public view (and the
turn's events) into a :class:`Picture`; pbem's renderer draws pictures as
SVG, PNG and ASCII and never knows a unit type, a terrain rule or a hex
notation. Everything a picture shows is spelled out here: hex geometry (from
the system's grid laid out by :mod:`engine.core.hexlayout`), terrain style keys, counters
or blocks with their visible count, markers, arrows, battle marks, losses,
side bands and legend lines.

Geometry is in hex-circumradius units with the origin at the top left of the
hex field and y growing downwards; the renderer scales and adds margins.
:func:`half_turn` turns a picture round for the player sitting at the other
edge of the table. Pure and deterministic; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from engine.core.hexlayout import HexLayout, Pt

__all__ = [
    "Arrow",
    "BattleMark",
    "Counter",
    "Edge",
    "HexCell",
    "Label",
    "Loss",
    "Marker",
    "Picture",
    "SideBand",
    "cells",
    "half_turn",
    "hexside",
]


@dataclass(frozen=True)
class HexCell:
    """One hex: its id label, geometry, terrain kind and the renderer's style key for it.

    ``style`` names one of the renderer's terrain drawings (``hill``,
    ``forest``, ``river``...); an unknown style is drawn as clear ground.
    """

    id: str
    centre: Pt
    corners: tuple[Pt, ...]
    terrain: str = "clear"
    style: str = "clear"


@dataclass(frozen=True)
class Counter:
    """A block or counter: who owns it, what it is called and how strong it is.

    ``count`` is what the owner has left (drawn as a number and as ``full``
    pips); ``short`` is the label in a 3-character text cell. ``symbol`` is a
    shape key (``circle``, ``triangle``, ``square`` or empty) drawn in
    ``symbol_colour`` (a colour key: ``green``, ``blue``, ``red``, ``grey``);
    ``ring`` draws it inside a white border. ``note`` is a name written under
    the counter (an attached leader), ``facing`` a direction in degrees
    (0 = up) for systems with facing. ``colour`` is a block colour key for
    this counter alone (an allied nation's blocks in a side's army); empty:
    its side's colour. ``stack`` False draws one flat counter instead of a pile of ``count``
    blocks (GBoH counters); ``tags`` are short marker texts drawn over it (``Mv``, ``2h``).
    """

    hex: str
    side: str
    label: str
    count: int
    full: int
    short: str = ""
    symbol: str = ""
    symbol_colour: str = "grey"
    ring: bool = False
    note: str = ""
    facing: float | None = None
    colour: str = ""
    stack: bool = True
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Edge:
    """A hexside feature drawn along the side between two corners (:func:`hexside`):
    ``style`` ``stream``, ``river``, ``wall`` (a city wall) or ``fortified`` (a field
    fortification's earthwork, drawn on the ground under the hex grid); an unknown style
    is drawn as a plain dark line."""

    a: Pt
    b: Pt
    style: str


@dataclass(frozen=True)
class Marker:
    """A marker alone in a hex (a lone leader, an objective): a ring with a letter and a name."""

    hex: str
    side: str
    name: str
    letter: str = "L"


@dataclass(frozen=True)
class Arrow:
    """A move drawn from the hex it started in: ``kind`` is ``move`` or ``retreat``."""

    side: str
    path: tuple[str, ...]
    kind: str = "move"


@dataclass(frozen=True)
class BattleMark:
    """A combat of the turn, marked on attacker and target; ``result`` such as ``-2 F``.

    ``kind`` is ``ranged`` (a dashed line) or ``close`` (crossed swords between the hexes).
    """

    attacker: str
    target: str
    kind: str
    result: str


@dataclass(frozen=True)
class Loss:
    """A counter eliminated this turn where it last stood (drawn as a cross)."""

    hex: str
    side: str
    label: str


@dataclass(frozen=True)
class SideBand:
    """A side's band beside the board: name, army, colour key and score (drawn as flags).

    ``goal`` is the score that wins (0: none); ``score_word`` names what is
    counted (``banners``, ``rout points``); ``flags`` False draws no flag per point (a
    score in the tens).
    """

    side: str
    name: str
    army: str
    colour: str = ""
    score: int = 0
    goal: int = 0
    score_word: str = "banners"
    flags: bool = True


@dataclass(frozen=True)
class Label:
    """A piece of text at a point (coordinates, section names)."""

    at: Pt
    text: str


@dataclass(frozen=True)
class Picture:
    """Everything a board image shows, in drawing order.

    ``sides`` lists the two (or more) sides; ``top`` and ``bottom`` name
    which side's band goes above and below the board (the viewer's at the
    bottom). ``columns`` label x positions (drawn above and below the field),
    ``rows`` label y positions (drawn left and right). ``lines`` are section
    lines; ``sections`` name the board's parts between them (as the viewer
    calls them). ``legend`` lines explain the counters in words, for the text board and
    the mail. ``edges`` are every hexside feature, each with its style (streams, rivers,
    city walls, fortified hexsides: :class:`Edge`); ``hex_ids`` writes each hex's id in it
    (GBoH maps, whose hexes are named by number).
    """

    size: Pt
    hexes: tuple[HexCell, ...]
    sides: tuple[SideBand, ...]
    top: str
    bottom: str
    columns: tuple[Label, ...] = ()
    rows: tuple[Label, ...] = ()
    lines: tuple[tuple[Pt, Pt], ...] = ()
    sections: tuple[Label, ...] = ()
    counters: tuple[Counter, ...] = ()
    markers: tuple[Marker, ...] = ()
    arrows: tuple[Arrow, ...] = ()
    battles: tuple[BattleMark, ...] = ()
    losses: tuple[Loss, ...] = ()
    legend: tuple[str, ...] = ()
    title: str = ""
    viewer: str = ""
    edges: tuple[Edge, ...] = ()
    hex_ids: bool = False

    @cached_property
    def _index(self) -> dict[str, HexCell]:
        return {h.id: h for h in self.hexes}

    def cell(self, hex_id: str) -> HexCell:
        """The hex called ``hex_id`` (``KeyError`` if the picture has none)."""
        return self._index[hex_id]

    def centre(self, hex_id: str) -> Pt:
        """The centre of the hex called ``hex_id``."""
        return self._index[hex_id].centre

    def side(self, side: str) -> SideBand:
        """The band of ``side`` (a plain one if the picture has none)."""
        for s in self.sides:
            if s.side == side:
                return s
        return SideBand(side, side.capitalize(), side.capitalize())


def cells(
    layout: HexLayout, terrain: dict[str, tuple[str, str]] | None = None
) -> tuple[HexCell, ...]:
    """Every hex of ``layout`` with its geometry; ``terrain`` maps an id to (kind, style).

    The same layout and terrain give the same tuple (built once: a board's
    hexes change only with its map), so its half turn is computed once too."""
    return _cells(layout, tuple(sorted((terrain or {}).items())))


@lru_cache(maxsize=16)
def _cells(
    layout: HexLayout, terrain_items: tuple[tuple[str, tuple[str, str]], ...]
) -> tuple[HexCell, ...]:
    terrain = dict(terrain_items)
    out = []
    for h in layout.ids():
        kind, style = terrain.get(h, ("clear", "clear"))
        out.append(HexCell(h, layout.centre(h), layout.corners(h), kind, style))
    return tuple(out)


@lru_cache(maxsize=16)
def _turned_cells(hexes: tuple[HexCell, ...], size: Pt) -> tuple[HexCell, ...]:
    return tuple(
        replace(h, centre=_turn(h.centre, size), corners=_turn_all(h.corners, size)) for h in hexes
    )


def hexside(a: HexCell, b: HexCell) -> tuple[Pt, Pt] | None:
    """The side ``a`` shares with its neighbour ``b`` (the two corners both have), or
    ``None`` when the two hexes do not touch."""
    shared = [p for p in a.corners
              if any(abs(p[0] - q[0]) + abs(p[1] - q[1]) < 1e-6 for q in b.corners)]  # fmt: skip
    return (shared[0], shared[1]) if len(shared) == 2 else None


def _turn(p: Pt, size: Pt) -> Pt:
    return (size[0] - p[0], size[1] - p[1])


def _turn_all(pts: Iterable[Pt], size: Pt) -> tuple[Pt, ...]:
    return tuple(_turn(p, size) for p in pts)


def half_turn(p: Picture) -> Picture:
    """The picture turned round 180 degrees (seen from the opposite edge).

    Geometry, coordinate labels and section lines turn; the side bands swap
    places; section names are left to the builder (they depend on who looks).
    """
    s = p.size
    return replace(
        p,
        hexes=_turned_cells(p.hexes, s),
        columns=tuple(Label(_turn(lb.at, s), lb.text) for lb in p.columns),
        rows=tuple(Label(_turn(lb.at, s), lb.text) for lb in p.rows),
        lines=tuple((_turn(a, s), _turn(b, s)) for a, b in p.lines),
        edges=tuple(replace(e, a=_turn(e.a, s), b=_turn(e.b, s)) for e in p.edges),
        sections=tuple(Label(_turn(lb.at, s), lb.text) for lb in p.sections),
        counters=tuple(
            replace(c, facing=None if c.facing is None else (c.facing + 180) % 360)
            for c in p.counters
        ),
        top=p.bottom,
        bottom=p.top,
    )
