"""C&C Napoleonics units as the rules see them: nation, type and blocks (ccn.md §4, §15).

:class:`Strength` is what the dice and flag rules read of a unit; :func:`rows_of` gives the
generic type row and the nation's row for it (a neutral nation row when the nation's table
fields no such type). Starting strength, flags a type ignores and retreat per flag come
from the tables, never from type codes.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ccn.tables import CcnTables, NationType, UnitType

__all__ = ["Strength", "half", "retreat_hexes", "rows_of", "start_blocks", "type_flags"]


@dataclass(frozen=True)
class Strength:
    """A unit as the dice see it: nation, type code, current blocks (ccn.md §26.1)."""

    nation: str
    unit: str
    blocks: int


def half(blocks: int, rounding: str) -> int:
    """Half the blocks, rounded ``"up"`` or ``"down"`` (a moved unit's fire, ccn.md §4.3)."""
    return (blocks + 1) // 2 if rounding == "up" else blocks // 2


def rows_of(t: CcnTables, s: Strength) -> tuple[UnitType, NationType]:
    """The generic row and the nation's row (a neutral one if the nation fields no such type)."""
    unit = t.units[s.unit]
    key = f"{s.nation}_{s.unit}"
    if key in t.types:
        return unit, t.types[key]
    nation = t.nations[s.nation]
    neutral = NationType(
        code=key,
        nation=s.nation,
        unit=s.unit,
        blocks=unit.blocks,
        fire_standing=0,
        fire_moved=0,
        melee=0,
        melee_vs_infantry=0,
        melee_moved=0,
        flags_ignored=unit.flags_ignored,
        retreat=3 if s.unit == "MI" else nation.retreat,
        rounding=nation.rounding,
    )
    return unit, neutral


def start_blocks(t: CcnTables, nation: str, unit: str, scenario: int | None = None) -> int:
    """Starting strength: the scenario's number, else the nation's, else the type's (§4.6)."""
    if scenario is not None:
        return scenario
    return rows_of(t, Strength(nation, unit, 0))[1].blocks


def type_flags(t: CcnTables, s: Strength) -> int:
    """Flags the unit may ignore by its type in its nation (ccn.md §15.2, §4.2)."""
    return rows_of(t, s)[1].flags_ignored


def retreat_hexes(t: CcnTables, s: Strength, flags: int) -> int:
    """Hexes a unit must retreat for ``flags`` unignored flags (ccn.md §15.1: militia 3 each)."""
    return max(0, flags) * rows_of(t, s)[1].retreat
