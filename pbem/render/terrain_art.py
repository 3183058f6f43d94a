"""pbem's own terrain drawings: a fill colour and a few simple marks per terrain.

Drawn from scratch (no publisher artwork). Offsets are fractions of the hex
radius so the marks scale with the board.
"""

from __future__ import annotations

import math

from pbem.render.geometry import Pt
from pbem.render.prims import Circle, Line, Poly, Prim

__all__ = ["FILL", "GRID", "WALL", "terrain_prims"]

GRID = "#6b6b5a"
WALL = "#6e4a22"
"""Earthworks: the rampart mark and the fortified hexsides drawn on a hex's edges."""

FILL = {
    "clear": "#e6e9cc",
    "hill": "#dcc28c",
    "steep-hill": "#bf9560",
    "forest": "#b9d59e",
    "broken-ground": "#ddd3b6",
    "river": "#7fb4e1",
    "fordable-river": "#acd2ef",
    "lake": "#5d95d0",
    "camp": "#ead9ad",
    "ramparts": "#e2dcc0",
    "marsh": "#a9c19b",
    "city-wall": "#cbc5ba",
}


def _at(c: Pt, r: float, dx: float, dy: float) -> Pt:
    return (c[0] + dx * r, c[1] + dy * r)


def _arc(c: Pt, r: float, dx: float, dy: float, rad: float, *, n: int = 7) -> tuple[Pt, ...]:
    """Upper half circle centred at offset (dx, dy), as a polyline."""
    cx, cy = _at(c, r, dx, dy)
    return tuple(
        (
            cx - rad * r * math.cos(math.pi * i / (n - 1)),
            cy - rad * r * math.sin(math.pi * i / (n - 1)),
        )
        for i in range(n)
    )


def _wave(c: Pt, r: float, dy: float, half: float, amp: float) -> tuple[Pt, ...]:
    cx, cy = _at(c, r, 0, dy)
    n = 9
    return tuple(
        (cx - half * r + 2 * half * r * i / (n - 1), cy + amp * r * math.sin(math.pi * i / 2))
        for i in range(n)
    )


def _hill(c: Pt, r: float, ink: str) -> list[Prim]:
    w = 0.07 * r
    return [
        Line(_arc(c, r, -0.28, 0.25, 0.3), ink, w),
        Line(_arc(c, r, 0.25, 0.2, 0.38), ink, w),
    ]


def _steep(c: Pt, r: float) -> list[Prim]:
    ink = "#6e4a22"
    out: list[Prim] = [
        Poly(
            (_at(c, r, -0.55, 0.35), _at(c, r, -0.2, -0.35), _at(c, r, 0.15, 0.35)),
            "#9c7443",
            ink,
            0.05 * r,
        ),
        Poly(
            (_at(c, r, -0.05, 0.35), _at(c, r, 0.3, -0.2), _at(c, r, 0.6, 0.35)),
            "#a97f4c",
            ink,
            0.05 * r,
        ),
    ]
    return out


def _forest(c: Pt, r: float) -> list[Prim]:
    out: list[Prim] = []
    for dx, dy in ((-0.35, 0.05), (0.0, -0.3), (0.35, 0.1)):
        out.append(Line((_at(c, r, dx, dy + 0.1), _at(c, r, dx, dy + 0.38)), "#6b4a2a", 0.08 * r))
        out.append(Circle(_at(c, r, dx, dy), 0.2 * r, "#3f7d37", "#2b5a25", 0.04 * r))
    return out


def _broken(c: Pt, r: float) -> list[Prim]:
    out: list[Prim] = []
    for dx, dy, s in (
        (-0.4, -0.2, 0.1),
        (0.05, -0.4, 0.08),
        (0.35, -0.1, 0.11),
        (-0.15, 0.25, 0.09),
        (0.3, 0.35, 0.08),
        (-0.5, 0.3, 0.07),
        (0.0, 0.0, 0.07),
    ):
        cx, cy = _at(c, r, dx, dy)
        k = s * r
        out.append(
            Poly(
                (
                    (cx - k, cy + k * 0.6),
                    (cx - k * 0.3, cy - k),
                    (cx + k, cy - k * 0.2),
                    (cx + k * 0.6, cy + k * 0.8),
                ),
                "#8f8168",
                "#5f5444",
                0.03 * r,
            )
        )
    return out


def _river(c: Pt, r: float, ford: bool) -> list[Prim]:
    out: list[Prim] = [
        Line(_wave(c, r, -0.25, 0.6, 0.08), "#2f6fae", 0.07 * r),
        Line(_wave(c, r, 0.15, 0.6, 0.08), "#2f6fae", 0.07 * r),
    ]
    if ford:
        for dx in (-0.4, -0.13, 0.14, 0.41):
            out.append(Circle(_at(c, r, dx, -0.05), 0.1 * r, "#d8c9a0", "#7a6a48", 0.03 * r))
    return out


def _lake(c: Pt, r: float) -> list[Prim]:
    ink = "#d6e7f7"
    return [
        Line(_wave(c, r, -0.3, 0.3, 0.07), ink, 0.06 * r),
        Line(_wave(c, r, 0.05, 0.45, 0.07), ink, 0.06 * r),
        Line(_wave(c, r, 0.4, 0.3, 0.07), ink, 0.06 * r),
    ]


def _shrink(corners: tuple[Pt, ...], c: Pt, k: float) -> tuple[Pt, ...]:
    return tuple((c[0] + (x - c[0]) * k, c[1] + (y - c[1]) * k) for x, y in corners)


def _camp(corners: tuple[Pt, ...], c: Pt, r: float) -> list[Prim]:
    return [
        Poly(_shrink(corners, c, 0.72), None, "#7a5126", 0.1 * r),
        Poly(
            (_at(c, r, -0.28, 0.22), _at(c, r, 0.0, -0.25), _at(c, r, 0.28, 0.22)),
            "#f3ead2",
            "#7a5126",
            0.05 * r,
        ),
    ]


def _ramparts(c: Pt, r: float) -> list[Prim]:
    pts = tuple(_at(c, r, -0.6 + 0.15 * i, -0.05 + (0.14 if i % 2 else -0.14)) for i in range(9))
    return [Line(pts, WALL, 0.12 * r)]


def _marsh(c: Pt, r: float) -> list[Prim]:
    ink = "#4d6b43"
    out: list[Prim] = []
    for dx, dy in ((-0.35, -0.2), (0.2, -0.35), (0.3, 0.2), (-0.2, 0.3)):
        out.append(Line((_at(c, r, dx - 0.18, dy), _at(c, r, dx + 0.18, dy)), ink, 0.05 * r))
        out.append(Line((_at(c, r, dx, dy), _at(c, r, dx, dy - 0.2)), ink, 0.04 * r))
    return out


def _wall(c: Pt, r: float) -> list[Prim]:
    ink = "#5a5650"
    pts: list[Pt] = []
    x0, n = -0.6, 6
    for i in range(n):
        x = x0 + 0.2 * i
        pts += [
            _at(c, r, x, 0.0),
            _at(c, r, x, -0.15),
            _at(c, r, x + 0.1, -0.15),
            _at(c, r, x + 0.1, 0.0),
        ]
    pts.append(_at(c, r, x0 + 0.2 * n, 0.0))
    return [
        Poly((*pts, _at(c, r, 0.6, 0.2), _at(c, r, -0.6, 0.2)), "#a39d92", ink, 0.05 * r),
    ]


def terrain_prims(corners: tuple[Pt, ...], c: Pt, r: float, style: str) -> list[Prim]:
    """A hex's filled outline and the marks of its terrain style (clear hexes are just filled).

    ``corners`` and ``c`` are in pixels, ``r`` is the hex radius in pixels.
    """
    fill = FILL.get(style, FILL["clear"])
    out: list[Prim] = [Poly(corners, fill)]
    match style:
        case "hill":
            out += _hill(c, r, "#8a6a34")
        case "steep-hill":
            out += _steep(c, r)
        case "forest":
            out += _forest(c, r)
        case "broken-ground":
            out += _broken(c, r)
        case "river":
            out += _river(c, r, ford=False)
        case "fordable-river":
            out += _river(c, r, ford=True)
        case "lake":
            out += _lake(c, r)
        case "camp":
            out += _camp(corners, c, r)
        case "ramparts":
            out += _ramparts(c, r)
        case "marsh":
            out += _marsh(c, r)
        case "city-wall":
            out += _wall(c, r)
    return out
