"""Pieces by id with a hex index, and the end of a game mid-turn (shared by the C&C systems).

A turn is resolved on mutable pieces; rules look pieces up by hex far more often than they
move them, so a :class:`Roster` keeps a hex index it rebuilds lazily after a piece moves.
:class:`GameOver` unwinds a turn the moment a side reaches its banners.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from engine.hexgrid import Hex

__all__ = ["GameOver", "Placed", "Roster", "refrozen", "same_fields", "tell_roster", "thawed"]


class _Placed(Protocol):
    hex: Hex | None


_P = TypeVar("_P", bound=_Placed)


class Roster(dict[str, _P], Generic[_P]):
    """The pieces of one kind by id, with a hex index rebuilt after any piece moves.

    Look-ups by hex are the rules' hottest path; a scan of every piece per
    look-up cost about a third of a random game. A piece added with
    ``roster[id] = piece`` tells the roster when its ``hex`` changes (see
    :class:`Placed`), so rules keep assigning ``u.hex`` directly.
    Where two pieces share a hex the first added wins, as the scan did.
    """

    def __init__(self) -> None:
        super().__init__()
        self._at: dict[Hex, _P] | None = None
        self._crowded = False  # two pieces shared a hex when the index was built

    def __setitem__(self, key: str, piece: _P) -> None:
        super().__setitem__(key, piece)
        object.__setattr__(piece, "_roster", self)
        self._at = None

    def fill(self, pieces: list[tuple[str, _P]]) -> None:
        """Add ``(id, piece)`` pairs whose ``_roster`` is already this roster (a fresh copy)."""
        dict.update(self, pieces)
        self._at = None

    def moved(self) -> None:
        """Forget the hex index (a piece's hex changed)."""
        self._at = None

    def shifted(self, piece: _P, old: Hex | None, new: Hex | None) -> None:
        """``piece`` went from ``old`` to ``new``: the index follows it when no other piece
        stands on either hex (the usual move), else it is built again when next asked."""
        index = self._at
        if index is None:
            return
        if (
            self._crowded
            or (new is not None and new in index)
            or (old is not None and index.get(old) is not piece)
        ):
            self._at = None
            return
        if old is not None:
            del index[old]
        if new is not None:
            index[new] = piece

    def at(self, h: Hex) -> _P | None:
        """Return the first piece on ``h``, or None."""
        return self.index().get(h)

    def index(self) -> dict[Hex, _P]:
        """The first piece on each hex (valid until a piece moves: do not keep it)."""
        index = self._at
        if index is None:
            index = {}
            placed = 0
            for piece in self.values():
                if piece.hex is not None:
                    index.setdefault(piece.hex, piece)
                    placed += 1
            self._crowded = placed != len(index)
            self._at = index
        return index


_T = TypeVar("_T")
_F = TypeVar("_F")


def thawed(cls: type[_T], roster: Roster[Any], was: object) -> _T:
    """A working ``cls`` made from the frozen piece ``was`` (a frozen dataclass whose fields
    are the first fields of ``cls``, same names: :func:`same_fields` checks it once), held by
    ``roster``, without a hex notice per field (a working copy makes one per piece at the
    start of every turn; add it with :meth:`Roster.fill`). It remembers ``was`` for
    :func:`refrozen`.
    """
    piece: _T = object.__new__(cls)
    fields = piece.__dict__
    fields.update(was.__dict__)
    fields["_roster"] = roster
    fields["_was"] = was
    return piece


def same_fields(frozen: type, working: type, names: tuple[str, ...]) -> None:
    """Check that ``frozen`` has exactly the fields ``names`` and ``working`` starts with
    them (what :func:`thawed` relies on); ``TypeError`` otherwise (at import)."""
    have = tuple(f.name for f in dataclasses.fields(frozen))
    work = tuple(f.name for f in dataclasses.fields(working))[: len(names)]
    if have != names or work != names:
        raise TypeError(f"{frozen.__name__} {have} and {working.__name__} {work} differ")


def refrozen(piece: _T, get: Callable[[Any], Any], make: Callable[[_T], _F]) -> _F:
    """The frozen piece ``piece`` was made from if no field of it was assigned since
    (:class:`Placed` forgets it then), else ``make(piece)`` (a turn leaves most pieces as
    they were). ``get`` (an ``operator.attrgetter`` of the fields) is kept for callers."""
    was = piece.__dict__.get("_was")
    if was is not None:
        return was  # type: ignore[no-any-return]
    return make(piece)


def tell_roster(piece: object) -> None:
    """Tell the roster holding ``piece`` (if any) that its hex changed."""
    roster = piece.__dict__.get("_roster")
    if roster is not None:
        roster.moved()


class Placed:
    """A mutable piece a :class:`Roster` holds: assigning its ``hex`` tells the roster;
    assigning any field forgets the frozen piece it was made from (:func:`refrozen`)."""

    def __setattr__(self, name: str, value: Any) -> None:
        fields = self.__dict__
        old = fields.get("hex")
        object.__setattr__(self, name, value)
        if fields.get("_was") is not None:
            fields["_was"] = None
        if name == "hex" and old != value:
            roster = fields.get("_roster")
            if roster is not None:
                roster.shifted(self, old, value)


class GameOver(Exception):
    """A side reached its banners (``result`` = winner or ``"draw"``)."""

    def __init__(self, result: str) -> None:
        self.result = result
        super().__init__(result)
