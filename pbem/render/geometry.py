"""Pixel layout of the board, shared by the SVG and PNG renderers.

Pointy-top hexes of circumradius ``r``; row 1 (South's baseline) at the
bottom; even rows half a hex to the right (docs/board.md). Every length is a
multiple of ``r``, so one layout scaled gives the same picture at any size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.hexgrid import Hex

__all__ = ["Layout", "Pt", "arrow_head", "dashes", "shorten"]

Pt = tuple[float, float]

SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class Layout:
    """Where every hex, label and band of a ``wide`` x ``deep`` board sits, in pixels."""

    wide: int = 13
    deep: int = 9
    r: float = 32.0

    @property
    def hex_w(self) -> float:
        return SQRT3 * self.r

    @property
    def margin_x(self) -> float:
        """Room left and right of the hexes for row numbers."""
        return 0.8 * self.r

    @property
    def band(self) -> float:
        """Height of the side band (army, banners) above and below the board."""
        return 0.75 * self.r

    @property
    def label_h(self) -> float:
        """Height of the column-letter strip above and below the hexes."""
        return 0.6 * self.r

    @property
    def board_top(self) -> float:
        return self.band + self.label_h

    @property
    def board_h(self) -> float:
        return 2 * self.r + (self.deep - 1) * 1.5 * self.r

    @property
    def width(self) -> int:
        return math.ceil(2 * self.margin_x + self.wide * self.hex_w)

    @property
    def height(self) -> int:
        return math.ceil(2 * (self.band + self.label_h) + self.board_h)

    def centre(self, h: Hex) -> Pt:
        """Pixel centre of a hex (doubled coordinates: ``x`` counts half-hex widths)."""
        px = self.margin_x + (h.x + 1) * self.hex_w / 2
        py = self.board_top + self.r + (self.deep - 1 - h.y) * 1.5 * self.r
        return (px, py)

    def corners(self, h: Hex, scale: float = 1.0) -> tuple[Pt, ...]:
        """The six corners clockwise from the upper right, optionally shrunk toward the centre."""
        cx, cy = self.centre(h)
        rr = self.r * scale
        out = []
        for i in range(6):
            a = math.radians(-30 + 60 * i)
            out.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
        return tuple(out)

    def column_x(self, x: int) -> float:
        """Pixel x of doubled column ``x`` (section lines, column letters)."""
        return self.margin_x + (x + 1) * self.hex_w / 2

    def row_y(self, row: int) -> float:
        """Pixel y of the centres of 1-based ``row``."""
        return self.board_top + self.r + (self.deep - row) * 1.5 * self.r

    @property
    def top_band_y(self) -> float:
        """Text baseline-centre of the band above the board (North's side)."""
        return self.band / 2

    @property
    def bottom_band_y(self) -> float:
        return self.height - self.band / 2

    @property
    def top_letters_y(self) -> float:
        return self.band + self.label_h / 2

    @property
    def bottom_letters_y(self) -> float:
        return self.board_top + self.board_h + self.label_h / 2


def shorten(a: Pt, b: Pt, by: float) -> Pt:
    """The point ``by`` pixels before ``b`` on the segment from ``a`` (``a`` if too short)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy)
    if d <= by:
        return a
    k = (d - by) / d
    return (a[0] + dx * k, a[1] + dy * k)


def arrow_head(a: Pt, b: Pt, size: float) -> tuple[Pt, Pt, Pt]:
    """A triangle with its tip at ``b`` pointing along ``a`` → ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    bx, by = b[0] - ux * size, b[1] - uy * size
    w = size * 0.55
    return (b, (bx - uy * w, by + ux * w), (bx + uy * w, by - ux * w))


def dashes(a: Pt, b: Pt, on: float, off: float) -> tuple[tuple[Pt, Pt], ...]:
    """Split a segment into dash segments (PIL has no dashed lines; SVG draws the same ones)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy)
    if d == 0:
        return ()
    ux, uy = dx / d, dy / d
    out = []
    t = 0.0
    while t < d:
        e = min(t + on, d)
        out.append(((a[0] + ux * t, a[1] + uy * t), (a[0] + ux * e, a[1] + uy * e)))
        t = e + off
    return tuple(out)
