"""The C&C Ancients terrain table (cca.md §17), as data.

Movers are grouped as the table's columns: ``light`` (LI LB LS AUX and WAR),
``foot`` (MI HI), ``hwm``, ``mounted`` and ``leader`` (a lone leader). Dice
caps are "max N dice when battling into or out of the hex"; card bonuses are
added after caps (§17.1). Hill dice caps depend on both hexes and are
computed in :mod:`engine.cca.combat` from the ``hill`` flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cca.units import UnitSpec

__all__ = ["ALIASES", "TERRAIN", "TerrainSpec", "mover_kind", "terrain"]

_ALL = frozenset({"light", "foot", "hwm", "mounted", "leader"})


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


TERRAIN: dict[str, TerrainSpec] = {
    t.name: t
    for t in (
        TerrainSpec("clear"),
        TerrainSpec(
            "broken-ground",
            impassable=frozenset({"hwm"}),
            stop=frozenset({"mounted", "leader"}),
            no_battle_on_entry=frozenset({"mounted"}),
            no_bonus_on_entry=frozenset({"mounted"}),
            melee_cap=2,
        ),
        TerrainSpec(
            "forest",
            stop=_ALL,
            no_battle_on_entry=frozenset({"foot", "hwm", "mounted"}),
            no_bonus_on_entry=frozenset({"foot", "hwm", "mounted"}),
            blocks_los=True,
            melee_cap=2,
            ranged_cap_into=1,
        ),
        TerrainSpec("hill", blocks_los=True, hill=True),
        TerrainSpec("lake", impassable=_ALL),
        TerrainSpec("river", impassable=_ALL),
        TerrainSpec("steep-hill", impassable=_ALL, blocks_los=True),
        TerrainSpec(
            "fordable-river",
            stop=_ALL,
            melee_cap=2,
            ranged_cap_out=1,
            no_advance_out_if_entered_this_turn=True,
        ),
        TerrainSpec("ramparts", ramparts=True, foot_ignores_sword=1, foot_ignores_flag=1),
        TerrainSpec(
            "camp",
            blocks_los=True,
            minus_out=1,
            minus_into_option="camp_minus1_into",
            foot_ignores_sword=1,
            foot_ignores_flag=1,
        ),
        TerrainSpec(
            "marsh",
            impassable=frozenset({"hwm"}),
            stop=_ALL,
            melee_cap=2,
            ranged_cap_out=1,
            no_advance_out_if_entered_this_turn=True,
            marsh_roll=True,
            leave_max_move=1,
        ),
        TerrainSpec(
            "city-wall",
            impassable=frozenset({"hwm", "mounted"}),
            stop=frozenset({"light", "foot", "leader"}),
            blocks_los=True,
            melee_cap=2,
            foot_ignores_sword=1,
            foot_ignores_flag=1,
            leave_max_move=1,
            enter_only_from_adjacent_start=frozenset({"light", "foot", "leader"}),
            defender_strikes_first=True,
        ),
    )
}
"""Every terrain type by name (as written in position files)."""

ALIASES = {"seacoast": "lake", "sea": "lake", "ford": "fordable-river", "fortified-camp": "camp"}


def terrain(name: str) -> TerrainSpec:
    """Return the row for ``name`` (aliases accepted), or raise ``KeyError``."""
    return TERRAIN[ALIASES.get(name, name)]


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
