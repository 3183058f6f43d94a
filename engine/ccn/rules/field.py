"""What the Napoleonics rules modules read of the game and ask of the turn engine.

The rules in :mod:`engine.ccn.rules` are written against two protocols, so the turn engine
(``engine/ccn/state.py`` and its working copy) plugs in without the rules importing it:

* :class:`Field` - the board as the rules read it: units and leaders by hex, terrain,
  fortified hexsides, baselines, the tables, the side's opponent;
* :class:`Referee` - a :class:`Field` that can also change the working copy while one
  combat resolves: roll battle dice, log an event, remove blocks, move pieces, kill or
  remove a leader, take a square card, and the :class:`~engine.cc.decide.Decider` that
  turns a choice into the orders' answer, a standing order or a question (ccn.md §26.2).

Units and leaders are anything with the attributes of :class:`UnitLike` and
:class:`LeaderLike`; the protocols are generic over the concrete classes (``U``, ``L``) so
a working copy passes its own mutable pieces. The helpers below (:func:`spec`,
:func:`attached`, :func:`rear`...) are the board look-ups every rule shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from engine.cc.decide import Decider
from engine.ccn.tables import CcnTables, Terrain, UnitType
from engine.hexgrid import Board, Hex

__all__ = [
    "Field",
    "L",
    "LeaderLike",
    "Referee",
    "U",
    "UnitLike",
    "arm",
    "attached",
    "enemy_units_adjacent",
    "gone",
    "host",
    "lone",
    "rear",
    "spec",
    "terrain",
]


class UnitLike(Protocol):
    """A unit as the rules read it (ccn.md §26.1)."""

    @property
    def id(self) -> str: ...
    @property
    def side(self) -> str: ...
    @property
    def nation(self) -> str: ...
    @property
    def type(self) -> str:
        """Unit type code of units.toml (LN, LT, ... HA)."""
        ...

    @property
    def blocks(self) -> int: ...
    @property
    def hex(self) -> Hex | None:
        """Its hex; None once eliminated."""
        ...

    @property
    def square(self) -> bool:
        """In square (ccn.md §21)."""
        ...


class LeaderLike(Protocol):
    """A leader as the rules read it (ccn.md §4.7)."""

    @property
    def name(self) -> str: ...
    @property
    def side(self) -> str: ...
    @property
    def hex(self) -> Hex | None:
        """Its hex; None once killed or gone off the map."""
        ...


U = TypeVar("U", bound=UnitLike)
L = TypeVar("L", bound=LeaderLike)
_U_co = TypeVar("_U_co", bound=UnitLike, covariant=True)
_L_co = TypeVar("_L_co", bound=LeaderLike, covariant=True)


class Field(Protocol[_U_co, _L_co]):
    """The board as the rules read it."""

    @property
    def tables(self) -> CcnTables: ...
    @property
    def board(self) -> Board: ...
    def unit_at(self, h: Hex) -> _U_co | None:
        """The unit on ``h``, if any."""
        ...

    def leader_at(self, h: Hex) -> _L_co | None:
        """The leader on ``h`` (alone or attached), if any."""
        ...

    def terrain_at(self, h: Hex) -> str:
        """The terrain code (terrain.toml) of ``h``; ``clear`` where the map has none."""
        ...

    def fortified(self, h: Hex, toward: Hex) -> bool:
        """Whether the side of ``h`` facing its neighbour ``toward`` is a fortified hexside
        of a field fortification in ``h`` (ccn.md §23.5)."""
        ...

    def baseline(self, side: str) -> int:
        """The row of ``side``'s own baseline (the edge it retreats toward, ccn.md §2.4)."""
        ...

    def opponent(self, side: str) -> str:
        """The other side."""
        ...


class Referee(Field[U, L], Protocol[U, L]):
    """A :class:`Field` that changes the working copy of one turn (see module docstring)."""

    @property
    def decider(self) -> Decider: ...
    def roll(self, dice: int, purpose: str) -> tuple[str, ...]:
        """Roll ``dice`` battle dice (faces of :data:`engine.ccn.rules.hits.BATTLE_DIE`)."""
        ...

    def pick(self, n: int, purpose: str) -> int:
        """A random index in ``range(n)`` from the committed stream (ccn.md §21.4, §26.3)."""
        ...

    def log(self, kind: str, text: str, faces: Sequence[str] = (), **data: object) -> None:
        """Record an event of this turn."""
        ...

    def lose_blocks(self, u: U, n: int, by: str, why: str) -> int:
        """Remove up to ``n`` blocks of ``u``; on its last block remove it, give ``by`` a
        banner and return its square card to the owner's hand (ccn.md §7, §21.8).
        Returns the blocks removed."""
        ...

    def move_unit(self, u: U, h: Hex) -> None:
        """Put ``u`` (and its attached leader) on ``h``; a lone friendly leader there attaches."""
        ...

    def move_leader(self, ld: L, h: Hex | None) -> None:
        """Put a leader on ``h``; None: it leaves the map across its own baseline, no banner
        (ccn.md §17.2)."""
        ...

    def kill_leader(self, ld: L, by: str, why: str) -> None:
        """Remove a killed leader; ``by`` takes a banner (ccn.md §7)."""
        ...

    def hand(self, side: str) -> Sequence[str]:
        """The card codes in ``side``'s hand (not its square chart), in a canonical order."""
        ...

    def square_slots_free(self, side: str) -> int:
        """Free slots of ``side``'s square chart (ccn.md §21.3: 4 in all)."""
        ...

    def set_square(self, u: U, card: str | None) -> None:
        """Form a square on ``u`` with ``card`` moved from the hand to a free chart slot, or
        (``None``) break it and return the slot's card to the hand (ccn.md §21.4, §21.7)."""
        ...


def gone(u: UnitLike) -> bool:
    """True once ``u`` has left the map (a call, so type narrowing of ``u.hex`` never sticks)."""
    return u.hex is None


def spec(f: Field[U, L], u: UnitLike) -> UnitType:
    """The generic type row of ``u`` (units.toml)."""
    return f.tables.units[u.type]


def arm(f: Field[U, L], u: UnitLike) -> str:
    """``infantry``, ``cavalry`` or ``artillery`` (ccn.md §4.1)."""
    return f.tables.units[u.type].arm


def terrain(f: Field[U, L], h: Hex) -> Terrain:
    """The terrain row of ``h``."""
    return f.tables.terrain[f.terrain_at(h)]


def attached(f: Field[U, L], u: UnitLike) -> L | None:
    """The leader attached to ``u`` (a friendly leader in its hex), if any."""
    if u.hex is None:
        return None
    ld = f.leader_at(u.hex)
    return ld if ld is not None and ld.side == u.side else None


def host(f: Field[U, L], ld: LeaderLike) -> U | None:
    """The friendly unit ``ld`` is attached to, if any."""
    if ld.hex is None:
        return None
    u = f.unit_at(ld.hex)
    return u if u is not None and u.side == ld.side else None


def lone(f: Field[U, L], ld: LeaderLike) -> bool:
    """A leader on the map with no friendly unit in its hex (ccn.md §0)."""
    return ld.hex is not None and host(f, ld) is None


def rear(f: Field[U, L], side: str, h: Hex) -> tuple[Hex, ...]:
    """The (up to two) on-board neighbours of ``h`` one row toward ``side``'s baseline
    (ccn.md §2.4); none on the baseline itself."""
    return tuple(n for n in h.toward(f.baseline(side)) if n in f.board)


def enemy_units_adjacent(f: Field[U, L], u: UnitLike) -> list[U]:
    """Enemy units next to ``u``, in board order."""
    if u.hex is None:
        return []
    out = []
    for n in f.board.neighbours(u.hex):
        e = f.unit_at(n)
        if e is not None and e.side != u.side:
            out.append(e)
    return out
