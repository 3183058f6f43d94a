"""The jinja2 environment for everything a player reads as text (mail bodies, archive pages).

Templates live in the repository's ``templates/`` folder (override with
``PBEM_TEMPLATES``). Undefined names are errors (``StrictUndefined``), and
``.svg``/``.html`` templates are autoescaped; ``.txt`` templates are not.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import jinja2

from engine.core.text import chop, wrap

__all__ = ["chop", "environment", "templates_dir", "wrap"]


def templates_dir() -> Path:
    """The folder holding ``mail/`` and ``archive/``."""
    override = os.environ.get("PBEM_TEMPLATES")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / "templates"


def _autoescape(name: str | None) -> bool:
    if name is None:
        return True
    return name.removesuffix(".j2").endswith((".svg", ".html", ".xml"))


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
