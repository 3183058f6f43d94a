"""Draw a BoardView as PNG with Pillow, from the same primitives as the SVG.

The base picture (terrain, grid, section lines, coordinates) is drawn once per
board size and terrain map, supersampled for smooth edges, and cached; each
turn copies it and draws only the overlay. The result is mapped to a cached
256-colour palette (the base's colours plus every overlay colour, exactly)
before encoding: a one-band PNG encodes several times faster than RGB and is
a third of the size. Text uses Pillow's bundled
FreeType font (``ImageFont.load_default(size=...)``), so no system fonts are
needed.
"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from pbem.render.geometry import Layout, dashes
from pbem.render.prims import Circle, Layer, Line, Poly, Text
from pbem.render.scene import OVERLAY_COLOURS, base_layers, overlay_layers
from pbem.render.svg import BACKGROUND
from pbem.render.view import BoardView

__all__ = ["PNG_RADIUS", "board_size", "draw_board", "encode", "render_png", "render_png_uncached"]

PNG_RADIUS = 32.0
"""Hex radius in pixels of the mailed PNG (about 780 x 530 for C&C)."""

_SUPERSAMPLE = 2
_ANCHOR = {"start": "lm", "middle": "mm", "end": "rm"}

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=64)
def _font(size: int) -> Font:
    return ImageFont.load_default(size=size)


def _w(width: float) -> int:
    return max(1, round(width))


def _draw(draw: ImageDraw.ImageDraw, layers: tuple[Layer, ...]) -> None:
    for layer in layers:
        for p in layer.prims:
            match p:
                case Poly():
                    if p.stroke and p.width:
                        draw.polygon(p.pts, fill=p.fill, outline=p.stroke, width=_w(p.width))
                    else:
                        draw.polygon(p.pts, fill=p.fill)
                case Line() if p.dash is not None:
                    for a, b in dashes(p.pts[0], p.pts[-1], *p.dash):
                        draw.line((a, b), fill=p.stroke, width=_w(p.width))
                case Line():
                    draw.line(p.pts, fill=p.stroke, width=_w(p.width), joint="curve")
                case Circle():
                    x, y = p.c
                    box = (x - p.rad, y - p.rad, x + p.rad, y + p.rad)
                    if p.stroke and p.width:
                        draw.ellipse(box, fill=p.fill, outline=p.stroke, width=_w(p.width))
                    else:
                        draw.ellipse(box, fill=p.fill)
                case Text():
                    draw.text(
                        p.at,
                        p.text,
                        fill=p.fill,
                        font=_font(max(6, round(p.size * 1.08))),
                        anchor=_ANCHOR.get(p.anchor, "mm"),
                    )


@lru_cache(maxsize=8)
def _base(layout: Layout, terrain: tuple[tuple[str, str], ...]) -> Image.Image:
    """The unchanging part of the board, drawn large and scaled down once."""
    big = Layout(layout.wide, layout.deep, layout.r * _SUPERSAMPLE)
    img = Image.new("RGB", (big.width, big.height), BACKGROUND)
    _draw(ImageDraw.Draw(img), base_layers(big, terrain))
    return img.resize((layout.width, layout.height), Image.Resampling.LANCZOS)


@lru_cache(maxsize=8)
def _palette(layout: Layout, terrain: tuple[tuple[str, str], ...]) -> Image.Image:
    """A palette image: the base's main colours, then each overlay colour exactly."""
    extra = [bytes.fromhex(c[1:]) for c in OVERLAY_COLOURS]
    q = _base(layout, terrain).quantize(256 - len(extra), Image.Quantize.MEDIANCUT)
    pal = (q.getpalette() or [])[: 3 * (256 - len(extra))]
    pal += [b for c in extra for b in c]
    img = Image.new("P", (1, 1))
    img.putpalette(pal)
    return img


def board_size(view: BoardView, r: float = PNG_RADIUS) -> tuple[int, int]:
    """Width and height in pixels of the PNG for ``view``."""
    layout = Layout(view.wide, view.deep, r)
    return (layout.width, layout.height)


def draw_board(view: BoardView, r: float = PNG_RADIUS) -> Image.Image:
    """The board as a Pillow image (the cached base with this turn's overlay)."""
    layout = Layout(view.wide, view.deep, r)
    img = _base(layout, view.terrain).copy()
    _draw(ImageDraw.Draw(img), overlay_layers(layout, view))
    return img


def encode(view: BoardView, img: Image.Image, r: float = PNG_RADIUS) -> bytes:
    """Palette PNG bytes of a board image drawn by :func:`draw_board`."""
    layout = Layout(view.wide, view.deep, r)
    pal = _palette(layout, view.terrain)
    buf = io.BytesIO()
    img.quantize(palette=pal, dither=Image.Dither.NONE).save(buf, format="PNG", compress_level=3)
    return buf.getvalue()


def render_png_uncached(view: BoardView, r: float = PNG_RADIUS) -> bytes:
    """Draw and encode without the per-view cache (what the benchmark measures)."""
    return encode(view, draw_board(view, r), r)


@lru_cache(maxsize=16)
def render_png(view: BoardView, r: float = PNG_RADIUS) -> bytes:
    """The board as PNG bytes (cached per view and size: the board is public)."""
    return render_png_uncached(view, r)
