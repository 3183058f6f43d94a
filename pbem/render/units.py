"""How each unit type looks on the board: symbol class, white border, full strength.

Display data only (cca.md §1.4, §1.5); the rules engine keeps its own table.
An unknown code is drawn as a plain grey token rather than refused, so a new
game system never breaks rendering.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LEADER_MARK", "UNIT_LOOKS", "UnitLook", "look"]

LEADER_MARK = "*"
"""Marks an attached or lone leader in the ASCII board."""


@dataclass(frozen=True)
class UnitLook:
    """Symbol class (``light``/``medium``/``heavy``), white border, blocks at full strength."""

    weight: str
    border: bool
    blocks: int


_L, _M, _H = "light", "medium", "heavy"

UNIT_LOOKS: dict[str, UnitLook] = {
    "LI": UnitLook(_L, False, 4),
    "LS": UnitLook(_L, False, 4),
    "LB": UnitLook(_L, False, 4),
    "LC": UnitLook(_L, False, 3),
    "LBC": UnitLook(_L, False, 3),
    "AUX": UnitLook(_L, True, 4),
    "BCH": UnitLook(_L, True, 3),
    "MI": UnitLook(_M, False, 4),
    "MC": UnitLook(_M, False, 3),
    "CAM": UnitLook(_M, False, 3),
    "WAR": UnitLook(_M, True, 4),
    "CCAM": UnitLook(_M, True, 3),
    "HI": UnitLook(_H, False, 4),
    "HC": UnitLook(_H, False, 3),
    "HCH": UnitLook(_H, False, 2),
    "ELE": UnitLook(_H, False, 2),
    "HWM": UnitLook(_H, False, 2),
    "HCC": UnitLook(_H, True, 3),
}

_UNKNOWN = UnitLook("unknown", False, 4)


def look(code: str) -> UnitLook:
    """Return the look of a unit type code (case-insensitive; unknown codes get a plain look)."""
    return UNIT_LOOKS.get(code.upper(), _UNKNOWN)
