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
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from engine.core.capabilities import ScenarioProblem as Problem
from engine.core.toml_lines import TomlLines

__all__ = ["KIND_NAMES", "FileChecker", "HexBoard", "nth_copy", "parse_toml"]

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
