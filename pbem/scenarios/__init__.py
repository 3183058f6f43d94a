"""Scenario files: find the bundled battles, load one, and validate it with line numbers.

A scenario is a ``pbem-position/1`` TOML file (``docs/position-format.md``,
``docs/scenarios.md``) whose ``system`` key names its game system. Checking
is the system's (its ``scenarios`` capability, :mod:`engine.core.capabilities`,
reached through the registry); this module only reads files and dispatches.
:func:`validate_text` returns every problem it finds, each with the 1-based
line of the offending entry (0 when no line applies); :func:`load_text` /
:func:`load_file` return a :class:`Scenario` or raise :class:`ScenarioError`
holding those problems.

Bundled scenarios live in the repository's ``scenarios/`` directory, next to
the ``pbem`` package (an editable install finds them there), one folder per
system; the environment variable ``PBEM_SCENARIOS_DIR`` points elsewhere
(e.g. for a wheel install).

Validation also runs the system's loader (``load_position``) and reports its
``PositionError`` as a problem with code ``engine``.
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine.systems
from engine.core.api import PositionError
from engine.core.capabilities import SCENARIOS, ScenarioInfo, find
from engine.core.capabilities import ScenarioProblem as Problem

__all__ = [
    "Problem",
    "Scenario",
    "ScenarioError",
    "find_scenario",
    "list_scenarios",
    "load_file",
    "load_text",
    "scenario_details",
    "scenario_entry",
    "scenarios_dir",
    "validate_file",
    "validate_text",
]

log = logging.getLogger(__name__)


class ScenarioError(ValueError):
    """A scenario file that does not validate; ``problems`` lists every error found."""

    def __init__(self, problems: Sequence[Problem], path: Path | None = None) -> None:
        self.problems = tuple(problems)
        self.path = path
        where = f"{path}: " if path else ""
        super().__init__("\n".join(f"{where}{p}" for p in self.problems))


@dataclass(frozen=True)
class Scenario:
    """A valid scenario of any system: what listings show, and where the file is.

    ``sides`` maps each side to its army; ``goal`` says what wins (for C&C,
    banners ``north/south``); ``detail`` is the system's own model.
    """

    id: str
    name: str
    year: str
    system: str
    sides: Mapping[str, str]
    goal: str
    first: str
    path: Path | None = None
    detail: Any = field(default=None, compare=False, repr=False)


def _system_of(text: str) -> tuple[list[Problem], str | None]:
    """The ``system`` a scenario names, or the problem that stops checking it."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        return [Problem(int(m.group(1)) if m else 0, "toml-syntax", f"TOML syntax: {exc}")], None
    name = data.get("system")
    lines = enumerate(text.splitlines(), 1)
    line = next((n for n, raw in lines if raw.split("=", 1)[0].strip() == "system"), 0)
    if not isinstance(name, str):
        return [Problem(line, "missing-field", "missing field system (a string)")], None
    if not engine.systems.is_known(name):
        known = ", ".join(engine.systems.system_names())
        return [Problem(line, "unknown-system", f"unknown system {name!r} (known: {known})")], None
    return [], name


def _engine_problems(text: str, system: str) -> list[Problem]:
    """Run the system's own loader; its errors become ``engine`` problems."""
    try:
        engine.systems.get_system(system).load_position(text)
    except PositionError as exc:
        return [Problem(exc.line, "engine", f"engine: {exc.message}")]
    except Exception as exc:  # a loader crash is a finding, not a reason to stop
        log.warning("engine loader failed", exc_info=True)
        return [Problem(0, "engine", f"engine loader failed: {type(exc).__name__}: {exc}")]
    return []


def _check(text: str, engine_too: bool) -> tuple[list[Problem], str | None, ScenarioInfo | None]:
    problems, name = _system_of(text)
    if name is None:
        return problems, None, None
    checker = find(engine.systems.get_system(name), SCENARIOS)
    info: ScenarioInfo | None = None
    if checker is None:  # the loader is the only check the system offers
        problems = _engine_problems(text, name)
        if not problems:
            problems = [Problem(0, "no-checker", f"system {name!r} cannot describe scenarios")]
        return problems, name, None
    problems, info = checker.check(text)
    problems = list(problems)
    if engine_too and info is not None:
        problems += _engine_problems(text, name)
    return problems, name, info


def validate_text(text: str, *, engine: bool = True) -> list[Problem]:
    """Return every problem in a scenario/position text, by line (empty = valid)."""
    return _check(text, engine)[0]


def validate_file(path: Path | str, *, engine: bool = True) -> list[Problem]:
    """Return every problem in the file at ``path``; unreadable files give one problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [Problem(0, "unreadable", f"cannot read file: {exc}")]
    return validate_text(text, engine=engine)


def load_text(text: str, *, path: Path | None = None, engine: bool = False) -> Scenario:
    """Parse and validate a scenario; raise :class:`ScenarioError` with every problem."""
    problems, name, info = _check(text, engine)
    if problems or name is None or info is None:
        raise ScenarioError(problems or [Problem(0, "invalid", "invalid scenario")], path)
    return Scenario(
        info.id,
        info.name,
        info.year,
        name,
        dict(info.sides),
        info.goal,
        info.first,
        path,
        info.detail,
    )


def scenario_entry(text: str, path: Path | None = None) -> Scenario:
    """The listing entry of a scenario text (raises :class:`ScenarioError`)."""
    return load_text(text, path=path)


def scenario_details(scenario: Scenario, text: str) -> list[str]:
    """The lines ``pbem scenario show`` prints under the board (the system's own)."""
    checker = find(engine.systems.get_system(scenario.system), SCENARIOS)
    return [] if checker is None else list(checker.details(text))


def load_file(path: Path | str, *, engine: bool = False) -> Scenario:
    """Read and validate the scenario file at ``path``."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError([Problem(0, "unreadable", f"cannot read file: {exc}")], p) from exc
    return load_text(text, path=p, engine=engine)


def scenarios_dir() -> Path:
    """The bundled scenarios: ``$PBEM_SCENARIOS_DIR``, else ``scenarios/`` next to ``pbem/``."""
    env = os.environ.get("PBEM_SCENARIOS_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent.parent / "scenarios"


def list_scenarios(directory: Path | None = None) -> list[Scenario]:
    """Load every ``*.toml`` under ``directory`` (default: bundled), sorted by id.

    Files that do not validate are skipped with a logged warning (files of a game system
    this build does not offer, quietly); run :func:`validate_file` on them to see why.
    """
    root = directory or scenarios_dir()
    out: list[Scenario] = []
    for path in sorted(root.rglob("*.toml")):
        try:
            out.append(load_file(path))
        except ScenarioError as exc:
            if [p.code for p in exc.problems] == ["unknown-system"]:
                # A battle of a system this build does not offer (yet): not a broken file.
                log.debug("skipping %s: %s", path, exc)
                continue
            log.warning("skipping invalid scenario %s: %s", path, exc)
    return sorted(out, key=lambda s: s.id)


def find_scenario(ref: str, directory: Path | None = None) -> Path:
    """Resolve a path, a scenario id (``cca-007-cannae``) or its number or slug (``007``).

    A number or slug that scenarios of several systems share (``001``: ``cca-001-akragas``
    and ``ccn-001-rolica``) means the first of them by id; the full id names the others.
    """
    p = Path(ref)
    if p.suffix == ".toml" or p.exists():
        return p
    found = [s for s in list_scenarios(directory) if s.path is not None]
    exact = [s.path for s in found if s.id == ref and s.path is not None]
    if exact:
        return exact[0]
    matches = [s for s in found if ref in _id_parts(s.id)]
    systems = {s.system for s in matches}
    if not matches or len(matches) != len(systems):
        raise FileNotFoundError(f"no single bundled scenario matches {ref!r}")
    first = matches[0].path
    assert first is not None
    return first


def _id_parts(sid: str) -> tuple[str, ...]:
    """``cca-007-cannae`` -> ``("007", "cannae", "007-cannae")``; other ids give nothing."""
    parts = sid.split("-", 2)
    if len(parts) < 3:
        return ()
    return (parts[1], parts[2], f"{parts[1]}-{parts[2]}")
