"""Turn a Picture into layers of primitives: a fixed base and a per-turn overlay.

The base (terrain, grid, section lines, coordinates) depends only on the
picture's hexes and labels, so renderers cache it; the overlay (banners,
moves, units, leaders, battles, losses) changes every turn. Nothing here
knows a game system: counters are drawn from their shape and colour keys.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from engine.core.picture import Counter, Edge, HexCell, Label, Picture, SideBand
from pbem.render.geometry import Layout, Pt, arrow_head, shorten
from pbem.render.prims import Circle, Layer, Line, Poly, Prim, Text
from pbem.render.terrain_art import GRID, WALL, terrain_prims

__all__ = [
    "ARROW",
    "COUNT_SIZE",
    "OVERLAY_COLOURS",
    "SYMBOL",
    "Base",
    "base_layers",
    "base_of",
    "block_colours",
    "counter_colour",
    "flat_counter_prims",
    "lone_leader_prims",
    "overlay_layers",
    "unit_prims",
]

INK = "#2b2b2b"
STICKER = "#efe6cf"
SYMBOL = {"green": "#2f9e44", "blue": "#2b63cc", "red": "#c92a2a", "grey": "#7a7a7a"}
ARROW = {"north": "#8b1a1a", "south": "#15408f"}
_ARROWS = ("#8b1a1a", "#15408f", "#2f6b2f", "#6b2f6b")
BATTLE = "#d9480f"
LEADER = "#e8b923"
LOSS = "#c92a2a"
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
_DEFAULT_BLOCKS = ("#8b5a2b", "#8f9399", "#3c5fa0", "#4f7a3a")
MARKER_FILL = "#fff3d6"
MARKER_INK = "#a61e0b"
PIP = "#f7f7f2"
BADGE = "#ffffff"
BADGE_HURT = "#ffd8a8"

OVERLAY_COLOURS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            INK,
            STICKER,
            BATTLE,
            LEADER,
            LOSS,
            MARKER_FILL,
            MARKER_INK,
            PIP,
            BADGE,
            BADGE_HURT,
            *SYMBOL.values(),
            *_ARROWS,
            *_BLOCKS.values(),
        )
    )
)
"""Every colour the overlay draws with; the PNG palette keeps each one exactly."""


@dataclass(frozen=True)
class Base:
    """The unchanging part of a picture: hexes with terrain, coordinates, section lines,
    hexside features (fortified sides, streams, walls...) and (GBoH maps) each hex's id."""

    size: Pt
    hexes: tuple[HexCell, ...]
    columns: tuple[Label, ...]
    rows: tuple[Label, ...]
    lines: tuple[tuple[Pt, Pt], ...]
    edges: tuple[Edge, ...] = ()
    hex_ids: bool = False


def base_of(p: Picture) -> Base:
    return Base(p.size, p.hexes, p.columns, p.rows, p.lines, p.edges, p.hex_ids)


EDGE = {
    "stream": ("#3b82c4", 0.13),
    "river": ("#2a66a8", 0.22),
    "wall": ("#4a4038", 0.2),
    "fortified": (WALL, 0.13),
}
"""Hexside styles: colour and width in hex radii (an unknown style is a plain dark line)."""
UNDER_GRID = frozenset({"fortified"})
"""Hexside styles drawn with the terrain, under the hex grid (earthworks on the ground); the
others are drawn over the grid."""
HEX_ID = "#5f5f4f"


def _edge(layout: Layout, e: Edge) -> Prim:
    colour, width = EDGE.get(e.style, (INK, 0.1))
    return Line((layout.px(e.a), layout.px(e.b)), colour, width * layout.r)


@lru_cache(maxsize=32)
def base_layers(layout: Layout, base: Base) -> tuple[Layer, ...]:
    """Terrain, grid, section lines and coordinates of a picture's base."""
    r = layout.r
    ter: list[Prim] = []
    grid: list[Prim] = []
    for h in base.hexes:
        corners = layout.pts(h.corners)
        ter += terrain_prims(corners, layout.px(h.centre), r, h.style)
        grid.append(Poly(corners, None, GRID, 0.035 * r))
    ter += [_edge(layout, e) for e in base.edges if e.style in UNDER_GRID]
    secs: list[Prim] = []
    for a, b in base.lines:
        secs.append(Line((layout.px(a), layout.px(b)), INK, 0.06 * r, (0.28 * r, 0.18 * r)))
    labels: list[Prim] = []
    size = 0.34 * r
    for c in base.columns:
        px = layout.px(c.at)[0]
        labels.append(Text((px, layout.top_letters_y), c.text, size, INK, bold=True))
        labels.append(Text((px, layout.bottom_letters_y), c.text, size, INK, bold=True))
    for row in base.rows:
        py = layout.px(row.at)[1]
        labels.append(Text((layout.margin_x * 0.45, py), row.text, size, INK, bold=True))
        labels.append(
            Text((layout.width - layout.margin_x * 0.45, py), row.text, size, INK, bold=True)
        )
    if base.hex_ids:
        for h in base.hexes:
            cx, cy = layout.px(h.centre)
            labels.append(Text((cx, cy - 0.7 * r), h.id, 0.2 * r, HEX_ID))
    layers = [Layer("terrain", tuple(ter)), Layer("grid", tuple(grid))]
    over = tuple(_edge(layout, e) for e in base.edges if e.style not in UNDER_GRID)
    if over:
        layers.append(Layer("hexsides", over))
    return (*layers, Layer("sections", tuple(secs)), Layer("coordinates", tuple(labels)))


def block_colours(p: Picture) -> dict[str, str]:
    """The block colour of each side; two sides never share one."""
    out: dict[str, str] = {}
    for i, s in enumerate(p.sides):
        c = _BLOCKS.get(s.colour.lower(), _DEFAULT_BLOCKS[i % len(_DEFAULT_BLOCKS)])
        if c in out.values():
            c = next(x for x in _DEFAULT_BLOCKS if x not in out.values())
        out[s.side] = c
    return out


def counter_colour(u: Counter, colours: dict[str, str]) -> str:
    """The blocks' colour of ``u``: its own colour key if it has a known one, else its side's."""
    own = _BLOCKS.get(u.colour.lower()) if u.colour else None
    return own or colours.get(u.side, INK)


def arrow_colours(p: Picture) -> dict[str, str]:
    return {s.side: _ARROWS[i % len(_ARROWS)] for i, s in enumerate(p.sides)}


def overlay_layers(layout: Layout, p: Picture, *, tokens: bool = True) -> tuple[Layer, ...]:
    """Banners, losses, units, leaders, then last turn's moves and battles on top.

    With ``tokens=False`` the units and leaders layers are left empty (the PNG
    renderer pastes cached sprites drawn by :func:`unit_prims` and
    :func:`lone_leader_prims` instead).
    """
    colours = block_colours(p)
    arrows = arrow_colours(p)

    def at(name: str) -> Pt:
        return layout.px(p.centre(name))

    return (
        Layer("banners", tuple(_banners(layout, p, colours))),
        Layer("losses", tuple(x for lo in p.losses for x in _loss(layout, at(lo.hex), lo.label))),
        Layer(
            "units",
            tuple(
                x
                for u in (p.counters if tokens else ())
                for x in _unit_prims(layout, at(u.hex), u, counter_colour(u, colours))
            ),
        ),
        Layer(
            "leaders",
            tuple(
                x
                for ld in (p.markers if tokens else ())
                for x in lone_leader_prims(
                    layout, at(ld.hex), ld.name, colours.get(ld.side, INK), ld.letter
                )
            ),
        ),
        Layer(
            "moves",
            tuple(
                x
                for m in p.arrows
                for x in _move(layout, [at(h) for h in m.path], arrows.get(m.side, INK), m.kind)
            ),
        ),
        Layer(
            "battles",
            _battles(layout, p, at),
        ),
    )


def _battles(layout: Layout, p: Picture, at: Callable[[str], Pt]) -> tuple[Prim, ...]:
    """Every combat's rings and lines first, then every result box (no ring hides a result)."""
    marks: list[Prim] = []
    boxes: list[Prim] = []
    for b, k in zip(p.battles, _repeats(p), strict=True):
        ring, box = _battle(layout, at(b.attacker), at(b.target), b.kind, b.result, k=k)
        marks += ring
        boxes += box
    return (*marks, *boxes)


def _repeats(p: Picture) -> list[int]:
    """For each battle, how many earlier battles put a result box at the same hex or pair."""
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for b in p.battles:
        key = (b.target,) if b.kind == "ranged" else tuple(sorted((b.attacker, b.target)))
        out.append(seen.get(key, 0))
        seen[key] = out[-1] + 1
    return out


Box = tuple[float, float, float, float]


def _rect(box: Box, fill: str | None, stroke: str | None = None, w: float = 0.0) -> Poly:
    x0, y0, x1, y1 = box
    return Poly(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), fill, stroke, w)


def _banner_text(s: SideBand) -> str:
    need = f" of {s.goal}" if s.goal else ""
    colour = f" ({s.colour})" if s.colour else ""
    return f"{s.name}: {s.army}{colour} - {s.score_word} {s.score}{need}"


def _banners(layout: Layout, p: Picture, colours: dict[str, str]) -> list[Prim]:
    r = layout.r
    out: list[Prim] = []
    for side, y in ((p.top, layout.top_band_y), (p.bottom, layout.bottom_band_y)):
        s = p.side(side)
        colour = colours.get(side, INK)
        x = layout.margin_x
        out.append(_rect((x, y - 0.2 * r, x + 0.4 * r, y + 0.2 * r), colour, INK, 0.04 * r))
        out.append(Text((x + 0.55 * r, y), _banner_text(s), 0.34 * r, INK, "start", bold=True))
        # One small flag per banner won, right-aligned.
        for i in range(s.score if s.flags else 0):
            fx = layout.width - layout.margin_x - (i + 1) * 0.45 * r
            out.append(Line(((fx, y + 0.28 * r), (fx, y - 0.28 * r)), INK, 0.05 * r))
            out.append(
                Poly(
                    ((fx, y - 0.28 * r), (fx + 0.32 * r, y - 0.17 * r), (fx, y - 0.06 * r)),
                    colour,
                    INK,
                    0.03 * r,
                )
            )
    return out


def _move(layout: Layout, pts: list[Pt], colour: str, kind: str) -> list[Prim]:
    """An arrow from the hex a unit started in; a retreat is dashed with a white edge."""
    if len(pts) < 2:
        return []
    r = layout.r
    end = shorten(pts[-2], pts[-1], 0.62 * r)
    line = (*pts[:-1], end)
    head = arrow_head(pts[-2], end, 0.42 * r)
    if kind == "retreat":
        out: list[Prim] = [Circle(pts[0], 0.16 * r, "#ffffff", colour, 0.06 * r)]
        for a, b in itertools.pairwise(line):
            out.append(Line((a, b), "#ffffff", 0.2 * r))
            out.append(Line((a, b), colour, 0.1 * r, (0.22 * r, 0.12 * r)))
        return [*out, Poly(head, colour, "#ffffff", 0.04 * r)]
    return [
        Circle(pts[0], 0.16 * r, colour, "#ffffff", 0.05 * r),
        Line(line, "#ffffff", 0.22 * r),
        Line(line, colour, 0.13 * r),
        Poly(head, colour, "#ffffff", 0.04 * r),
    ]


def _shape(cx: float, cy: float, s: float, shape: str, fill: str) -> Prim:
    if shape == "circle":
        return Circle((cx, cy), s, fill)
    if shape == "triangle":
        return Poly(
            ((cx, cy - 1.2 * s), (cx + 1.15 * s, cy + 0.8 * s), (cx - 1.15 * s, cy + 0.8 * s)), fill
        )
    return Poly(((cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)), fill)


def _symbol(c: Pt, r: float, shape: str, colour: str, ring: bool) -> list[Prim]:
    if not shape:
        return []
    cx, cy = c
    s = 0.1 * r
    fill = SYMBOL.get(colour, SYMBOL["grey"])
    rims: list[tuple[float, str]] = [(1.0, INK)]
    if ring:
        # Dark rim, white border, then the coloured symbol.
        rims = [(1.55, INK), (1.35, "#ffffff"), (1.0, INK)]
    out = [_shape(cx, cy, s * k, shape, ink) for k, ink in rims]
    out.append(_shape(cx, cy, s * 0.85, shape, fill))
    return out


def _short(name: str, n: int = 10) -> str:
    return name if len(name) <= n else name[: n - 1] + "."


COUNT_SIZE = 0.5
"""Font size of a unit's printed count, in hex radii (the largest text on a counter)."""

_STEP = 0.085
"""How far each block of a unit stands behind the next (hex radii): a stack reads as strength."""


def unit_prims(layout: Layout, c: Pt, u: Counter, colour: str) -> list[Prim]:
    """A unit centred on ``c``: a stack of ``count`` blocks, its symbol, label and count.

    The stack shows strength at a glance (one block is a flat tile, four a
    tall pile); the count is printed large in a badge, white at full
    strength and amber when the unit has lost blocks.
    """
    return list(_unit_prims(layout, c, u, colour))


@lru_cache(maxsize=4096)
def _unit_prims(layout: Layout, c: Pt, u: Counter, colour: str) -> tuple[Prim, ...]:
    """:func:`unit_prims`, kept: most units stand where they stood last turn."""
    if not u.stack:
        return tuple(flat_counter_prims(layout, c, u, colour))
    r = layout.r
    n = max(1, min(u.count, 6))
    d = _STEP * r
    # The front block sits low-left so that the whole stack stays centred.
    fx, fy = c[0] - d * (n - 1) / 2, c[1] + d * (n - 1) / 2
    w, top, bottom = 0.5 * r, -0.5 * r, 0.44 * r
    out: list[Prim] = []
    for i in range(n - 1, 0, -1):
        ox, oy = fx + i * d, fy - i * d
        out.append(_rect((ox - w, oy + top, ox + w, oy + bottom), colour, INK, 0.045 * r))
    out.append(_rect((fx - w, fy + top, fx + w, fy + bottom), colour, INK, 0.05 * r))
    out.append(
        _rect((fx - 0.41 * r, fy - 0.43 * r, fx + 0.41 * r, fy + 0.15 * r), STICKER, INK, 0.02 * r)
    )
    out += _symbol((fx, fy - 0.31 * r), r, u.symbol, u.symbol_colour, u.ring)
    size = 0.3 * r if len(u.label) <= 3 else 0.23 * r
    out.append(Text((fx, fy - 0.04 * r), u.label, size, INK, bold=True))
    # Pips under the sticker: filled for blocks left, hollow for blocks lost.
    full = max(u.full, u.count)
    step = 0.12 * r
    x0 = fx - 0.36 * r
    for i in range(min(full, 6)):
        px = x0 + i * step
        out.append(
            _rect(
                (px - 0.04 * r, fy + 0.22 * r, px + 0.04 * r, fy + 0.34 * r),
                PIP if i < u.count else None,
                INK,
                0.02 * r,
            )
        )
    badge = (fx + 0.4 * r, fy + 0.3 * r)
    hurt = u.count < u.full
    out.append(Circle(badge, 0.31 * r, BADGE_HURT if hurt else BADGE, INK, 0.05 * r))
    out.append(Text(badge, str(u.count), COUNT_SIZE * r, INK, bold=True))
    if u.note:
        out += _leader_mark(layout, (fx - 0.45 * r, fy - 0.47 * r), 0.17 * r, colour, "L")
        out.append(Text((c[0], c[1] + 0.7 * r), _short(u.note), 0.27 * r, INK, bold=True))
    return tuple(out)


def flat_counter_prims(layout: Layout, c: Pt, u: Counter, colour: str) -> list[Prim]:
    """A GBoH counter centred on ``c``: one tile with its label, its count in a badge
    (amber when below ``full``), a wedge towards its facing, its marker tags in a strip
    under the tile and an attached leader's name below that."""
    r = layout.r
    fx, fy = c
    out: list[Prim] = []
    if u.facing is not None:
        out += _facing_notch(c, r, u.facing)
    out.append(
        _rect((fx - 0.5 * r, fy - 0.45 * r, fx + 0.5 * r, fy + 0.33 * r), colour, INK, 0.05 * r)
    )
    out.append(
        _rect((fx - 0.44 * r, fy - 0.4 * r, fx + 0.44 * r, fy + 0.0 * r), STICKER, INK, 0.02 * r)
    )
    size = (0.3 if len(u.label) <= 3 else 0.22 if len(u.label) <= 5 else 0.16) * r
    out.append(Text((fx, fy - 0.2 * r), u.label, size, INK, bold=True))
    badge = (fx + 0.42 * r, fy + 0.16 * r)
    hurt = u.count < u.full
    out.append(Circle(badge, 0.25 * r, BADGE_HURT if hurt else BADGE, INK, 0.05 * r))
    out.append(Text(badge, str(u.count), 0.36 * r, INK, bold=True))
    if u.tags:
        text = " ".join(u.tags)
        half = (0.065 * len(text) + 0.06) * r
        out.append(
            _rect(
                (fx - half, fy + 0.38 * r, fx + half, fy + 0.6 * r), MARKER_FILL, BATTLE, 0.03 * r
            )
        )
        out.append(Text((fx, fy + 0.49 * r), text, 0.2 * r, MARKER_INK, bold=True))
    if u.note:
        out += _leader_mark(layout, (fx - 0.45 * r, fy - 0.47 * r), 0.17 * r, colour, "L")
        below = 0.76 if u.tags else 0.56
        out.append(Text((fx, fy + below * r), _short(u.note), 0.22 * r, INK, bold=True))
    return out


def _facing_notch(c: Pt, r: float, degrees: float) -> list[Prim]:
    """A dark wedge from the counter's edge towards ``degrees`` (0 = up, clockwise)."""
    a = math.radians(degrees)
    ux, uy = math.sin(a), -math.cos(a)
    tip = (c[0] + 0.84 * r * ux, c[1] + 0.84 * r * uy)
    mid = (c[0] + 0.5 * r * ux, c[1] + 0.5 * r * uy)
    half = 0.17 * r
    left = (mid[0] - half * uy, mid[1] + half * ux)
    right = (mid[0] + half * uy, mid[1] - half * ux)
    return [Poly((tip, left, right), INK, "#ffffff", 0.03 * r)]


def _leader_mark(layout: Layout, c: Pt, rad: float, colour: str, letter: str) -> list[Prim]:
    return [
        Circle(c, rad, LEADER, colour, layout.r * 0.06),
        Text(c, letter, rad * 1.2, INK, bold=True),
    ]


def lone_leader_prims(
    layout: Layout, c: Pt, name: str, colour: str, letter: str = "L"
) -> list[Prim]:
    """A marker alone in a hex (a leader), centred on ``c``, with its name."""
    r = layout.r
    out = _leader_mark(layout, (c[0], c[1] - 0.12 * r), 0.3 * r, colour, letter)
    out.append(Text((c[0], c[1] + 0.45 * r), _short(name), 0.27 * r, INK, bold=True))
    return out


def _loss(layout: Layout, c: Pt, label: str) -> list[Prim]:
    """An eliminated unit: a red cross over the hex it last stood in, with its label."""
    r = layout.r
    k = 0.36 * r
    return [
        Line(((c[0] - k, c[1] - k), (c[0] + k, c[1] + k)), LOSS, 0.12 * r),
        Line(((c[0] - k, c[1] + k), (c[0] + k, c[1] - k)), LOSS, 0.12 * r),
        Text((c[0], c[1] + 0.6 * r), label, 0.26 * r, LOSS, bold=True),
    ]


def _battle(
    layout: Layout, a: Pt, t: Pt, kind: str, result: str, *, k: int = 0
) -> tuple[list[Prim], list[Prim]]:
    """Marks on attacker and target and a line between them; and the result in a box.

    ``k`` counts the earlier result boxes at the same place: each later box
    moves along its line (ranged) or across it (close), so none hides another.
    """
    r = layout.r
    out: list[Prim] = [
        Circle(a, 0.8 * r, None, BATTLE, 0.06 * r),
        Circle(t, 0.8 * r, None, BATTLE, 0.12 * r),
    ]
    if kind == "ranged":
        start = shorten(t, a, 0.6 * r)
        end = shorten(a, t, 0.6 * r)
        out.append(Line((start, end), BATTLE, 0.08 * r, (0.2 * r, 0.14 * r)))
        m = shorten(a, t, (0.62 + 0.45 * k) * r)
    else:
        dx, dy = t[0] - a[0], t[1] - a[1]
        d = math.hypot(dx, dy) or 1.0
        step = 0.85 * r * k
        m = ((a[0] + t[0]) / 2 - dy / d * step, (a[1] + t[1]) / 2 + dx / d * step)
    half = max(0.28 * r, 0.11 * r * len(result) + 0.08 * r)
    box: list[Prim] = [
        _rect(
            (m[0] - half, m[1] - 0.19 * r, m[0] + half, m[1] + 0.19 * r),
            MARKER_FILL,
            BATTLE,
            0.06 * r,
        ),
        Text(m, result, 0.3 * r, MARKER_INK, bold=True),
    ]
    return out, box
