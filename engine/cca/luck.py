"""Which C&C battle dice hit, for the dice-fairness report (the ``dice-luck`` capability).

Every fire, close combat, battle back and First Strike event carries the
faces the engine rolled, the side that rolled them and ``hit_faces``: the
faces that score a hit in that roll before any is ignored — the target's
symbol, crossed swords where they hit (§10.4), the helmet with a leader in
support (§10.5). Other dice (leader checks, evades, card rolls) are not
hit-or-miss throws and are left out. Events stored before ``hit_faces`` was
logged give no throws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.capabilities import Throw

__all__ = ["DiceLuck"]

_ROLLS = ("fire", "battle", "battle-back")


class DiceLuck:
    """The ``dice-luck`` provider of C&C Ancients."""

    def throws(self, events: Sequence[Mapping[str, Any]]) -> Sequence[Throw]:
        """The battle rolls among ``events`` with who rolled and the faces that hit."""
        out: list[Throw] = []
        for e in events:
            data = e.get("data")
            if e.get("kind") not in _ROLLS or not isinstance(data, Mapping):
                continue
            hit = data.get("hit_faces")
            side = data.get("side")
            faces = tuple(str(f) for f in e.get("dice", ()) or ())
            if not isinstance(hit, str) or not isinstance(side, str) or not faces:
                continue
            out.append(Throw(side, "cc-battle", faces, frozenset(hit)))
        return out
