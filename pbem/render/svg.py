"""Draw a Picture as SVG text from ``templates/board.svg.j2``.

All coordinates come from :mod:`pbem.render.scene`; the template only
writes elements. Numbers are printed with one decimal, so the output is
byte-identical for the same view (golden-tested).
"""

from __future__ import annotations

from functools import lru_cache

from engine.core.picture import Picture
from pbem.render.geometry import Layout
from pbem.render.prims import Circle, Layer, Line, Poly, Prim, Text
from pbem.render.scene import Base, base_layers, base_of, overlay_layers
from pbem.render.templating import environment

__all__ = ["BACKGROUND", "SVG_RADIUS", "render_svg"]

SVG_RADIUS = 32.0
"""Hex radius of the SVG's user units (the picture scales freely)."""

BACKGROUND = "#f4f1e6"


def _n(v: float) -> str:
    s = f"{v:.1f}"
    return "0.0" if s == "-0.0" else s


def _pts(pts: tuple[tuple[float, float], ...]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in pts)


def _paint(fill: str | None, stroke: str | None, width: float) -> dict[str, object]:
    out: dict[str, object] = {"fill": fill or "none"}
    if stroke and width:
        out["stroke"] = stroke
        out["width"] = _n(width)
    return out


def _element(p: Prim) -> dict[str, object]:
    match p:
        case Poly():
            return {"tag": "polygon", "points": _pts(p.pts), **_paint(p.fill, p.stroke, p.width)}
        case Line():
            return {
                "tag": "polyline",
                "points": _pts(p.pts),
                "stroke": p.stroke,
                "width": _n(p.width),
                "dash": f"{_n(p.dash[0])} {_n(p.dash[1])}" if p.dash else "",
            }
        case Circle():
            return {
                "tag": "circle",
                "cx": _n(p.c[0]),
                "cy": _n(p.c[1]),
                "r": _n(p.rad),
                **_paint(p.fill, p.stroke, p.width),
            }
        case Text():
            return {
                "tag": "text",
                "x": _n(p.at[0]),
                "y": _n(p.at[1]),
                "size": _n(p.size),
                "fill": p.fill,
                "anchor": "" if p.anchor == "middle" else p.anchor,
                "bold": p.bold,
                "text": p.text,
            }


def _elements(prims: tuple[Prim, ...]) -> list[dict[str, object]]:
    """SVG elements; runs of same-style polygons become one ``<path>`` (a smaller file)."""
    out: list[dict[str, object]] = []
    run: list[Poly] = []

    def flush() -> None:
        if len(run) == 1:
            out.append(_element(run[0]))
        elif run:
            d = " ".join(f"M{_pts(p.pts)}Z" for p in run)
            out.append({"tag": "path", "d": d, **_paint(run[0].fill, run[0].stroke, run[0].width)})
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


def _layer(layer: Layer) -> dict[str, object]:
    return {"name": layer.name, "elements": _elements(layer.prims)}


@lru_cache(maxsize=8)
def _base(layout: Layout, base: Base) -> tuple[dict[str, object], ...]:
    return tuple(_layer(x) for x in base_layers(layout, base))


def _render(layout: Layout, title: str, layers: list[dict[str, object]]) -> str:
    return (
        environment()
        .get_template("board.svg.j2")
        .render(
            width=layout.width,
            height=layout.height,
            title=title,
            background=BACKGROUND,
            layers=layers,
        )
    )


def _head_length(layout: Layout, title: str) -> int:
    """Where the layers begin in the document (the template with no layers, up to ``</svg>``)."""
    return _render(layout, title, []).rindex("</svg>")


@lru_cache(maxsize=8)
def _base_text(layout: Layout, base: Base) -> str:
    """The base layers' SVG text (terrain, grid, labels), written once per map and side."""
    whole = _render(layout, "", list(_base(layout, base)))
    return whole[_head_length(layout, "") : whole.rindex("</svg>")]


@lru_cache(maxsize=16)
def render_svg(view: Picture, r: float = SVG_RADIUS) -> str:
    """The picture as a standalone SVG document (cached per picture).

    The same text as the template given every layer: the base layers' text is
    written once per map (:func:`_base_text`) and spliced in before the
    overlays, which the template writes for each picture.
    """
    layout = Layout(view.size, r)
    title = view.title or "pbem board"
    over = _render(layout, title, [_layer(x) for x in overlay_layers(layout, view)])
    head = _head_length(layout, title)
    return over[:head] + _base_text(layout, base_of(view)) + over[head:]
