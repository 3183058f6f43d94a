"""Draw a Picture as PNG with Pillow, from the same primitives as the SVG.

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
from dataclasses import replace
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from engine.core.picture import Counter, Marker, Picture
from pbem.render.geometry import Layout, dashes
from pbem.render.prims import Circle, Layer, Line, Poly, Text
from pbem.render.scene import (
    OVERLAY_COLOURS,
    Base,
    base_layers,
    base_of,
    block_colours,
    counter_colour,
    lone_leader_prims,
    overlay_layers,
    unit_prims,
)
from pbem.render.svg import BACKGROUND

__all__ = [
    "MAIL_COLUMN",
    "PNG_SCALE",
    "board_size",
    "display_size",
    "draw_board",
    "encode",
    "mail_radius",
    "render_png",
    "render_png_uncached",
]

MAIL_COLUMN = 600
"""Width in CSS pixels the mailed board is shown at (a mail client's column, a phone)."""

PNG_SCALE = 2
"""The mailed PNG has this many pixels per CSS pixel (sharp on phones and high-DPI screens)."""

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
def _base(layout: Layout, base: Base) -> Image.Image:
    """The unchanging part of the board, drawn large and scaled down once."""
    big = Layout(layout.size, layout.r * _SUPERSAMPLE)
    img = Image.new("RGB", (big.width, big.height), BACKGROUND)
    _draw(img, base_layers(big, base))
    return img.resize((layout.width, layout.height), Image.Resampling.LANCZOS)


@lru_cache(maxsize=8)
def _palette(layout: Layout, base: Base) -> Image.Image:
    """A palette image: the base's main colours, then each overlay colour exactly."""
    extra = [bytes.fromhex(c[1:]) for c in OVERLAY_COLOURS]
    q = _base(layout, base).quantize(256 - len(extra), Image.Quantize.MEDIANCUT)
    pal = (q.getpalette() or [])[: 3 * (256 - len(extra))]
    pal += [b for c in extra for b in c]
    img = Image.new("P", (1, 1))
    img.putpalette(pal)
    return img


# Sprite box around a token's centre, in hex radii: room for the leader's name.
_SPRITE_W, _SPRITE_H = 3.0, 1.8
_SPRITE_CX, _SPRITE_CY = 1.5, 0.82


@lru_cache(maxsize=2048)
def _sprite(r: float, colour: str, token: Counter | Marker) -> Image.Image:
    """One token (a counter, or a lone marker) as a smooth RGBA sprite.

    ``token`` carries the look only (its hex is blanked), so equal units share one sprite.
    """
    big = Layout((0.0, 0.0), r * _SUPERSAMPLE)
    size = (round(_SPRITE_W * r), round(_SPRITE_H * r))
    img = Image.new("RGBA", (size[0] * _SUPERSAMPLE, size[1] * _SUPERSAMPLE), (0, 0, 0, 0))
    c = (_SPRITE_CX * big.r, _SPRITE_CY * big.r)
    if isinstance(token, Marker):
        prims = lone_leader_prims(big, c, token.name, colour, token.letter)
    else:
        prims = unit_prims(big, c, token, colour)
    _draw(img, (Layer("token", tuple(prims)),))
    return img.resize(size, Image.Resampling.LANCZOS)


def _paste(img: Image.Image, layout: Layout, view: Picture, token: Counter | Marker) -> None:
    colour = block_colours(view).get(token.side, "#2b2b2b")
    if isinstance(token, Counter):
        colour = counter_colour(token, {token.side: colour})
    sprite = _sprite(layout.r, colour, replace(token, hex=""))
    x, y = layout.px(view.centre(token.hex))
    r = layout.r
    img.paste(sprite, (round(x - _SPRITE_CX * r), round(y - _SPRITE_CY * r)), sprite)


def mail_radius(view: Picture) -> float:
    """The hex radius that makes the PNG :data:`PNG_SCALE` times a mail column wide."""
    probe = Layout(view.size, 1.0)
    return PNG_SCALE * MAIL_COLUMN / (2 * probe.margin_x + view.size[0])


def board_size(view: Picture, r: float | None = None) -> tuple[int, int]:
    """Width and height in pixels of the PNG for ``view``."""
    layout = Layout(view.size, mail_radius(view) if r is None else r)
    return (layout.width, layout.height)


def display_size(view: Picture) -> tuple[int, int]:
    """Width and height in CSS pixels at which a mail shows the PNG (a mail column wide)."""
    w, h = board_size(view)
    return (round(w / PNG_SCALE), round(h / PNG_SCALE))


def draw_board(view: Picture, r: float | None = None) -> Image.Image:
    """The board as a Pillow image (the cached base with this turn's overlay)."""
    layout = Layout(view.size, mail_radius(view) if r is None else r)
    img = _base(layout, base_of(view)).copy()
    for layer in overlay_layers(layout, view, tokens=False):
        if layer.name == "units":
            for u in view.counters:
                _paste(img, layout, view, u)
        elif layer.name == "leaders":
            for ld in view.markers:
                _paste(img, layout, view, ld)
        else:
            _draw(img, (layer,))
    return img


def encode(view: Picture, img: Image.Image, r: float | None = None) -> bytes:
    """Palette PNG bytes of a board image drawn by :func:`draw_board`."""
    layout = Layout(view.size, mail_radius(view) if r is None else r)
    pal = _palette(layout, base_of(view))
    buf = io.BytesIO()
    img.quantize(palette=pal, dither=Image.Dither.NONE).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def render_png_uncached(view: Picture, r: float | None = None) -> bytes:
    """Draw and encode without the per-picture cache (what the benchmark measures)."""
    return encode(view, draw_board(view, r), r)


@lru_cache(maxsize=16)
def render_png(view: Picture, r: float | None = None) -> bytes:
    """The picture as PNG bytes, by default 2x a mail column wide (cached per picture)."""
    return render_png_uncached(view, r)
