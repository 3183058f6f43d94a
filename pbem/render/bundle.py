"""Render a picture once in every form a mail carries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.core.picture import Picture
from pbem.render.ascii import render_ascii
from pbem.render.png import render_png
from pbem.render.svg import render_svg

__all__ = ["SMALL_RADIUS", "RenderedBoard", "render_board", "render_boards"]

SMALL_RADIUS = 8.0
"""The hex radius (pixels) of a board's further pictures: a 40 x 30 overview is 500 x 450."""


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
    others: tuple[tuple[str, RenderedBoard], ...] = ()  # more named pictures (an overview)
    radius: float | None = None  # the PNG's hex radius in pixels; None: 2x a mail column


def render_board(picture: Picture) -> RenderedBoard:
    """Draw ``picture`` as PNG, SVG and ASCII."""
    return RenderedBoard(picture, render_png(picture), render_svg(picture), render_ascii(picture))


def render_boards(pictures: Sequence[tuple[str, Picture]]) -> RenderedBoard:
    """Draw the first picture as the board, the others (named: an overview) as its
    ``others``: a PNG alone, small (hex radius :data:`SMALL_RADIUS`, shown pixel for pixel),
    so that a mail with a large map's area and overview stays within its size budget (the
    overview's SVG of a 40 x 30 map alone would not)."""
    (_, first), *rest = pictures
    board = render_board(first)
    if not rest:
        return board
    others = tuple(
        (name, RenderedBoard(p, render_png(p, SMALL_RADIUS), "", "", radius=SMALL_RADIUS))
        for name, p in rest
    )
    return replace(board, others=others)
