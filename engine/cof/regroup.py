"""Recovery, Rally and the Withdraw order (cof.md §9.3, §9.5, §9.8): the orders of a
:class:`~engine.cof.phase.Phase` that restore a wing rather than move or fire it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cof import cohesion, command, firing
from engine.cof.adapt import ground, piece, pieces
from engine.cof.rout import engaged_withdrawal_hexes
from engine.cof.state import Unit, other
from engine.cof.steps import CHARIOTS
from engine.gboh.grid import GHex

if TYPE_CHECKING:
    from engine.cof.phase import Action, Phase

__all__ = ["RALLY_RADIUS", "rally", "recover", "threatened", "withdraw"]

RALLY_RADIUS = 3
"""Routed units within this many hexes of the Standard may rally (cof.md §9.8)."""


def threatened(ph: Phase, u: Unit) -> bool:
    """Next to an enemy unit, or under its missiles (:meth:`Phase.under_missiles`)."""
    foes = list(ph.s.live(other(u.side)))
    return any(e.at.distance(u.at) == 1 for e in foes) or ph.under_missiles(u)


def recover(ph: Phase, a: Action) -> str | None:
    """Recovery (cof.md §9.3): 2 hits off an in-command unit out of danger, on Clear."""
    u = ph.find(a.who)
    if not isinstance(u, Unit):
        return f"no unit {a.who!r} of {ph.side}"
    problem = ph.ready(u, "recover")
    if problem:
        return problem
    if ph.order != "move" or u.out_of_command:
        return f"{u.id} is out of command: it may not recover (cof.md §5.5)"
    if u.id in ph.moved or u.id in ph.fired or u.id in ph.acted or u.recovered:
        return f"{u.id} has moved, fired or recovered already"
    if u.hits == 0:
        return f"{u.id} has no hits to recover"
    if ph.s.terrain_at(u.at) != "clear":
        return f"{u.id} is not on Clear terrain (cof.md §9.3)"
    if threatened(ph, u):
        return f"{u.id} is next to the enemy or under its missiles (cof.md §9.3)"
    ph.acted.add(u.id)
    u.recovered = True
    if ph.ctx is not None:
        before, u.hits = u.hits, cohesion.recover(u.hits)
        ph.ctx.log("recover", f"{u.id} recovers: hits {before} -> {u.hits}", {"unit": u.id})
    return None


def rally(ph: Phase, a: Action) -> str | None:
    """Rally (cof.md §9.8): the OC with the Standard; a routed unit near it, out of danger."""
    s = ph.s
    u = ph.find(a.who)
    if not isinstance(u, Unit) or not u.on_map:
        return f"no unit {a.who!r} of {ph.side} on the map"
    if ph.order != "rally":
        return "rally needs the Rally order: write 'order rally' first (cof.md §3 C1-C)"
    if not u.routed:
        return f"{u.id} is not routed"
    oc = s.oc(ph.side)
    std = s.sides[ph.side].standard
    if oc is None or not std or oc.hex != std:
        return "the overall commander must be with the Standard to rally (cof.md §9.8)"
    if u.at.distance(GHex.parse(std)) > RALLY_RADIUS:
        return f"{u.id} is more than {RALLY_RADIUS} hexes from the Standard"
    if u.id in ph.acted:
        return f"{u.id} has already tried to rally"
    if threatened(ph, u):
        return f"{u.id} is next to the enemy or under its missiles (cof.md §9.8)"
    ph.acted.add(u.id)
    if ph.ctx is not None:
        dr = ph.ctx.d10(f"rally of {u.id}")
        got = cohesion.rally(oc.rating(oc.charisma), u.tq, dr)
        if got is None:
            ph.ctx.log("rally", f"{u.id} fails to rally (rolls {dr})", {"unit": u.id}, (dr,))
        else:
            u.routed, u.rallied, u.hits = False, True, got
            ph.ctx.log("rally", f"{u.id} rallies (rolls {dr}): {got} hits", {"unit": u.id}, (dr,))
    return None


def withdraw(ph: Phase) -> None:
    """The Withdraw order (cof.md §9.5): the wing's Engaged units in command range pull back
    one hex away from the enemy, chariots without a roll."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    ld = s.wing_leader(ph.side, ph.wing)
    engaged = [u for u in ph.units() if u.engaged and not u.out_of_command]
    if ld is None or not engaged:
        ctx.log("withdraw", f"wing {ph.wing} has no Engaged unit in command to withdraw")
        return
    ok_rest = True
    if any(u.type not in CHARIOTS for u in engaged):
        oc = s.oc(ph.side)
        near_oc = oc is not None and GHex.parse(oc.hex).distance(GHex.parse(ld.hex)) <= 1
        rating = ld.rating(ld.initiative if ld.role == "OC" else ld.ability)
        bonus = oc.rating(oc.charisma) if oc is not None and near_oc else 0
        dr = ctx.d10(f"withdrawal of wing {ph.wing}")
        ok_rest = command.withdraw_engaged(dr, rating, oc_charisma=bonus)
        ctx.log(
            "withdraw",
            f"{ld.name} orders a withdrawal: rolls {dr} against {rating + bonus}: "
            + ("they pull back" if ok_rest else "they stay Engaged"),
            {"leader": ld.id, "passed": ok_rest},
            (dr,),
        )
    for u in engaged:  # (not twice: a stack's mate went with it; not routed by fire)
        if (u.type in CHARIOTS or ok_rest) and u.engaged and u.on_map and not u.routed:
            _step_back(ph, u)


def _step_back(ph: Phase, u: Unit) -> None:
    """One hex away from the enemies it was engaged with (cof.md §9.5, rulebook §9.24,
    :func:`engine.cof.rout.engaged_withdrawal_hexes`; pbem: the lowest hex number).
    Before it goes, the enemy missile units next to it fire withdrawal reaction fire
    (rulebook §7.41: a non-routed unit leaving a hex next to them, results before it
    moves; no entry fire follows, it ends next to no enemy); what is left of it, not
    routed, goes, and every leader of its side in its hex goes with it (pbem's reading,
    as for an orderly withdrawal and a rout, rulebook §6.57, §10.16)."""
    s = ph.s
    ctx = ph.ctx
    assert ctx is not None
    board = pieces(s)
    foes = [p for p in board if p.side != u.side and p.hex.distance(u.at) == 1]
    ok = engaged_withdrawal_hexes(s.charts, ground(s), board, piece(s, u), foes)
    if not ok:
        ctx.log("withdraw", f"{u.id} has nowhere to withdraw to: it stays Engaged")
        return
    dest = str(ok[0])
    start = u.hex
    stack = ph.stack(u)
    firing.leaving_fire(ph, u, ok[0])
    going = [m for m in stack if m.on_map and not m.routed and m.hex == start]
    if not going:
        return
    for m in going:
        m.hex, m.engaged = dest, False
    riders = [ld for ld in s.leaders_at(start) if ld.side == u.side]
    for ld in riders:
        ld.hex = dest
    with_them = f" with {', '.join(ld.name for ld in riders)}" if riders else ""
    ctx.log(
        "withdraw",
        f"{going[0].id} withdraws to {dest}{with_them}",
        {"unit": going[0].id, "to": dest, "leaders": [ld.id for ld in riders]},
    )
    ph.acted.update(m.id for m in going)
