"""The game state as the rule modules see it: :mod:`engine.cof.pieces` records.

The pure rules (:mod:`engine.cof.reaction`, :mod:`engine.cof.rout`, :mod:`engine.cof.leaders`,
:mod:`engine.cof.segment`) take frozen :class:`~engine.cof.pieces.Piece`, ``Chief`` and
``Ground`` records; the turn keeps mutable counters (:mod:`engine.cof.state`). These build the
records from a state: one piece a counter on the map, a CH-2 and its runners one piece of
type ``CH2RI`` under the chariot's id.
"""

from __future__ import annotations

from engine.cof.pieces import Chief, Ground, Piece
from engine.cof.state import CofState, Leader, Unit
from engine.gboh.grid import GHex

__all__ = ["chief", "ground", "piece", "pieces"]


def _stack_of(s: CofState, u: Unit) -> Unit | None:
    if u.stacked_with:
        mate = s.unit(u.stacked_with)
        if mate.on_map and mate.hex == u.hex:
            return mate
    return None


def piece(s: CofState, u: Unit) -> Piece:
    """The piece a counter is part of (its stack's, for a CH-2 or its runners)."""
    mate = _stack_of(s, u)
    if mate is not None and u.type == "RI":
        u, mate = mate, u
    return Piece(
        id=u.id,
        side=u.side,
        type="CH2RI" if mate is not None else u.type,
        hex=u.at,
        facing=u.facing,
        tq=u.tq,
        ma=min(u.ma, mate.ma) if mate is not None else u.ma,
        hits=u.hits,
        weapon=u.missile or None,
        wing=u.wing,
        engaged=u.engaged,
        routed=u.routed,
        column=u.column,
        supply=u.supply,
    )


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
    """The map: terrain, levels and hexside features."""
    sides: dict[frozenset[GHex], tuple[str, ...]] = {}
    for h, side, kind in s.hexsides:
        a = GHex.parse(h)
        key = frozenset((a, a.neighbour(side)))
        sides[key] = (*sides.get(key, ()), kind)
    return Ground(
        grid=s.grid,
        terrain={GHex.parse(h): k for h, k in s.terrain.items()},
        levels={GHex.parse(h): n for h, n in s.elevation.items()},
        sides=sides,
    )


def chief(ld: Leader) -> Chief:
    """A leader as the rules see him."""
    return Chief(
        id=ld.id,
        side=ld.side,
        role=ld.role,
        hex=GHex.parse(ld.hex) if ld.on_map else None,
        wing=ld.wing or None,
        initiative=ld.initiative,
        command_range=ld.command_range,
        charisma=ld.charisma,
        ability=ld.ability,
        combat=ld.combat,
        endurance=ld.endurance,
        wounded=ld.wounded,
        hero=ld.hero,
        archer=ld.archer,
        on_foot=ld.on_foot,
        replacement=ld.replacement > 0,
    )
