"""The C&C Ancients rules tables (``tables.toml``), checked, typed, and carried by each game.

Every chart the rules read is a table of ``engine/cca/tables.toml`` (format
``pbem-tables/1``, :mod:`engine.core.tables`), each value with its
provenance: ``units`` (cca.md §3), ``terrain`` (§17), ``cards`` (the deck,
§18), ``leader_checks`` and ``leader_moves`` (§16, §7.3). A
:class:`CcaTables` holds one checked file as the rows the rules read; a game's
:class:`engine.cca.state.State` carries its own (``state.tables``), so a club's
file (``pbem game create --tables FILE``) changes the game it starts and no
other. :data:`BUNDLED` is the shipped file, what a game plays with unless a
club gives its own; rules code never reads it, only the state's tables.

:class:`TableProvider` is the system's ``tables`` capability
(:class:`engine.core.capabilities.TableProvider`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from importlib import resources
from typing import Any

from engine.cca.terrain import TerrainSpec
from engine.cca.units import UnitSpec
from engine.core.tables import Tables, TableSchema, TablesError, load_tables

__all__ = [
    "BUNDLED",
    "CODES",
    "KINDS",
    "LEADERSHIP",
    "SCHEMAS",
    "SECTION",
    "TACTIC",
    "TROOP",
    "CardSpec",
    "CcaTables",
    "LeaderCheck",
    "TableProvider",
    "bundled_text",
    "load_cca_tables",
    "with_tables",
]

SECTION = "section"
TROOP = "troop"
LEADERSHIP = "leadership"
TACTIC = "tactic"
KINDS = (SECTION, TROOP, LEADERSHIP, TACTIC)

CODES = (
    "2L", "2C", "2R", "3L", "3C", "3R", "4L", "4C", "4R", "CA", "OF",
    "LT", "MT", "HT", "MO", "LA", "IL", "IC", "IR",
    "CS", "CTA", "DS", "DT", "FS", "SP", "LN", "MFM", "CH", "RA",
)  # fmt: skip
"""The card codes the rules know (each tactic card's effect is code): a table file must
give a row for each, and no other."""


@dataclass(frozen=True)
class CardSpec:
    """One kind of card: code, name, kind, copies in the deck and what it orders.

    ``per_section`` maps a section to how many orders it gives there (section
    cards); ``troop`` names the category a troop card orders (``light``,
    ``medium``, ``heavy``, ``mounted``); ``chain`` is how many extra chained
    units a leadership card orders, ``leader_section`` where its leader must
    be (None = any); ``helmet`` = attached leaders may detach;
    ``circled_hand``/``circled_draw`` = hand size increase and cards drawn
    under the option ``circled_cards_raise_hand``.
    """

    code: str
    name: str
    kind: str
    count: int
    per_section: tuple[tuple[str, int], ...] = ()
    troop: str | None = None
    chain: int = 0
    leader_section: str | None = None
    helmet: bool = False
    aliases: tuple[str, ...] = ()
    circled_hand: int = 0
    circled_draw: int = 0

    @property
    def sections(self) -> dict[str, int]:
        return dict(self.per_section)


@dataclass(frozen=True)
class LeaderCheck:
    """A roll that may hit a leader: ``dice`` (0: the attacker's own), the ``symbols`` that
    hit it and how many hits kill it (``needed``)."""

    dice: int
    symbols: tuple[str, ...]
    needed: int

    def kills(self, faces: tuple[str, ...] | list[str]) -> bool:
        """Whether ``faces`` kill the leader."""
        return sum(1 for f in faces if f in self.symbols) >= self.needed


def _schema(name: str, row: type, skip: tuple[str, ...], extra: dict[str, type]) -> TableSchema:
    kinds = {"bool": bool, "int": int, "str": str, "tuple[str, ...]": list}
    cols = {f.name: kinds[str(f.type)] for f in fields(row) if f.name not in skip}
    return TableSchema(name, {**cols, **extra})


_MOVERS = ("light", "foot", "hwm", "mounted", "leader")
_SETS = ("impassable", "stop", "no_battle_on_entry", "no_bonus_on_entry",
         "enter_only_from_adjacent_start")  # fmt: skip
_OPTIONAL_INT = (
    "melee_cap",
    "ranged_cap_into",
    "ranged_cap_out",
    "leave_max_move",
    "hill_cap_foot",
    "hill_cap_mounted",
    "hill_cap_uphill",
)

UNIT_SCHEMA = _schema("units", UnitSpec, ("code",), {})
TERRAIN_SCHEMA = TableSchema(
    "terrain",
    {
        **{n: list for n in _SETS},
        **{
            f.name: {"bool": bool, "int": int}[str(f.type)]
            for f in fields(TerrainSpec)
            if str(f.type) in ("bool", "int")
        },
        **dict.fromkeys(_OPTIONAL_INT, int),
        "minus_into_option": str,
    },
)
CARD_SCHEMA = TableSchema(
    "cards",
    {
        "name": str,
        "kind": str,
        "count": int,
        "left": int,
        "centre": int,
        "right": int,
        "troop": str,
        "chain": int,
        "leader_section": str,
        "helmet": bool,
        "aliases": list,
        "circled_hand": int,
        "circled_draw": int,
    },
)
LEADER_CHECK_SCHEMA = TableSchema("leader_checks", {"dice": int, "symbols": list, "needed": int})
LEADER_MOVE_SCHEMA = TableSchema("leader_moves", {"hexes": int})

SCHEMAS = (UNIT_SCHEMA, TERRAIN_SCHEMA, CARD_SCHEMA, LEADER_CHECK_SCHEMA, LEADER_MOVE_SCHEMA)
"""Every table C&C Ancients reads from its table file."""

_CHECKS = ("attached", "eliminated", "lone", "escape", "marsh")
_MOVES = ("move", "evade")


@dataclass(frozen=True, eq=False)
class CcaTables:
    """One checked table file as the rows the rules read (equal when the files are)."""

    data: Tables
    units: Mapping[str, UnitSpec]
    terrain: Mapping[str, TerrainSpec]
    cards: Mapping[str, CardSpec]
    leader_checks: Mapping[str, LeaderCheck]
    leader_moves: Mapping[str, int]

    @property
    def sha256(self) -> str:
        """The SHA-256 of the file's bytes: what names these tables."""
        return self.data.sha256

    @property
    def text(self) -> str:
        """The file as given."""
        return self.data.text

    @property
    def deck(self) -> tuple[str, ...]:
        """Every card of the deck in catalogue order (before its shuffle)."""
        return tuple(c.code for c in self.cards.values() for _ in range(c.count))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CcaTables) and other.sha256 == self.sha256

    def __hash__(self) -> int:
        return hash(self.sha256)


def _line(tables_text: str, table: str, key: str) -> int:
    head = f"[{table}.{key}]"
    return next((i for i, ln in enumerate(tables_text.splitlines(), 1) if ln.strip() == head), 0)


def _terrain(name: str, row: Mapping[str, Any]) -> TerrainSpec:
    values: dict[str, Any] = dict(row)
    for key in _SETS:
        values[key] = frozenset(values[key])
    for key in _OPTIONAL_INT:
        values[key] = values[key] or None
    values["minus_into_option"] = values["minus_into_option"] or None
    return TerrainSpec(name=name, **values)


def _card(code: str, row: Mapping[str, Any]) -> CardSpec:
    per = tuple((s, int(row[s])) for s in ("left", "centre", "right") if row[s])
    return CardSpec(
        code=code,
        name=row["name"],
        kind=row["kind"],
        count=row["count"],
        per_section=per,
        troop=row["troop"] or None,
        chain=row["chain"],
        leader_section=row["leader_section"] or None,
        helmet=row["helmet"],
        aliases=tuple(row["aliases"]),
        circled_hand=row["circled_hand"],
        circled_draw=row["circled_draw"],
    )


def _check_values(text: str, t: Tables) -> list[tuple[int, str]]:
    """What the schema's types cannot say: known codes, kinds, sections, mover columns."""
    problems: list[tuple[int, str]] = []
    for name, row in t.table("terrain").items():
        for key in _SETS:
            for mover in row[key]:
                if mover not in _MOVERS:
                    problems.append(
                        (_line(text, "terrain", name),
                         f"terrain.{name}.{key}: {mover!r} is not one of {', '.join(_MOVERS)}")
                    )  # fmt: skip
    cards = t.table("cards")
    for code, row in cards.items():
        wrong = []
        if code not in CODES:
            wrong.append(f"cards.{code}: unknown card code (the rules know {' '.join(CODES)})")
        if row["kind"] not in KINDS:
            wrong.append(f"cards.{code}.kind must be one of {', '.join(KINDS)}")
        if row["leader_section"] not in ("", "left", "centre", "right"):
            wrong.append(f'cards.{code}.leader_section must be left, centre, right or ""')
        if row["troop"] not in ("", "light", "medium", "heavy", "mounted"):
            wrong.append(f'cards.{code}.troop must be light, medium, heavy, mounted or ""')
        if row["count"] < 0:
            wrong.append(f"cards.{code}.count must be 0 or more")
        problems += [(_line(text, "cards", code), msg) for msg in wrong]
    missing = [c for c in CODES if c not in cards]
    if missing:
        problems.append((0, f"table [cards] lacks {' '.join(missing)}"))
    for table, want in (("leader_checks", _CHECKS), ("leader_moves", _MOVES)):
        lack = [k for k in want if k not in t.table(table)]
        extra = [k for k in t.table(table) if k not in want]
        if lack:
            problems.append((0, f"table [{table}] lacks {' '.join(lack)}"))
        for k in extra:
            problems.append((_line(text, table, k), f"{table}.{k}: unknown row: known "
                                                     f"{', '.join(want)}"))  # fmt: skip
    return problems


_CACHE: dict[str, CcaTables] = {}


def load_cca_tables(text: str) -> CcaTables:
    """Check a C&C Ancients table file (the bundled one, or a club's); raise TablesError.

    The same text gives the same object (checked once per process).
    """
    t = load_tables(text, "cca", SCHEMAS)
    if t.sha256 in _CACHE:
        return _CACHE[t.sha256]
    problems = _check_values(text, t)
    if problems:
        raise TablesError(problems)
    out = CcaTables(
        data=t,
        units={code: UnitSpec(code=code, **row) for code, row in t.table("units").items()},
        terrain={n: _terrain(n, row) for n, row in t.table("terrain").items()},
        cards={c: _card(c, row) for c, row in t.table("cards").items()},
        leader_checks={
            k: LeaderCheck(r["dice"], tuple(r["symbols"]), r["needed"])
            for k, r in t.table("leader_checks").items()
        },
        leader_moves={k: int(r["hexes"]) for k, r in t.table("leader_moves").items()},
    )
    _CACHE[t.sha256] = out
    return out


def bundled_text() -> str:
    """The text of ``engine/cca/tables.toml``."""
    return resources.files("engine.cca").joinpath("tables.toml").read_text(encoding="utf-8")


BUNDLED = load_cca_tables(bundled_text())
"""The bundled tables: what a game plays with unless a club gives its own."""

SAME_AS_BUNDLED: Mapping[str, str] = {
    "26e9445fe8d6ed182055c4b64485dda4601c44ace96cdc665d2fe3946542ce55": (
        "tables.toml with the unit table only (terrain, cards and leader checks were code "
        "with the values the file now gives)"
    ),
    "2d07154065111ee21d859bc1c63708685c1a5e7585ae793165c84e1da7784499": (
        "tables.toml before elephant_dice joined the unit rows (combat.py held the same values)"
    ),
}
"""Earlier bundled files whose every value the rules read is the bundled file's: a state
that names one of them (stored before the change) plays on :data:`BUNDLED`. Add a file
here only when a game on it would roll and resolve exactly as on the bundled one."""


def named(sha: str) -> CcaTables | None:
    """The tables a state names by SHA-256 alone: the bundled file (or one it replaces
    value for value, :data:`SAME_AS_BUNDLED`), else None."""
    return BUNDLED if sha in (BUNDLED.sha256, *SAME_AS_BUNDLED) else None


def _cached(text: str) -> CcaTables:
    """The tables of ``text`` (the bundled object when the text is the bundled file)."""
    return BUNDLED if text == BUNDLED.text else load_cca_tables(text)


class TableProvider:
    """The ``tables`` capability of C&C Ancients (engine.core.capabilities.TableProvider)."""

    def schemas(self) -> tuple[TableSchema, ...]:
        """Every table the rules read."""
        return SCHEMAS

    def default_text(self) -> str:
        """The bundled ``tables.toml``."""
        return BUNDLED.text

    def load(self, text: str) -> Tables:
        """Check a table file (raises TablesError with every problem and its line)."""
        return load_cca_tables(text).data

    def with_tables(self, state: Any, tables: Tables) -> Any:
        """``state`` played on ``tables`` (see :func:`with_tables`)."""
        return with_tables(state, _cached(tables.text))

    def tables_of(self, state: Any) -> Tables:
        """The tables ``state`` carries."""
        tables: CcaTables = state.tables
        return tables.data


def with_tables(state: Any, tables: CcaTables) -> Any:
    """``state`` (an :class:`engine.cca.state.State`) played on ``tables``: units' full
    strength follows the unit table, and a deck still to be shuffled is the new deck less
    the cards already dealt or discarded."""
    if tables == state.tables:
        return replace(state, tables=tables)
    out = replace(state, tables=tables, units=_replaced_units(state.units, state.tables, tables))
    if state.deck_random:
        pool = list(tables.deck)
        for c in [*state.discard, *(c for v in state.sides.values() for c in v.hand)]:
            if c in pool:
                pool.remove(c)
        out = replace(out, deck=tuple(pool))
    return out


def _replaced_units(units: Any, old: CcaTables, new: CcaTables) -> Any:
    """Units at full strength under ``old`` tables made full under ``new`` ones."""
    out = []
    for u in units:
        was = old.units.get(u.type)
        now = new.units.get(u.type)
        if was is not None and now is not None and u.full == was.blocks != now.blocks:
            blocks = now.blocks if u.blocks == u.full else min(u.blocks, now.blocks)
            out.append(replace(u, full=now.blocks, blocks=blocks))
        else:
            out.append(u)
    return tuple(out)
