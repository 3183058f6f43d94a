"""Checks across the C&C Napoleonics table files, beyond each file's schema.

:func:`engine.core.tables.load_tables` checks each value's type and provenance; this
module checks what the values mean: words from a fixed vocabulary, references between
files (a nation's row names a known nation and unit type, an artillery type names a
chart), and artillery bands that cover every strength without overlap. Every problem
names its file and line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.core.tables import TablesError
from engine.core.toml_lines import TomlLines

if TYPE_CHECKING:
    from engine.ccn.tables import CcnTables

__all__ = ["ARMS", "GRADES", "check_references"]

ARMS = ("infantry", "cavalry", "artillery", "leader")
GRADES = ("regular", "elite", "guard", "irregular", "leader")
ROUNDING = ("up", "down")
BATTLE_ON_ENTRY = ("all", "light", "none")
CARD_KINDS = ("section", "tactic")
SECTIONS = ("", "left", "centre", "right")
ORDER_RULES = (
    "section",
    "command",
    "up-to",
    "all",
    "all-in-section",
    "all-adjacent",
    "dice",
    "copy",
    "reaction",
)


class _Problems:
    def __init__(self, texts: Mapping[str, str]) -> None:
        self.lines = {name: TomlLines(text) for name, text in texts.items()}
        self.found: list[tuple[int, str]] = []

    def add(self, file: str, path: tuple[str, ...], message: str) -> None:
        n = self.lines[file].line(path)
        self.found.append((0, f"{file} line {n}: {message}" if n else f"{file}: {message}"))

    def word(self, file: str, path: tuple[str, ...], value: str, allowed: tuple[str, ...]) -> None:
        if value not in allowed:
            shown = ", ".join(repr(a) for a in allowed)
            self.add(file, path, f"{'.'.join(path)} is {value!r}: must be one of {shown}")


def check_references(t: CcnTables, texts: Mapping[str, str]) -> None:
    """Raise ``TablesError`` listing every meaning or reference problem of ``t``."""
    p = _Problems(texts)
    charts = {row.chart for row in t.artillery.values()}
    for code, u in t.units.items():
        at = ("units", code)
        p.word("units.toml", (*at, "arm"), u.arm, ARMS)
        p.word("units.toml", (*at, "grade"), u.grade, GRADES)
        if (u.arm == "artillery") != (u.chart != ""):
            p.add(
                "units.toml", (*at, "chart"), f"units.{code}: artillery, and only it, names a chart"
            )
        elif u.chart and u.chart not in charts:
            p.add(
                "units.toml",
                (*at, "chart"),
                f"units.{code}: chart {u.chart!r} not in artillery.toml",
            )
        if u.move_and_battle > u.move:
            p.add("units.toml", (*at, "move_and_battle"), f"units.{code}: move_and_battle > move")
        if u.range_after_move > u.range:
            p.add(
                "units.toml", (*at, "range_after_move"), f"units.{code}: range_after_move > range"
            )
        if u.blocks < 1 or u.retreat < 1:
            p.add("units.toml", at, f"units.{code}: blocks and retreat must be at least 1")
    for code, n in t.nations.items():
        p.word("nations.toml", ("nations", code, "rounding"), n.rounding, ROUNDING)
    for code, nt in t.types.items():
        at = ("types", code)
        p.word("nations.toml", (*at, "rounding"), nt.rounding, ROUNDING)
        if nt.nation not in t.nations:
            p.add("nations.toml", (*at, "nation"), f"types.{code}: unknown nation {nt.nation!r}")
        if nt.unit not in t.units:
            p.add("nations.toml", (*at, "unit"), f"types.{code}: unknown unit type {nt.unit!r}")
        if code != f"{nt.nation}_{nt.unit}":
            p.add("nations.toml", at, f"types.{code}: the key must be {nt.nation}_{nt.unit}")
        if nt.blocks < 1:
            p.add("nations.toml", (*at, "blocks"), f"types.{code}: blocks must be at least 1")
    for code, tr in t.terrain.items():
        p.word(
            "terrain.toml",
            ("terrain", code, "battle_on_entry"),
            tr.battle_on_entry,
            BATTLE_ON_ENTRY,
        )
        for field in ("into_inf_melee", "into_cav", "from_inf_melee", "from_cav"):
            if getattr(tr, field) < 0:
                p.add(
                    "terrain.toml",
                    ("terrain", code, field),
                    "a reduction is dice removed: 0 or more",
                )
    for code, c in t.cards.items():
        at = ("cards", code)
        p.word("cards.toml", (*at, "kind"), c.kind, CARD_KINDS)
        p.word("cards.toml", (*at, "section"), c.section, SECTIONS)
        p.word("cards.toml", (*at, "order_rule"), c.order_rule, ORDER_RULES)
        if c.order_rule == "section" and c.left + c.centre + c.right != c.orders:
            p.add(
                "cards.toml",
                (*at, "orders"),
                f"cards.{code}: orders must equal left + centre + right",
            )
        if c.copies < 1:
            p.add("cards.toml", (*at, "copies"), f"cards.{code}: copies must be at least 1")
    _check_bands(t, p)
    if p.found:
        raise TablesError(p.found)


def _check_bands(t: CcnTables, p: _Problems) -> None:
    """Each chart's rows cover 1 to the most blocks of its types, once each."""
    for chart in sorted({row.chart for row in t.artillery.values()}):
        rows = [(code, r) for code, r in t.artillery.items() if r.chart == chart]
        most = max(
            [u.blocks for u in t.units.values() if u.chart == chart]
            + [
                nt.blocks
                for nt in t.types.values()
                if t.units.get(nt.unit, None) is not None and t.units[nt.unit].chart == chart
            ],
            default=0,
        )
        for blocks in range(1, most + 1):
            hits = [code for code, r in rows if r.min_blocks <= blocks <= r.max_blocks]
            if len(hits) != 1:
                where = ("dice", hits[1]) if hits else ("dice", rows[0][0])
                what = "more than one row" if hits else "no row"
                p.add("artillery.toml", where, f"chart {chart}: {what} for {blocks} blocks")
