"""The C&C Ancients unit table's rows (cca.md §3.1), read from ``tables.toml``.

Each :class:`UnitSpec` row holds what the rules need to know about a type;
code elsewhere asks the row, never the type code, so a correction is a
one-cell change in ``engine/cca/tables.toml`` (each value there says where
it comes from: see :mod:`engine.core.tables`); a game reads the rows of its
own tables (``state.tables.units``, :mod:`engine.cca.tables`). Symbols: ``G``
light (green circle), ``B`` medium (blue triangle), ``R`` heavy (red square);
a die face equal to a unit's symbol hits it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UnitSpec", "weight_of_face"]

# Evade eligibility (cca.md §14.1).
EVADE_ALWAYS = "always"
EVADE_NEVER = "never"
EVADE_FOOT_HEAVY = "foot-or-heavy"  # MC, CAM, CCAM: from foot and heavy units
EVADE_FOOT_ELEPHANT = "foot-or-elephant"  # HC, HCC, HCH: from foot and elephants
EVADE_WAR_MACHINE = "war-machine"  # HWM: whenever a path exists, then removed

# Bonus close combat eligibility (cca.md §15.2).
BONUS_ALWAYS = "always"
BONUS_WITH_LEADER = "with-leader"
BONUS_NEVER = "never"


@dataclass(frozen=True)
class UnitSpec:
    """One unit type: movement, fire, melee, morale and evade characteristics."""

    code: str
    name: str
    symbol: str  # G / B / R
    weight: str  # light / medium / heavy (ordering category and symbol)
    foot: bool
    blocks: int
    move: int
    battle_after: int  # the furthest it may move and still battle (0: not after moving)
    range: int  # 0 = no missile weapons
    melee: int  # close-combat dice attacking (before strength bonus)
    battle_back: int  # close-combat dice battling back / First Strike
    swords_hit: bool  # its S results score hits in close combat
    retreat: int  # hexes per flag
    evade: str
    bonus: str
    border: bool = False
    cavalry: bool = False  # narrow sense: LC LBC MC HC HCC
    chariot: bool = False
    camel: bool = False
    elephant: bool = False
    war_machine: bool = False
    warrior: bool = False
    strength_bonus: bool = False  # WAR, BCH: +1 die and ignore 1 F at full strength
    ignore_swords: int = 0  # in close combat (99 = all)
    ignore_b_vs_mounted: bool = False  # CAM, CCAM: 1 B when cavalry/chariots roll
    must_melee_after: int = 0  # WAR: moving this far obliges close combat (0 = never)
    rally: bool = True
    elephant_dice: int = 0  # an elephant attacking this type rolls this (0: the type's dice)

    @property
    def mounted(self) -> bool:
        return not self.foot

    @property
    def cav_or_chariot(self) -> bool:
        """Cavalry or chariots: what elephant and camel defences react to."""
        return self.cavalry or self.chariot

    @property
    def light_foot(self) -> bool:
        return self.foot and self.weight == "light"

    @property
    def missile(self) -> bool:
        return self.range > 0


def weight_of_face(face: str) -> str | None:
    """Return the unit weight a die face orders or hits (G/B/R), else None."""
    return {"G": "light", "B": "medium", "R": "heavy"}.get(face)
