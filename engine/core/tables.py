"""Rules tables as data: a system's charts in a TOML file, each value with its provenance.

A table file (format ``pbem-tables/1``) holds named tables of rows; each row
is a TOML table of values. Every value carries a provenance: the row's
``source`` applies to all of its values unless the row's ``sources`` names
another for a field. A provenance is one of :data:`PROVENANCE`, optionally
followed by ``": "`` and a reference (a section, page or address)::

    schema = "pbem-tables/1"
    system = "cca"

    [units.CAM]
    source = "digest: cca.md §3.1"
    sources = { move = "public-page: https://..." }
    move = 3

A system describes its tables with a :class:`TableSchema` per table (each
field's type: ``bool``, ``int``, ``str`` or ``list``, a list of text);
:func:`load_tables` checks a file against it and reports every problem with
its line, so a club's own file is checked like the bundled one. The SHA-256
of the file's bytes (:attr:`Tables.sha256`) names the tables a game was
played with.

A system offers its tables to pbem through the ``tables`` capability
(:class:`engine.core.capabilities.TableProvider`): its schema, its bundled
file, the check, and how a state carries the tables it is played with
(docs/adding-a-system.md, "Tables").
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

__all__ = [
    "FORMAT",
    "PROVENANCE",
    "TableSchema",
    "Tables",
    "TablesError",
    "load_tables",
    "provenance_kind",
    "schema_of",
]

FORMAT = "pbem-tables/1"

PROVENANCE = ("rulebook", "digest", "public-page", "placeholder", "club")
"""Where a value comes from: the rulebook, the rules digest, a public page,
a placeholder (no source gives it: replace it), or a club's own choice."""

_TYPES: dict[type, str] = {
    bool: "true or false",
    int: "a whole number",
    str: "text",
    list: "a list of text",
}


class TablesError(ValueError):
    """A table file that does not fit its schema; ``problems`` are (line, message) pairs."""

    def __init__(self, problems: list[tuple[int, str]]) -> None:
        self.problems = tuple(sorted(problems))
        super().__init__("\n".join(f"line {n}: {m}" if n else m for n, m in self.problems))


@dataclass(frozen=True)
class TableSchema:
    """One table: each field's Python type (``bool``, ``int``, ``str``, or ``list``: a list
    of text, read as a tuple of strings)."""

    name: str
    fields: Mapping[str, type]


def schema_of(name: str, row_type: type, skip: tuple[str, ...] = ("code",)) -> TableSchema:
    """The schema of table ``name`` whose rows are ``row_type`` (a dataclass of bool/int/str
    fields, or ``tuple[str, ...]`` for a list of text, annotated as strings), leaving out
    ``skip`` (the row key, not a value)."""
    types = {"bool": bool, "int": int, "str": str, "tuple[str, ...]": list}
    return TableSchema(
        name, {f.name: types[str(f.type)] for f in fields(row_type) if f.name not in skip}
    )


@dataclass(frozen=True)
class Tables:
    """A checked table file: rows by table and key, provenance by value, and its hash."""

    system: str
    rows: Mapping[str, Mapping[str, Mapping[str, Any]]]
    provenance: Mapping[tuple[str, str, str], str]
    sha256: str
    text: str

    def table(self, name: str) -> Mapping[str, Mapping[str, Any]]:
        """The rows of table ``name`` by key, in file order."""
        return self.rows[name]

    def placeholders(self) -> list[tuple[str, str, str]]:
        """Every (table, row, field) whose value is a placeholder (a new list each call; the
        file does not change, so they are found once: a prompt counts them every turn)."""
        found = self.__dict__.get("_placeholders")
        if found is None:
            found = tuple(
                sorted(k for k, v in self.provenance.items() if provenance_kind(v) == "placeholder")
            )
            self.__dict__["_placeholders"] = found
        return list(found)


def provenance_kind(text: str) -> str:
    """The kind of a provenance (``"public-page: https://..."`` -> ``"public-page"``)."""
    return text.split(":", 1)[0].strip()


def _line_of(lines: list[str], table: str, row: str | None, field: str | None) -> int:
    """The line of ``[table.row]`` (then of ``field`` inside it), else 0."""
    head = re.compile(
        r"^\s*\[\s*" + re.escape(table) + (r"\s*\.\s*" + re.escape(row) if row else "") + r"\s*\]"
    )
    start = next((i for i, ln in enumerate(lines) if head.match(ln)), None)
    if start is None:
        return 0
    if field is None:
        return start + 1
    key = re.compile(r"^\s*" + re.escape(field) + r"\s*=")
    for i in range(start + 1, len(lines)):
        if lines[i].lstrip().startswith("["):
            break
        if key.match(lines[i]):
            return i + 1
    return start + 1


def load_tables(text: str, system: str, schemas: tuple[TableSchema, ...]) -> Tables:
    """Parse and check a table file for ``system``; raise :class:`TablesError` listing problems."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise TablesError([(int(m.group(1)) if m else 0, f"not valid TOML: {exc}")]) from None
    lines = text.splitlines()
    problems: list[tuple[int, str]] = []

    def top(key: str) -> int:
        return next((i + 1 for i, ln in enumerate(lines) if ln.strip().startswith(key)), 0)

    if doc.get("schema") != FORMAT:
        problems.append((top("schema"), f'schema must be "{FORMAT}"'))
    if doc.get("system") != system:
        named = doc.get("system")
        other = f" (this file is for {named!r})" if isinstance(named, str) else ""
        problems.append((top("system"), f'system must be "{system}"{other}'))
    known = {s.name: s for s in schemas}
    for key in doc:
        if key not in ("schema", "system") and key not in known:
            problems.append(
                (
                    _line_of(lines, key, None, None) or top(key),
                    f"unknown table {key!r}: known {', '.join(known)}",
                )
            )
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    prov: dict[tuple[str, str, str], str] = {}
    for schema in schemas:
        table = doc.get(schema.name)
        if not isinstance(table, dict) or not table:
            problems.append((0, f"table [{schema.name}] is missing"))
            continue
        rows[schema.name] = {}
        for key, row in table.items():
            if not isinstance(row, dict):
                where = _line_of(lines, schema.name, key, None)
                problems.append((where, f"{schema.name}.{key} must be a table of values"))
                continue
            got = _row(schema, key, row, lines, problems, prov)
            if got is not None:
                rows[schema.name][key] = got
    if problems:
        raise TablesError(problems)
    return Tables(
        system=system,
        rows=rows,
        provenance=prov,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        text=text,
    )


def _row(  # noqa: PLR0917
    schema: TableSchema,
    key: str,
    row: Mapping[str, Any],
    lines: list[str],
    problems: list[tuple[int, str]],
    prov: dict[tuple[str, str, str], str],
) -> dict[str, Any] | None:
    name = f"{schema.name}.{key}"

    def at(field: str | None) -> int:
        return _line_of(lines, schema.name, key, field)

    before = len(problems)
    source = row.get("source")
    sources = row.get("sources", {})
    if not isinstance(source, str):
        problems.append((at(None), f"{name}: source is required (where its values come from)"))
        source = ""
    if not isinstance(sources, dict):
        problems.append((at("sources"), f"{name}: sources must be a table field = provenance"))
        sources = {}
    for field, text in [("source", source), *sources.items()]:
        if field != "source" and field not in schema.fields:
            problems.append((at("sources"), f"{name}: sources names unknown field {field!r}"))
        elif not isinstance(text, str) or provenance_kind(text) not in PROVENANCE:
            problems.append(
                (
                    at("sources" if field != "source" else "source"),
                    f"{name}: provenance {text!r} must start with one of {', '.join(PROVENANCE)}",
                )
            )
    values: dict[str, Any] = {}
    for field, typ in schema.fields.items():
        if field not in row:
            problems.append((at(None), f"{name}: {field} is missing ({_TYPES[typ]})"))
            continue
        v = row[field]
        if type(v) is not typ or (isinstance(v, list) and not all(type(x) is str for x in v)):
            problems.append((at(field), f"{name}.{field} must be {_TYPES[typ]}, not {v!r}"))
            continue
        values[field] = tuple(v) if isinstance(v, list) else v
        prov[(schema.name, key, field)] = str(sources.get(field, source))
    for field in row:
        if field not in schema.fields and field not in ("source", "sources"):
            problems.append(
                (at(field), f"{name}: unknown field {field!r}: known {', '.join(schema.fields)}")
            )
    return values if len(problems) == before else None
