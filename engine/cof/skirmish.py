"""Chariot fire and run (cof.md §7.10, rulebook §7.2) and the Aggression Reaction against
missile fire (cof.md §8.10, rulebook §8.52-§8.54) in an Orders Phase.

Fire and run is an order, the CH-2's whole action for the phase::

    fire-and-run E1 0807      the CH-2 E1 (alone or with its runners) fires at 0807

It needs a path through its front hexes, no facing change, to a hex next to a non-chariot
target within 3 hexes, no hex but the last next to an enemy (:func:`engine.cof.reaction.
fire_and_run_path`). The chariot does not move on the map: it fires at range 1; friendly
SI/HI on the path take their hit for being passed through (rulebook §7.23, §6.55); its
target alone may turn one vertex to face the path's last hex (reaction facing, §7.25) and
reply at range 1 from there (:func:`engine.cof.reaction.fire_and_run_reply`), then, a BI or
a lone RI, react aggressively. Under the optional Turnover rule the chariot then checks
once on the table's fire-and-run column (rulebook §7.26, :mod:`engine.cof.turnover`).

The Aggression Reaction against fire (:func:`aggression`): a BI must try when a chariot's
fire has hit at it, a lone RI may (its owner's standing order ``aggression: always |
never``); a roll, less 1 a hex of range, at least its printed TQ sends it next to the firer,
facing it (:func:`engine.cof.reaction.aggression_hexes`; pbem: the lowest hex number, the
first facing clockwise), and it shocks at once (:func:`engine.cof.shocks.aggression_shock`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cof import cohesion, firing, reaction
from engine.cof.adapt import ground, piece, pieces
from engine.cof.phase import Phase
from engine.cof.pieces import facings_toward
from engine.cof.policy import policy_of
from engine.cof.shocks import aggression_shock
from engine.cof.stacking import through
from engine.cof.state import Unit
from engine.cof.steps import Roll, add_hits, displace_lone_leaders
from engine.cof.turnover import fire_and_run_check
from engine.gboh.grid import VERTICES, GHex, MapNotationError, front_hexes, turns

if TYPE_CHECKING:
    from engine.cof.phase import Action

__all__ = ["aggression", "fire_and_run"]


def _target(ph: Phase, text: str) -> Unit | str:
    try:
        h = GHex.parse(text)
    except MapNotationError:
        return f"{text!r} is not a hex"
    here = [x for x in ph.s.units_at(str(h)) if x.side != ph.side]
    if not here:
        return f"no enemy unit in {h}"
    here.sort(key=lambda u: u.type == "RI")  # a stack is its chariot's
    return here[0]


def fire_and_run(ph: Phase, a: Action) -> str | None:
    """Carry out a ``fire-and-run`` order; the problem if it may not."""
    s = ph.s
    who = ph.find(a.who)
    if not isinstance(who, Unit):
        return f"no unit {a.who!r} of {ph.side}"
    if len(a.args) != 1:
        return "fire-and-run names one target hex: fire-and-run UNIT HEX"
    problem = ph.ready(who, "fire and run")
    if problem:
        return problem
    if who.id in ph.moved or who.id in ph.fired or who.id in ph.acted:
        return f"{who.id} has already had its order this phase (fire and run is its whole action)"
    target = _target(ph, a.args[0])
    if isinstance(target, str):
        return target
    me, them = piece(s, who), piece(s, target)
    if not s.charts.types[me.type].fire_and_run:
        return f"{who.id} is a {me.type}: only a CH-2 fires and runs (cof.md §7.10)"
    path = reaction.fire_and_run_path(
        s.charts, ground(s), pieces(s), me, them, in_command=not who.out_of_command
    )
    if path is None:
        return (
            f"{who.id} has no fire-and-run path to {target.hex}: in command, within "
            f"{s.charts.missile_modifiers['fire_and_run_reach'].value} hexes of a non-chariot "
            "target, through its front hexes to a hex next to it, no hex before the last next "
            "to an enemy, no Rough (cof.md §7.10)"
        )
    ph.fired.add(who.id)
    ph.acted.add(who.id)
    for m in ph.stack(who):
        ph.acted.add(m.id)
    if ph.ctx is None:
        return None
    ctx = ph.ctx
    end = path[-1]
    ctx.log(
        "fire-and-run",
        f"{who.id} fires and runs at {target.id} by {' '.join(str(h) for h in path)}",
        {"unit": who.id, "target": target.id, "path": [str(h) for h in path]},
    )
    _passed_friends(ph, who, path)
    firing.volley(ph, who, target.hex, "fire and run", distance=1)
    if not target.on_map or target.routed or not who.on_map:
        fire_and_run_check(ph, who)  # the chariot still turns back (rulebook §7.26)
        return None
    _face(ph, target, end)
    if firing.reacts(ph, target) and who.on_map:
        rng = reaction.fire_and_run_reply(s.charts, piece(s, target), end)
        if rng is not None:
            firing.volley(ph, target, who.hex, "reply to fire and run", distance=rng, at=who)
    fire_and_run_check(ph, who)
    aggression(ph, target, who, 1)
    return None


def _passed_friends(ph: Phase, who: Unit, path: list[GHex]) -> None:
    """Friends on the path pay as if passed through (rulebook §7.23, §6.55)."""
    for h in path:
        through(ph, who, h)


def _face(ph: Phase, target: Unit, end: GHex) -> None:
    """The target turns one vertex to face the fire-and-run path's end (rulebook §7.25)."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    if end in front_hexes(target.at, target.facing) or target.column or target.engaged:
        return
    if target.id in ph.faced or policy_of(s, target.side).get("reaction-facing") == "never":
        return
    me = piece(s, target)
    if s.charts.types[me.type].reaction_facing == "none":
        return
    turn = [
        v for v in VERTICES if turns(target.facing, v) == 1 and end in front_hexes(target.at, v)
    ]
    if not turn:
        return
    ph.faced.add(target.id)
    for m in ph.stack(target):
        m.facing = turn[0]
    ctx.log("facing", f"{target.id} turns to face the chariots ({turn[0]})", {"unit": target.id})
    if s.charts.types[me.type].reaction_facing == "roll":
        dr = ctx.d10(f"reaction facing of {target.id}")
        ctx.log("facing", f"{target.id} rolls {dr} against TQ {target.tq}", {"unit": target.id},
                (dr,))  # fmt: skip
        add_hits(ctx, target, reaction.reaction_facing_hits(s.charts, me, dr), "reaction facing")


def aggression(ph: Phase, reactor: Unit, firer: Unit, distance: int) -> None:
    """An Aggression Reaction against ``firer``'s fire (cof.md §8.10)."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    if not reactor.on_map or reactor.routed or reactor.engaged or not firer.on_map:
        return
    if len(ph.stack(reactor)) == 2:
        return  # an RI stacked with a CH-2 never reacts (rulebook §8.52)
    kind = reaction.aggression_against_fire(s.charts, piece(s, reactor), piece(s, firer))
    if kind is None:
        return
    if kind == "voluntary" and policy_of(s, reactor.side).get("aggression") != "always":
        return
    dr = ctx.d10(f"aggression reaction of {reactor.id}", Roll("aggression reaction", reactor.id))
    passed = cohesion.aggression_vs_fire(s.charts, reactor.tq, dr, distance)
    ctx.log(
        "aggression",
        f"{reactor.id} rolls {dr} -{distance} against TQ {reactor.tq} to react to {firer.id}'s "
        f"fire: {'it charges' if passed else 'it holds'}",
        {"unit": reactor.id, "firer": firer.id, "passed": passed},
        (dr,),
    )
    if not passed:
        return
    where = reaction.aggression_hexes(
        s.charts, ground(s), pieces(s), piece(s, reactor), piece(s, firer)
    )
    if not where:
        ctx.log("aggression", f"{reactor.id} finds no hex next to {firer.id}", {"unit": reactor.id})
        return
    reactor.hex = str(where[0])
    reactor.facing = facings_toward(reactor.at, firer.at)[0]
    ph.reacted.add(("aggression", reactor.id, firer.id))
    ctx.log(
        "aggression",
        f"{reactor.id} charges to {reactor.hex} facing {reactor.facing}",
        {"unit": reactor.id, "to": reactor.hex},
    )
    displace_lone_leaders(ctx, reactor)  # (rulebook §4.24)
    own = Phase(s, reactor.side, reactor.wing, "move", ctx)
    own.reacted.add(("aggression", reactor.id, firer.id))
    enemies = {e.hex for e in own.enemies() if not (e.type == "RI" and len(own.stack(e)) == 2)}
    targets = [str(h) for h in front_hexes(reactor.at, reactor.facing) if str(h) in enemies]
    aggression_shock(own, reactor, sorted(set(targets) | {firer.hex}))
