"""Fitting ordered pieces into a card's section quotas (shared by the C&C systems).

A section card gives so many orders in each section; a piece on a dotted-line hex may use
either section it touches (cca.md, ccn.md §9.7, §24.1). :func:`fits` says whether every
piece can take a slot, trying each piece's sections in turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["fits"]


def fits(options: Sequence[Sequence[str]], per: Mapping[str, int]) -> bool:
    """Whether each piece (its possible sections in ``options``) fits a slot of ``per``."""
    left = dict(per)

    def fit(i: int) -> bool:
        if i == len(options):
            return True
        for s in options[i]:
            if left.get(s, 0) > 0:
                left[s] -= 1
                if fit(i + 1):
                    return True
                left[s] += 1
        return False

    return fit(0)
