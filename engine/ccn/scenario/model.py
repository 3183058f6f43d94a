"""The C&C Napoleonics scenario model: a validated battle, its sides, units, leaders and objectives.

Everything is a frozen dataclass; :func:`engine.ccn.scenario.check.check_text` builds a
:class:`Scenario` from a ``pbem-position/1`` file (docs/scenarios.md, "Napoleonics"). Hexes are
canonical names on the standard 13 x 9 board (``engine.hexgrid``: row 1 is South's baseline,
row 9 North's). Codes come from the tables in ``engine/ccn/data``: nations (``FR``, ``GB``...),
unit types (``LN``, ``LC``, ``FA``...) and terrain (``hill``, ``woods``, ``town``...).

A fact a public page does not give is a :class:`Placeholder` (ccn.md §0 ``[X]``): the file
names the field (and the entries) it covers and why; :meth:`Scenario.is_placeholder` lets
callers and tests tell such values apart, so no test asserts one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.capabilities import ScenarioProblem as Problem

__all__ = [
    "NORTH",
    "SIDES",
    "SOUTH",
    "Leader",
    "Objective",
    "Placeholder",
    "Problem",
    "Scenario",
    "Side",
    "SpecialRule",
    "Unit",
]

NORTH, SOUTH = "north", "south"
SIDES = (NORTH, SOUTH)


@dataclass(frozen=True)
class Unit:
    """A unit at set-up: hex, nation code, type code, starting blocks (None: the nation's).

    ``entry`` is the line as the file wrote it (``"C3 FR LN"``), which placeholders refer to.
    """

    hex: str
    nation: str
    type: str
    blocks: int | None = None
    tags: tuple[str, ...] = ()
    entry: str = ""


@dataclass(frozen=True)
class Leader:
    """A leader: attached if a friendly unit shares its hex, else alone (ccn.md §4.7)."""

    hex: str
    nation: str
    name: str
    entry: str = ""


@dataclass(frozen=True)
class Side:
    """One army's set-up: its nations, command cards, banners to win and pieces (ccn.md §5).

    ``order_of_battle`` is the source page's count per ``[NATION ]TYPE`` and
    ``[NATION ]leaders`` as the file writes it; the checker holds the pieces to it.
    """

    side: str
    army: str
    nations: tuple[str, ...]
    command: int
    banners: int
    first: bool
    units: tuple[Unit, ...]
    leaders: tuple[Leader, ...] = ()
    commander: str = ""
    order_of_battle: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Objective:
    """Victory banners for holding hexes (ccn.md §7 [R]).

    ``side`` is who can gain them. ``count``: ``each`` (one award per hex held), ``any`` (one
    award while any hex is held), ``all`` (one award while every hex is held) or ``majority``
    (one award while it holds more of them than the enemy). ``kind``: ``temporary`` (the
    banner is lost when the hex is lost) or ``permanent`` (kept once gained). ``when``:
    ``turn-start`` (held at the start of the side's own turn) or ``any-time`` (the moment a
    unit enters). ``banners`` is the banners of one award; ``sudden_death``: gaining it wins
    the battle at once.
    """

    side: str
    hexes: tuple[str, ...]
    banners: int = 1
    count: str = "each"
    kind: str = "temporary"
    when: str = "turn-start"
    note: str = ""
    sudden_death: bool = False

    def most(self) -> int:
        """The most banners this objective can be worth at one time."""
        return self.banners * (len(self.hexes) if self.count == "each" else 1)

    def name(self, i: int) -> str:
        """The name of the ``i``-th objective (from 0): the first words of its note (before
        any colon), else ``<side> objective <i + 1>``. Its banners are kept as
        ``objective:<name>``, so one side's objectives need different names."""
        if not self.note:
            return f"{self.side} objective {i + 1}"
        words = self.note.split(":", maxsplit=1)[0].split()
        return " ".join(words[:8]) or f"objective {i + 1}"


@dataclass(frozen=True)
class SpecialRule:
    """A scenario special rule: its name, parameters and the words shown to players.

    ``enforced`` is False for a ``note`` rule: the referee shows it and the players apply it.
    """

    rule: str
    params: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""

    @property
    def enforced(self) -> bool:
        return self.rule != "note"


@dataclass(frozen=True)
class Placeholder:
    """A value no public source gives: the dotted ``field`` (and the ``items`` of it) and why."""

    field: str
    reason: str
    items: tuple[str, ...] = ()

    def covers(self, path: str, item: str | None = None) -> bool:
        """Whether this placeholder covers ``path`` (or ``item`` of it)."""
        if path != self.field and not path.startswith(self.field + "."):
            return False
        return not self.items or item is None or item in self.items


@dataclass(frozen=True)
class Scenario:
    """A validated Napoleonics scenario; ``terrain`` maps hex -> terrain code (clear absent).

    ``fortified`` maps a field fortifications hex to the neighbours across its fortified
    hexsides (ccn.md §23.5: three of its six sides).
    """

    id: str
    name: str
    date: str
    source: str
    north: Side
    south: Side
    terrain: Mapping[str, str] = field(default_factory=dict)
    objectives: tuple[Objective, ...] = ()
    special: tuple[SpecialRule, ...] = ()
    placeholders: tuple[Placeholder, ...] = ()
    fortified: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    system: str = "ccn"

    @property
    def year(self) -> str:
        """The year of :attr:`date` (its last word), as scenario listings show it."""
        return self.date.split()[-1] if self.date else ""

    @property
    def first(self) -> str:
        """The side that moves first (ccn.md §5.8)."""
        return NORTH if self.north.first else SOUTH

    @property
    def sides(self) -> tuple[Side, Side]:
        return (self.north, self.south)

    def side(self, name: str) -> Side:
        """Return ``north`` or ``south``."""
        return self.north if name == NORTH else self.south

    def is_placeholder(self, path: str, item: str | None = None) -> bool:
        """Whether the value at dotted ``path`` (or its entry ``item``) is a placeholder."""
        return any(p.covers(path, item) for p in self.placeholders)

    def unit_is_placeholder(self, side: str, unit: Unit) -> bool:
        """Whether the file marks ``unit``'s entry (hex, nation, type or blocks) a placeholder."""
        return self.is_placeholder(f"sides.{side}.units", unit.entry)
