"""A club's rules tables file (``--tables FILE``), for any system that offers tables.

A game system that reads its charts from a table file offers the ``tables``
capability (:class:`engine.core.capabilities.TableProvider`, docs/tables.md).
:func:`read_tables` checks a file against that system's schema and reports
every problem as ``FILE:LINE: message``; :func:`start_with` puts the checked
tables on a loaded position, so the game started from it (``new_game``)
carries them in its state; :func:`tables_sha256` names the tables a state is
played with. Nothing here knows a system.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.api import GameSystem
from engine.core.capabilities import TABLES, find
from engine.core.tables import Tables, TablesError

__all__ = ["TablesFileError", "carry_tables", "read_tables", "start_with", "tables_sha256"]


class TablesFileError(ValueError):
    """A tables file that cannot be used: unreadable, for another system, or not valid."""


def read_tables(system: GameSystem, path: Path | str) -> Tables:
    """Check the tables file at ``path`` against ``system``'s schema.

    Raises :class:`TablesFileError` listing every problem as ``FILE:LINE: message``
    (a system without tables, an unreadable file, a file for another system).
    """
    provider = find(system, TABLES)
    if provider is None:
        raise TablesFileError(f"{path}: the system {system.name!r} reads no rules tables")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TablesFileError(f"{path}: cannot read it: {exc}") from None
    try:
        return provider.load(text)
    except TablesError as exc:
        lines = [f"{path}:{n}: {m}" if n else f"{path}: {m}" for n, m in exc.problems]
        raise TablesFileError("\n".join(lines)) from None


def start_with(system: GameSystem, position: Any, tables: Tables | None) -> Any:
    """``position`` to be played on ``tables`` (unchanged when None)."""
    if tables is None:
        return position
    provider = find(system, TABLES)
    if provider is None:  # pragma: no cover - read_tables refused the file already
        raise TablesFileError(f"the system {system.name!r} reads no rules tables")
    return provider.with_tables(position, tables)


def carry_tables(system: GameSystem, position: Any, state: Any) -> Any:
    """``position`` played on the tables ``state`` carries (the position itself when the
    system has no tables): a game dealt again from its scenario keeps its own tables."""
    provider = find(system, TABLES)
    if provider is None:
        return position
    return provider.with_tables(position, provider.tables_of(state))


def tables_sha256(system: GameSystem, state: Any) -> str:
    """The SHA-256 of the tables ``state`` is played with ("" for a system without)."""
    provider = find(system, TABLES)
    if provider is None:
        return str(system.public_view(state).get("tables_sha256") or "")
    return provider.tables_of(state).sha256
