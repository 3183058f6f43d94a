"""Turn a BoardView into layers of primitives: a fixed base and a per-turn overlay.

The base (terrain, grid, section lines, coordinates) depends only on the
board size and terrain, so renderers cache it; the overlay (banners, moves,
units, leaders, battles) changes every turn.
"""

from __future__ import annotations

from functools import lru_cache

from engine.hexgrid import Board
from pbem.render.geometry import Layout, Pt, arrow_head, shorten
from pbem.render.prims import Circle, Layer, Line, Poly, Prim, Text
from pbem.render.terrain_art import GRID, terrain_prims
from pbem.render.units import look
from pbem.render.view import NORTH, SOUTH, BoardView, SideView, UnitView

__all__ = [
    "OVERLAY_COLOURS",
    "base_layers",
    "block_colours",
    "lone_leader_prims",
    "overlay_layers",
    "unit_prims",
]

INK = "#2b2b2b"
STICKER = "#efe6cf"
SYMBOL = {"light": "#2f9e44", "medium": "#2b63cc", "heavy": "#c92a2a", "unknown": "#7a7a7a"}
ARROW = {NORTH: "#8b1a1a", SOUTH: "#15408f"}
BATTLE = "#d9480f"
LEADER = "#e8b923"
_BLOCKS = {
    "grey": "#8f9399",
    "gray": "#8f9399",
    "brown": "#8b5a2b",
    "red": "#a33a2a",
    "blue": "#3c5fa0",
    "green": "#4f7a3a",
    "black": "#3a3a3a",
    "white": "#d8d8d8",
    "tan": "#c2a273",
}
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MARKER_FILL = "#fff3d6"
MARKER_INK = "#a61e0b"
PIP = "#f7f7f2"

OVERLAY_COLOURS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            INK,
            STICKER,
            BATTLE,
            LEADER,
            MARKER_FILL,
            MARKER_INK,
            PIP,
            "#ffffff",
            *SYMBOL.values(),
            *ARROW.values(),
            *_BLOCKS.values(),
        )
    )
)
"""Every colour the overlay draws with; the PNG palette keeps each one exactly."""


def _board(layout: Layout) -> Board:
    return BoardView(wide=layout.wide, deep=layout.deep).board


@lru_cache(maxsize=32)
def base_layers(layout: Layout, terrain: tuple[tuple[str, str], ...]) -> tuple[Layer, ...]:
    """Terrain, grid, section lines and coordinates for a board and terrain map."""
    board = _board(layout)
    tmap = dict(terrain)
    r = layout.r
    ter: list[Prim] = []
    grid: list[Prim] = []
    for h in board:
        ter += terrain_prims(layout, h, tmap.get(str(h), "clear"))
        grid.append(Poly(layout.corners(h), None, GRID, 0.035 * r))
    top, bottom = layout.board_top, layout.board_top + layout.board_h
    secs: list[Prim] = []
    for x in board.section_lines:
        px = layout.column_x(x)
        secs.append(Line(((px, top), (px, bottom)), INK, 0.06 * r, (0.28 * r, 0.18 * r)))
    labels: list[Prim] = []
    size = 0.34 * r
    for col in range(layout.wide):
        px = layout.column_x(2 * col)
        labels.append(Text((px, layout.top_letters_y), _LETTERS[col], size, INK, bold=True))
        labels.append(Text((px, layout.bottom_letters_y), _LETTERS[col], size, INK, bold=True))
    for row in range(1, layout.deep + 1):
        py = layout.row_y(row)
        labels.append(Text((layout.margin_x * 0.45, py), str(row), size, INK, bold=True))
        labels.append(
            Text((layout.width - layout.margin_x * 0.45, py), str(row), size, INK, bold=True)
        )
    return (
        Layer("terrain", tuple(ter)),
        Layer("grid", tuple(grid)),
        Layer("sections", tuple(secs)),
        Layer("coordinates", tuple(labels)),
    )


def block_colours(view: BoardView) -> dict[str, str]:
    """The block colour of each side; two sides never share one."""
    n = _BLOCKS.get(view.side(NORTH).colour.lower(), _BLOCKS["brown"])
    s = _BLOCKS.get(view.side(SOUTH).colour.lower(), _BLOCKS["grey"])
    if n == s:
        n, s = _BLOCKS["brown"], _BLOCKS["grey"]
    return {NORTH: n, SOUTH: s}


def overlay_layers(layout: Layout, view: BoardView, *, tokens: bool = True) -> tuple[Layer, ...]:
    """Banners, last turn's moves, units, leaders and battles.

    With ``tokens=False`` the units and leaders layers are left empty (the PNG
    renderer pastes cached sprites drawn by :func:`unit_prims` and
    :func:`lone_leader_prims` instead).
    """
    board = view.board
    colours = block_colours(view)

    def at(name: str) -> Pt:
        return layout.centre(board.parse(name))

    return (
        Layer("banners", tuple(_banners(layout, view, colours))),
        Layer(
            "moves",
            tuple(p for m in view.moves for p in _move(layout, [at(x) for x in m.path], m.side)),
        ),
        Layer(
            "units",
            tuple(
                p
                for u in (view.units if tokens else ())
                for p in unit_prims(layout, at(u.hex), u, colours[u.side])
            ),
        ),
        Layer(
            "leaders",
            tuple(
                p
                for ld in (view.leaders if tokens else ())
                for p in lone_leader_prims(layout, at(ld.hex), ld.name, colours[ld.side])
            ),
        ),
        Layer(
            "battles",
            tuple(
                p
                for b in view.battles
                for p in _battle(layout, at(b.attacker), at(b.target), b.kind, b.result)
            ),
        ),
    )


Box = tuple[float, float, float, float]


def _rect(box: Box, fill: str | None, stroke: str | None = None, w: float = 0.0) -> Poly:
    x0, y0, x1, y1 = box
    return Poly(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), fill, stroke, w)


def _banner_text(s: SideView) -> str:
    need = f" of {s.banners_needed}" if s.banners_needed else ""
    colour = f" ({s.colour})" if s.colour else ""
    return f"{s.side.capitalize()}: {s.army}{colour} - banners {s.banners}{need}"


def _banners(layout: Layout, view: BoardView, colours: dict[str, str]) -> list[Prim]:
    r = layout.r
    out: list[Prim] = []
    for side, y in ((NORTH, layout.top_band_y), (SOUTH, layout.bottom_band_y)):
        s = view.side(side)
        x = layout.margin_x
        out.append(_rect((x, y - 0.2 * r, x + 0.4 * r, y + 0.2 * r), colours[side], INK, 0.04 * r))
        out.append(Text((x + 0.55 * r, y), _banner_text(s), 0.34 * r, INK, "start", bold=True))
        # One small flag per banner won, right-aligned.
        for i in range(s.banners):
            fx = layout.width - layout.margin_x - (i + 1) * 0.45 * r
            out.append(Line(((fx, y + 0.28 * r), (fx, y - 0.28 * r)), INK, 0.05 * r))
            out.append(
                Poly(
                    ((fx, y - 0.28 * r), (fx + 0.32 * r, y - 0.17 * r), (fx, y - 0.06 * r)),
                    colours[side],
                    INK,
                    0.03 * r,
                )
            )
    return out


def _move(layout: Layout, pts: list[Pt], side: str) -> list[Prim]:
    if len(pts) < 2:
        return []
    r = layout.r
    end = shorten(pts[-2], pts[-1], 0.62 * r)
    line = (*pts[:-1], end)
    colour = ARROW.get(side, INK)
    head = arrow_head(pts[-2], end, 0.34 * r)
    return [
        Circle(pts[0], 0.11 * r, colour),
        Line(line, colour, 0.1 * r),
        Poly(head, colour),
    ]


def _symbol(c: Pt, r: float, weight: str, border: bool) -> list[Prim]:
    cx, cy = c
    s = 0.14 * r
    fill = SYMBOL.get(weight, SYMBOL["unknown"])
    out: list[Prim] = []
    shapes: list[tuple[float, str, float]] = [(1.0, INK, 0.0)]
    if border:
        # Dark rim, white border, then the coloured symbol (cca.md §1.4).
        shapes = [(1.55, INK, 0.0), (1.35, "#ffffff", 0.0), (1.0, INK, 0.0)]
    for k, colour, _ in shapes:
        out.append(_shape(cx, cy, s * k, weight, colour))
    out.append(_shape(cx, cy, s * 0.85, weight, fill))
    return out


def _shape(cx: float, cy: float, s: float, weight: str, fill: str) -> Prim:
    if weight == "light":
        return Circle((cx, cy), s, fill)
    if weight == "medium":
        return Poly(
            ((cx, cy - 1.2 * s), (cx + 1.15 * s, cy + 0.8 * s), (cx - 1.15 * s, cy + 0.8 * s)), fill
        )
    return Poly(((cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)), fill)


def _short(name: str, n: int = 10) -> str:
    return name if len(name) <= n else name[: n - 1] + "."


def unit_prims(layout: Layout, c: Pt, u: UnitView, colour: str) -> list[Prim]:
    """A unit's block centred on ``c``: symbol, type code, pips, attached leader."""
    r = layout.r
    cx, cy = c
    code, blocks, full, leader = u.code, u.blocks, u.max_blocks, u.leader
    lk = look(code)
    out: list[Prim] = [
        _rect((cx - 0.58 * r, cy - 0.56 * r, cx + 0.58 * r, cy + 0.5 * r), colour, INK, 0.05 * r),
        _rect((cx - 0.46 * r, cy - 0.47 * r, cx + 0.46 * r, cy + 0.25 * r), STICKER, INK, 0.02 * r),
    ]
    out += _symbol((cx, cy - 0.26 * r), r, lk.weight, lk.border)
    out.append(Text((cx, cy + 0.08 * r), code, 0.27 * r, INK, bold=True))
    n = max(full, blocks)
    step = 0.17 * r
    x0 = cx - step * (n - 1) / 2
    for i in range(n):
        px = x0 + i * step
        filled = i < blocks
        out.append(
            _rect(
                (px - 0.055 * r, cy + 0.31 * r, px + 0.055 * r, cy + 0.42 * r),
                PIP if filled else None,
                INK,
                0.025 * r,
            )
        )
    if leader:
        out += _leader_mark(layout, (cx + 0.5 * r, cy - 0.5 * r), 0.17 * r, colour)
        out.append(Text((cx, cy + 0.67 * r), _short(leader), 0.27 * r, INK, bold=True))
    return out


def _leader_mark(layout: Layout, c: Pt, rad: float, colour: str) -> list[Prim]:
    return [
        Circle(c, rad, LEADER, colour, layout.r * 0.06),
        Text(c, "L", rad * 1.2, INK, bold=True),
    ]


def lone_leader_prims(layout: Layout, c: Pt, name: str, colour: str) -> list[Prim]:
    """A leader alone in a hex, centred on ``c``, with its name."""
    r = layout.r
    out = _leader_mark(layout, (c[0], c[1] - 0.12 * r), 0.3 * r, colour)
    out.append(Text((c[0], c[1] + 0.45 * r), _short(name), 0.27 * r, INK, bold=True))
    return out


def _battle(layout: Layout, a: Pt, t: Pt, kind: str, result: str) -> list[Prim]:
    r = layout.r
    out: list[Prim] = []
    if kind == "ranged":
        start = shorten(t, a, 0.6 * r)
        end = shorten(a, t, 0.6 * r)
        out.append(Line((start, end), BATTLE, 0.07 * r, (0.2 * r, 0.14 * r)))
        m = shorten(a, t, 0.62 * r)
    else:
        m = ((a[0] + t[0]) / 2, (a[1] + t[1]) / 2)
    half = max(0.26 * r, 0.1 * r * len(result) + 0.08 * r)
    out.append(
        _rect(
            (m[0] - half, m[1] - 0.17 * r, m[0] + half, m[1] + 0.17 * r),
            MARKER_FILL,
            BATTLE,
            0.06 * r,
        )
    )
    out.append(Text(m, result, 0.26 * r, MARKER_INK, bold=True))
    return out
