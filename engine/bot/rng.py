"""A fast, seeded, non-cryptographic stream for simulations only.

The committed dice stream (:mod:`engine.dice`) serves real games; a bot's
imagined games need millions of cheap draws instead, so :class:`SimRng`
(SplitMix64) implements :class:`engine.randomness.Randomness` with plain
integer arithmetic. It never touches a real game's dice: the same seed gives
the same draws, byte for byte, on every machine.
"""

from __future__ import annotations

import hashlib

from engine.randomness import Die

__all__ = ["SimRng", "seed_of"]

_MASK = (1 << 64) - 1


def seed_of(*parts: object) -> int:
    """A 64-bit seed derived from ``parts`` (stable across runs and machines)."""
    text = "|".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


class SimRng:
    """SplitMix64: ``roll``, ``permutation`` and ``below`` for simulated games."""

    __slots__ = ("_s",)

    def __init__(self, seed: int) -> None:
        self._s = seed & _MASK

    def next64(self) -> int:
        """The next 64-bit draw."""
        self._s = (self._s + 0x9E3779B97F4A7C15) & _MASK
        z = self._s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (0 when ``n`` <= 1); bias below 2**-40."""
        if n <= 1:
            return 0
        return self.next64() % n

    def unit(self) -> float:
        """A uniform float in [0, 1)."""
        return (self.next64() >> 11) / float(1 << 53)

    def spawn(self, label: object) -> SimRng:
        """An independent stream for ``label`` (does not advance this one)."""
        return SimRng(seed_of(self._s, label))

    def roll(self, die: Die, count: int, purpose: str) -> tuple[str, ...]:
        """``count`` faces of ``die`` (``purpose`` is ignored: nothing is logged)."""
        n = len(die.faces)
        return tuple(die.faces[self.next64() % n] for _ in range(count))

    def permutation(self, n: int, purpose: str) -> tuple[int, ...]:
        """A uniform ordering of ``range(n)`` (Fisher-Yates)."""
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.next64() % (i + 1)
            order[i], order[j] = order[j], order[i]
        return tuple(order)
