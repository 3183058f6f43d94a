"""The grid protocol: what rules code may ask of any hex board, whatever its shape.

Two implementations ship: the Commands & Colors board
(:class:`engine.hexgrid.Board`: pointy-top hexes in alternately offset rows,
13 x 9, named ``C4``, with sections) and the Great Battles of History map
(:class:`engine.gboh.grid.HexMap`: flat-top hexes in offset columns, about
40 x 30, numbered ``1423``, with facing). A system's rules use its own grid's
extras (sections, facing); shared code (line of sight, reach, the picture
model) needs only this protocol.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, Protocol, TypeVar

__all__ = ["Grid", "Orientation"]

Orientation = Literal["pointy", "flat"]
"""``pointy``: a vertex at the top of each hex (C&C); ``flat``: a side at the top (GBoH)."""

H = TypeVar("H")


class Grid(Protocol[H]):
    """A finite hex board whose hexes are values of type ``H`` (hashable, ordered)."""

    @property
    def orientation(self) -> Orientation:
        """How the hexes stand (for drawing and for naming directions)."""
        ...

    def parse(self, text: str) -> H:
        """Read a hex as people write it; raise ``ValueError`` (with why) if off the board."""
        ...

    def notation(self, h: H) -> str:
        """The hex as people write it (``parse(notation(h)) == h``)."""
        ...

    def __contains__(self, h: object) -> bool: ...

    def __iter__(self) -> Iterator[H]: ...

    def neighbours(self, h: H) -> tuple[H, ...]:
        """The adjacent hexes that are on the board."""
        ...

    def distance(self, a: H, b: H) -> int:
        """Steps from ``a`` to ``b`` (ignoring what stands between)."""
        ...

    def line(self, a: H, b: H) -> tuple[tuple[H, ...], ...]:
        """The hexes a centre-to-centre line crosses, step by step (two hexes on a tie)."""
        ...
