"""Walk a parsed TOML file and collect problems with the line of each offending entry.

The scenario checkers of the C&C systems (``engine.cca.scenario.check``,
``engine.ccn.scenario.check``) read a file with ``tomllib`` and then check it
field by field; :class:`FileChecker` is what they share: typed field access,
unknown keys, lists of strings and hexes, each problem placed on its line by
:class:`engine.core.toml_lines.TomlLines`.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from engine.core.capabilities import ScenarioProblem as Problem
from engine.core.toml_lines import TomlLines

__all__ = ["KIND_NAMES", "FileChecker", "HexBoard", "nth_copy", "parse_toml"]

T = TypeVar("T")

KIND_NAMES: Mapping[type, str] = {
    str: "a string", int: "an integer", bool: "true or false", list: "a list", dict: "a table",
}  # fmt: skip
"""How a problem names the type a field must have."""


class HexBoard(Protocol):
    """A board that names hexes: ``parse`` raises ``ValueError`` off the board."""

    def parse(self, text: str) -> object: ...


def nth_copy(seen: dict[str, int], entry: str) -> int:
    """Count ``entry`` in ``seen`` and return which copy (0, 1...) of it this is."""
    seen[entry] = seen.get(entry, -1) + 1
    return seen[entry]


class FileChecker:
    """Collects problems while walking a parsed file."""

    def __init__(self, text: str) -> None:
        self.lines = TomlLines(text)
        self.problems: list[Problem] = []

    def add(
        self, path: Sequence[str], code: str, message: str, item: str | None = None, nth: int = 0
    ) -> None:
        """Record a problem at the line of ``path`` (or of its string ``item``)."""
        self.problems.append(Problem(self.lines.line(path, item, nth), code, message))

    def typed(
        self,
        table: Mapping[str, Any],
        path: tuple[str, ...],
        key: str,
        kind: type,
        required: bool = True,
    ) -> Any:
        """Return ``table[key]`` if it has type ``kind``; record a problem otherwise."""
        dotted = ".".join((*path, key))
        if key not in table:
            if required:
                self.add(path, "missing-field", f"missing field {dotted}")
            return None
        value = table[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            self.add((*path, key), "bad-type", f"{dotted} must be {KIND_NAMES[kind]}")
            return None
        return value

    def unknown_keys(
        self, table: Mapping[str, Any], path: tuple[str, ...], known: Sequence[str]
    ) -> None:
        """Record every key of ``table`` not in ``known`` (a typo is reported, not ignored)."""
        for key in table:
            if key not in known:
                where = ".".join((*path, key))
                self.add(
                    (*path, key),
                    "unknown-field",
                    f"unknown field {where} (known: {', '.join(known)})",
                )

    def hex_on(
        self, board: HexBoard, text: str, path: tuple[str, ...], item: str, nth: int = 0
    ) -> str | None:
        """Canonical name of hex ``text`` on ``board``, or None with an ``off-board`` problem."""
        try:
            return str(board.parse(text))
        except ValueError as exc:
            self.add(path, "off-board", f"{exc}", item, nth)
            return None

    def header(
        self,
        data: Mapping[str, Any],
        fmt: str,
        systems: Sequence[str],
        meta_keys: Sequence[str],
        id_pattern: re.Pattern[str],
    ) -> tuple[str | None, dict[str, str | None]]:
        """``format``, ``system`` and ``[meta]``: the system and each meta string (or None).

        ``meta.source`` is required unless the file is a saved game (it has ``state``).
        """
        got = self.typed(data, (), "format", str)
        if got is not None and got != fmt:
            self.add(("format",), "bad-value", f"format must be {fmt!r}, not {got!r}")
        system = self.typed(data, (), "system", str)
        if system is not None and system not in systems:
            known = ", ".join(systems)
            self.add(("system",), "bad-value", f"unknown system {system!r} (known: {known})")
        meta = self.typed(data, (), "meta", dict) or {}
        self.unknown_keys(meta, ("meta",), meta_keys)
        out: dict[str, str | None] = {}
        for key in meta_keys:
            need = key != "source" or "state" not in data
            out[key] = self.typed(meta, ("meta",), key, str, required=need) if meta else None
            if key == "id" and out[key] is not None and not id_pattern.match(str(out[key])):
                msg = "meta.id must be lower case letters, digits and dashes"
                self.add(("meta", "id"), "bad-value", msg)
        return system, out

    def sides(
        self,
        data: Mapping[str, Any],
        names: Sequence[str],
        check_side: Callable[[str, Any], T | None],
    ) -> dict[str, T]:
        """``[sides.NAME]`` for each of ``names``, checked by ``check_side`` (None: refused)."""
        raw = self.typed(data, (), "sides", dict) or {}
        self.unknown_keys(raw, ("sides",), names)
        out: dict[str, T] = {}
        for name in names:
            if name not in raw:
                if "sides" in data:
                    self.add(("sides",), "missing-field", f"missing table [sides.{name}]")
                continue
            side = check_side(name, raw[name])
            if side is not None:
                out[name] = side
        return out

    def tables(self, data: Mapping[str, Any], keys: Sequence[str]) -> None:
        """Each of ``keys`` present in ``data`` must be a table (its content is another's)."""
        for key in keys:
            if key in data:
                self.typed(data, (), key, dict)

    def strings(
        self, table: Mapping[str, Any], path: tuple[str, ...], key: str, required: bool
    ) -> list[str]:
        """The list of strings at ``table[key]`` (empty, with a problem, if it is not one)."""
        value = self.typed(table, path, key, list, required)
        if value is None:
            return []
        if not all(isinstance(v, str) for v in value):
            self.add(
                (*path, key), "bad-type", f"{'.'.join((*path, key))} must be a list of strings"
            )
            return []
        return list(value)


def parse_toml(text: str) -> tuple[dict[str, Any] | None, Problem | None]:
    """The parsed file, or the ``toml-syntax`` problem with its line."""
    try:
        return tomllib.loads(text), None
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        return None, Problem(int(m.group(1)) if m else 0, "toml-syntax", f"TOML syntax: {exc}")
