"""A deterministic stream of choices for random players (never the ``random`` module).

:func:`choice_stream` gives an endless :class:`~engine.randomness.Randomness`
derived from a seed: the same seed and label give the same choices, byte for
byte. It serves autoplayers (``pbem demo``, balance runs, random-game tests),
never a game's own dice, which come from the committed stream.
"""

from __future__ import annotations

import hashlib

from engine.dice import EpochDice
from engine.randomness import Die, Randomness

__all__ = ["below", "choice_stream"]


class _DerivedKeys:
    """Shuffle keys derived from one seed (for the choice stream only)."""

    def __init__(self, seed: bytes) -> None:
        self._seed = seed

    def key(self, index: int) -> bytes:
        return hashlib.sha256(self._seed + b"|shuffle|" + str(index).encode()).digest()


def choice_stream(seed: bytes, label: str = "autoplay") -> Randomness:
    """Return an endless deterministic ``Randomness`` for choices, derived from ``seed``."""
    key = hashlib.sha256(b"pbem-autoplay|" + label.encode() + b"|" + seed).digest()
    return EpochDice(label, 1, key, hashlib.sha256(b"").digest(), deck=_DerivedKeys(key))


def below(rng: Randomness, n: int, purpose: str) -> int:
    """A uniform integer in ``range(n)`` (0 when ``n`` is 0 or 1)."""
    if n <= 1:
        return 0
    return int(rng.roll(Die(f"d{n}", tuple(str(i) for i in range(n))), 1, purpose)[0])
