"""Fixed-width text for mails and terminals: wrapping and exact quoting."""

from __future__ import annotations

import textwrap

__all__ = ["chop", "wrap"]


def wrap(text: str, width: int = 76, indent: str = "", first: str | None = None) -> str:
    """Wrap ``text`` for a fixed-width mail: every line at most ``width`` columns.

    ``first`` prefixes the first line (default ``indent``); explicit line
    breaks in ``text`` are kept. Words longer than a line are broken.
    """
    out: list[str] = []
    lead = indent if first is None else first
    for para in str(text).split("\n"):
        lines = textwrap.wrap(
            para,
            width,
            initial_indent=lead,
            subsequent_indent=indent,
            break_on_hyphens=False,
        ) or [lead.rstrip()]
        out += lines
        lead = indent
    return "\n".join(out)


def chop(text: str, width: int = 72, prefix: str = "    | ") -> str:
    """Quote one line exactly (spaces kept), cut into ``width``-column pieces."""
    s = str(text)
    pieces = [s[i : i + width] for i in range(0, len(s), width)] or [""]
    return "\n".join((prefix + p).rstrip() for p in pieces)
