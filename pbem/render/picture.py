"""Ask a game system for the picture of its board (its optional ``picture`` capability,
:data:`engine.core.capabilities.PICTURE`).

pbem never builds a picture itself: the system turns its public view and
the turn's events into an :class:`engine.core.picture.Picture`, seen from the
viewer's side, and pbem draws it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

from engine.core.api import GameSystem
from engine.core.capabilities import PICTURE, PictureSet, find
from engine.core.picture import Picture
from engine.systems import get_system

__all__ = ["NoPicture", "has_picture", "picture_of", "pictures_of", "position_picture"]


class NoPicture(LookupError):
    """The game system draws no board (it offers no ``picture`` capability)."""


def has_picture(system: GameSystem) -> bool:
    """True if ``system`` can draw its board."""
    return find(system, PICTURE) is not None


def picture_of(
    system: GameSystem,
    view: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]] = (),
    viewer: str | None = None,
) -> Picture:
    """The picture of ``view`` (a ``public_view`` dict) after ``events``, seen by ``viewer``.

    Raises :class:`NoPicture` for a system without the capability and
    ``ValueError`` for a view that is not a board.
    """
    builder = find(system, PICTURE)
    if builder is None:
        raise NoPicture(f"the game system {system.name!r} draws no board")
    pic = builder.picture(view, tuple(events), viewer)
    if not isinstance(pic, Picture):
        raise TypeError(f"the system's picture is a {type(pic).__name__}, not a Picture")
    return pic


def pictures_of(
    system: GameSystem,
    view: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]] = (),
    viewer: str | None = None,
) -> tuple[tuple[str, Picture], ...]:
    """Every named picture a mail carries: the board (:func:`picture_of`) first, then the
    others the system draws (:class:`~engine.core.capabilities.PictureSet`: the overview of
    a large map). A system with one picture gives ``(("board", picture),)``."""
    found = find(system, PICTURE)
    builder: object = found
    if not isinstance(builder, PictureSet):
        return (("board", picture_of(system, view, events, viewer)),)
    got = tuple(builder.pictures(view, tuple(events), viewer))
    if not got or not all(isinstance(p, Picture) for _, p in got):
        raise TypeError("the system's pictures are not a list of named Pictures")
    return got


def position_picture(text: str, viewer: str | None = None) -> Picture:
    """The picture of a position or scenario file (its ``system`` key picks the system).

    Raises ``ValueError`` (the system's ``PositionError`` among them) for a
    file that is not a position, ``KeyError`` for an unknown system.
    """
    try:
        name = str(tomllib.loads(text).get("system", "cca"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not TOML: {exc}") from exc
    system = get_system(name)
    return picture_of(system, system.public_view(system.load_position(text)), (), viewer)
