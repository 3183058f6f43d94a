"""C&C Napoleonics battle dice as pure functions of the tables (ccn.md §4, §11, §14, §23.9).

The count of a battle is built in the order of ccn.md §11: the base dice of the unit
(:func:`fire_dice`, :func:`melee_dice`: type, nation, current blocks, movement, range),
then card dice, then terrain (:func:`terrain_reduction`), then the square cap
(:func:`battle_dice`); never below 0. Every number comes from :class:`CcnTables`.
"""

from __future__ import annotations

from engine.ccn.strength import Strength, half, rows_of
from engine.ccn.tables import CcnTables

__all__ = [
    "FIRE",
    "MELEE",
    "battle_dice",
    "fire_dice",
    "melee_dice",
    "terrain_reduction",
]

FIRE = "ranged"
MELEE = "melee"

_ARM_KEY = {"infantry": "inf", "cavalry": "cav", "artillery": "art"}
_FIELDWORKS = "field_fortifications"


def _chart(t: CcnTables, chart: str, blocks: int, hexes: int) -> int:
    for row in t.artillery.values():
        if row.chart == chart and row.min_blocks <= blocks <= row.max_blocks:
            return row.at(hexes)
    return 0


def fire_dice(t: CcnTables, s: Strength, moved: int, hexes: int) -> int:
    """Base ranged dice of ``s`` having moved ``moved`` hexes, at ``hexes`` (ccn.md §4.2-§4.5, §14).

    0 when it may not fire: cavalry and leaders, out of range, adjacent (§12.1), moved too
    far to battle, artillery that moved where its rules forbid battling (§4.4).
    """
    unit, nt = rows_of(t, s)
    reach = unit.range_after_move if moved else unit.range
    if s.blocks < 1 or unit.range == 0 or moved > unit.move_and_battle or not 2 <= hexes <= reach:
        return 0
    if unit.arm == "artillery":
        if moved and s.blocks < 2:  # 1-block horse artillery: move or battle (§4.4)
            return 0
        return _chart(t, unit.chart, s.blocks, hexes)
    if moved:
        return max(0, half(s.blocks, nt.rounding) + unit.fire_bonus + nt.fire_moved)
    return max(0, s.blocks + unit.fire_bonus + nt.fire_standing)


def melee_dice(t: CcnTables, s: Strength, moved: int, target_arm: str) -> int:
    """Base melee dice of ``s`` having moved ``moved`` hexes, against a ``target_arm`` unit
    (ccn.md §4.2, §4.4, §13, §14); infantry melee is not halved for moving."""
    unit, nt = rows_of(t, s)
    if s.blocks < 1 or unit.arm == "leader" or moved > unit.move_and_battle:
        return 0
    if unit.arm == "artillery":
        if moved and s.blocks < 2:
            return 0
        return _chart(t, unit.chart, s.blocks, 1) + unit.melee_bonus
    dice = s.blocks + unit.melee_bonus + nt.melee
    if target_arm == "infantry":
        dice += nt.melee_vs_infantry
    if moved:
        dice += nt.melee_moved
    return max(0, dice)


def _one_side(t: CcnTables, terrain: str, side: str, arm: str, kind: str) -> int:
    row = t.terrain[terrain]
    field = f"{side}_{arm}" if arm == "cav" else f"{side}_{arm}_{kind}"
    return int(getattr(row, field))


def terrain_reduction(  # noqa: PLR0917 (the rule has this many inputs)
    t: CcnTables,
    arm: str,
    kind: str,
    from_terrain: str,
    into_terrain: str,
    across_fortified: bool = False,
    out_of_fortified: bool = False,
) -> int:
    """Dice removed from a ``arm`` unit battling (``kind`` ranged or melee) from one hex into
    another (ccn.md §23.1, §23.9): the target hex's "into" plus the own hex's "from", except
    hill to hill (its own row) and an attack across a fortified hexside (the fieldworks value
    replaces the target hex's terrain; ``out_of_fortified``: out across one, §23.1 note 3)."""
    if arm not in _ARM_KEY:
        return 0
    a = _ARM_KEY[arm]
    into_hex = _FIELDWORKS if across_fortified else into_terrain
    from_hex = _FIELDWORKS if out_of_fortified else from_terrain
    if t.terrain[into_hex].hill and t.terrain[from_hex].hill:
        pair = t.hill_hill
        return int(getattr(pair, a if a == "cav" else f"{a}_{kind}"))
    return _one_side(t, into_hex, "into", a, kind) + _one_side(t, from_hex, "from", a, kind)


def battle_dice(base: int, card: int, reduction: int, square: bool = False) -> int:
    """The dice rolled (ccn.md §11, §21.5, §21.6): base + card - terrain, or for a square
    (or cavalry attacking one) 1 die less the terrain; never below 0."""
    if square:
        return max(0, 1 - reduction)
    return max(0, base + card - reduction)
