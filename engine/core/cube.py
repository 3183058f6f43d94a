"""Cube-coordinate hex arithmetic shared by every grid: exact rounding and lines.

A hex is ``(q, r)`` with ``s = -q - r``; each grid maps its own coordinates to
these (:mod:`engine.hexgrid`, :mod:`engine.gboh.grid`). Fractions, not floats,
so a line of sight is the same on every machine.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["cube_line", "cube_round"]

_EPS = Fraction(1, 10**6)


def cube_round(fq: Fraction, fr: Fraction) -> tuple[int, int]:
    """The hex ``(q, r)`` whose centre is nearest to the point ``(fq, fr)``."""
    fs = -fq - fr
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return int(q), int(r)


def cube_line(
    a: tuple[int, int], b: tuple[int, int], n: int
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The ``n + 1`` points of the line from hex ``a`` to hex ``b`` (``n`` = their distance).

    Each point is rounded twice, nudged either way: the two roundings differ
    exactly where the line runs along the side between two hexes (a tie).
    """
    out = []
    for i in range(n + 1):
        t = Fraction(i, n)
        fq = a[0] + (b[0] - a[0]) * t
        fr = a[1] + (b[1] - a[1]) * t
        out.append((cube_round(fq + _EPS, fr + _EPS), cube_round(fq - _EPS, fr - _EPS)))
    return out
