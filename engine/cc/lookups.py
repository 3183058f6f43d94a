"""Read-only look-ups both C&C game states offer: terrain, options, units, leaders, sides.

:class:`Lookups` is a mixin for a frozen dataclass state that has ``terrain``
(hex, name) pairs, ``options``, ``units``, ``leaders`` and ``sides``. The
terrain is read through a dict built once per state object, because the rules
ask for a hex's terrain more often than for anything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from engine.hexgrid import Hex

__all__ = ["Lookups", "name_key"]


def name_key(name: str) -> str:
    """Compare leader names forgivingly: case, spaces, dashes and underscores ignored."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


class _Unit(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def hex(self) -> Hex | None: ...


class _Leader(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def hex(self) -> Hex | None: ...


U = TypeVar("U", bound=_Unit)
L = TypeVar("L", bound=_Leader)
S = TypeVar("S")


class Lookups(Generic[U, L, S]):
    """Look-ups over a state's pieces (see module docstring)."""

    DEFAULTS: ClassVar[Mapping[str, Any]] = {}  # the system's rule options and defaults

    terrain: tuple[tuple[Hex, str], ...]
    options: Mapping[str, Any]
    units: tuple[U, ...]
    leaders: tuple[L, ...]
    sides: Mapping[str, S]

    @cached_property
    def _terrain(self) -> dict[Hex, str]:
        out: dict[Hex, str] = {}
        for h, name in self.terrain:
            out.setdefault(h, name)  # the first entry for a hex counts, as it always did
        return out

    def terrain_at(self, h: Hex) -> str:
        return self._terrain.get(h, "clear")

    def option(self, name: str) -> Any:
        return self.options.get(name, self.DEFAULTS.get(name))

    def unit(self, uid: str) -> U:
        for u in self.units:
            if u.id == uid:
                return u
        raise KeyError(uid)

    def unit_at(self, h: Hex) -> U | None:
        for u in self.units:
            if u.hex == h:
                return u
        return None

    def leader(self, name: str) -> L:
        key = name_key(name)
        for ld in self.leaders:
            if name_key(ld.name) == key:
                return ld
        raise KeyError(name)

    def leader_at(self, h: Hex) -> L | None:
        for ld in self.leaders:
            if ld.hex == h:
                return ld
        return None

    def side(self, side: str) -> S:
        return self.sides[side]
