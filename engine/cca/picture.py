"""The Ancients picture builder: a public view and a turn's events become a neutral Picture.

pbem draws :class:`engine.core.picture.Picture` without knowing C&C: this
module says how each unit type looks (symbol shape and colour by weight, a
white ring for bordered units, cca.md §1.4-§1.5), what the board's
coordinates and flanks are called, and what last turn's events drew on the
board: moves and retreats (arrows from where each unit started), ranged and
close combats (marks on attacker and target, placed where the units stood
when they fought) and eliminations.

Each player sees the board from his own edge: North's picture is turned
round, and the flanks are named as the viewer calls them (cca.md §1.2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.cca.tables import BUNDLED
from engine.cca.terrain import ALIASES
from engine.core.hexlayout import HexLayout, offset_rows
from engine.core.picture import (
    Arrow,
    BattleMark,
    Counter,
    Label,
    Loss,
    Marker,
    Picture,
    SideBand,
    cells,
    half_turn,
)
from engine.hexgrid import Board, Hex

__all__ = ["NORTH", "SOUTH", "PictureBuilder", "board_grid", "build_picture"]

NORTH, SOUTH = "north", "south"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

_SHAPE = {"light": "circle", "medium": "triangle", "heavy": "square"}
_SHAPE_COLOUR = {"light": "green", "medium": "blue", "heavy": "red"}
_SHORT = {"CCAM": "CCM"}  # every unit token fits a 4-character text cell
_STYLES = frozenset(
    {
        "hill",
        "steep-hill",
        "forest",
        "broken-ground",
        "river",
        "fordable-river",
        "lake",
        "camp",
        "ramparts",
        "marsh",
        "city-wall",
    }
)

_MOVES = {"move", "retreat", "advance", "extra-hex", "evade-move"}
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


def _terrain(name: str) -> tuple[str, str]:
    n = name.strip().lower().replace("_", "-").replace(" ", "-")
    n = ALIASES.get(n, n)
    return n, (n if n in _STYLES else "clear")


def _on(grid: CCGrid, name: str) -> str | None:
    try:
        return grid.parse(name)
    except ValueError:
        return None


def _counter(u: Mapping[str, Any], grid: CCGrid, leader: str) -> Counter:
    code = str(u["type"]).upper()
    spec = BUNDLED.units.get(code)  # a symbol and a strength to draw: the bundled row
    weight = spec.weight if spec else ""
    full = int(u.get("full", spec.blocks if spec else u.get("blocks", 1)))
    return Counter(
        hex=grid.parse(str(u["hex"])),
        side=str(u["side"]),
        label=code,
        count=int(u.get("blocks", full)),
        full=full,
        short=_SHORT.get(code, code),
        symbol=_SHAPE.get(weight, ""),
        symbol_colour=_SHAPE_COLOUR.get(weight, "grey"),
        ring=bool(spec and spec.border),
        note=leader,
    )


def _band(side: str, v: Mapping[str, Any]) -> SideBand:
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


def _last_turn(
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
            hexes = [_on(grid, h) if _HEX.fullmatch(h) else None for h in p]
            if side in (NORTH, SOUTH) and all(hexes):
                arrows.append(Arrow(side, tuple(h for h in hexes if h), _arrow_kind(kind)))
            if unit is not None:
                pos[unit] = p[-1]
        elif kind in _RANGED | _CLOSE and unit is not None and data.get("target") is not None:
            a, t = _on(grid, pos.get(unit, "")), _on(grid, pos.get(str(data["target"]), ""))
            if a and t:
                ranged = kind in _RANGED
                battles.append(BattleMark(a, t, "ranged" if ranged else "close", _result(data)))
        elif kind == "eliminated" and unit is not None and (h := _on(grid, str(data.get("hex")))):
            # "north LI in J4 is eliminated": the unit has left the view, its words remain.
            words = [*str(ev.get("text", "")).split(), "", ""]
            side, code = units.get(unit, (words[0].lower(), words[1] or "?"))
            losses.append(Loss(h, side, code))
    return arrows, battles, losses


def _arrow_kind(kind: str) -> str:
    return "retreat" if kind in ("retreat", "evade-move") else "move"


def _sections(p: Picture, grid: CCGrid) -> tuple[Label, ...]:
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


def _legend(p: Picture, viewer: str) -> tuple[str, ...]:
    who = viewer.capitalize() if viewer in (NORTH, SOUTH) else "South"
    out = [
        "Units: type and blocks left, e.g. HI4 = heavy infantry with 4 blocks."
        f" Flanks as {who} sees them."
    ]
    if any(c.label in _SHORT for c in p.counters):
        out.append("CCM = CCAM (cataphracted camels).")
    return tuple(out)


def build_picture(
    view: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]] = (),
    viewer: str | None = None,
) -> Picture:
    """The picture of a ``public_view`` dict, with last turn's ``events`` (``Event.to_dict()``).

    ``viewer`` (``north``/``south``) turns the board so that his baseline is
    at the bottom; without one the board is drawn as South sees it. Raises
    ``ValueError`` when the dict is not a board (bad hexes or sides).
    """
    try:
        b = view.get("board") or {}
        lines = b.get("section_lines")
        grid = board_grid(
            int(b.get("wide", 13)),
            int(b.get("deep", 9)),
            tuple(int(x) for x in lines) if lines and len(lines) == 2 else None,
        )
        terrain = {
            grid.parse(str(h)): _terrain(str(t)) for h, t in (view.get("terrain") or {}).items()
        }
        leaders_at: dict[tuple[str, str], str] = {}
        lone: list[Marker] = []
        unit_hex = {
            (grid.parse(str(u["hex"])), str(u["side"])) for u in view.get("units", []) or []
        }
        for ld in view.get("leaders", []) or []:
            if ld.get("hex") in (None, "None"):
                continue
            h, side = grid.parse(str(ld["hex"])), _side(ld["side"])
            if (h, side) in unit_hex and (h, side) not in leaders_at:
                leaders_at[(h, side)] = str(ld["name"])
            else:
                lone.append(Marker(h, side, str(ld["name"])))
        counters: list[Counter] = []
        final: dict[str, str] = {}
        kinds: dict[str, tuple[str, str]] = {}
        seen: set[str] = set()
        for u in view.get("units", []) or []:
            side = _side(u["side"])
            c = _counter(
                {**u, "side": side}, grid, leaders_at.get((grid.parse(str(u["hex"])), side), "")
            )
            if c.hex in seen:
                raise ValueError(f"two units in {c.hex}")
            seen.add(c.hex)
            counters.append(c)
            final[str(u.get("id"))] = c.hex
            kinds[str(u.get("id"))] = (side, c.label)
        kinds.update(
            {f"leader:{ld['name']}": (str(ld["side"]), "") for ld in view.get("leaders", []) or []}
        )
        sides = view.get("sides") or {}
        bands = tuple(_band(s, sides.get(s) or {}) for s in (NORTH, SOUTH))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a public view: {exc}") from exc
    arrows, battles, losses = _last_turn(list(events), final, kinds, grid)
    order = {h: i for i, h in enumerate(_reading_order(grid))}
    board = grid.board
    pic = Picture(
        size=grid.size,
        hexes=cells(grid.layout, terrain),
        sides=bands,
        top=NORTH,
        bottom=SOUTH,
        columns=tuple(Label((grid.column_x(2 * c), 0.0), _LETTERS[c]) for c in range(board.wide)),
        rows=tuple(Label((0.0, grid.row_y(r)), str(r)) for r in range(1, board.deep + 1)),
        lines=tuple(
            ((grid.column_x(x), 0.0), (grid.column_x(x), grid.size[1])) for x in board.section_lines
        ),
        counters=tuple(sorted(counters, key=lambda c: order[c.hex])),
        markers=tuple(sorted(lone, key=lambda m: order[m.hex])),
        arrows=tuple(arrows),
        battles=tuple(battles),
        losses=tuple(losses),
        title=str(view.get("name", "")),
        viewer=viewer or "",
    )
    if viewer == NORTH:
        pic = half_turn(pic)
    return _finish(pic, grid, viewer or SOUTH)


def _finish(pic: Picture, grid: CCGrid, viewer: str) -> Picture:
    from dataclasses import replace  # noqa: PLC0415

    pic = replace(pic, sections=_sections(pic, grid))
    return replace(pic, legend=_legend(pic, viewer))


def _side(side: object) -> str:
    s = str(side).strip().lower()
    if s not in (NORTH, SOUTH):
        raise ValueError(f"{side!r} is not a side (north or south)")
    return s


@lru_cache(maxsize=8)
def _reading_order(grid: CCGrid) -> tuple[str, ...]:
    return tuple(str(h) for h in sorted(grid.board, key=lambda h: (h.y, h.x)))


class PictureBuilder:
    """C&C Ancients' ``picture`` capability (:class:`engine.core.capabilities.PictureBuilder`)."""

    def picture(
        self,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        viewer: str | None = None,
    ) -> Picture:
        """See :func:`build_picture`."""
        return build_picture(view, events, viewer)
