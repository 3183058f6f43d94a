"""The C&C Ancients scenario model: a validated scenario, its sides, units and leaders."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.capabilities import ScenarioProblem as Problem

__all__ = ["Leader", "Problem", "ReserveUnit", "Scenario", "Side", "Unit"]


@dataclass(frozen=True)
class Unit:
    """A unit on the board: ``hex`` in canonical notation, type code, blocks (None = full)."""

    hex: str
    type: str
    blocks: int | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReserveUnit:
    """A unit off the board, brought in by a special rule."""

    type: str
    blocks: int | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Leader:
    """A leader; attached if a friendly unit shares its hex."""

    hex: str
    name: str


@dataclass(frozen=True)
class Side:
    """One army's set-up: War Council values and its units."""

    side: str
    army: str
    blocks: str | None
    command: int
    banners: int
    first: bool
    units: tuple[Unit, ...]
    leaders: tuple[Leader, ...] = ()
    reserve: tuple[ReserveUnit, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """A validated scenario; ``terrain`` maps hex -> terrain name (clear hexes absent)."""

    id: str
    name: str
    year: str
    system: str
    source: str
    north: Side
    south: Side
    terrain: Mapping[str, str] = field(default_factory=dict)
    special: tuple[Mapping[str, Any], ...] = ()

    @property
    def first(self) -> str:
        """The side that moves first."""
        return "north" if self.north.first else "south"

    def side(self, name: str) -> Side:
        """Return ``north`` or ``south``."""
        return self.north if name == "north" else self.south
