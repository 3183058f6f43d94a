"""The C&C Ancients terrain table's rows (cca.md §17); the values are the ``[terrain]``
table of ``engine/cca/tables.toml`` (a game reads its own: ``state.tables.terrain``).

Movers are grouped as the table's columns: ``light`` (LI LB LS AUX and WAR),
``foot`` (MI HI), ``hwm``, ``mounted`` and ``leader`` (a lone leader). Dice
caps are "max N dice when battling into or out of the hex"; card bonuses are
added after caps (§17.1). Hill dice caps depend on both hexes: the ``hill``
flag of each says which of the row's ``hill_cap_*`` apply (:mod:`engine.cca.combat`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cca.units import UnitSpec

__all__ = ["ALIASES", "TerrainSpec", "mover_kind"]


@dataclass(frozen=True)
class TerrainSpec:
    """Effects of one terrain type; empty sets mean "no effect"."""

    name: str
    impassable: frozenset[str] = frozenset()
    stop: frozenset[str] = frozenset()
    no_battle_on_entry: frozenset[str] = frozenset()
    no_bonus_on_entry: frozenset[str] = frozenset()
    blocks_los: bool = False
    hill: bool = False
    melee_cap: int | None = None  # close combat into or out of
    ranged_cap_into: int | None = None
    ranged_cap_out: int | None = None
    minus_out: int = 0  # dice lost battling out of the hex (close and ranged)
    minus_into_option: str | None = None  # option name that adds -1 into the hex
    foot_ignores_sword: int = 0  # defender on the hex, close combat
    foot_ignores_flag: int = 0  # defender on the hex, any attack
    ramparts: bool = False  # protection only across the facing hexsides
    no_advance_out_if_entered_this_turn: bool = False
    marsh_roll: bool = False  # entering costs a block on the unit's own symbol
    leave_max_move: int | None = None  # a unit leaving the hex moves at most this far
    enter_only_from_adjacent_start: frozenset[str] = frozenset()
    defender_strikes_first: bool = False  # a defender here rolls first, as First Strike
    hill_cap_foot: int | None = None  # close combat from this hill by foot (downhill, hill to hill)
    hill_cap_mounted: int | None = None  # the same by a mounted unit
    hill_cap_uphill: int | None = None  # close combat into this hill from lower ground


ALIASES = {"seacoast": "lake", "sea": "lake", "ford": "fordable-river", "fortified-camp": "camp"}


def mover_kind(unit: UnitSpec | None) -> str:
    """Return the terrain-table column for a unit type (None = a lone leader)."""
    if unit is None:
        return "leader"
    if unit.war_machine:
        return "hwm"
    if unit.mounted:
        return "mounted"
    if unit.weight == "light" or unit.warrior:
        return "light"
    return "foot"
