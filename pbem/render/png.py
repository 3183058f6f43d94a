"""Draw a BoardView as PNG with Pillow, from the same primitives as the SVG.

The base picture (terrain, grid, section lines, coordinates) is drawn once per
board size and terrain map, supersampled for smooth edges, and cached; each
turn copies it and draws only the overlay. Unit and leader tokens are
sprites, drawn supersampled once per look (type, blocks, colour, leader) and
pasted at their hex centres rounded to whole pixels. The result is mapped to a cached
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
from pbem.render.scene import (
    OVERLAY_COLOURS,
    base_layers,
    block_colours,
    lone_leader_prims,
    overlay_layers,
    unit_prims,
)
from pbem.render.svg import BACKGROUND
from pbem.render.view import BoardView, UnitView

__all__ = ["PNG_RADIUS", "board_size", "draw_board", "encode", "render_png", "render_png_uncached"]

PNG_RADIUS = 32.0
"""Hex radius in pixels of the mailed PNG (about 780 x 530 for C&C)."""

_SUPERSAMPLE = 2
_ANCHOR = {"start": "lm", "middle": "mm", "end": "rm"}

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=64)
def _font(size: int) -> Font:
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=4096)
def _label(text: str, size: int, fill: str, anchor: str) -> tuple[Image.Image, int, int]:
    """Text as a cached RGBA image and its offset from the anchor point.

    Rasterising text is the slowest thing a board draws; labels repeat from
    turn to turn (banners, results, names), so each is rendered once.
    """
    font = _font(size)
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=anchor))
    img = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), (0, 0, 0, 0))
    ImageDraw.Draw(img).text((-left, -top), text, fill=fill, font=font, anchor=anchor)
    return img, left, top


def _w(width: float) -> int:
    return max(1, round(width))


def _draw(img: Image.Image, layers: tuple[Layer, ...]) -> None:
    draw = ImageDraw.Draw(img)
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
                    label, dx, dy = _label(
                        p.text, max(6, round(p.size * 1.08)), p.fill, _ANCHOR.get(p.anchor, "mm")
                    )
                    pos = (round(p.at[0]) + dx, round(p.at[1]) + dy)
                    img.paste(label, pos, label)


@lru_cache(maxsize=8)
def _base(layout: Layout, terrain: tuple[tuple[str, str], ...]) -> Image.Image:
    """The unchanging part of the board, drawn large and scaled down once."""
    big = Layout(layout.wide, layout.deep, layout.r * _SUPERSAMPLE)
    img = Image.new("RGB", (big.width, big.height), BACKGROUND)
    _draw(img, base_layers(big, terrain))
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


# Sprite box around a token's centre, in hex radii: room for the leader's name.
_SPRITE_W, _SPRITE_H = 3.0, 1.8
_SPRITE_CX, _SPRITE_CY = 1.5, 0.82


@lru_cache(maxsize=2048)
def _sprite(r: float, colour: str, u: UnitView, lone: bool) -> Image.Image:
    """One token (a unit, or a lone leader if ``lone``) as a smooth RGBA sprite.

    ``u`` carries the look only (its hex is ignored), so equal units share one sprite.
    """
    big = Layout(r=r * _SUPERSAMPLE)
    size = (round(_SPRITE_W * r), round(_SPRITE_H * r))
    img = Image.new("RGBA", (size[0] * _SUPERSAMPLE, size[1] * _SUPERSAMPLE), (0, 0, 0, 0))
    c = (_SPRITE_CX * big.r, _SPRITE_CY * big.r)
    if lone:
        prims = lone_leader_prims(big, c, u.leader or "", colour)
    else:
        prims = unit_prims(big, c, u, colour)
    _draw(img, (Layer("token", tuple(prims)),))
    return img.resize(size, Image.Resampling.LANCZOS)


def _paste(
    img: Image.Image, layout: Layout, hex_name: str, view: BoardView, sprite: Image.Image
) -> None:
    x, y = layout.centre(view.board.parse(hex_name))
    r = layout.r
    img.paste(sprite, (round(x - _SPRITE_CX * r), round(y - _SPRITE_CY * r)), sprite)


def board_size(view: BoardView, r: float = PNG_RADIUS) -> tuple[int, int]:
    """Width and height in pixels of the PNG for ``view``."""
    layout = Layout(view.wide, view.deep, r)
    return (layout.width, layout.height)


def draw_board(view: BoardView, r: float = PNG_RADIUS) -> Image.Image:
    """The board as a Pillow image (the cached base with this turn's overlay)."""
    layout = Layout(view.wide, view.deep, r)
    img = _base(layout, view.terrain).copy()
    colours = block_colours(view)
    for layer in overlay_layers(layout, view, tokens=False):
        if layer.name == "units":
            for u in view.units:
                look = UnitView("", u.side, u.code, u.blocks, u.max_blocks, u.leader)
                sprite = _sprite(r, colours[u.side], look, False)
                _paste(img, layout, u.hex, view, sprite)
        elif layer.name == "leaders":
            for ld in view.leaders:
                sprite = _sprite(
                    r, colours[ld.side], UnitView("", ld.side, "", 0, 0, ld.name), True
                )
                _paste(img, layout, ld.hex, view, sprite)
        else:
            _draw(img, (layer,))
    return img


def encode(view: BoardView, img: Image.Image, r: float = PNG_RADIUS) -> bytes:
    """Palette PNG bytes of a board image drawn by :func:`draw_board`."""
    layout = Layout(view.wide, view.deep, r)
    pal = _palette(layout, view.terrain)
    buf = io.BytesIO()
    img.quantize(palette=pal, dither=Image.Dither.NONE).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def render_png_uncached(view: BoardView, r: float = PNG_RADIUS) -> bytes:
    """Draw and encode without the per-view cache (what the benchmark measures)."""
    return encode(view, draw_board(view, r), r)


@lru_cache(maxsize=16)
def render_png(view: BoardView, r: float = PNG_RADIUS) -> bytes:
    """The board as PNG bytes (cached per view and size: the board is public)."""
    return render_png_uncached(view, r)
