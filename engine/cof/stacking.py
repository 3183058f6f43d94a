"""Stacking in the turn (cof.md §6.6, §8.11; rulebook §6.5, §8.42): friends passed through
on a move, and a CH-2 and its runners parting and joining.

The pure rules are :func:`engine.cof.rout.passing_friend` and :func:`engine.cof.rout.
stack_problem`; these apply them to the state while an Orders Phase
(:class:`engine.cof.phase.Phase`) moves a unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cof.adapt import piece
from engine.cof.rout import passing_friend
from engine.cof.steps import add_hits, eliminate
from engine.gboh.grid import GHex

if TYPE_CHECKING:
    from engine.cof.phase import Phase
    from engine.cof.state import Unit

__all__ = ["pass_friends", "through"]


def pass_friends(ph: Phase, who: Unit, path: list[GHex], i: int) -> None:
    """``who`` has entered ``path[i]`` on its way through (not its last hex): each friendly
    unit there pays for it (:func:`through`); a road the mover follows through the hex (the
    hexes before and after are road too) spares a routed unit there."""
    if 0 < i < len(path) - 1:
        road = all(ph.s.terrain_at(x) == "road" for x in (path[i - 1], path[i], path[i + 1]))
        through(ph, who, path[i], road=road)


def through(ph: Phase, who: Unit, h: GHex, *, road: bool = False) -> None:
    """``who`` passes through the friends in ``h`` (rulebook §6.55): an SI or HI among them
    takes a hit, a routed one is eliminated (not on a road the mover follows, ``road``).
    The mover's own hit is its move's (``trace_move``)."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    if not who.on_map:
        return
    mine = {m.id for m in ph.stack(who)}
    me = piece(s, who)
    for x in s.units_at(str(h)):
        if x.side != who.side or x.id in mine or (x.type == "RI" and x.stacked_with):
            continue  # (a stack is its chariot's piece)
        got = passing_friend(s.charts, me, piece(s, x), along_road=road)
        if got.passed_eliminated:
            ctx.log("pass-friend", f"{who.id} passes through the routed {x.id}",
                    {"unit": x.id, "by": who.id})  # fmt: skip
            eliminate(ctx, x)
        else:
            add_hits(ctx, x, got.passed_hits, f"passed through by {who.id}")
