"""C&C Napoleonics tables as data: the rows of ``engine/ccn/data/*.toml``, typed and checked.

Five files in the ``pbem-tables/1`` format (:mod:`engine.core.tables`, docs/tables.md), each
value with its provenance: ``units.toml`` (ccn.md §4.2, §4.4, §4.7), ``nations.toml``
(§4.3, §4.6), ``terrain.toml`` (§23), ``cards.toml`` (§6, §24) and ``artillery.toml``
(§4.5, mostly placeholders: the printed chart is not public). :func:`load_ccn_tables`
checks every file against its schema and then the references between them
(:mod:`engine.ccn.checks`), reporting each problem with its file and line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.ccn.checks import check_references
from engine.core.tables import Tables, TablesError, load_tables, schema_of

__all__ = [
    "FILES",
    "ArtilleryRow",
    "Card",
    "CcnTables",
    "HillPair",
    "Nation",
    "NationType",
    "Terrain",
    "UnitType",
    "bundled_texts",
    "load_ccn_tables",
]


@dataclass(frozen=True)
class UnitType:
    """A unit type's generic row (units.toml; fields documented there)."""

    code: str
    name: str
    arm: str
    grade: str
    blocks: int
    move: int
    move_and_battle: int
    range: int
    range_after_move: int
    fire_bonus: int
    melee_bonus: int
    chart: str
    sabre_hits: bool
    flags_ignored: int
    retreat: int
    battle_back: bool
    light: bool


@dataclass(frozen=True)
class Nation:
    """A nation (nations.toml ``[nations]``)."""

    code: str
    name: str
    colour: str
    rounding: str
    retreat: int
    base_game: bool


@dataclass(frozen=True)
class NationType:
    """One nation's unit type: its differences from the generic row (nations.toml ``[types]``)."""

    code: str
    nation: str
    unit: str
    blocks: int
    fire_standing: int
    fire_moved: int
    melee: int
    melee_vs_infantry: int
    melee_moved: int
    flags_ignored: int
    retreat: int
    rounding: str


@dataclass(frozen=True)
class Terrain:
    """A terrain type (terrain.toml ``[terrain]``); reductions are dice removed."""

    code: str
    name: str
    stop: bool
    impassable: bool
    impassable_artillery: bool
    square: bool
    battle_on_entry: str
    combat_into: bool
    blocks_los: bool
    hill: bool
    fortified: bool
    into_inf_melee: int
    into_inf_ranged: int
    into_cav: int
    into_art_melee: int
    into_art_ranged: int
    from_inf_melee: int
    from_inf_ranged: int
    from_cav: int
    from_art_melee: int
    from_art_ranged: int


@dataclass(frozen=True)
class HillPair:
    """The hill-to-hill row that replaces both hill rows (terrain.toml ``[pairs]``)."""

    code: str
    name: str
    inf_melee: int
    inf_ranged: int
    cav: int
    art_melee: int
    art_ranged: int


@dataclass(frozen=True)
class ArtilleryRow:
    """Artillery dice by range for one chart and band of blocks (artillery.toml)."""

    code: str
    chart: str
    min_blocks: int
    max_blocks: int
    range1: int
    range2: int
    range3: int
    range4: int
    range5: int

    def at(self, hexes: int) -> int:
        """Dice at ``hexes`` (1-5); 0 beyond the chart."""
        dice = (self.range1, self.range2, self.range3, self.range4, self.range5)
        return dice[hexes - 1] if 1 <= hexes <= len(dice) else 0


@dataclass(frozen=True)
class Card:
    """A command card kind and its copies (cards.toml)."""

    code: str
    name: str
    kind: str
    copies: int
    section: str
    left: int
    centre: int
    right: int
    orders: int
    order_rule: str
    arms: str
    detach: bool
    scout: bool


SCHEMAS = {
    "units.toml": (schema_of("units", UnitType),),
    "nations.toml": (schema_of("nations", Nation), schema_of("types", NationType)),
    "terrain.toml": (schema_of("terrain", Terrain), schema_of("pairs", HillPair)),
    "cards.toml": (schema_of("cards", Card),),
    "artillery.toml": (schema_of("dice", ArtilleryRow),),
}
"""Each file's tables and their schemas."""

FILES = tuple(SCHEMAS)
"""The table files of C&C Napoleonics, in load order."""


@dataclass(frozen=True)
class CcnTables:
    """Every C&C Napoleonics table, typed, with the checked files behind them."""

    files: Mapping[str, Tables]
    units: Mapping[str, UnitType]
    nations: Mapping[str, Nation]
    types: Mapping[str, NationType]
    terrain: Mapping[str, Terrain]
    hill_hill: HillPair
    artillery: Mapping[str, ArtilleryRow]
    cards: Mapping[str, Card]

    def nation_type(self, nation: str, unit: str) -> NationType:
        """Nation ``nation``'s row for unit type ``unit``; ``KeyError`` if it fields none."""
        return self.types[f"{nation}_{unit}"]

    def placeholders(self) -> list[tuple[str, str, str, str]]:
        """Every (file, table, row, field) whose value is a placeholder."""
        return [(f, *k) for f, t in self.files.items() for k in t.placeholders()]


def _rows(cls: Any, table: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {code: cls(code=code, **row) for code, row in table.items()}


def load_ccn_tables(texts: Mapping[str, str]) -> CcnTables:
    """Check the five files (name -> text) and return their rows; raise ``TablesError``
    listing every problem as ``file line N: message``."""
    files: dict[str, Tables] = {}
    problems: list[tuple[int, str]] = []
    for name in FILES:
        if name not in texts:
            problems.append((0, f"{name}: missing"))
            continue
        try:
            files[name] = load_tables(texts[name], "ccn", SCHEMAS[name])
        except TablesError as exc:
            problems += [
                (0, f"{name} line {n}: {m}" if n else f"{name}: {m}") for n, m in exc.problems
            ]
    if problems:
        raise TablesError(problems)
    if "hill_hill" not in files["terrain.toml"].table("pairs"):
        raise TablesError([(0, "terrain.toml: [pairs.hill_hill] is missing")])
    got = CcnTables(
        files=files,
        units=_rows(UnitType, files["units.toml"].table("units")),
        nations=_rows(Nation, files["nations.toml"].table("nations")),
        types=_rows(NationType, files["nations.toml"].table("types")),
        terrain=_rows(Terrain, files["terrain.toml"].table("terrain")),
        hill_hill=_rows(HillPair, files["terrain.toml"].table("pairs"))["hill_hill"],
        artillery=_rows(ArtilleryRow, files["artillery.toml"].table("dice")),
        cards=_rows(Card, files["cards.toml"].table("cards")),
    )
    check_references(got, texts)
    return got


def bundled_texts() -> dict[str, str]:
    """The bundled files of ``engine/ccn/data`` by name."""
    data = resources.files("engine.ccn").joinpath("data")
    return {name: data.joinpath(name).read_text(encoding="utf-8") for name in FILES}
