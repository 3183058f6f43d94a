"""Drawing primitives: the one picture both the SVG and the PNG renderer draw.

Scene builders compute every coordinate in Python; renderers only translate
primitives (SVG elements, Pillow draw calls), so the two outputs show the
same things at the same places.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.render.geometry import Pt

__all__ = ["Circle", "Layer", "Line", "Poly", "Prim", "Text"]


@dataclass(frozen=True, slots=True)
class Poly:
    """A closed polygon."""

    pts: tuple[Pt, ...]
    fill: str | None
    stroke: str | None = None
    width: float = 0.0


@dataclass(frozen=True, slots=True)
class Line:
    """An open polyline; ``dash`` is (on, off) lengths for a dashed two-point line."""

    pts: tuple[Pt, ...]
    stroke: str
    width: float
    dash: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class Circle:
    c: Pt
    rad: float
    fill: str | None
    stroke: str | None = None
    width: float = 0.0


@dataclass(frozen=True, slots=True)
class Text:
    """Text centred vertically on ``at``; ``anchor`` is ``start``, ``middle`` or ``end``."""

    at: Pt
    text: str
    size: float
    fill: str
    anchor: str = "middle"
    bold: bool = False


Prim = Poly | Line | Circle | Text


@dataclass(frozen=True)
class Layer:
    """A named group of primitives (an SVG ``<g>``), drawn in order."""

    name: str
    prims: tuple[Prim, ...]
