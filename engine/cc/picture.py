"""What every C&C picture builder shares: the board grid, side bands and last turn's marks.

The Ancients (:mod:`engine.cca.picture`) and Napoleonics (:mod:`engine.ccn.picture`)
builders differ in how a unit looks; the board is the same 13 x 9 grid with two section
lines, a side band reads the same ``sides`` entry of a public view, and last turn's events
(moves and retreats as arrows from where each unit started, ranged and close combats as
marks on attacker and target placed where they stood when they fought, eliminations as
crosses) are read the same way. :func:`frame` assembles the :class:`Picture`: sorted
counters and markers, coordinates, section lines, flank names as the viewer calls them,
North's picture turned round. A system says how it looks with a :class:`Look`;
:func:`build` reads a public view with it and :class:`LookBuilder` is the ``picture``
capability over it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from engine.core.hexlayout import HexLayout, offset_rows
from engine.core.picture import (
    Arrow,
    BattleMark,
    Counter,
    Edge,
    HexCell,
    Label,
    Loss,
    Marker,
    Picture,
    SideBand,
    cells,
    half_turn,
    hexside,
)
from engine.hexgrid import Board, Hex

__all__ = [
    "NORTH",
    "SOUTH",
    "CCGrid",
    "Look",
    "LookBuilder",
    "band",
    "board_grid",
    "build",
    "frame",
    "grid_of",
    "last_turn",
    "on_board",
    "place_leaders",
    "side_of",
]

NORTH, SOUTH = "north", "south"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# Moves drawn as arrows: Ancients' and Napoleonics' kinds (take ground, retire and reform).
_MOVES = {"move", "retreat", "advance", "extra-hex", "evade-move", "take-ground", "retire"}
_BACKWARDS = {"retreat", "evade-move", "retire"}
_RANGED = {"fire"}
_CLOSE = {"battle", "battle-back"}
_HEX = re.compile(r"[A-Za-z]\d{1,2}")
_CHAIN = re.compile(r"\b([A-Za-z]\d{1,2})((?:\s*>\s*[A-Za-z]\d{1,2})+)")


@dataclass(frozen=True)
class CCGrid:
    """A C&C board (the rules' grid) with its pointy-top layout for drawing."""

    board: Board
    layout: HexLayout

    def parse(self, text: str) -> str:
        """The canonical name of a hex (raises ``ValueError`` off the board)."""
        return str(self.board.parse(text))

    @property
    def size(self) -> tuple[float, float]:
        return self.layout.size

    def column_x(self, x: int) -> float:
        """The x of doubled column ``x`` (column letters, section lines)."""
        return self.layout.centre(str(Hex(x, x % 2)))[0]

    def row_y(self, row: int) -> float:
        """The y of the centres of 1-based ``row``."""
        return self.layout.centre(str(Hex.from_offset(0, row)))[1]


@lru_cache(maxsize=8)
def board_grid(wide: int = 13, deep: int = 9, lines: tuple[int, int] | None = None) -> CCGrid:
    """The (cached) grid of a C&C board; section lines through columns E and I by default."""
    if lines is None:
        third = (wide - 1) // 3
        lines = (8, 16) if wide == 13 else (2 * third, 2 * (wide - 1 - third))
    board = Board(wide=wide, deep=deep, section_lines=lines)
    return CCGrid(board, offset_rows(board, str, lambda h: (h.x, h.y), wide, deep))


def grid_of(view: Mapping[str, Any]) -> CCGrid:
    """The grid of a public view's ``board`` entry (the standard board without one)."""
    b = view.get("board") or {}
    lines = b.get("section_lines")
    return board_grid(
        int(b.get("wide", 13)),
        int(b.get("deep", 9)),
        tuple(int(x) for x in lines) if lines and len(lines) == 2 else None,
    )


def on_board(grid: CCGrid, name: str) -> str | None:
    """The canonical hex name, or None off the board."""
    try:
        return grid.parse(name)
    except ValueError:
        return None


def side_of(side: object) -> str:
    """``north`` or ``south`` (``ValueError`` otherwise)."""
    s = str(side).strip().lower()
    if s not in (NORTH, SOUTH):
        raise ValueError(f"{side!r} is not a side (north or south)")
    return s


def band(side: str, v: Mapping[str, Any]) -> SideBand:
    """A side's band from its entry in a public view's ``sides``."""
    return SideBand(
        side,
        side.capitalize(),
        str(v.get("army", side.capitalize())),
        str(v.get("colour", "")),
        int(v.get("banners", 0)),
        int(v.get("banners_needed", 0)),
    )


def _path(ev: Mapping[str, Any]) -> tuple[str, ...]:
    data = ev.get("data") or {}
    path = data.get("path")
    if isinstance(path, list) and len(path) >= 2:
        return tuple(str(p) for p in path)
    m = _CHAIN.search(str(ev.get("text", "")))
    if not m:
        return ()
    return (m.group(1), *re.findall(r"[A-Za-z]\d{1,2}", m.group(2)))


def _result(data: Mapping[str, Any]) -> str:
    hits = int(data.get("hits", 0) or 0)
    flags = int(data.get("flags", 0) or 0)
    parts = [f"-{hits}"] if hits else []
    if flags:
        parts.append(f"{flags}F" if flags > 1 else "F")
    return " ".join(parts) or "0"


def _arrow_kind(kind: str) -> str:
    return "retreat" if kind in _BACKWARDS else "move"


def _lost_code(text: str) -> str:
    """The unit code in an elimination's text: the word before ' in HEX' (``north LI in J4``,
    ``north FR LN in J4``), else the second word."""
    words = [*text.split(), "", ""]
    before = text.split(" in ", 1)[0].split() if " in " in text else []
    return (before[-1] if len(before) >= 2 else words[1]) or "?"


def last_turn(
    events: list[Mapping[str, Any]],
    final: dict[str, str],
    units: dict[str, tuple[str, str]],
    grid: CCGrid,
) -> tuple[list[Arrow], list[BattleMark], list[Loss]]:
    """Arrows, battle marks and losses of ``events``; ``units`` maps an id to (side, type)."""
    pos = dict(final)
    # Walk back: before each move a unit stood at the path's first hex.
    for ev in reversed(events):
        data = ev.get("data") or {}
        unit = data.get("unit")
        if unit is None:
            continue
        if ev.get("kind") == "eliminated" and data.get("hex"):
            pos[str(unit)] = str(data["hex"])
        elif ev.get("kind") in _MOVES and (p := _path(ev)):
            pos[str(unit)] = p[0]
    arrows: list[Arrow] = []
    battles: list[BattleMark] = []
    losses: list[Loss] = []
    for ev in events:
        kind = str(ev.get("kind", ""))
        data = ev.get("data") or {}
        unit = str(data.get("unit")) if data.get("unit") is not None else None
        if kind in _MOVES | {"leader-evade"} and (p := _path(ev)):
            # Side: the unit's (or leader's), else the event text's first word.
            said = str(ev.get("text", "")).split(" ", 1)[0].lower()
            who = unit if unit is not None else f"leader:{data.get('leader')}"
            side = units.get(who, (said, ""))[0]
            hexes = [on_board(grid, h) if _HEX.fullmatch(h) else None for h in p]
            if side in (NORTH, SOUTH) and all(hexes):
                arrows.append(Arrow(side, tuple(h for h in hexes if h), _arrow_kind(kind)))
            if unit is not None:
                pos[unit] = p[-1]
        elif kind in _RANGED | _CLOSE and unit is not None and data.get("target") is not None:
            a = on_board(grid, pos.get(unit, ""))
            t = on_board(grid, pos.get(str(data["target"]), ""))
            if a and t:
                ranged = kind in _RANGED
                battles.append(BattleMark(a, t, "ranged" if ranged else "close", _result(data)))
        elif (
            kind == "eliminated"
            and unit is not None
            and (h := on_board(grid, str(data.get("hex"))))
        ):
            # "north LI in J4 is eliminated": the unit has left the view, its words remain.
            text = str(ev.get("text", ""))
            said = (text.split() or [""])[0].lower()
            side, code = units.get(unit, (said, _lost_code(text)))
            losses.append(Loss(h, side, code))
    return arrows, battles, losses


def _sections(p: Picture) -> tuple[Label, ...]:
    """Flank names between the section lines, as the viewer calls them."""
    xs = sorted(a[0] for a, _ in p.lines)
    if len(xs) != 2:
        return ()
    lo, hi = xs
    y = p.size[1]
    return (
        Label((lo / 2, y), "left flank"),
        Label(((lo + hi) / 2, y), "centre"),
        Label(((hi + p.size[0]) / 2, y), "right flank"),
    )


@lru_cache(maxsize=8)
def _reading_order(grid: CCGrid) -> dict[str, int]:
    hexes = sorted(grid.board, key=lambda h: (h.y, h.x))
    return {str(h): i for i, h in enumerate(hexes)}


def frame(
    grid: CCGrid,
    hexes: tuple[HexCell, ...] | Mapping[str, tuple[str, str]],
    *,
    bands: tuple[SideBand, ...],
    counters: Sequence[Counter],
    markers: Sequence[Marker],
    marks: tuple[list[Arrow], list[BattleMark], list[Loss]],
    title: str,
    viewer: str | None,
    legend: Callable[[Picture, str], tuple[str, ...]],
    fortified: Mapping[str, Sequence[str]] | None = None,
) -> Picture:
    """The picture: ``hexes`` (cells, or hex -> (terrain, style)), counters in reading order,
    last turn's ``marks``, turned round for North; ``legend`` writes the legend lines;
    ``fortified`` (hex -> neighbours across its fortified hexsides) becomes ``fortified``
    edges."""
    order = _reading_order(grid)
    board = grid.board
    arrows, battles, losses = marks
    cells_ = hexes if isinstance(hexes, tuple) else cells(grid.layout, dict(hexes))
    pic = Picture(
        size=grid.size,
        hexes=cells_,
        edges=_fortified(cells_, fortified or {}),
        sides=bands,
        top=NORTH,
        bottom=SOUTH,
        columns=tuple(Label((grid.column_x(2 * c), 0.0), _LETTERS[c]) for c in range(board.wide)),
        rows=tuple(Label((0.0, grid.row_y(r)), str(r)) for r in range(1, board.deep + 1)),
        lines=tuple(
            ((grid.column_x(x), 0.0), (grid.column_x(x), grid.size[1])) for x in board.section_lines
        ),
        counters=tuple(sorted(counters, key=lambda c: order[c.hex])),
        markers=tuple(sorted(markers, key=lambda m: order[m.hex])),
        arrows=tuple(arrows),
        battles=tuple(battles),
        losses=tuple(losses),
        title=title,
        viewer=viewer or "",
    )
    if viewer == NORTH:
        pic = half_turn(pic)
    pic = replace(pic, sections=_sections(pic))
    return replace(pic, legend=legend(pic, viewer or SOUTH))


def _fortified(
    hexes: tuple[HexCell, ...], fortified: Mapping[str, Sequence[str]]
) -> tuple[Edge, ...]:
    """The fortified hexsides as ``fortified`` edges, in hex then neighbour order (touching
    pairs only)."""
    index = {h.id: h for h in hexes}
    out = []
    for h in sorted(fortified):
        for n in fortified[h]:
            side = hexside(index[h], index[n]) if h in index and n in index else None
            if side is not None:
                out.append(Edge(*side, "fortified"))
    return tuple(out)


def place_leaders(
    grid: CCGrid, leaders: Iterable[Mapping[str, Any]], unit_hexes: set[tuple[str, str]]
) -> tuple[dict[tuple[str, str], str], list[Marker]]:
    """Leaders of a view: the first per friendly unit hex is attached, the rest are markers."""
    attached: dict[tuple[str, str], str] = {}
    lone: list[Marker] = []
    for ld in leaders:
        if ld.get("hex") in (None, "None"):
            continue
        h, side = grid.parse(str(ld["hex"])), side_of(ld["side"])
        if (h, side) in unit_hexes and (h, side) not in attached:
            attached[(h, side)] = str(ld["name"])
        else:
            lone.append(Marker(h, side, str(ld["name"])))
    return attached, lone


@dataclass(frozen=True)
class Look:
    """How one C&C system draws: terrain style, a unit's counter, a side band, the legend.

    ``terrain(code)`` gives (terrain kind, renderer style); ``counter(unit, side, hex,
    leader)`` the counter of a view's unit entry (``leader``: the attached leader's name or
    ``""``); ``band(side, entry)`` the band of a view's ``sides`` entry; ``legend(view)`` the
    function that writes the legend lines of the finished picture for its viewer.
    """

    terrain: Callable[[str], tuple[str, str]]
    counter: Callable[[Mapping[str, Any], str, str, str], Counter]
    band: Callable[[str, Mapping[str, Any]], SideBand]
    legend: Callable[[Mapping[str, Any]], Callable[[Picture, str], tuple[str, ...]]]


def build(
    look: Look,
    view: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]] = (),
    viewer: str | None = None,
) -> Picture:
    """The picture of a C&C ``public_view`` dict, with last turn's ``events``.

    ``viewer`` (``north``/``south``) turns the board so that his baseline is at the bottom;
    without one the board is drawn as South sees it. Raises ``ValueError`` when the dict is
    not a board (bad hexes or sides, two units in a hex).
    """
    try:
        grid = grid_of(view)
        terrain = {
            grid.parse(str(h)): look.terrain(str(t)) for h, t in (view.get("terrain") or {}).items()
        }
        units = list(view.get("units", []) or [])
        unit_hex = {(grid.parse(str(u["hex"])), side_of(u["side"])) for u in units}
        attached, lone = place_leaders(grid, view.get("leaders", []) or [], unit_hex)
        counters: list[Counter] = []
        final: dict[str, str] = {}
        kinds: dict[str, tuple[str, str]] = {}
        for u in units:
            side = side_of(u["side"])
            h = grid.parse(str(u["hex"]))
            c = look.counter(u, side, h, attached.get((h, side), ""))
            if c.hex in final.values():
                raise ValueError(f"two units in {c.hex}")
            counters.append(c)
            final[str(u.get("id"))] = c.hex
            kinds[str(u.get("id"))] = (side, c.label)
        for ld in view.get("leaders", []) or []:
            kinds[f"leader:{ld['name']}"] = (str(ld["side"]), "")
        sides = view.get("sides") or {}
        bands = tuple(look.band(s, sides.get(s) or {}) for s in (NORTH, SOUTH))
        legend = look.legend(view)
        fortified = {
            grid.parse(str(h)): [grid.parse(str(n)) for n in ns]
            for h, ns in (view.get("fortified") or {}).items()
        }
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a public view: {exc}") from exc
    marks = last_turn(list(events), final, kinds, grid)
    return frame(
        grid,
        terrain,
        bands=bands,
        counters=counters,
        markers=lone,
        marks=marks,
        title=str(view.get("name", "")),
        viewer=viewer,
        legend=legend,
        fortified=fortified,
    )


class LookBuilder:
    """A system's ``picture`` capability (:class:`engine.core.capabilities.PictureBuilder`)."""

    def __init__(self, look: Look) -> None:
        self.look = look

    def picture(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Picture:
        """See :func:`build`."""
        return build(self.look, view, events, viewer)
