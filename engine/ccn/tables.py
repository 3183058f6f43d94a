"""C&C Napoleonics tables as data: the rows of ``engine/ccn/data/*.toml``, typed and checked.

Five files in the ``pbem-tables/1`` format (:mod:`engine.core.tables`, docs/tables.md), each
value with its provenance: ``units.toml`` (ccn.md §4.2, §4.4, §4.7), ``nations.toml``
(§4.3, §4.6), ``terrain.toml`` (§23), ``cards.toml`` (§6, §24) and ``artillery.toml``
(§4.5, mostly placeholders: the printed chart is not public). :func:`load_ccn_tables`
checks every file against its schema and then the references between them
(:mod:`engine.ccn.checks`), reporting each problem with its file and line.

The five files joined are one ``pbem-tables/1`` file (:func:`combined_text`; their table
names are distinct): what a club copies, edits and gives with ``--tables FILE``
(:func:`load_ccn_text`, every problem with its line), and what names a game's tables: the
SHA-256 of that text. A game's state carries its tables (``state.tables``); the rules read
them from there, never from the bundled files. :class:`TableProvider` is the system's
``tables`` capability (:class:`engine.core.capabilities.TableProvider`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from engine.ccn.checks import check_references
from engine.core.tables import Tables, TableSchema, TablesError, load_tables, schema_of

__all__ = [
    "FILES",
    "SCHEMAS",
    "ArtilleryRow",
    "Card",
    "CcnTables",
    "HillPair",
    "Nation",
    "NationType",
    "TableProvider",
    "Terrain",
    "UnitType",
    "bundled_tables",
    "bundled_texts",
    "combined_text",
    "load_ccn_tables",
    "load_ccn_text",
    "named",
    "tables_from_text",
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

ALL_SCHEMAS: tuple[TableSchema, ...] = tuple(s for ss in SCHEMAS.values() for s in ss)
"""Every table of the one-file form (the five files' tables; their names are distinct)."""

_FILE_OF = {s.name: f for f, ss in SCHEMAS.items() for s in ss}


@dataclass(frozen=True, eq=False)
class CcnTables:
    """Every C&C Napoleonics table, typed, with the checked text behind them.

    ``data`` is the one-file form (what names the tables: :attr:`sha256`); ``files`` the
    five bundled files as checked one by one (empty for a club's one file). Two sets are
    equal when their one-file texts are.
    """

    data: Tables
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

    def blocks_of(self, nation: str, unit: str) -> int:
        """A unit's starting strength in a nation (its nation row, else the type's; §4.6)."""
        row = self.types.get(f"{nation}_{unit}")
        if row is not None:
            return row.blocks
        return self.units[unit].blocks if unit in self.units else 0

    @property
    def sha256(self) -> str:
        """The SHA-256 of the one-file text: what names these tables."""
        return self.data.sha256

    @property
    def text(self) -> str:
        """The one-file text."""
        return self.data.text

    def placeholders(self) -> list[tuple[str, str, str, str]]:
        """Every (file, table, row, field) whose value is a placeholder."""
        return [(_FILE_OF[t], t, r, f) for t, r, f in self.data.placeholders()]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CcnTables) and other.sha256 == self.sha256

    def __hash__(self) -> int:
        return hash(self.sha256)


def _rows(cls: Any, table: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {code: cls(code=code, **row) for code, row in table.items()}


def _body(text: str) -> str:
    """A file's text without its ``schema`` and ``system`` lines."""
    keep = [
        ln
        for ln in text.splitlines()
        if not ln.startswith("schema =") and not ln.startswith("system =")
    ]
    return "\n".join(keep).strip("\n") + "\n"


def combined_text(texts: Mapping[str, str]) -> str:
    """The five files as one ``pbem-tables/1`` file (what a club copies and edits)."""
    parts = [
        "# C&C Napoleonics tables, every table in one file (engine/ccn/data/*.toml joined).\n",
        'schema = "pbem-tables/1"\nsystem = "ccn"\n',
    ]
    parts += [f"\n# ---- {name}\n{_body(texts[name]).rstrip()}\n" for name in FILES]
    return "".join(parts)


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
    got = _build(load_tables(combined_text(texts), "ccn", ALL_SCHEMAS), files)
    check_references(got, texts)
    return got


_IN_FILE = re.compile(r"^[a-z]+\.toml(?: line (\d+))?: (.*)$", re.S)


def load_ccn_text(text: str) -> CcnTables:
    """Check a one-file table set (a club's ``--tables`` file, :func:`combined_text`'s form);
    raise ``TablesError`` listing every problem with its line."""
    data = load_tables(text, "ccn", ALL_SCHEMAS)
    if "hill_hill" not in data.table("pairs"):
        raise TablesError([(0, "[pairs.hill_hill] is missing")])
    got = _build(data, {})
    try:
        check_references(got, dict.fromkeys(FILES, text))
    except TablesError as exc:  # "units.toml line N: ..." -> (N, "...")
        out: list[tuple[int, str]] = []
        for _, m in exc.problems:
            found = _IN_FILE.match(m)
            if found is None:
                out.append((0, m))
            else:
                n = found.group(1)
                out.append((int(n) if n else 0, found.group(2)))
        raise TablesError(out) from None
    _same_deck(got, text)
    return got


def _same_deck(t: CcnTables, text: str) -> None:
    """A club's file keeps the bundled command cards: the deck is fixed (the audit checks
    every card against it, docs/audit.md), and the cards' effects are the rules'."""
    from engine.core.toml_lines import TomlLines  # noqa: PLC0415

    lines = TomlLines(text)
    mine = bundled_tables().cards
    problems: list[tuple[int, str]] = []
    for code in mine.keys() - t.cards.keys():
        problems.append((lines.line(("cards",)), f"[cards.{code}] is missing"))
    for code, card in t.cards.items():
        if code not in mine:
            problems.append((lines.line(("cards", code)), f"unknown card {code!r}"))
        elif card != mine[code]:
            problems.append(
                (
                    lines.line(("cards", code)),
                    f"[cards.{code}]: the command cards are the bundled ones "
                    "(the deck is fixed; a club file may change every other table)",
                )
            )
    if problems:
        raise TablesError(sorted(problems))


def _build(data: Tables, files: Mapping[str, Tables]) -> CcnTables:
    return CcnTables(
        data=data,
        files=files,
        units=_rows(UnitType, data.table("units")),
        nations=_rows(Nation, data.table("nations")),
        types=_rows(NationType, data.table("types")),
        terrain=_rows(Terrain, data.table("terrain")),
        hill_hill=_rows(HillPair, data.table("pairs"))["hill_hill"],
        artillery=_rows(ArtilleryRow, data.table("dice")),
        cards=_rows(Card, data.table("cards")),
    )


def bundled_texts() -> dict[str, str]:
    """The bundled files of ``engine/ccn/data`` by name."""
    data = resources.files("engine.ccn").joinpath("data")
    return {name: data.joinpath(name).read_text(encoding="utf-8") for name in FILES}


@cache
def bundled_tables() -> CcnTables:
    """The tables shipped in ``engine/ccn/data`` (checked once, then shared)."""
    return load_ccn_tables(bundled_texts())


def _legacy_sha256(t: CcnTables) -> str:
    """How games started before the one-file form named the bundled tables: one SHA-256
    over the five files' SHA-256s, in load order."""
    lines = "".join(f"{name} {tab.sha256}\n" for name, tab in t.files.items())
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def named(sha: str) -> CcnTables | None:
    """The tables ``sha`` names without carrying them: the bundled ones (by their SHA-256,
    or the name games started before the one-file form gave them), else None."""
    t = bundled_tables()
    return t if sha in (t.sha256, _legacy_sha256(t)) else None


@lru_cache(maxsize=16)
def tables_from_text(text: str) -> CcnTables:
    """The tables of a one-file text (the bundled ones when it is their text); checked
    once per text (raises ``TablesError``)."""
    t = bundled_tables()
    return t if text == t.text else load_ccn_text(text)


class TableProvider:
    """The ``tables`` capability of C&C Napoleonics (engine.core.capabilities.TableProvider)."""

    def schemas(self) -> tuple[TableSchema, ...]:
        """Every table the rules read."""
        return ALL_SCHEMAS

    def default_text(self) -> str:
        """The bundled files as one file (:func:`combined_text`)."""
        return bundled_tables().text

    def load(self, text: str) -> Tables:
        """Check a one-file table set (raises TablesError with every problem and its line)."""
        return tables_from_text(text).data

    def with_tables(self, state: Any, tables: Tables) -> Any:
        """``state`` played on ``tables``: units at full strength follow the new tables."""
        new = tables_from_text(tables.text)
        old: CcnTables = state.tables
        units = []
        for u in state.units:
            was, now = old.blocks_of(u.nation, u.type), new.blocks_of(u.nation, u.type)
            if u.full == was != now:
                units.append(
                    replace(u, full=now, blocks=now if u.blocks == u.full else min(u.blocks, now))
                )
            else:
                units.append(u)
        return replace(state, tables=new, units=tuple(units))

    def tables_of(self, state: Any) -> Tables:
        """The tables ``state`` carries."""
        t: CcnTables = state.tables
        return t.data
