"""Render a board once in every form a mail carries, to share between recipients."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.render.ascii import render_ascii
from pbem.render.png import render_png
from pbem.render.svg import render_svg
from pbem.render.view import BoardView

__all__ = ["RenderedBoard", "render_board"]


@dataclass(frozen=True)
class RenderedBoard:
    """A board view with its PNG bytes, SVG text and ASCII picture.

    The board is public: build one per turn and hand the same object to every
    player's mail.
    """

    view: BoardView
    png: bytes
    svg: str
    ascii: str


def render_board(view: BoardView) -> RenderedBoard:
    """Draw ``view`` as PNG, SVG and ASCII."""
    return RenderedBoard(view, render_png(view), render_svg(view), render_ascii(view))
