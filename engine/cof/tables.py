"""Chariots of Fire charts as data: the rows of ``engine/cof/data/*.toml``, typed and checked.

Seven files in the ``pbem-tables/1`` format (:mod:`engine.core.tables`, docs/tables.md), every
value with its provenance (``rulebook`` for a cell the rulebook or its worked examples fix,
``digest`` for cof.md's reading of the rules, ``placeholder`` for cof.md Appendix A's provisional
values): ``units.toml`` (troop types, cof.md §2.4, §12.10), ``armies.toml`` (armies, battles,
leaders, §2.5, §13), ``movement.toml`` (Movement Cost Chart, §12.1, A.1), ``shock.toml`` (Clash
of Arms, Superiority, Shock CRT, shifts, §12.3-§12.6, A.2-A.3), ``missile.toml`` (Missile Range &
Results, Missile-vs-Armor, §12.7-§12.8, A.4), ``turnover.toml`` (Chariot Turnover, §12.9, A.5)
and ``checks.toml`` (Cohesion Hit & TQ Check, Leader Casualty Summary, §12.2, §12.11).

A club replaces them with **one** file holding every table (:func:`combined_text` writes the
bundled set that way; ``pbem-tables/1`` with ``system = "cof"``): :func:`load_cof_text` checks
it and names problems by line, :func:`load_cof_tables` checks the bundled files and names
problems by file and line. Either way :attr:`CofTables.sha256` is the SHA-256 of the one-file
text, the fingerprint a game's start mail and audit record show.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.cof.checks import check_meaning
from engine.core.tables import Tables, TableSchema, TablesError, load_tables, schema_of
from engine.core.toml_lines import TomlLines

__all__ = [
    "FILES",
    "SCHEMAS",
    "Army",
    "Band",
    "Battle",
    "Clash",
    "CofTables",
    "Event",
    "FixedValue",
    "LeaderCasualty",
    "LeaderRow",
    "MissileRow",
    "ShockRow",
    "Terrain",
    "TroopType",
    "TurnoverRow",
    "bundled",
    "bundled_texts",
    "combined_text",
    "load_cof_tables",
    "load_cof_text",
    "one_file_schemas",
]


@dataclass(frozen=True)
class TroopType:
    """A combat type (units.toml ``[types]``; fields documented there)."""

    code: str
    name: str
    kind: str
    move_column: str
    tq: int
    ma: int
    weapons: tuple[str, ...]
    shock: str
    armor: str
    max_turns_in_hex: int
    reaction_facing: str
    withdrawal: str
    column: bool
    moved_hits: bool
    heavy: bool
    rough_hits: bool
    aggression: str
    fire_and_run: bool
    pass_through: bool
    withdraw_without_roll: bool
    turnover: bool


@dataclass(frozen=True)
class Army:
    code: str
    name: str


@dataclass(frozen=True)
class Battle:
    code: str
    name: str
    sides: tuple[str, ...]
    heroic: bool
    learning: bool


@dataclass(frozen=True)
class LeaderRow:
    """A leader the rulebook names (armies.toml ``[leaders]``)."""

    code: str
    name: str
    army: str
    battle: str
    role: str
    initiative: int
    command_range: int
    charisma: int
    ability: int
    combat: int
    endurance: int
    hero: bool
    archer: bool
    on_foot: bool
    commands_wing: bool


@dataclass(frozen=True)
class Terrain:
    """A Movement Cost Chart row (movement.toml ``[terrain]``)."""

    code: str
    name: str
    where: str
    infantry: int
    chariot: int
    infantry_ok: bool
    chariot_ok: bool
    heavy_hit: bool
    chariot_hit: bool
    turn_hit: bool
    turnover: bool
    blocks_los: bool
    missile_drm: int
    fire_and_run_ok: bool

    def cost(self, column: str) -> int | None:
        """MP for movement column ``column`` (``infantry``/``chariot``); ``None``: may not enter."""
        if column == "infantry":
            return self.infantry if self.infantry_ok else None
        return self.chariot if self.chariot_ok else None


@dataclass(frozen=True)
class FixedValue:
    """A named number of the rules (``[actions]``, ``[shifts]``, ``[modifiers]``)."""

    code: str
    name: str
    value: int


@dataclass(frozen=True)
class Clash:
    """Clash of Arms and Superiority for one attacker and defender type (shock.toml)."""

    code: str
    attacker: str
    defender: str
    column: int
    superiority: str


@dataclass(frozen=True)
class ShockRow:
    """One modified die roll of the Shock CRT; ``cells[c - 1]`` = (attacker hits, defender hits)."""

    dr: int
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class MissileRow:
    """One modified die roll of the Missile Range & Results table: hits by column."""

    dr: int
    hits: Mapping[str, int]


@dataclass(frozen=True)
class Band:
    """A column of the Chariot Turnover Table (turnover.toml ``[bands]``)."""

    code: str
    unit: str
    min_speed: int
    max_speed: int
    fire_and_run: bool


@dataclass(frozen=True)
class TurnoverRow:
    dr: int
    over: Mapping[str, bool]


@dataclass(frozen=True)
class Event:
    """A line of the Cohesion Hit & TQ Check chart (checks.toml ``[events]``)."""

    code: str
    name: str
    units: tuple[str, ...]
    hits: int
    check: str


@dataclass(frozen=True)
class LeaderCasualty:
    code: str
    trigger: int
    wound_on: int
    kill_above_rating: bool


@dataclass(frozen=True)
class _Named:
    code: str
    name: str
    value: int


@dataclass(frozen=True)
class _Shift:
    code: str
    name: str
    columns: int


@dataclass(frozen=True)
class _Weapon:
    code: str
    name: str
    range: int


@dataclass(frozen=True)
class _Armor:
    code: str
    armored: int
    partial: int
    unarmored: int


CRT_COLUMNS = 12
"""Columns of the Shock CRT (cof.md Appendix A.3)."""

MISSILE_COLUMNS = ("c1", "c2", "c3", "b1", "b2", "s1", "s2", "j1", "pass_thru")
"""The Missile Range & Results columns: weapon letter and range, then the pass-through row."""

_RESULT_FIELDS = {"dr": int, **{f"c{c}": str for c in range(1, CRT_COLUMNS + 1)}}
_MISSILE_FIELDS = {"dr": int, **dict.fromkeys(MISSILE_COLUMNS, int)}

SCHEMAS: dict[str, tuple[TableSchema, ...]] = {
    "units.toml": (schema_of("types", TroopType),),
    "armies.toml": (
        schema_of("armies", Army),
        schema_of("battles", Battle),
        schema_of("leaders", LeaderRow),
    ),
    "movement.toml": (schema_of("terrain", Terrain), schema_of("actions", _Named)),
    "shock.toml": (
        schema_of("clash", Clash),
        TableSchema("results", _RESULT_FIELDS),
        schema_of("shifts", _Shift),
        schema_of("modifiers", _Named),
    ),
    "missile.toml": (
        schema_of("weapons", _Weapon),
        TableSchema("results", _MISSILE_FIELDS),
        schema_of("armor", _Armor),
        schema_of("modifiers", _Named),
    ),
    "turnover.toml": (schema_of("bands", Band), TableSchema("results", {"dr": int})),
    "checks.toml": (schema_of("events", Event), schema_of("leader_casualty", LeaderCasualty)),
}
"""Each file's tables and their schemas (the turnover results' band fields are checked
against ``[bands]`` by :mod:`engine.cof.checks`)."""

FILES = tuple(SCHEMAS)
"""The bundled table files, in load order."""

_PREFIX = {
    "units.toml": "",
    "armies.toml": "",
    "movement.toml": "",
    "shock.toml": "shock_",
    "missile.toml": "missile_",
    "turnover.toml": "turnover_",
    "checks.toml": "",
}
"""In the one-file form, tables whose names two files share get the file's prefix."""


@dataclass(frozen=True)
class CofTables:
    """Every Chariots of Fire chart, typed, with the checked text behind them."""

    tables: Tables
    types: Mapping[str, TroopType]
    armies: Mapping[str, Army]
    battles: Mapping[str, Battle]
    leaders: Mapping[str, LeaderRow]
    terrain: Mapping[str, Terrain]
    actions: Mapping[str, FixedValue]
    clash: Mapping[tuple[str, str], Clash]
    crt: tuple[ShockRow, ...]
    shifts: Mapping[str, FixedValue]
    shock_modifiers: Mapping[str, FixedValue]
    weapons: Mapping[str, FixedValue]
    missile: tuple[MissileRow, ...]
    armor: Mapping[str, Mapping[str, int]]
    missile_modifiers: Mapping[str, FixedValue]
    bands: Mapping[str, Band]
    turnover: tuple[TurnoverRow, ...]
    events: Mapping[str, Event]
    leader_casualty: Mapping[str, LeaderCasualty]

    @property
    def sha256(self) -> str:
        """The fingerprint: SHA-256 of the one-file text."""
        return self.tables.sha256

    def placeholders(self) -> list[tuple[str, str, str]]:
        """Every (table, row, field) whose value is a placeholder (one-file table names)."""
        return self.tables.placeholders()

    def provenance(self, table: str, row: str, field: str) -> str:
        """Where one value comes from (one-file table names, e.g. ``shock_results``)."""
        return self.tables.provenance[(table, row, field)]


def _body(text: str) -> str:
    """A file's text without its ``schema`` and ``system`` lines."""
    keep = [
        ln
        for ln in text.splitlines()
        if not ln.startswith("schema =") and not ln.startswith("system =")
    ]
    return "\n".join(keep).strip("\n") + "\n"


def combined_text(texts: Mapping[str, str]) -> str:
    """The bundled files as one ``pbem-tables/1`` file (what a club copies and edits)."""
    parts = [
        "# Chariots of Fire charts, every table in one file (engine/cof/data/*.toml joined).\n",
        'schema = "pbem-tables/1"\nsystem = "cof"\n',
    ]
    for name in FILES:
        body = _body(texts[name])
        if _PREFIX[name]:
            body = "\n".join(
                "[" + _PREFIX[name] + ln[1:] if ln.startswith("[") else ln
                for ln in body.splitlines()
            )
        parts.append(f"\n# ---- {name}\n{body.rstrip()}\n")
    return "".join(parts)


def load_cof_tables(texts: Mapping[str, str]) -> CofTables:
    """Check the bundled files (name -> text); problems read ``file line N: message``."""
    problems: list[tuple[int, str]] = []
    for name in FILES:
        if name not in texts:
            problems.append((0, f"{name}: missing"))
            continue
        try:
            load_tables(texts[name], "cof", _schemas(SCHEMAS[name], texts[name], "bands"))
        except TablesError as exc:
            problems += [
                (0, f"{name} line {n}: {m}" if n else f"{name}: {m}") for n, m in exc.problems
            ]
    if problems:
        raise TablesError(problems)
    got = _build(load_tables(combined_text(texts), "cof", _one_file(combined_text(texts))))
    found = check_meaning(got)
    if found:
        raise TablesError([(0, _in_file(texts, path, message)) for path, message in found])
    return got


def _in_file(texts: Mapping[str, str], path: tuple[str, ...], message: str) -> str:
    """A meaning problem (one-file table names) as ``file line N: message``."""
    for name in FILES:
        prefix = _PREFIX[name]
        tables = {s.name for s in SCHEMAS[name]}
        if path[0].startswith(prefix) and path[0][len(prefix) :] in tables:
            n = TomlLines(texts[name]).line((path[0][len(prefix) :], *path[1:]))
            return f"{name} line {n}: {message}" if n else f"{name}: {message}"
    return message


def load_cof_text(text: str) -> CofTables:
    """Check a one-file chart set (a club's ``--tables`` file); problems read ``line N: ...``."""
    got = _build(load_tables(text, "cof", _one_file(text)))
    found = check_meaning(got)
    if found:
        lines = TomlLines(text)
        raise TablesError([(lines.line(path), message) for path, message in found])
    return got


def _one_file(text: str) -> tuple[TableSchema, ...]:
    every = tuple(TableSchema(_PREFIX[f] + s.name, s.fields) for f in FILES for s in SCHEMAS[f])
    return _schemas(every, text, "turnover_bands")


def _schemas(
    schemas: tuple[TableSchema, ...], text: str, bands_table: str
) -> tuple[TableSchema, ...]:
    """``schemas`` with the turnover results taking one true/false field per band of ``text``."""
    try:
        bands = tomllib.loads(text).get(bands_table, {})
    except tomllib.TOMLDecodeError:
        bands = {}  # load_tables reports it
    fields: dict[str, type] = {"dr": int}
    fields.update(dict.fromkeys(bands if isinstance(bands, dict) else {}, bool))
    return tuple(
        TableSchema(s.name, fields)
        if s.name.endswith("results") and "dr" in s.fields and len(s.fields) == 1
        else s
        for s in schemas
    )


def _rows(cls: Any, table: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {code: cls(code=code, **row) for code, row in table.items()}


def _named(table: Mapping[str, Mapping[str, Any]], field: str = "value") -> dict[str, FixedValue]:
    return {k: FixedValue(k, str(r["name"]), int(r[field])) for k, r in table.items()}


def _cell(text: str) -> tuple[int, int]:
    a, _, d = text.partition("(")
    try:
        return int(a.strip()), int(d.rstrip(") "))
    except ValueError:
        return -1, -1  # refused by check_meaning with its line


def _build(t: Tables) -> CofTables:
    crt = tuple(
        ShockRow(int(r["dr"]), tuple(_cell(str(r[f"c{c}"])) for c in range(1, CRT_COLUMNS + 1)))
        for r in t.table("shock_results").values()
    )
    missile = tuple(
        MissileRow(int(r["dr"]), {c: int(r[c]) for c in MISSILE_COLUMNS})
        for r in t.table("missile_results").values()
    )
    turnover = tuple(
        TurnoverRow(int(r["dr"]), {k: bool(v) for k, v in r.items() if k != "dr"})
        for r in t.table("turnover_results").values()
    )
    clash = {
        (str(r["attacker"]), str(r["defender"])): Clash(code=k, **r)
        for k, r in t.table("shock_clash").items()
    }
    return CofTables(
        tables=t,
        types=_rows(TroopType, t.table("types")),
        armies=_rows(Army, t.table("armies")),
        battles=_rows(Battle, t.table("battles")),
        leaders=_rows(LeaderRow, t.table("leaders")),
        terrain=_rows(Terrain, t.table("terrain")),
        actions=_named(t.table("actions")),
        clash=clash,
        crt=tuple(sorted(crt, key=lambda r: r.dr)),
        shifts=_named(t.table("shock_shifts"), "columns"),
        shock_modifiers=_named(t.table("shock_modifiers")),
        weapons=_named(t.table("missile_weapons"), "range"),
        missile=tuple(sorted(missile, key=lambda r: r.dr)),
        armor={
            k: {c: int(r[c]) for c in ("armored", "partial", "unarmored")}
            for k, r in t.table("missile_armor").items()
        },
        missile_modifiers=_named(t.table("missile_modifiers")),
        bands=_rows(Band, t.table("turnover_bands")),
        turnover=tuple(sorted(turnover, key=lambda r: r.dr)),
        events=_rows(Event, t.table("events")),
        leader_casualty=_rows(LeaderCasualty, t.table("leader_casualty")),
    )


def bundled_texts() -> dict[str, str]:
    """The bundled files of ``engine/cof/data`` by name."""
    data = resources.files("engine.cof").joinpath("data")
    return {name: data.joinpath(name).read_text(encoding="utf-8") for name in FILES}


_BUNDLED: list[CofTables] = []


def bundled() -> CofTables:
    """The bundled charts, checked once."""
    if not _BUNDLED:
        _BUNDLED.append(load_cof_tables(bundled_texts()))
    return _BUNDLED[0]


def one_file_schemas(text: str) -> tuple[TableSchema, ...]:
    """The schemas of a one-file chart set (``text`` fixes the turnover bands' columns)."""
    return _one_file(text)
