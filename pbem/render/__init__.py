"""Board rendering: one neutral BoardView drawn as SVG, PNG and ASCII from one geometry."""

from pbem.render.bundle import RenderedBoard, render_board
from pbem.render.view import BoardView, from_position_toml

__all__ = ["BoardView", "RenderedBoard", "from_position_toml", "render_board"]
