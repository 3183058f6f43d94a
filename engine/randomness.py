"""The only way randomness enters an engine: a :class:`Randomness` passed in.

A rules engine never imports ``random`` or reads a clock. It asks the source
it was given for dice and for shuffles, naming what each serves (the rules
event), so the source can log it. :mod:`engine.dice` implements the committed
stream of design.md section 3; :class:`ScriptedDice` serves dice given by hand
(tests, ``pbem engine resolve --dice``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "D6",
    "D10",
    "Die",
    "NotEnoughDice",
    "Randomness",
    "ScriptedDice",
]


@dataclass(frozen=True, slots=True)
class Die:
    """A die: a name (for logs and audit records) and its faces, in a fixed order.

    The faces' order is part of the audit protocol: face ``i`` is the result
    of the uniform draw ``i`` in ``range(len(faces))``.
    """

    name: str
    faces: tuple[str, ...]

    def index(self, face: str) -> int:
        """Position of ``face`` (case-insensitive), or raise ``ValueError``."""
        up = face.strip().upper()
        for i, f in enumerate(self.faces):
            if f.upper() == up:
                return i
        raise ValueError(f"{face!r} is not a face of {self.name} ({', '.join(self.faces)})")


D6 = Die("d6", ("1", "2", "3", "4", "5", "6"))
D10 = Die("d10", ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"))


class Randomness(Protocol):
    """What an engine may ask of chance."""

    def roll(self, die: Die, count: int, purpose: str) -> tuple[str, ...]:
        """Roll ``count`` dice of kind ``die`` for ``purpose`` (a rules event)."""
        ...

    def permutation(self, n: int, purpose: str) -> tuple[int, ...]:
        """A uniformly random ordering of ``range(n)`` (deck shuffles)."""
        ...


class NotEnoughDice(ValueError):
    """A scripted source ran out of dice before the resolution was done."""


@dataclass
class ScriptedDice:
    """Dice given in advance, used in order; shuffles keep the given order.

    Faces are matched case-insensitively against the die asked for, so a
    script written as ``"R,F,S,G"`` serves C&C battle dice. ``log`` records
    ``(purpose, die name, face)`` for each die served.
    """

    faces: Sequence[str]
    permutations: Sequence[Sequence[int]] = ()
    log: list[tuple[str, str, str]] = field(default_factory=list)
    _next: int = 0
    _next_perm: int = 0

    def roll(self, die: Die, count: int, purpose: str) -> tuple[str, ...]:
        if self._next + count > len(self.faces):
            raise NotEnoughDice(
                f"{purpose} needs {count} {die.name} dice but only "
                f"{len(self.faces) - self._next} of the {len(self.faces)} given are left"
            )
        out: list[str] = []
        for raw in self.faces[self._next : self._next + count]:
            face = die.faces[die.index(raw)]
            out.append(face)
            self.log.append((purpose, die.name, face))
        self._next += count
        return tuple(out)

    def permutation(self, n: int, purpose: str) -> tuple[int, ...]:
        if self._next_perm < len(self.permutations):
            perm = tuple(self.permutations[self._next_perm])
            self._next_perm += 1
            if sorted(perm) != list(range(n)):
                raise ValueError(f"{purpose}: scripted permutation is not an ordering of {n}")
            return perm
        return tuple(range(n))

    @property
    def unused(self) -> int:
        """How many scripted dice were not consumed."""
        return len(self.faces) - self._next
