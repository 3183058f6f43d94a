"""Draw a Picture as SVG text.

All coordinates come from :mod:`pbem.render.scene`; this module only writes
elements, as plain strings (a template engine's per-element work cost more
than the rest of the board). Text and colours are XML-escaped. Numbers are
printed with one decimal, so the output is byte-identical for the same view
(golden-tested).
"""

from __future__ import annotations

from functools import lru_cache

from markupsafe import escape

from engine.core.picture import Picture
from pbem.render.geometry import Layout
from pbem.render.prims import Circle, Layer, Line, Poly, Prim, Text
from pbem.render.scene import Base, base_layers, base_of, overlay_layers

__all__ = ["BACKGROUND", "SVG_RADIUS", "render_svg"]

SVG_RADIUS = 32.0
"""Hex radius of the SVG's user units (the picture scales freely)."""

BACKGROUND = "#f4f1e6"


def _n(v: float) -> str:
    s = f"{v:.1f}"
    return "0.0" if s == "-0.0" else s


def _e(value: object) -> str:
    """``value`` escaped for XML text and attribute values."""
    return str(escape(value))


@lru_cache(maxsize=16384)
def _pts(pts: tuple[tuple[float, float], ...]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in pts)


def _paint(fill: str | None, stroke: str | None, width: float) -> str:
    out = f' fill="{_e(fill or "none")}"'
    if stroke and width:
        out += f' stroke="{_e(stroke)}" stroke-width="{_n(width)}"'
    return out


@lru_cache(maxsize=8192)
def _element(p: Prim) -> str:
    """One primitive's element (kept: a unit that did not move draws the same ones)."""
    match p:
        case Poly():
            return f'<polygon points="{_pts(p.pts)}"{_paint(p.fill, p.stroke, p.width)}/>\n'
        case Line():
            dash = (
                f' stroke-dasharray="{_n(p.dash[0])} {_n(p.dash[1])}" stroke-linecap="butt"'
                if p.dash
                else ""
            )
            return (
                f'<polyline points="{_pts(p.pts)}" fill="none" stroke="{_e(p.stroke)}"'
                f' stroke-width="{_n(p.width)}"{dash}/>\n'
            )
        case Circle():
            return (
                f'<circle cx="{_n(p.c[0])}" cy="{_n(p.c[1])}" r="{_n(p.rad)}"'
                f"{_paint(p.fill, p.stroke, p.width)}/>\n"
            )
        case Text():
            anchor = "" if p.anchor in ("", "middle") else f' text-anchor="{_e(p.anchor)}"'
            weight = "" if p.bold else ' font-weight="normal"'
            return (
                f'<text x="{_n(p.at[0])}" y="{_n(p.at[1])}" font-size="{_n(p.size)}"'
                f' fill="{_e(p.fill)}"{anchor}{weight}>{_e(p.text)}</text>\n'
            )


def _elements(prims: tuple[Prim, ...]) -> list[str]:
    """SVG elements; runs of same-style polygons become one ``<path>`` (a smaller file)."""
    out: list[str] = []
    run: list[Poly] = []

    def flush() -> None:
        if len(run) == 1:
            out.append(_element(run[0]))
        elif run:
            d = " ".join(f"M{_pts(p.pts)}Z" for p in run)
            out.append(f'<path d="{d}"{_paint(run[0].fill, run[0].stroke, run[0].width)}/>\n')
        run.clear()

    for p in prims:
        if isinstance(p, Poly) and (
            not run or (run[0].fill, run[0].stroke, run[0].width) == (p.fill, p.stroke, p.width)
        ):
            run.append(p)
            continue
        flush()
        if isinstance(p, Poly):
            run.append(p)
        else:
            out.append(_element(p))
    flush()
    return out


def _layer(layer: Layer) -> str:
    return f'<g class="{_e(layer.name)}">\n{"".join(_elements(layer.prims))}</g>\n'


def _head(layout: Layout, title: str) -> str:
    w, h = _e(layout.width), _e(layout.height)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"'
        f' viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Verdana, Arial, sans-serif"'
        ' font-weight="bold" text-anchor="middle" dominant-baseline="central"'
        ' stroke-linejoin="round" stroke-linecap="round">\n'
        f"<title>{_e(title)}</title>\n"
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="{BACKGROUND}"/>\n'
    )


@lru_cache(maxsize=8)
def _base_text(layout: Layout, base: Base) -> str:
    """The base layers' SVG text (terrain, grid, labels), written once per map and side."""
    return "".join(_layer(x) for x in base_layers(layout, base))


@lru_cache(maxsize=16)
def render_svg(view: Picture, r: float = SVG_RADIUS) -> str:
    """The picture as a standalone SVG document (cached per picture).

    The base layers' text is written once per map and side (:func:`_base_text`);
    the overlays are written for each picture.
    """
    layout = Layout(view.size, r)
    over = "".join(_layer(x) for x in overlay_layers(layout, view))
    head = _head(layout, view.title or "pbem board")
    return f"{head}{_base_text(layout, base_of(view))}{over}</svg>\n"
