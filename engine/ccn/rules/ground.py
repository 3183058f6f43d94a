"""Terrain as a battle reads it (ccn.md §23.5, §23.9): fortified hexsides and dice removed.

:func:`across_fortified` and :func:`out_across_fortified` say whether a battle enters or
leaves a field fortification across one of its fortified hexsides (melee: the shared side;
fire: the side the line of sight crosses, either side at a vertex, [R] §23.5).
:func:`reduction` is the number of dice the terrain removes from one battle, stacked as
:func:`engine.ccn.dice.terrain_reduction` says (§23.9).
"""

from __future__ import annotations

from engine.ccn.dice import terrain_reduction
from engine.ccn.rules.field import Field, L, U
from engine.hexgrid import Hex

__all__ = ["across_fortified", "out_across_fortified", "reduction"]


def across_fortified(f: Field[U, L], target: Hex, attacker: Hex) -> bool:
    """Whether a battle from ``attacker`` enters ``target`` across one of ``target``'s
    fortified hexsides (ccn.md §23.5; module docstring)."""
    steps = attacker.line_to(target)
    if len(steps) < 2:
        return False
    return any(f.fortified(target, h) for h in steps[-2])


def out_across_fortified(f: Field[U, L], attacker: Hex, target: Hex) -> bool:
    """Whether a battle from ``attacker`` leaves it across one of ``attacker``'s own
    fortified hexsides (ccn.md §23.1 note 3)."""
    steps = attacker.line_to(target)
    if len(steps) < 2:
        return False
    return any(f.fortified(attacker, h) for h in steps[1])


def reduction(f: Field[U, L], frm: Hex, arm: str, kind: str, target: Hex) -> int:
    """Dice the terrain removes from a unit of ``arm`` battling (``kind``: ranged or melee)
    from ``frm`` into ``target`` (ccn.md §23.1, §23.9)."""
    across = across_fortified(f, target, frm)
    out = out_across_fortified(f, frm, target)
    return terrain_reduction(
        f.tables, arm, kind, _under(f, frm, out), _under(f, target, across), across, out
    )


def _under(f: Field[U, L], h: Hex, crossed: bool) -> str:
    """The hex's terrain; a field fortification not crossed counts as clear (§23.1 note 2)."""
    code = f.terrain_at(h)
    return "clear" if f.tables.terrain[code].fortified and not crossed else code
