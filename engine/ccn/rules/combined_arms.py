"""Combined arms attack (ccn.md §22).

An ordered infantry or cavalry unit meleeing an adjacent enemy may be joined by one or more
artillery units declared with the melee. Each must itself be ordered this turn, not yet
have battled, be allowed to battle after its move, have range and a line of sight to the
target that no unit or terrain blocks (the artillery-on-hill exception does not apply, §22,
§23.2), and not be next to another enemy unit (it could not fire, §12.1) ([R] A14).
Adjacent artillery adds its melee dice, other artillery its chart dice for the range, each
after its own terrain reduction and card bonus; everything is rolled together and scored as
melee: the target's symbol and every SABRE - none at all when the melee unit is rifles or
militia (:func:`combined_sabres`). Only the melee unit follows up; a battle back targets it.
"""

from __future__ import annotations

from engine.ccn.dice import fire_dice, melee_dice
from engine.ccn.rules.field import Field, L, U, arm, enemy_units_adjacent
from engine.ccn.rules.ground import reduction
from engine.ccn.rules.hits import MELEE, RANGED, sabres_hit
from engine.ccn.rules.los import sight
from engine.ccn.strength import Strength
from engine.hexgrid import Hex

__all__ = ["artillery_dice", "combined_sabres", "may_join"]


def may_join(  # noqa: PLR0917 (the rule reads this many things)
    f: Field[U, L],
    art: U,
    melee_unit: U,
    target: Hex,
    ordered: bool,
    battled: bool,
    moved: int,
) -> str | None:
    """Why ``art`` may not join ``melee_unit``'s melee on ``target``, or None if it may."""
    if art.hex is None or arm(f, art) != "artillery":
        return "only artillery joins a combined arms attack"
    if arm(f, melee_unit) not in ("infantry", "cavalry"):
        return "artillery joins an infantry or cavalry melee only"
    if not ordered:
        return "the artillery was not ordered"
    if battled:
        return "the artillery has already battled"
    if art.hex.is_adjacent(target):
        if melee_dice(f.tables, _strength(art), moved, "") <= 0:
            return "the artillery may not battle after its move"
        return None
    if enemy_units_adjacent(f, art):
        return "the artillery is next to an enemy unit"
    if fire_dice(f.tables, _strength(art), moved, art.hex.distance(target)) <= 0:
        return "the target is out of the artillery's range"
    seen = sight(f, art.hex, target, combined=True)
    if not seen.clear:
        return seen.why()
    return None


def _strength(u: U) -> Strength:
    return Strength(u.nation, u.type, u.blocks)


def artillery_dice(f: Field[U, L], art: U, target: Hex, moved: int, card: int = 0) -> int:
    """The dice ``art`` adds to a combined arms attack on ``target``: melee dice if adjacent,
    else its chart dice for the range; plus ``card``, less its terrain reduction, not below 0
    (ccn.md §22 [R])."""
    assert art.hex is not None
    t = f.tables
    target_unit = f.unit_at(target)
    target_arm = arm(f, target_unit) if target_unit is not None else ""
    if art.hex.is_adjacent(target):
        base = melee_dice(t, _strength(art), moved, target_arm)
        kind = MELEE
    else:
        base = fire_dice(t, _strength(art), moved, art.hex.distance(target))
        kind = RANGED
    return max(0, base + card - reduction(f, art.hex, "artillery", kind, target))


def combined_sabres(f: Field[U, L], melee_unit: U) -> bool:
    """Whether SABREs hit on every die of a combined arms attack: not when the melee unit is
    rifles or militia (ccn.md §22)."""
    return sabres_hit(f.tables, melee_unit.type)
