"""The picture of a Chariots of Fire battle: the area of action and an overview of the map.

Built from a small neutral view (:class:`CofView`: the map spec, each unit's hex, facing,
type, TQ, hits and markers, the leaders, Standards and the turn's moves and combats), so it
does not depend on the game state's classes; :func:`view_of_scenario` gives the view of a
battle as set up. The result is the system-neutral :class:`engine.core.picture.Picture`,
which pbem draws as SVG, PNG and text like the C&C boards: flat-top hexes laid out by
:func:`engine.core.hexlayout.offset_columns` with their ids written in them, terrain and
hill levels as hex styles, streams, rivers and walls along their hexsides, each counter as a
flat GBoH counter (type and weapon, TQ less hits in the badge, a notch towards its facing,
tags for hits and markers) and each lone leader or Standard as a marker.

A 40×30 map is too big to read at a mail's width, so :func:`area_picture` draws a window
round the hexes where things happen (:func:`area_of_action`) and :func:`overview_picture`
the whole map at a glance. :func:`view_to_dict` writes a view as plain data for a public
view's ``board``; ``engine.cof.view.CofPicture`` draws such a board. Pure and
deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.cof.scenario.spec import CofScenario, HexsideSpec, MapSpec, TerrainSpec
from engine.cof.tables import bundled
from engine.core.hexlayout import HexLayout, offset_columns
from engine.core.picture import (
    Arrow,
    BattleMark,
    Counter,
    Edge,
    Label,
    Loss,
    Marker,
    Picture,
    SideBand,
    cells,
)
from engine.gboh.grid import SIDES, VERTICES, GHex

__all__ = [
    "MARKERS",
    "STYLES",
    "CofView",
    "LeaderView",
    "SideView",
    "UnitView",
    "area_of_action",
    "area_picture",
    "overview_picture",
    "view_from_dict",
    "view_of_scenario",
    "view_to_dict",
]

#: Marker key -> the tag a counter shows (cof.md §2.6).
MARKERS: Mapping[str, str] = {
    "moved": "Mv",
    "engaged": "Eng",
    "routed": "Rt",
    "rallied": "Ral",
    "missile_low": "Lo",
    "missile_no": "No",
    "column": "Col",
    "out_of_command": "OoC",
    "shock_no_check": "Sh",
    "shock_check": "Sh?",
}

#: Terrain kind -> the renderer's hex style (clear hexes at a level draw as hills).
STYLES: Mapping[str, str] = {
    "woods": "forest",
    "rough": "broken-ground",
    "marsh": "marsh",
    "city": "camp",
}
_EDGE_STYLES = {"stream": "stream", "minor_river": "river", "wall": "wall"}
_SHORT = {"CH2": "C2", "CH3": "C3", "BW": "BW", "BI": "BI", "HI": "HI", "LI": "LI", "RI": "RI",
          "SI": "SI"}  # fmt: skip
# Degrees clockwise from up: a vertex (normal facing) or a hexside (a unit in column).
_DEGREES = {**{v: (90.0 + 60.0 * i) % 360 for i, v in enumerate(VERTICES)},
            **{f"side:{s}": 60.0 * i for i, s in enumerate(SIDES)}}  # fmt: skip
_LEADER_LETTERS = {"OC": "O", "WC": "W", "hero": "H"}


@dataclass(frozen=True)
class UnitView:
    """A combat unit as the picture shows it.

    ``facing`` is a vertex (``E SE SW W NW NE``) or, for a unit in column, a hexside written
    ``side:N``; ``markers`` are keys of :data:`MARKERS`; ``runner`` is the id of the RI
    stacked with this CH2 (one counter is drawn for the pair).
    """

    id: str
    side: str
    hex: str
    type: str
    tq: int
    facing: str
    hits: int = 0
    missile: str | None = None
    markers: tuple[str, ...] = ()
    runner: str | None = None


@dataclass(frozen=True)
class LeaderView:
    """A leader: ``role`` ``OC``, ``WC`` or ``hero``; ``wounded`` adds a tag."""

    id: str
    side: str
    name: str
    hex: str
    role: str = "WC"
    wounded: bool = False


@dataclass(frozen=True)
class SideView:
    """A side's band: its name, army, Withdrawal Level and the points it has lost (cof.md §11)."""

    side: str
    name: str
    army: str
    withdrawal_level: int
    points: int = 0


@dataclass(frozen=True)
class CofView:
    """Everything the picture needs; ``moves`` are (side, hex path), ``combats`` are
    (attacker hex, target hex, ``ranged`` or ``close``, result text), ``losses`` (hex, side,
    label) of units eliminated this turn."""

    map: MapSpec
    sides: tuple[SideView, ...]
    units: tuple[UnitView, ...] = ()
    leaders: tuple[LeaderView, ...] = ()
    standards: Mapping[str, str] = field(default_factory=dict)
    moves: tuple[tuple[str, tuple[str, ...]], ...] = ()
    combats: tuple[tuple[str, str, str, str], ...] = ()
    losses: tuple[tuple[str, str, str], ...] = ()
    title: str = ""
    arriving: tuple[str, ...] = ()  # legend lines: the reinforcements still to come


def arrival_lines(entries: Iterable[tuple[str, str, int, str]], turn: int) -> tuple[str, ...]:
    """Legend lines for the reinforcements to come, from (army, wing, turn it arrives, hex)
    of each unit: ``Arriving next turn: Army of Ramesses II, wing nearin: 5 units at 0101,
    0201 (map edge).``"""
    groups: dict[tuple[int, str, str], list[str]] = {}
    for army, wing, when, h in entries:
        groups.setdefault((when, army, wing), []).append(h)
    out = []
    for (when, army, wing), hexes in sorted(groups.items()):
        n = len(hexes)
        at = ", ".join(sorted(set(hexes)))
        what = "next turn" if when == turn + 1 else f"on turn {when}"
        out.append(
            f"Arriving {what}: {army}, wing {wing}: {n} unit{'s' if n != 1 else ''} "
            f"at {at} (map edge)."
        )
    return tuple(out)


def view_of_scenario(s: CofScenario) -> CofView:
    """The view of a battle as set up: every unit fresh, the Standards where the file puts them."""
    runners = {c.stacked_with: c.id for c in s.counters if c.type == "RI" and c.stacked_with}
    units = tuple(
        UnitView(c.id, c.side, c.hex, c.type, c.tq, c.facing, 0, c.missile, (), runners.get(c.id))
        for c in s.counters
        if not (c.type == "RI" and c.stacked_with) and not c.arrives
    )
    leaders = tuple(
        LeaderView(ld.id, ld.side, ld.name, ld.hex, ld.role) for ld in s.leaders if not ld.arrives
    )
    names = bundled().armies
    sides = tuple(
        SideView(a.side, a.name, names[a.army].name if a.army in names else a.army,
                 a.withdrawal_level)
        for a in s.armies
    )  # fmt: skip
    standards = {a.side: a.standard_hex for a in s.armies if a.standard_hex}
    army = {a.side: a.name for a in s.armies}
    later = [(army[c.side], c.wing, c.arrives, c.hex) for c in s.counters if c.arrives]
    return CofView(
        s.map, sides, units, leaders, standards, title=s.title, arriving=arrival_lines(later, 1)
    )


# --- windows -------------------------------------------------------------------------------

Window = tuple[int, int, int, int]
"""First column, last column, first row, last row."""


def _clamp(m: MapSpec, lo: int, hi: int, first: int, last: int) -> tuple[int, int]:
    width = min(hi - lo, last - first)
    lo = max(first, min(lo, last - width))
    return lo, lo + width


def area_of_action(
    view: CofView, focus: Iterable[str] = (), *, margin: int = 2, most: tuple[int, int] = (15, 11)
) -> Window:
    """The window round ``focus`` (default: this turn's moves, combats and losses, else every
    unit), ``margin`` hexes wider each way, at most ``most`` (columns, rows) about its middle."""
    hexes = [GHex.parse(h) for h in focus]
    if not hexes:
        marked = [h for _, path in view.moves for h in path]
        marked += [h for a, t, _, _ in view.combats for h in (a, t)] + [lo[0] for lo in view.losses]
        hexes = [GHex.parse(h) for h in marked or [u.hex for u in view.units]]
    m = view.map
    if not hexes:
        return m.first_column, m.last_column, m.first_row, m.last_row
    c0, c1 = min(h.col for h in hexes) - margin, max(h.col for h in hexes) + margin
    r0, r1 = min(h.row for h in hexes) - margin, max(h.row for h in hexes) + margin
    if c1 - c0 + 1 > most[0]:
        mid = (c0 + c1) // 2
        c0, c1 = mid - most[0] // 2, mid - most[0] // 2 + most[0] - 1
    if r1 - r0 + 1 > most[1]:
        mid = (r0 + r1) // 2
        r0, r1 = mid - most[1] // 2, mid - most[1] // 2 + most[1] - 1
    c0, c1 = _clamp(m, c0, c1, m.first_column, m.last_column)
    r0, r1 = _clamp(m, r0, r1, m.first_row, m.last_row)
    return c0, c1, r0, r1


# --- the picture ---------------------------------------------------------------------------


def _layout(window: Window) -> HexLayout:
    c0, c1, r0, r1 = window
    hexes = [GHex(c, r) for c in range(c0, c1 + 1) for r in range(r0, r1 + 1)]
    return offset_columns(hexes, str, lambda h: (h.col, h.row), (c0, r0), (c1, r1))


def _terrain(m: MapSpec) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for t in m.terrain:
        style = STYLES.get(t.terrain, "clear")
        if style == "clear" and t.elevation > 0:
            style = "hill" if t.elevation == 1 else "steep-hill"
        kind = t.terrain if t.elevation == 0 else f"{t.terrain}, level {t.elevation}"
        out[t.hex] = (kind, style)
    return out


def _edges(m: MapSpec, layout: HexLayout) -> tuple[Edge, ...]:
    """Each hexside feature inside the window, along the side between its two corners."""
    inside = set(layout.ids())
    out: list[Edge] = []
    for hs in m.hexsides:
        if hs.hex not in inside:
            other = str(GHex.parse(hs.hex).neighbour(hs.side))
            if other not in inside:
                continue
            corners = layout.corners(other)
            i = (SIDES.index(hs.side) + 3) % 6
        else:
            corners = layout.corners(hs.hex)
            i = SIDES.index(hs.side)
        # Flat-top corners run clockwise from the top right: side N lies between corners 5 and 0.
        out.append(Edge(corners[(i + 5) % 6], corners[i], _EDGE_STYLES.get(hs.kind, hs.kind)))
    return tuple(out)


def _counter(u: UnitView, leaders: list[LeaderView]) -> Counter:
    label = f"{u.type}+RI" if u.runner else u.type
    if u.missile:
        label = f"{label} {u.missile}"
    tags = [f"{u.hits}h"] if u.hits else []
    tags += [MARKERS.get(k, k) for k in u.markers]
    short = "CR" if u.runner else _SHORT.get(u.type, u.type[:2])
    return Counter(
        hex=u.hex,
        side=u.side,
        label=label,
        count=max(u.tq - u.hits, 0),
        full=u.tq,
        short=short,
        note=", ".join(ld.name for ld in leaders),
        facing=_DEGREES.get(u.facing),
        stack=False,
        tags=tuple(tags),
    )


def _legend(view: CofView) -> tuple[str, ...]:
    used = sorted({k for u in view.units for k in u.markers})
    marks = ", ".join(f"{MARKERS.get(k, k)} {k.replace('_', ' ')}" for k in used)
    out = [
        "Counters: type and missile weapon; badge = TQ less cohesion hits (amber once hit);"
        " the wedge points to the facing vertex; 2h = two cohesion hits.",
        "Markers: O/W/H overall commander, wing commander, hero; S a Standard.",
    ]
    if marks:
        out.append(f"Tags: {marks}.")
    return (*out, *view.arriving)


def _build(view: CofView, window: Window, viewer: str | None, detail: bool) -> Picture:
    layout = _layout(window)
    inside = set(layout.ids())
    hexes = cells(layout, {h: v for h, v in _terrain(view.map).items() if h in inside})
    by_hex: dict[str, list[LeaderView]] = {}
    for ld in view.leaders:
        by_hex.setdefault(ld.hex, []).append(ld)
    units = {u.hex for u in view.units}
    counters = tuple(_counter(u, by_hex.get(u.hex, [])) for u in view.units if u.hex in inside)
    markers = [
        Marker(ld.hex, ld.side, ld.name + (" (wounded)" if ld.wounded else ""),
               _LEADER_LETTERS.get(ld.role, "L"))
        for ld in view.leaders
        if ld.hex in inside and ld.hex not in units
    ]  # fmt: skip
    taken = {m.hex for m in markers} | units
    markers += [
        Marker(h, side, "Standard", "S")
        for side, h in sorted(view.standards.items())
        if h in inside and h not in taken
    ]
    sides = tuple(
        SideBand(s.side, s.name, s.army, score=s.points, goal=s.withdrawal_level,
                 score_word="withdrawal points", flags=False)
        for s in view.sides
    )  # fmt: skip
    names = [s.side for s in view.sides]
    bottom = viewer if viewer in names else names[-1]
    top = next((n for n in names if n != bottom), bottom)
    c0, c1, r0, r1 = window
    where = f"columns {c0:02d}-{c1:02d}, rows {r0:02d}-{r1:02d}"
    title = f"{view.title}: {where}" if view.title else where
    return Picture(
        size=layout.size,
        hexes=hexes,
        sides=sides,
        top=top,
        bottom=bottom,
        counters=counters,
        markers=tuple(markers),
        arrows=tuple(Arrow(side, path) for side, path in view.moves
                     if detail and all(h in inside for h in path)),
        battles=tuple(BattleMark(a, t, kind, res) for a, t, kind, res in view.combats
                      if detail and a in inside and t in inside),
        losses=tuple(Loss(h, side, label) for h, side, label in view.losses if h in inside),
        legend=_legend(view),
        title=title,
        viewer=viewer or "",
        edges=_edges(view.map, layout),
        hex_ids=detail,
        columns=_column_labels(layout, window) if not detail else (),
    )  # fmt: skip


def _column_labels(layout: HexLayout, window: Window) -> tuple[Label, ...]:
    """Every fifth column's number over the overview (its hexes carry no ids)."""
    c0, c1, r0, _ = window
    return tuple(
        Label(layout.centre(str(GHex(c, r0))), f"{c:02d}")
        for c in range(c0, c1 + 1)
        if c % 5 == 0 or c == c0
    )


def area_picture(view: CofView, focus: Iterable[str] = (), viewer: str | None = None) -> Picture:
    """The area of action (:func:`area_of_action`) with hex ids, moves and combats drawn."""
    return _build(view, area_of_action(view, focus), viewer, detail=True)


def overview_picture(view: CofView, viewer: str | None = None) -> Picture:
    """The whole map: terrain, hexsides and every counter, without hex ids or arrows."""
    m = view.map
    return _build(view, (m.first_column, m.last_column, m.first_row, m.last_row), viewer, False)


# --- the view as plain data (a public view's ``board``) ------------------------------------


def view_to_dict(view: CofView) -> dict[str, Any]:
    """The view as JSON-ready data: what a public view carries as its ``board``."""
    return {
        "map": asdict(view.map),
        "sides": [asdict(s) for s in view.sides],
        "units": [asdict(u) for u in view.units],
        "leaders": [asdict(ld) for ld in view.leaders],
        "standards": dict(view.standards),
        "moves": [[side, list(path)] for side, path in view.moves],
        "combats": [list(c) for c in view.combats],
        "losses": [list(lo) for lo in view.losses],
        "title": view.title,
        "arriving": list(view.arriving),
    }


def view_from_dict(data: Mapping[str, Any]) -> CofView:
    """The view of :func:`view_to_dict`'s data (``KeyError`` / ``TypeError`` if malformed)."""
    m = data["map"]
    spec = MapSpec(
        m["first_column"], m["last_column"], m["first_row"], m["last_row"],
        tuple(TerrainSpec(**t) for t in m.get("terrain", ())),
        tuple(HexsideSpec(**h) for h in m.get("hexsides", ())),
    )  # fmt: skip
    units = tuple(
        UnitView(**{**u, "markers": tuple(u.get("markers", ()))}) for u in data.get("units", ())
    )
    return CofView(
        map=spec,
        sides=tuple(SideView(**s) for s in data.get("sides", ())),
        units=units,
        leaders=tuple(LeaderView(**ld) for ld in data.get("leaders", ())),
        standards=dict(data.get("standards", {})),
        moves=tuple((str(side), tuple(path)) for side, path in data.get("moves", ())),
        combats=tuple((str(a), str(t), str(k), str(r)) for a, t, k, r in data.get("combats", ())),
        losses=tuple((str(h), str(s), str(lb)) for h, s, lb in data.get("losses", ())),
        title=str(data.get("title", "")),
        arriving=tuple(str(x) for x in data.get("arriving", ())),
    )


def arriving_of(view: Mapping[str, Any]) -> tuple[str, ...]:
    """The arrival legend of a cof ``public_view``: its units with status ``arriving``."""
    seats = view.get("sides", {})
    later = [
        (str(seats.get(u["side"], {}).get("army", u["side"])), str(u["wing"]),
         int(u.get("arrives", 0)), str(u["hex"]))
        for u in view.get("units", ())
        if u.get("status") == "arriving"
    ]  # fmt: skip
    return arrival_lines(later, int(view.get("turn", 1)))
