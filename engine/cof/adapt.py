"""The game state as the rule modules see it: :mod:`engine.cof.pieces` records.

The pure rules (:mod:`engine.cof.reaction`, :mod:`engine.cof.rout`, :mod:`engine.cof.leaders`,
:mod:`engine.cof.segment`) take frozen :class:`~engine.cof.pieces.Piece`, ``Chief`` and
``Ground`` records; the turn keeps mutable counters (:mod:`engine.cof.state`). These build the
records from a state: one piece a counter on the map, a CH-2 and its runners one piece of
type ``CH2RI`` under the chariot's id.
"""

from __future__ import annotations

from dataclasses import replace

from engine.cof.pieces import Chief, Ground, Piece, view, view_chief
from engine.cof.state import CofState, Leader, Unit

__all__ = ["chief", "chiefs", "counter", "ground", "piece", "pieces"]


def _stack_of(s: CofState, u: Unit) -> Unit | None:
    if u.stacked_with:
        mate = s.unit(u.stacked_with)
        if mate.on_map and mate.hex == u.hex:
            return mate
    return None


def piece(s: CofState, u: Unit) -> Piece:
    """The piece a counter is part of (its stack's, for a CH-2 or its runners)."""
    mate = _stack_of(s, u)
    if mate is None:
        return view(u)
    if u.type == "RI":
        u, mate = mate, u
    return replace(view(u, as_type="CH2RI"), ma=min(u.ma, mate.ma))


def counter(u: Unit) -> Piece:
    """One counter alone, a stack's chariot or runners each by itself: what a rule that
    treats them separately reads (pre-shock checks, hits, collapse, cof.md §8.11)."""
    return view(u)


def pieces(s: CofState) -> list[Piece]:
    """Every piece on the map."""
    out = []
    for u in s.live():
        mate = _stack_of(s, u)
        if mate is not None and u.type == "RI":
            continue
        out.append(piece(s, u))
    return out


def ground(s: CofState) -> Ground:
    """The map: terrain, levels and hexside features (built once per state)."""
    return s.ground


def chief(ld: Leader) -> Chief:
    """A leader as the rules see him: off the map unless in play (a killed leader may keep
    his hex), ``replacement`` while one waits to take over (cof.md §4.5)."""
    c = view_chief(ld, hits=ld.hits)
    return replace(
        c,
        hex=c.hex if ld.on_map else None,
        replacement=ld.replacement > 0,
    )


def chiefs(s: CofState) -> list[Chief]:
    """Every leader and hero as the rules see him."""
    return [chief(ld) for ld in s.leaders]
