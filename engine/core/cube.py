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
    The same as :func:`cube_round` on the exact points ``a + (b - a) * i / n``
    nudged by ``1/10**6``, computed on integers scaled by ``n * 10**6`` (no
    :class:`~fractions.Fraction` made: lines of sight are drawn in the
    rules' inner loop). A nudged point is never half-way between two integers
    (that would need ``2n`` to be a multiple of ``10**6``), so rounding half
    up is rounding to the nearest.
    """
    scale = _EPS.denominator
    d = n * scale
    out = []
    for i in range(n + 1):
        vq = a[0] * d + (b[0] - a[0]) * i * scale
        vr = a[1] * d + (b[1] - a[1]) * i * scale
        out.append((_round_scaled(vq + n, vr + n, d), _round_scaled(vq - n, vr - n, d)))
    return out


def _round_scaled(vq: int, vr: int, d: int) -> tuple[int, int]:
    """:func:`cube_round` of the point ``(vq / d, vr / d)`` (no ties: see :func:`cube_line`)."""
    vs = -vq - vr
    two = 2 * d
    q, r, s = (2 * vq + d) // two, (2 * vr + d) // two, (2 * vs + d) // two
    dq, dr, ds = abs(q * d - vq), abs(r * d - vr), abs(s * d - vs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return q, r
