"""Find the line of a table, key or string item in a TOML text (for error messages).

``tomllib`` gives values without positions, so this scans the text once:
table headers (``[a.b]``, ``[[special]]`` numbered from 0), ``key =`` lines
and every string literal inside a value (multi-line arrays included). It is
not a TOML parser; it only needs to agree with one on files that parse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

__all__ = ["TomlLines"]


_TOKEN = re.compile(r"\"\"\"|'''|\"(?:[^\"\\]|\\.)*\"|'[^']*'|#|[\[\]{}]")
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEYLINE = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def _split_key(key: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in key.split("."))


class TomlLines:
    """Where each table, key and string item of a TOML text sits (1-based lines)."""

    def __init__(self, text: str) -> None:
        self.keys: dict[tuple[str, ...], int] = {}
        self.items: dict[tuple[tuple[str, ...], str], list[int]] = {}
        table: tuple[str, ...] = ()
        arrays: dict[tuple[str, ...], int] = {}
        key: tuple[str, ...] = ()
        depth = 0
        closing = ""  # the delimiter of an open multi-line string
        for n, line in enumerate(text.splitlines(), 1):
            rest = line
            if closing:
                end = rest.find(closing)
                if end < 0:
                    continue
                rest, closing = rest[end + 3 :], ""
            elif depth == 0:
                head = _HEADER.match(line)
                if head and "=" not in line.split("]")[0]:
                    table = _split_key(head.group(2))
                    if head.group(1) == "[[":
                        arrays[table] = arrays.get(table, -1) + 1
                        table = (*table, str(arrays[table]))
                    self.keys.setdefault(table, n)
                    continue
                km = _KEYLINE.match(line)
                if km:
                    key = (*table, *_split_key(km.group(1)))
                    self.keys.setdefault(key, n)
                    rest = line[km.end() :]
            for tok in _TOKEN.finditer(rest):
                t = tok.group(0)
                if t == "#":
                    break
                if t in ('"""', "'''"):
                    tail = rest[tok.end() :]
                    if t not in tail:
                        closing = t
                    break  # a multi-line string holds no items we look up
                if t in "[{":
                    depth += 1
                elif t in "]}":
                    depth = max(0, depth - 1)
                else:
                    self.items.setdefault((key, _unquote(t)), []).append(n)

    def line(self, path: Sequence[str], item: str | None = None, nth: int = 0) -> int:
        """Line of ``item`` in the value of ``path`` (its ``nth`` copy), else of the nearest key."""
        p = tuple(path)
        if item is not None:
            hits = self.items.get((p, item))
            if hits:
                return hits[min(nth, len(hits) - 1)]
        while p:
            if p in self.keys:
                return self.keys[p]
            # A table written only through its sub-tables ([sides.north]): the first of them.
            inside = [n for k, n in self.keys.items() if k[: len(p)] == p]
            if inside:
                return min(inside)
            p = p[:-1]
        return 0


def _unquote(token: str) -> str:
    if token.startswith('"'):
        try:
            return str(json.loads(token))
        except ValueError:
            return token[1:-1]
    return token[1:-1]
