"""Chariots of Fire missile fire as pure functions of the charts (cof.md §7, §12.7-§12.8).

:func:`resolve_fire` is one volley: the die-roll modifiers (missile vs armor, a bow-armed
light infantry that moves, a target in woods, a lower target at 2 hexes or more), the hits
from the Missile Range & Results table (``missile.toml``), the missile supply the unmodified
roll leaves, and whether a leader in the target hex must check (cof.md §7.9). The field of
fire and line of sight (:func:`may_target`, :func:`line_of_sight`) use the flat-top grid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.cof.elevation import sight
from engine.cof.pieces import Ground
from engine.cof.tables import CofTables, TroopType
from engine.gboh.grid import GHex, sectors

__all__ = [
    "Fire",
    "fire_column",
    "in_range",
    "line_of_sight",
    "may_target",
    "missile_drm",
    "missile_hits",
    "resolve_fire",
    "supply_after",
]

SUPPLY = ("full", "low", "no")
"""Missile supply: full, Missile Low, Missile No (cof.md §7.5)."""


def in_range(charts: CofTables, weapon: str, distance: int) -> bool:
    """Whether ``weapon`` reaches ``distance`` hexes (cof.md §7.4)."""
    return 1 <= distance <= charts.weapons[weapon].value


def fire_column(weapon: str, distance: int, *, pass_through: bool = False) -> str:
    """The Missile Range & Results column: ``c2`` = composite bow at 2 hexes (cof.md §7.6)."""
    return "pass_thru" if pass_through else f"{weapon.lower()}{distance}"


def may_target(troop: TroopType, firer: GHex, facing: str, target: GHex) -> bool:
    """Field of fire (cof.md §7.2): light infantry into its front or flank, chariots any way."""
    if troop.kind != "infantry":
        return True
    return bool(sectors(firer, facing, target) & {"front", "flank"})


def line_of_sight(
    firer: GHex,
    target: GHex,
    *,
    blocks: Callable[[GHex], bool],
    occupied: Callable[[GHex], bool],
    ground: Ground | None = None,
) -> bool:
    """Line of sight (cof.md §7.3): adjacent targets always; otherwise no blocking hex
    (woods) between, and at most one combat unit between. Where the line runs along a
    hexside it is blocked only if both hexes block (the firer's benefit). On ``ground``
    (the battle's map; a flat one when absent) hills block as
    :func:`engine.cof.elevation.sight` says (rulebook §7.14)."""
    return sight(ground or Ground(), firer, target, occupied=occupied, blocks=blocks)


def missile_drm(
    charts: CofTables,
    weapon: str,
    target: TroopType,
    *,
    bow_moving: bool = False,
    target_terrain: str = "clear",
    lower_target: bool = False,
    distance: int = 1,
) -> int:
    """The fire's die-roll modifier (cof.md §7.6, §12.8)."""
    mods = charts.missile_modifiers
    drm = charts.armor[weapon][target.armor]
    if bow_moving and weapon in ("B", "C"):
        drm += mods["bow_moving"].value
    drm += charts.terrain[target_terrain].missile_drm
    if lower_target and distance >= 2:
        drm += mods["lower_target"].value
    return drm


def missile_hits(charts: CofTables, column: str, modified_dr: int) -> int:
    """Hits for a modified roll in ``column``; rolls beyond the table read its end rows."""
    rows = charts.missile
    dr = min(max(modified_dr, rows[0].dr), rows[-1].dr)
    return next(r.hits[column] for r in rows if r.dr == dr)


def supply_after(charts: CofTables, supply: str, unmodified_dr: int) -> str:
    """Supply after a volley (cof.md §7.5): an unmodified 9 leaves a full unit low; a low
    unit that fires is out."""
    if supply == "low":
        return "no"
    if supply == "full" and unmodified_dr == charts.missile_modifiers["supply_low_on"].value:
        return "low"
    return supply


@dataclass(frozen=True)
class Fire:
    """One volley: the modified roll, the hits, the firer's supply after, a leader check."""

    modified: int
    hits: int
    supply: str
    leader_check: bool


def resolve_fire(
    charts: CofTables,
    weapon: str,
    distance: int,
    target: TroopType,
    dr: int,
    *,
    supply: str = "full",
    pass_through: bool = False,
    bow_moving: bool = False,
    target_terrain: str = "clear",
    lower_target: bool = False,
) -> Fire:
    """Resolve one volley with die roll ``dr`` (cof.md §7.6). ``ValueError`` if the unit may
    not fire (out of missiles, out of range)."""
    if supply == "no":
        raise ValueError("a unit with Missile No may not fire (cof.md §7.5)")
    if not pass_through and not in_range(charts, weapon, distance):
        raise ValueError(f"{weapon} does not reach {distance} hexes (cof.md §7.4)")
    modified = dr + missile_drm(
        charts,
        weapon,
        target,
        bow_moving=bow_moving,
        target_terrain=target_terrain,
        lower_target=lower_target,
        distance=distance,
    )
    column = fire_column(weapon, distance, pass_through=pass_through)
    return Fire(
        modified=modified,
        hits=missile_hits(charts, column, modified),
        supply=supply_after(charts, supply, dr),
        leader_check=dr == charts.missile_modifiers["leader_check_on"].value,
    )
