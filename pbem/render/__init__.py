"""Board rendering: one neutral BoardView drawn as SVG, PNG and ASCII from one geometry.

Build a view with :func:`from_public_view` (an engine's ``public_view`` dict
and the turn's events) or :func:`from_position_toml` (a position file), then
:func:`render_board` once per turn and share the result between mails.
"""

from pbem.render.bundle import RenderedBoard, render_board
from pbem.render.from_engine import from_public_view
from pbem.render.view import BoardView, from_position_toml

__all__ = ["BoardView", "RenderedBoard", "from_position_toml", "from_public_view", "render_board"]
