"""Checks across the Chariots of Fire charts, beyond each table's schema.

:func:`engine.core.tables.load_tables` checks each value's type and provenance; this module
checks what the values mean: words from a fixed vocabulary, references between tables (a
clash row names two troop types, a battle two armies), a Clash of Arms row for every pair of
types, Shock CRT cells written ``A (D)`` and die-roll rows without gaps. Each problem comes
back with its path (one-file table names: ``shock_clash``, ``missile_results``...) so the
caller can give its line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.cof.tables import CofTables

__all__ = ["Problem", "check_meaning"]

Problem = tuple[tuple[str, ...], str]
"""(path of the value: table, row, field), message."""

WORDS: dict[str, tuple[str, ...]] = {
    "kind": ("infantry", "chariot", "wagon", "stack"),
    "move_column": ("infantry", "chariot"),
    "shock": ("any", "li-only", "not-chariots", "never"),
    "armor": ("armored", "partial", "unarmored"),
    "reaction_facing": ("roll", "free", "none"),
    "withdrawal": ("auto", "roll"),
    "aggression": ("none", "voluntary", "mandatory-vs-fire"),
}
SUPERIORITY = ("AS", "DS", "none", "-")
ROLES = ("OC", "WC", "hero")
WHERE = ("hex", "hexside", "climb")
CHECKS = (
    "none",
    "fail-above-tq",
    "excess-over-tq",
    "fail-on-nine",
    "below-tq",
    "at-least-tq",
)
_CELL = re.compile(r"^\s*\d+\s*\(\s*\d+\s*\)\s*$")


def _word(
    found: list[Problem], path: tuple[str, ...], value: str, allowed: tuple[str, ...]
) -> None:
    if value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        found.append((path, f"{'.'.join(path)} is {value!r}: must be one of {shown}"))


def _rolls(found: list[Problem], table: str, drs: list[tuple[str, int]]) -> None:
    """Die-roll rows: each roll once, no gap."""
    seen = sorted(d for _, d in drs)
    for key, d in drs:
        if seen.count(d) > 1:
            found.append(((table, key, "dr"), f"{table}.{key}: roll {d} has two rows"))
    if seen and seen != list(range(seen[0], seen[-1] + 1)):
        found.append(((table,), f"{table}: rolls {seen[0]}..{seen[-1]} have a gap"))


def check_meaning(t: CofTables) -> list[Problem]:
    """Every meaning or reference problem of ``t`` (empty if none)."""
    found: list[Problem] = []
    rows = t.tables.rows
    for code, ty in t.types.items():
        for field, allowed in WORDS.items():
            _word(found, ("types", code, field), getattr(ty, field), allowed)
        for w in ty.weapons:
            _word(found, ("types", code, "weapons"), w, tuple(t.weapons))
    types = tuple(t.types)
    for key, c in rows["shock_clash"].items():
        _word(found, ("shock_clash", key, "attacker"), c["attacker"], types)
        _word(found, ("shock_clash", key, "defender"), c["defender"], types)
        _word(found, ("shock_clash", key, "superiority"), c["superiority"], SUPERIORITY)
        if not 0 <= c["column"] <= 12:
            found.append((("shock_clash", key, "column"), f"{key}: column must be 0..12"))
        elif (c["column"] == 0) != (c["superiority"] == "-"):
            found.append(
                (
                    ("shock_clash", key, "superiority"),
                    f"{key}: superiority is '-' exactly when column is 0 (no shock)",
                )
            )
    for a in types:
        for d in types:
            if (a, d) not in t.clash:
                found.append((("shock_clash",), f"shock_clash: no row for {a} attacking {d}"))
    for key, r in rows["shock_results"].items():
        for field, v in r.items():
            if field != "dr" and not _CELL.match(str(v)):
                found.append(
                    (("shock_results", key, field), f"{key}.{field} is {v!r}: write 'A (D)'")
                )
    _rolls(found, "shock_results", [(k, r["dr"]) for k, r in rows["shock_results"].items()])
    _rolls(found, "missile_results", [(k, r["dr"]) for k, r in rows["missile_results"].items()])
    _rolls(found, "turnover_results", [(k, r["dr"]) for k, r in rows["turnover_results"].items()])
    for key, r in rows["missile_results"].items():
        for field, v in r.items():
            if field != "dr" and v < 0:
                found.append((("missile_results", key, field), f"{key}.{field}: hits are >= 0"))
    for w in t.weapons:
        if w not in t.armor:
            found.append((("missile_armor",), f"missile_armor: no row for weapon {w}"))
    for key, b in t.bands.items():
        _word(found, ("turnover_bands", key, "unit"), b.unit, types)
        if b.min_speed > b.max_speed:
            found.append((("turnover_bands", key, "max_speed"), f"{key}: max_speed < min_speed"))
    for key, battle in t.battles.items():
        for side in battle.sides:
            _word(found, ("battles", key, "sides"), side, tuple(t.armies))
        if len(battle.sides) != 2:
            found.append((("battles", key, "sides"), f"{key}: a battle has two sides"))
    for key, leader in t.leaders.items():
        _word(found, ("leaders", key, "army"), leader.army, tuple(t.armies))
        _word(found, ("leaders", key, "battle"), leader.battle, tuple(t.battles))
        _word(found, ("leaders", key, "role"), leader.role, ROLES)
    for key, terrain in t.terrain.items():
        _word(found, ("terrain", key, "where"), terrain.where, WHERE)
    for key, event in t.events.items():
        _word(found, ("events", key, "check"), event.check, CHECKS)
        for u in event.units:
            _word(found, ("events", key, "units"), u, types)
    return found
