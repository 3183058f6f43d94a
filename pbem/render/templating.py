"""The jinja2 environment for everything a player reads (board SVG, mail bodies).

Templates live in the repository's ``templates/`` folder (override with
``PBEM_TEMPLATES``). Undefined names are errors (``StrictUndefined``), and
``.svg``/``.html`` templates are autoescaped; ``.txt`` templates are not.
"""

from __future__ import annotations

import os
import textwrap
from functools import lru_cache
from pathlib import Path

import jinja2

__all__ = ["chop", "environment", "templates_dir", "wrap"]


def templates_dir() -> Path:
    """The folder holding ``board.svg.j2`` and ``mail/``."""
    override = os.environ.get("PBEM_TEMPLATES")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / "templates"


def _autoescape(name: str | None) -> bool:
    if name is None:
        return True
    return name.removesuffix(".j2").endswith((".svg", ".html", ".xml"))


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


@lru_cache(maxsize=4)
def _env(folder: str) -> jinja2.Environment:
    env = _make_env(folder)
    env.filters["wrap"] = wrap
    env.filters["chop"] = chop
    return env


def _make_env(folder: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        autoescape=_autoescape,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def environment() -> jinja2.Environment:
    """The shared environment (cached per templates folder)."""
    return _env(str(templates_dir()))
