"""Registry of game systems: ``get_system("cca")`` returns the system object.

Every system implements :class:`engine.core.api.GameSystem`. Callers (the
daemon, the CLI, tests) never import a system's modules directly: they ask
this registry, which imports a system only when it is first asked for.

Where systems come from, in this order (a name found earlier wins):

1. systems registered at run time with :func:`register_system` (tests, a
   program embedding pbem);
2. :data:`BUILT_IN`, the systems shipped in this package;
3. the ``pbem.systems`` entry-point group of installed packages: a package
   declares ``[project.entry-points."pbem.systems"] mygame =
   "mygame.system:SYSTEM"`` and ``pbem systems`` lists it
   (docs/adding-a-system.md).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, cast

from engine.core.api import GameSystem

__all__ = [
    "BUILT_IN",
    "ENTRY_POINT_GROUP",
    "SYSTEMS",
    "SystemEntry",
    "get_system",
    "is_known",
    "list_systems",
    "register_system",
    "system_names",
    "unregister_system",
]


ENTRY_POINT_GROUP = "pbem.systems"

BUILT_IN: dict[str, str] = {
    "cca": "engine.cca:SYSTEM",
    "ccn": "engine.ccn:SYSTEM",
    "cof": "engine.cof.system:SYSTEM",
    "toy": "engine.toy:SYSTEM",
}
"""The systems this package ships: name -> ``"module:attribute"`` (imported lazily)."""

SYSTEMS = tuple(BUILT_IN)
"""Names of the built-in systems."""

_RUNTIME: dict[str, GameSystem] = {}
_LOADED: dict[tuple[str, str], GameSystem] = {}  # (name, target) -> the imported system


@dataclass(frozen=True)
class SystemEntry:
    """Where a system comes from: ``origin`` is ``built-in``, ``runtime`` or a package name."""

    name: str
    target: str
    origin: str


def _load(target: str) -> GameSystem:
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return cast(GameSystem, obj)  # the caller checks it answers to the name


def _installed() -> dict[str, SystemEntry]:
    found: dict[str, SystemEntry] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        origin = f"package {dist.name}" if dist is not None else "entry point"
        found.setdefault(ep.name, SystemEntry(ep.name, ep.value, origin))
    return found


def list_systems() -> list[SystemEntry]:
    """Every system known, without importing any, sorted by name."""
    entries: dict[str, SystemEntry] = {}
    for name, ep in _installed().items():
        entries[name] = ep
    for name, target in BUILT_IN.items():
        entries[name] = SystemEntry(name, target, "built-in")
    for name, system in _RUNTIME.items():
        entries[name] = SystemEntry(name, type(system).__module__, "runtime")
    return [entries[n] for n in sorted(entries)]


def is_known(name: str) -> bool:
    """Whether a system called ``name`` is known (installed packages scanned only if needed)."""
    return name in _RUNTIME or name in BUILT_IN or name in _installed()


def system_names() -> tuple[str, ...]:
    """The names of every system known, sorted."""
    return tuple(e.name for e in list_systems())


def get_system(name: str) -> GameSystem:
    """Return the system called ``name`` or raise ``KeyError`` listing the known ones."""
    if name in _RUNTIME:
        return _RUNTIME[name]
    target = BUILT_IN.get(name)
    if target is None:
        entry = _installed().get(name)
        if entry is None:
            raise KeyError(f"unknown game system {name!r}: known {', '.join(system_names())}")
        target = entry.target
    if (name, target) in _LOADED:
        return _LOADED[name, target]
    system = _load(target)
    called = getattr(system, "name", None)
    if called != name:
        raise KeyError(f"game system {name!r} ({target}) calls itself {called!r}")
    _LOADED[name, target] = system
    return system


def register_system(system: GameSystem) -> None:
    """Make ``system`` available under ``system.name`` (replaces any other of that name)."""
    _RUNTIME[system.name] = system


def unregister_system(name: str) -> None:
    """Forget a system added with :func:`register_system` (no error if absent)."""
    _RUNTIME.pop(name, None)
