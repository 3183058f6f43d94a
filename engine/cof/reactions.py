"""What the inactive side's units do while the enemy moves: orderly withdrawal (cof.md §6.4) and
reaction facing (§6.5). Both are off-turn decisions, taken by the owner's standing orders::

    withdraw:         chariots | always | never   orderly withdrawal before an approaching
                                                  enemy (chariots: only units that need no roll)
    reaction-facing:  always | never              turn one vertex to face an enemy that comes
                                                  adjacent

pbem's readings [E]: the withdrawal is checked at each hex the enemy enters; a unit withdraws
at most once in an enemy Orders Phase, keeps its facing, and goes hex by hex to the free hex
farthest from the enemy (ties: the lowest number), or by the owner's standing order
``withdraw-to: standard`` the nearest its Standard, never next to an enemy unit nor onto the
rest of the mover's path. A CH-2 with runners (the ``CH2RI`` stack) withdraws on its
runners' roll (rulebook §6.42); when they may not go, the chariot goes alone if its owner's
standing order says ``runners: leave`` (the Senzar example), else the stack stays together::

    runners:          stay | leave                a CH-2 leaves runners that may not withdraw
"""

from __future__ import annotations

from engine.cof import cohesion, firing, movement
from engine.cof.adapt import ground, piece, pieces
from engine.cof.choices import withdrawal_choice
from engine.cof.phase import Phase
from engine.cof.policy import policy_of
from engine.cof.reaction import (
    approach_hit,
    reaction_facing_allowed,
    reaction_facing_hits,
    withdrawal_hexes,
    withdrawal_triggered,
)
from engine.cof.skirmish import aggression
from engine.cof.state import Unit, other
from engine.cof.steps import add_hits, chart_type, displace_lone_leaders
from engine.gboh.grid import VERTICES, GHex, front_hexes, turns

__all__ = ["REACTIONS", "orderly_withdrawals", "reaction_facing"]


def _triggered(ph: Phase, mover: Unit, entered: GHex, first: bool) -> list[Unit]:
    """The inactive units ``mover`` entering ``entered`` lets withdraw
    (:func:`engine.cof.reaction.withdrawal_triggered`) whose owners' standing orders take it."""
    s = ph.s
    board = pieces(s)
    moving = piece(s, mover)
    out = []
    for p in withdrawal_triggered(s.charts, board, moving, entered, first_step=first):
        x = s.unit(p.id)
        if x.id in ph.withdrew or p.hex == entered:  # (a chariot passed through stays)
            continue
        policy = policy_of(s, x.side)
        wish = policy.get("withdraw")
        alone = len(ph.stack(x)) == 2 and policy.get("runners") == "leave"
        if wish == "always" or (wish == "chariots" and (_roller(ph, x) is None or alone)):
            out.append(x)
    return out


def _roller(ph: Phase, x: Unit) -> Unit | None:
    """The unit that rolls for an orderly withdrawal, or None when it needs no roll (a CH-2
    or CH-3). A CH-2 with runners is a ``CH2RI`` stack, which rolls (rulebook §6.42): its
    runners roll on their printed TQ."""
    if chart_type(ph.s, x).withdrawal == "auto":
        return None
    return ph.stack(x)[-1] if len(ph.stack(x)) == 2 else x


def _may_leave(ph: Phase, x: Unit) -> bool:
    """A CH-2 whose runners may not withdraw goes alone when its owner's standing order says
    ``runners: leave`` (the Senzar example of rulebook §6.42)."""
    return len(ph.stack(x)) == 2 and policy_of(ph.s, x.side).get("runners") == "leave"


def orderly_withdrawals(ph: Phase, mover: Unit, path: list[GHex], i: int, mover_ma: int) -> None:
    """``mover`` enters ``path[i]``: every inactive unit it lets withdraw is offered an
    orderly withdrawal once its units stand in that hex."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    h = path[i]
    triggered = _triggered(ph, mover, h, i == 1)  # the mover still in the hex it leaves
    ph.place(mover, h)
    ahead = set(path[i + 1 :])
    for x in triggered:
        if not mover.on_map or mover.routed:
            return
        if not x.on_map or x.id in ph.withdrew:
            continue
        ph.withdrew.add(x.id)
        roller = _roller(ph, x)
        alone = False
        if roller is not None and policy_of(s, x.side).get("withdraw") == "chariots":
            if not _may_leave(ph, x):  # (the runners roll only under "always")
                continue
            alone = True
        elif roller is not None:
            ld = s.wing_leader(x.side, x.wing)
            oc = s.oc(x.side)
            wc = ld.rating(ld.ability) if ld and ld.hex == x.hex and ld.role == "WC" else 0
            occ = oc.rating(oc.charisma) if oc and oc.hex == x.hex else 0
            dr = ctx.d10(f"orderly withdrawal of {roller.id}")
            got = cohesion.orderly_withdrawal(
                s.charts, chart_type(s, x), roller.tq, dr, wc_ability=wc, oc_charisma=occ
            )
            ctx.log(
                "withdraw",
                f"{roller.id} tries to withdraw before {mover.id}: rolls {dr}"
                + ("" if got.passed else ": it stands"),
                {"unit": roller.id, "passed": got.passed},
                (dr,),
            )
            add_hits(ctx, roller, got.hits, "failed orderly withdrawal")
            if not got.passed:
                if not (x is not roller and x.on_map and _may_leave(ph, x)):
                    continue
                alone = True
        _withdraw(ph, x, mover, mover_ma, ahead, alone=alone)


def _withdraw(
    ph: Phase, x: Unit, mover: Unit, mover_ma: int, ahead: set[GHex], *, alone: bool = False
) -> None:
    """The withdrawal move (:func:`engine.cof.reaction.withdrawal_hexes`): to the hex
    farthest from the mover (then the fewest MP, the lowest number), never onto the rest of
    the mover's path. ``alone``: a CH-2 leaves its runners (the stack splits; it joins
    them again if it does not go after all)."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    if alone:
        mate = s.unit(x.stacked_with)
        x.stacked_with = mate.stacked_with = ""
        try:
            _withdraw(ph, x, mover, mover_ma, ahead)
        finally:
            if x.on_map and mate.on_map and x.hex == mate.hex:
                x.stacked_with, mate.stacked_with = mate.id, x.id
            else:
                ctx.log("withdraw", f"{x.id} leaves its runners {mate.id} behind", {"unit": x.id})
        return
    me = piece(s, x)
    add_hits(ctx, x, approach_hit(s.charts, me, mover.at), f"approached by {mover.id}")
    if not x.on_map or x.routed:
        return
    firing.retreat_fire(ph, x, mover)
    if not mover.on_map or mover.routed:
        return  # (the retreat fire routed it: no one left to withdraw from)
    budget = movement.withdrawal_allowance(me.ma, mover_ma)
    found = withdrawal_hexes(
        s.charts, ground(s), pieces(s), me, mover_hex=mover.at, allowance=budget
    )
    options = sorted(
        (-h.distance(mover.at), mp, str(h)) for h, mp in found.items() if h not in ahead
    )
    start = x.hex
    if not options:
        ctx.log("withdraw", f"{x.id} has nowhere to withdraw to", {"unit": x.id})
        return
    _, spent, dest = withdrawal_choice(s, x, options)
    for ld in s.leaders_at(start):
        if ld.side == x.side:
            ld.hex = dest
    for m in ph.stack(x):
        m.hex = dest
    ctx.log(
        "withdraw",
        f"{x.id} withdraws in good order {start} -> {dest} ({spent} of {budget} MP)",
        {"unit": x.id, "from": start, "to": dest},
    )
    displace_lone_leaders(ctx, x)  # (rulebook §4.24)


def reaction_facing(ph: Phase, mover: Unit, before: set[str]) -> None:
    """Inactive units next to the hex ``mover`` entered turn one vertex to face it (cof.md
    §6.5) unless another enemy unit was already next to them (``before``: the units that
    already had an enemy other than the mover adjacent); infantry then checks."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    board = pieces(s)
    for x in sorted(s.live(other(ph.side)), key=lambda u: u.id):
        if not mover.on_map or x.at.distance(mover.at) != 1 or x.id in before:
            continue
        if x.engaged or x.column or (x.type == "RI" and len(ph.stack(x)) == 2):
            continue  # (a stack turns with its chariot)
        me = piece(s, x)
        if mover.at in front_hexes(x.at, x.facing) or not reaction_facing_allowed(
            s.charts, me, piece(s, mover), board, used=x.id in ph.faced
        ):
            continue
        if policy_of(s, x.side).get("reaction-facing") == "never":
            continue
        turn = [v for v in VERTICES if turns(x.facing, v) == 1 and mover.at in front_hexes(x.at, v)]
        if not turn:
            continue
        ph.faced.add(x.id)
        for m in ph.stack(x):
            m.facing = turn[0]
        ctx.log("facing", f"{x.id} turns to face {mover.id} ({turn[0]})", {"unit": x.id})
        if s.charts.types[me.type].reaction_facing == "roll":
            dr = ctx.d10(f"reaction facing of {x.id}")
            ctx.log("facing", f"{x.id} rolls {dr} against TQ {x.tq}", {"unit": x.id}, (dr,))
            add_hits(ctx, x, reaction_facing_hits(s.charts, me, dr), "reaction facing")


def adjacent_to_others(ph: Phase, mover: Unit) -> set[str]:
    """Inactive units that already have an enemy unit other than ``mover`` next to them."""
    s = ph.s
    moving = {m.id for m in ph.stack(mover)}
    near = {n for u in s.live(ph.side) if u.id not in moving for n in u.at.neighbours()}
    return {x.id for x in s.live(other(ph.side)) if x.at in near}


class Reactions:
    """The :class:`engine.cof.phase.Hooks` of a real Orders Phase."""

    def before(self, ph: Phase, mover: Unit) -> set[str]:
        return adjacent_to_others(ph, mover)

    def step(self, ph: Phase, mover: Unit, path: list[GHex], i: int, ma: int) -> None:
        orderly_withdrawals(ph, mover, path, i, ma)

    def arrived(self, ph: Phase, mover: Unit, before: set[str]) -> None:
        reaction_facing(ph, mover, before)

    def fired(self, ph: Phase, firer: Unit, target: str, distance: int) -> None:
        for x in sorted(ph.s.units_at(target), key=lambda u: u.id):
            if x.side != firer.side:
                aggression(ph, x, firer, distance)


REACTIONS = Reactions()
