"""Render a picture once in every form a mail carries."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.picture import Picture
from pbem.render.ascii import render_ascii
from pbem.render.png import render_png
from pbem.render.svg import render_svg

__all__ = ["RenderedBoard", "render_board"]


@dataclass(frozen=True)
class RenderedBoard:
    """A picture with its PNG bytes (2x a mail column), SVG text and ASCII board.

    A picture is seen from one side: build one per side and turn, and hand it
    to that side's mails.
    """

    picture: Picture
    png: bytes
    svg: str
    ascii: str


def render_board(picture: Picture) -> RenderedBoard:
    """Draw ``picture`` as PNG, SVG and ASCII."""
    return RenderedBoard(picture, render_png(picture), render_svg(picture), render_ascii(picture))
