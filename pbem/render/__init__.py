"""Board rendering: a system's neutral Picture drawn as SVG, PNG and ASCII from one geometry.

Ask the game system for a picture with :func:`picture_of` (an engine's
``public_view`` dict, the turn's events and the viewer's side) or
:func:`position_picture` (a position file), then :func:`render_board` once
per side and turn.
"""

from pbem.render.bundle import RenderedBoard, render_board
from pbem.render.picture import NoPicture, picture_of, position_picture

__all__ = ["NoPicture", "RenderedBoard", "picture_of", "position_picture", "render_board"]
