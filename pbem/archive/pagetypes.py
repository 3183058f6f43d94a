"""What a club page provider gives the archive (:mod:`pbem.archive.hooks`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlmodel import Session

__all__ = ["ArchivePage", "PageProvider"]


@dataclass(frozen=True)
class ArchivePage:
    """A page a club provider adds: ``path`` under ``clubs/`` (``"ladder-chess.html"``),
    its ``title`` and ``body``, an HTML fragment the provider has escaped itself."""

    path: str
    title: str
    body: str
    club: str = ""


PageProvider = Callable[[Session], Iterable[ArchivePage]]
