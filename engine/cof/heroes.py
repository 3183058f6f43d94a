"""Chariots of Fire heroic combat (Sumer and Troy only; cof.md §10) as pure functions.

A duel round: each leader rolls a d10 and adds his Combat; the lower total takes hits (1, 2
when the higher is at least twice it, 3 at three times), subtracted from his Endurance.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cof.tables import CofTables

__all__ = ["Round", "duel_hits", "duel_round", "hero_drm", "hits_kept", "killed_by_archer"]


def duel_hits(lower: int, higher: int) -> int:
    """Hits the lower total takes (cof.md §10.3 #3); 0 on equal totals. A lower total of 0 or
    less against a positive one counts as three times [E]."""
    if lower >= higher:
        return 0
    if lower <= 0:
        return 3
    if higher >= 3 * lower:
        return 3
    return 2 if higher >= 2 * lower else 1


@dataclass(frozen=True)
class Round:
    """One round: the hits each side took and whether each is dead (hits >= Endurance)."""

    hits: tuple[int, int]
    dead: tuple[bool, bool]


def duel_round(
    rolls: tuple[int, int],
    combat: tuple[int, int],
    endurance: tuple[int, int],
    hits_before: tuple[int, int] = (0, 0),
) -> Round:
    """Resolve one round of a duel (cof.md §10.3 #3-#4)."""
    a, b = rolls[0] + combat[0], rolls[1] + combat[1]
    new = (hits_before[0] + duel_hits(a, b), hits_before[1] + duel_hits(b, a))
    return Round(new, (new[0] >= endurance[0], new[1] >= endurance[1]))


def hits_kept(before: int, taken: int) -> int:
    """A survivor keeps one of the hits he took in the duel (cof.md §10.3 #6)."""
    return before + min(taken, 1)


def hero_drm(charts: CofTables, attacker_hero_won: bool) -> int:
    """The shock modifier for the rest of the activation (cof.md §10.4 #2)."""
    v = charts.shock_modifiers["hero_won"].value
    return v if attacker_hero_won else -v


def killed_by_archer(dr: int) -> bool:
    """A hero archer's shot kills on a 9 (cof.md §10.4 #5)."""
    return dr == 9
