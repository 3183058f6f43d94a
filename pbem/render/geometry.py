"""Pixel layout of a picture, shared by the SVG and PNG renderers.

A picture's geometry is in hex-radius units (engine.core.picture); the layout
scales it by ``r`` and puts a side band and a coordinate strip above and below
the hex field and row numbers left and right. Every length is a multiple of
``r``, so one layout scaled gives the same picture at any size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Layout", "Pt", "arrow_head", "dashes", "shorten"]

Pt = tuple[float, float]


@dataclass(frozen=True)
class Layout:
    """Where the hex field, labels and bands of a picture of ``size`` sit, in pixels."""

    size: Pt
    r: float = 32.0

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
        return self.size[1] * self.r

    @property
    def width(self) -> int:
        return math.ceil(2 * self.margin_x + self.size[0] * self.r)

    @property
    def height(self) -> int:
        return math.ceil(2 * (self.band + self.label_h) + self.board_h)

    def px(self, p: Pt) -> Pt:
        """The pixel of a point of the picture."""
        return (self.margin_x + p[0] * self.r, self.board_top + p[1] * self.r)

    def pts(self, ps: tuple[Pt, ...]) -> tuple[Pt, ...]:
        return tuple(self.px(p) for p in ps)

    @property
    def top_band_y(self) -> float:
        """Text baseline-centre of the band above the board."""
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
