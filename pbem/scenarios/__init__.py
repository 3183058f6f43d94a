"""Scenario files: find the bundled battles, load one, and validate it with line numbers.

A scenario is a ``pbem-position/1`` TOML file (``docs/position-format.md``,
``docs/scenarios.md``). :func:`validate_text` returns every problem it finds,
each with the 1-based line of the offending entry (0 when no line applies);
:func:`load_text` / :func:`load_file` return a :class:`Scenario` or raise
:class:`ScenarioError` holding those problems.

Bundled scenarios live in the repository's ``scenarios/`` directory, next to
the ``pbem`` package (an editable install finds them there); the environment
variable ``PBEM_SCENARIOS_DIR`` points elsewhere (e.g. for a wheel install).

Validation also runs the engine's loader (``engine.systems.get_system(system)``)
and reports its ``PositionError`` as a problem with code ``engine``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import engine.systems
from engine.core.api import PositionError
from pbem.scenarios.check import IMPASSABLE, RULES, TERRAIN, UNIT_TYPES, check_text
from pbem.scenarios.model import (
    Leader,
    Problem,
    ReserveUnit,
    Scenario,
    ScenarioError,
    Side,
    Unit,
)

__all__ = [
    "IMPASSABLE",
    "RULES",
    "TERRAIN",
    "UNIT_TYPES",
    "Leader",
    "Problem",
    "ReserveUnit",
    "Scenario",
    "ScenarioError",
    "Side",
    "Unit",
    "find_scenario",
    "list_scenarios",
    "load_file",
    "load_text",
    "scenarios_dir",
    "validate_file",
    "validate_text",
]

log = logging.getLogger(__name__)


def _engine_problems(text: str, system: str) -> list[Problem]:
    """Run the engine's own loader; its errors become ``engine`` problems."""
    try:
        engine.systems.get_system(system).load_position(text)
    except PositionError as exc:
        return [Problem(exc.line, "engine", f"engine: {exc.message}")]
    except Exception as exc:  # a loader crash is a finding, not a reason to stop
        log.warning("engine loader failed", exc_info=True)
        return [Problem(0, "engine", f"engine loader failed: {type(exc).__name__}: {exc}")]
    return []


def validate_text(text: str, *, engine: bool = True) -> list[Problem]:
    """Return every problem in a scenario/position text, by line (empty = valid)."""
    problems, scenario = check_text(text)
    if engine and scenario is not None:
        problems += _engine_problems(text, scenario.system)
    return problems


def validate_file(path: Path | str, *, engine: bool = True) -> list[Problem]:
    """Return every problem in the file at ``path``; unreadable files give one problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [Problem(0, "unreadable", f"cannot read file: {exc}")]
    return validate_text(text, engine=engine)


def load_text(text: str, *, path: Path | None = None, engine: bool = False) -> Scenario:
    """Parse and validate a scenario; raise :class:`ScenarioError` with every problem."""
    problems, scenario = check_text(text)
    if engine and scenario is not None:
        problems += _engine_problems(text, scenario.system)
    if problems or scenario is None:
        raise ScenarioError(problems or [Problem(0, "invalid", "invalid scenario")], path)
    if path is None:
        return scenario
    return Scenario(**{**scenario.__dict__, "path": path})


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

    Files that do not validate are skipped with a logged warning; run
    :func:`validate_file` on them to see why.
    """
    root = directory or scenarios_dir()
    out: list[Scenario] = []
    for path in sorted(root.rglob("*.toml")):
        try:
            out.append(load_file(path))
        except ScenarioError as exc:
            log.warning("skipping invalid scenario %s: %s", path, exc)
    return sorted(out, key=lambda s: s.id)


def find_scenario(ref: str, directory: Path | None = None) -> Path:
    """Resolve a path, a scenario id (``cca-007-cannae``) or its number or slug (``007``)."""
    p = Path(ref)
    if p.suffix == ".toml" or p.exists():
        return p
    matches = [
        s.path
        for s in list_scenarios(directory)
        if s.path is not None and ref in (s.id, *_id_parts(s.id))
    ]
    if len(matches) != 1:
        raise FileNotFoundError(f"no single bundled scenario matches {ref!r}")
    return matches[0]


def _id_parts(sid: str) -> tuple[str, ...]:
    """``cca-007-cannae`` -> ``("007", "cannae", "007-cannae")``; other ids give nothing."""
    parts = sid.split("-", 2)
    if len(parts) < 3:
        return ()
    return (parts[1], parts[2], f"{parts[1]}-{parts[2]}")
