"""Read and write Chariots of Fire positions (``pbem-position/2`` with a ``cof`` body).

A running game is written whole, field by field of :class:`engine.cof.state.CofState`:
scalars first (turn, the side with the Initiative, the activation pool, the result), then
``units`` and ``leaders`` (one inline table a counter), ``[sides.*]``, ``[terrain]`` (hex =
terrain kind), ``[elevation]``, ``[active]`` (the Orders Phase under way) and ``[pending]``
(the question waiting). The charts are named by ``tables_sha256``; a club's chart file is
carried whole in ``tables_text`` (the bundled charts are not: every copy of pbem has them).
What :func:`write_position` prints, :func:`load_position` reads back to an equal state, so
two ``pbem engine resolve`` calls chain.

A ``pbem-position/1`` file is a scenario: :mod:`engine.cof.scenario` reads it into a
:class:`~engine.cof.scenario.spec.CofScenario` and :func:`engine.cof.state.from_scenario`
sets the battle up. Every error is a :class:`PositionError` with the line it is about.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from engine.cof.state import SIDES, CofState, charts_of, state_from_dict, state_to_dict
from engine.core.api import PositionError
from engine.core.tables import TablesError
from engine.core.toml_lines import TomlLines
from engine.core.toml_text import toml_string, toml_value
from engine.gboh.grid import SIDES as HEXSIDES
from engine.gboh.grid import VERTICES, GHex, MapNotationError

__all__ = ["FORMAT", "SCENARIO_FORMAT", "load_position", "write_position"]

FORMAT = "pbem-position/2"
SCENARIO_FORMAT = "pbem-position/1"
_TABLES = ("sides", "terrain", "elevation", "active", "pending")
_ARRAYS = ("units", "leaders")


def _table(name: str, body: Mapping[str, Any]) -> list[str]:
    out = ["", f"[{name}]"]
    nested = []
    for k, v in body.items():
        if isinstance(v, Mapping) and v and all(isinstance(x, Mapping) for x in v.values()):
            nested.append((k, v))
        else:
            out.append(f"{toml_string(str(k))} = {toml_value(v)}")
    for k, v in nested:
        for sub, inner in v.items():
            out += _table(f"{name}.{toml_string(str(k))}.{toml_string(str(sub))}", inner)
    return out


def write_position(state: CofState) -> str:
    """Print ``state`` as a ``pbem-position/2`` file; loading it gives ``state`` back."""
    d = state_to_dict(state)
    out = [
        f"format = {toml_string(FORMAT)}",
        'system = "cof"',
        f"tables_sha256 = {toml_string(state.charts.sha256)}",
    ]
    for k, v in d.items():
        if k not in _TABLES and k not in _ARRAYS:
            out.append(f"{k} = {toml_value(v)}")
    for k in _ARRAYS:
        out += ["", f"{k} = ["] + [f"  {toml_value(x)}," for x in d[k]] + ["]"]
    for side, body in d["sides"].items():
        out += _table(f"sides.{side}", body)
    for k in _TABLES[1:]:
        out += _table(k, d[k])
    return "\n".join(out) + "\n"


def load_position(text: str) -> CofState:
    """A scenario (``pbem-position/1``) set up, or a game in progress (``/2``) read back."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise PositionError(int(m.group(1)) if m else 0, f"not valid TOML: {e}") from None
    ln = TomlLines(text)
    if doc.get("system", "cof") != "cof":
        raise PositionError(ln.line(("system",)), f"system is {doc.get('system')!r}, not 'cof'")
    if doc.get("format") == SCENARIO_FORMAT:
        return _scenario(text)
    if doc.get("format") != FORMAT:
        raise PositionError(ln.line(("format",)), f"format must be {SCENARIO_FORMAT} or {FORMAT}")
    skip = ("format", "system", "tables_sha256", "stream")
    body = {k: v for k, v in doc.items() if k not in skip}
    try:
        state = state_from_dict(body)
    except (KeyError, TypeError, ValueError) as e:
        raise PositionError(0, f"a value is missing or has the wrong shape: {e}") from None
    try:
        charts = charts_of(state.tables_text)
    except TablesError as e:
        raise PositionError(ln.line(("tables_text",)), f"tables_text: {e}") from None
    sha = doc.get("tables_sha256")
    if sha is not None and sha != charts.sha256:
        raise PositionError(
            ln.line(("tables_sha256",)),
            f"tables_sha256 names charts this file does not carry ({sha})",
        )
    check_state(state, ln)
    return state


def _scenario(text: str) -> CofState:
    """A scenario file, read by the scenario package's loader (``load_scenario``)."""
    from engine.cof.state import from_scenario  # noqa: PLC0415

    module = importlib.import_module("engine.cof.scenario")
    reader = getattr(module, "load_scenario", None)
    if reader is None:
        raise PositionError(0, "this pbem cannot read Chariots of Fire scenario files yet")
    try:
        scenario = reader(text)
    except ValueError as e:
        found = getattr(e, "problems", ())
        if found:
            first = found[0]
            raise PositionError(int(first.line), str(first.message)) from None
        raise PositionError(0, str(e)) from None
    state = from_scenario(scenario)
    check_state(state, TomlLines(text))
    return state


def check_state(state: CofState, ln: TomlLines | None = None) -> None:
    """Codes known, counters on the map, at most one unit a hex (a CH-2 with its runners
    excepted, cof.md §6.6), facings valid; ``PositionError`` naming the line."""
    lines = ln or TomlLines("")
    charts = state.charts
    if set(state.sides) != set(SIDES):
        raise PositionError(lines.line(("sides",)), "sides must be north and south")
    for h, kind in state.terrain.items():
        if kind not in charts.terrain:
            known = ", ".join(charts.terrain)
            where = lines.line(("terrain", h))
            raise PositionError(where, f"{h}: unknown terrain {kind!r} ({known})")
    seen: dict[str, str] = {}
    for u in state.units:
        where = lines.line(("units",), u.id)
        if u.side not in SIDES:
            raise PositionError(where, f"unit {u.id}: side must be north or south")
        if u.type not in charts.types:
            raise PositionError(where, f"unit {u.id}: unknown type {u.type!r}")
        if not u.on_map:
            continue
        try:
            at = GHex.parse(u.hex)
        except MapNotationError as e:
            raise PositionError(where, f"unit {u.id}: {e}") from None
        if at not in state.grid:
            raise PositionError(where, f"unit {u.id}: {u.hex} is not on the map")
        if u.facing not in VERTICES and not (u.column and u.facing in HEXSIDES):
            raise PositionError(where, f"unit {u.id}: facing must be one of {' '.join(VERTICES)}")
        if u.hex in seen:
            mate = state.unit(seen[u.hex])
            if not (u.stacked_with == mate.id or mate.stacked_with == u.id):
                raise PositionError(where, f"units {mate.id} and {u.id} share {u.hex}")
        seen[u.hex] = u.id
    for ld in state.leaders:
        if ld.side not in SIDES:
            raise PositionError(lines.line(("leaders",), ld.id), f"leader {ld.id}: bad side")
