"""The C&C Ancients unit table (cca.md §3.1), as data.

Each :class:`UnitSpec` row holds what the rules need to know about a type;
code elsewhere asks the row, never the type code, so a correction is a
one-cell change here. Symbols: ``G`` light (green circle), ``B`` medium
(blue triangle), ``R`` heavy (red square); a die face equal to a unit's
symbol hits it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LEADER_MOVE", "UNITS", "UnitSpec", "spec"]

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

LEADER_MOVE = 3
"""A lone leader moves 1-3 hexes (cca.md §7.3)."""


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


def _u(**kw: object) -> UnitSpec:
    return UnitSpec(**kw)  # type: ignore[arg-type]


_ROWS = (
    _u(code="LI", name="light infantry", symbol="G", weight="light", foot=True, blocks=4,
       move=2, battle_after=2, range=2, melee=2, battle_back=2, swords_hit=False, retreat=2,
       evade=EVADE_ALWAYS, bonus=BONUS_WITH_LEADER),
    _u(code="LB", name="light bow infantry", symbol="G", weight="light", foot=True, blocks=4,
       move=2, battle_after=2, range=3, melee=2, battle_back=2, swords_hit=False, retreat=2,
       evade=EVADE_ALWAYS, bonus=BONUS_WITH_LEADER),
    _u(code="LS", name="light slinger infantry", symbol="G", weight="light", foot=True, blocks=4,
       move=2, battle_after=2, range=3, melee=2, battle_back=2, swords_hit=False, retreat=2,
       evade=EVADE_ALWAYS, bonus=BONUS_WITH_LEADER),
    _u(code="AUX", name="auxilia", symbol="G", weight="light", foot=True, blocks=4, move=2,
       battle_after=1, range=2, melee=3, battle_back=3, swords_hit=True, retreat=1,
       evade=EVADE_NEVER, bonus=BONUS_WITH_LEADER, border=True),
    _u(code="WAR", name="warriors", symbol="B", weight="medium", foot=True, blocks=4, move=2,
       battle_after=2, range=0, melee=3, battle_back=3, swords_hit=True, retreat=2,
       evade=EVADE_NEVER, bonus=BONUS_ALWAYS, border=True, warrior=True, strength_bonus=True,
       must_melee_after=2),
    _u(code="MI", name="medium infantry", symbol="B", weight="medium", foot=True, blocks=4,
       move=1, battle_after=1, range=0, melee=4, battle_back=4, swords_hit=True, retreat=1,
       evade=EVADE_NEVER, bonus=BONUS_WITH_LEADER),
    _u(code="HI", name="heavy infantry", symbol="R", weight="heavy", foot=True, blocks=4,
       move=1, battle_after=1, range=0, melee=5, battle_back=5, swords_hit=True, retreat=1,
       evade=EVADE_NEVER, bonus=BONUS_WITH_LEADER),
    _u(code="HWM", name="heavy war machine", symbol="R", weight="heavy", foot=True, blocks=2,
       move=1, battle_after=0, range=6, melee=2, battle_back=2, swords_hit=False, retreat=1,
       evade=EVADE_WAR_MACHINE, bonus=BONUS_NEVER, war_machine=True),
    _u(code="LC", name="light cavalry", symbol="G", weight="light", foot=False, blocks=3,
       move=4, battle_after=4, range=2, melee=2, battle_back=2, swords_hit=False, retreat=4,
       evade=EVADE_ALWAYS, bonus=BONUS_ALWAYS, cavalry=True),
    _u(code="LBC", name="light bow cavalry", symbol="G", weight="light", foot=False, blocks=3,
       move=4, battle_after=4, range=3, melee=2, battle_back=2, swords_hit=False, retreat=4,
       evade=EVADE_ALWAYS, bonus=BONUS_ALWAYS, cavalry=True),
    _u(code="BCH", name="light barbarian chariots", symbol="G", weight="light", foot=False,
       blocks=3, move=3, battle_after=3, range=0, melee=2, battle_back=2, swords_hit=True,
       retreat=3, evade=EVADE_ALWAYS, bonus=BONUS_ALWAYS, border=True, chariot=True,
       strength_bonus=True, ignore_swords=1, rally=False),
    _u(code="MC", name="medium cavalry", symbol="B", weight="medium", foot=False, blocks=3,
       move=3, battle_after=3, range=0, melee=3, battle_back=3, swords_hit=True, retreat=3,
       evade=EVADE_FOOT_HEAVY, bonus=BONUS_ALWAYS, cavalry=True),
    _u(code="CAM", name="camels", symbol="B", weight="medium", foot=False, blocks=3, move=3,
       battle_after=3, range=0, melee=3, battle_back=2, swords_hit=True, retreat=3,
       evade=EVADE_FOOT_HEAVY, bonus=BONUS_ALWAYS, camel=True, ignore_b_vs_mounted=True),
    _u(code="CCAM", name="cataphracted camels", symbol="B", weight="medium", foot=False,
       blocks=3, move=3, battle_after=3, range=0, melee=3, battle_back=2, swords_hit=True,
       retreat=3, evade=EVADE_FOOT_HEAVY, bonus=BONUS_ALWAYS, border=True, camel=True,
       ignore_swords=1, ignore_b_vs_mounted=True),
    _u(code="HC", name="heavy cavalry", symbol="R", weight="heavy", foot=False, blocks=3,
       move=2, battle_after=2, range=0, melee=4, battle_back=4, swords_hit=True, retreat=2,
       evade=EVADE_FOOT_ELEPHANT, bonus=BONUS_ALWAYS, cavalry=True),
    _u(code="HCC", name="heavy cataphracted cavalry", symbol="R", weight="heavy", foot=False,
       blocks=3, move=2, battle_after=2, range=0, melee=4, battle_back=4, swords_hit=True,
       retreat=2, evade=EVADE_FOOT_ELEPHANT, bonus=BONUS_ALWAYS, border=True, cavalry=True,
       ignore_swords=1),
    _u(code="HCH", name="heavy chariots", symbol="R", weight="heavy", foot=False, blocks=2,
       move=2, battle_after=2, range=0, melee=4, battle_back=3, swords_hit=True, retreat=2,
       evade=EVADE_FOOT_ELEPHANT, bonus=BONUS_ALWAYS, chariot=True, ignore_swords=1,
       rally=False),
    _u(code="ELE", name="elephants", symbol="R", weight="heavy", foot=False, blocks=2, move=2,
       battle_after=2, range=0, melee=0, battle_back=0, swords_hit=True, retreat=1,
       evade=EVADE_NEVER, bonus=BONUS_ALWAYS, elephant=True, ignore_swords=99, rally=False),
)

UNITS: dict[str, UnitSpec] = {row.code: row for row in _ROWS}
"""Every unit type by code."""


def spec(code: str) -> UnitSpec:
    """Return the row for ``code`` (upper case), or raise ``KeyError``."""
    return UNITS[code]


def weight_of_face(face: str) -> str | None:
    """Return the unit weight a die face orders or hits (G/B/R), else None."""
    return {"G": "light", "B": "medium", "R": "heavy"}.get(face)
