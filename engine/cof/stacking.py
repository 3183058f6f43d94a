"""Stacking in the turn (cof.md §6.6, §8.11; rulebook §6.5, §8.42): friends passed through
on a move, and a CH-2 and its runners parting and joining.

The pure rules are :func:`engine.cof.rout.passing_friend` and :func:`engine.cof.rout.
stack_problem`; these apply them to the state while an Orders Phase
(:class:`engine.cof.phase.Phase`) moves a unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.cof.adapt import piece
from engine.cof.rout import passing_friend
from engine.cof.steps import add_hits, eliminate, unstack
from engine.gboh.grid import VERTICES, GHex, MapNotationError

if TYPE_CHECKING:
    from engine.cof.phase import Phase
    from engine.cof.state import Unit

__all__ = [
    "join",
    "join_problem",
    "joined_hex",
    "moves_alone",
    "order_problem",
    "part",
    "pass_friends",
    "through",
]


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


def moves_alone(ph: Phase, u: Unit, alone: bool) -> bool:
    """Whether ``u``'s move leaves its stack mate behind (rulebook §8.42: a CH-2 and its
    runners may part at any time, at no cost): the order says ``alone``, or names the
    runners by id (a stack's hex or its chariot's id moves the stack), or ``u`` stands alone."""
    if len(ph.stack(u)) == 1:
        return True
    return alone or u.type == "RI"


def order_problem(ph: Phase, u: Unit, alone: bool) -> str | None:
    """Why ``u`` may take no move order now, as to its stack (or ``None``): a unit moves once
    a phase, but a counter that moved with its stack may go on alone with what is left of its
    own MA (``ph.carried``, rulebook §8.42); a stack moves together only if neither of its
    counters has had an order."""
    had = ph.moved | ph.fired | ph.acted
    if u.id in ph.fired or u.id in ph.acted or (u.id in ph.moved and u.id not in ph.carried):
        return f"{u.id} has already had its order this phase (one move a phase, cof.md §6.1)"
    if alone:
        return None
    if u.id in ph.carried:
        return f"{u.id} has moved with its stack: it may go on alone (move {u.id} alone ...)"
    mate = ph.stack(u)[-1]
    if mate.id in had:
        return f"{mate.id} has had its order: {u.id} moves alone (move {u.id} alone ...)"
    return None


def join_problem(ph: Phase, u: Unit, end: GHex, facing: str, alone: bool) -> str | None:
    """Why ``u`` may not end its move in ``end``, where a friend stands, or ``None`` when it
    forms a CH-2 + RI stack there (cof.md §6.6: one RI with one CH-2, neither routed; pbem
    [E]: a stack faces one way, so the mover must end facing as the unit it joins)."""
    no = f"{u.id} may not end its move stacked with another unit in {end} (§6.6)"
    here = [x for x in ph.s.units_at(str(end)) if x.id != u.id]
    if not alone or not here:
        return no
    x = here[0]
    if len(here) != 1 or x.side != u.side or {u.type, x.type} != {"CH2", "RI"}:
        return no + ": only one RI stacks, with one CH-2"
    if x.routed or u.routed:
        return no + ": a routed unit stacks with none"
    if facing != x.facing:
        return f"{u.id} joins {x.id} in {end}: it must end facing {x.facing}, as {x.id} does"
    return None


def joined_hex(ph: Phase, u: Unit, steps: Sequence[str], alone: bool) -> frozenset[GHex]:
    """The hex where ``u``, moving alone, would join its CH-2 or runners at the end of
    ``steps`` (none: ``{}``): entering it to stack is no pass through a friend (no extra MP,
    rulebook §6.52, §6.55)."""
    last = next((x for x in reversed(steps) if x not in VERTICES), None)
    if not alone or last is None:
        return frozenset()
    try:
        end = GHex.parse(last)
    except MapNotationError:
        return frozenset()
    here = [x for x in ph.s.units_at(str(end)) if x.id != u.id]
    pair = len(here) == 1 and here[0].side == u.side and {u.type, here[0].type} == {"CH2", "RI"}
    return frozenset({end}) if pair else frozenset()


def join(ph: Phase, u: Unit) -> None:
    """``u`` ended its move on a CH-2 or runners of its side (:func:`join_problem` found no
    problem, or its move was cut short back to its mate's hex): they stack (rulebook §6.52)."""
    for x in ph.s.units_at(u.hex):
        if x.id != u.id and x.side == u.side and {u.type, x.type} == {"CH2", "RI"}:
            u.stacked_with, x.stacked_with = x.id, u.id
            u.facing = x.facing  # (a move cut short back to its mate's hex: they stack again)
            if ph.ctx is not None:
                ph.ctx.log("stack", f"{u.id} stacks with {x.id} in {u.hex}",
                           {"units": sorted([u.id, x.id]), "hex": u.hex})  # fmt: skip
            return


def part(ph: Phase, u: Unit) -> Unit | None:
    """``u`` leaves its stack mate, if it has one (rulebook §8.42, no MP); the mate."""
    here = ph.stack(u)
    if len(here) == 1:
        return None
    mate = here[-1]
    unstack(ph.s, u)
    if ph.ctx is not None:
        ph.ctx.log("stack", f"{u.id} leaves {mate.id} in {u.hex}", {"units": [u.id, mate.id]})
    return mate
