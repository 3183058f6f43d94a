"""Missile fire in an Orders Phase: one volley, and the inactive side's reaction fire (cof.md
§7.6-§7.9, rulebook §7.17, §7.3, §7.4).

Reaction fire needs no orders (rulebook §7.4); whether a player's inactive missile units
take it is his standing order ``reaction-fire: always | never``. The rules of who may are
:mod:`engine.cof.reaction`'s; these functions find the firers on the state and roll:

* **entry fire** (:func:`entry_fire`, §7.44) at range 1, at each hex an enemy unit enters
  next to the missile unit (advance after combat too), before it goes on; never at a
  chariot inside the hex of an enemy chariot it passes through (except by that chariot,
  §7.33), nor by a unit that has returned fire at the mover this phase (§7.45);
* **leaving fire** (:func:`leaving_fire`, §7.41) at range 2, by a weapon reaching 2 or more,
  at a non-routed enemy about to leave a hex next to the missile unit;
* **retreat fire** (:func:`retreat_fire`, §7.42) at range 2, by a composite-bow chariot about
  to withdraw in good order, at the unit that triggered it, once an Orders Phase;
* **return fire** (:func:`return_fire`, §7.45) at the actual range, by the unit fired at,
  once the active fire is resolved; not by a pass-through target, nor after entry fire at
  the same unit.

Fire at a CH-2 with its runners hits one of the two counters, the firer's choice (rulebook
§7.13, §7.32; :func:`aimed`): the one his order names (``fire E5 0807 runners``), else his
standing order ``fire-at-stack`` (reaction fire always); the counter's own armor counts.
pbem's reading [E]: entry fire comes at every hex entered next to the firer, units in the
order of their ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cof import missile, reaction
from engine.cof.adapt import piece
from engine.cof.policy import policy_of
from engine.cof.shock import distribute_hits
from engine.cof.state import Unit, other
from engine.cof.steps import Roll, add_hits, chart_type, leader_check
from engine.cof.tables import TroopType
from engine.gboh.grid import GHex

if TYPE_CHECKING:
    from engine.cof.phase import Phase

__all__ = [
    "PICKS",
    "aimed",
    "entry_fire",
    "leaving_fire",
    "pick_problem",
    "reacts",
    "retreat_fire",
    "return_fire",
    "volley",
]

PICKS = ("chariot", "runners")
"""The words naming the counter of a CH-2 with runners a fire order hits (rulebook §7.13)."""


def _stack(units: list[Unit]) -> bool:
    """Whether ``units`` (the enemy counters of one hex) are a CH-2 with its runners."""
    return len(units) == 2 and {x.type for x in units} == {"CH2", "RI"}


def pick_problem(ph: Phase, target: str, pick: str) -> str | None:
    """Why a fire order may not name ``pick`` (``chariot`` / ``runners``) in ``target``."""
    if not pick:
        return None
    if pick not in PICKS:
        return f"{pick!r} is no counter of a stack: chariot or runners (rulebook §7.13)"
    units = [x for x in ph.s.units_at(str(GHex.parse(target))) if x.side != ph.side]
    if not _stack(units):
        return f"{pick} names a counter of a CH-2 with runners: {target} holds none (§7.13)"
    return None


def aimed(ph: Phase, u: Unit, units: list[Unit]) -> tuple[list[Unit], TroopType]:
    """The counters ``u``'s volley hits among the enemy ``units`` of one hex, and the chart
    line read for them: of a CH-2 with runners one counter, the firer's choice (rulebook
    §7.13, §7.32), on its own line: the one its order names (``ph.picks``), else its side's
    standing order ``fire-at-stack``; ``weaker`` is the one fewer hits from routing, the
    runners on a tie."""
    s = ph.s
    if not _stack(units):
        return units, chart_type(s, units[0])
    pick = ph.picks.get(u.id, "") if u.side == ph.side else ""
    if not pick:
        pick = policy_of(s, u.side).get("fire-at-stack")
    ri = next(x for x in units if x.type == "RI")
    ch = next(x for x in units if x.type == "CH2")
    if pick == "weaker":
        pick = "chariot" if ch.tq - ch.hits < ri.tq - ri.hits else "runners"
    x = ch if pick == "chariot" else ri
    return [x], s.charts.types[x.type]


def reacts(ph: Phase, u: Unit) -> bool:
    """Whether an inactive unit's owner lets it take reaction fire (his standing order)."""
    return (
        u.on_map
        and not u.routed
        and not u.engaged
        and policy_of(ph.s, u.side).get("reaction-fire") != "never"
    )


def volley(
    ph: Phase,
    u: Unit,
    target: str,
    kind: str,
    *,
    distance: int | None = None,
    pass_through: bool = False,
    at: Unit | None = None,
) -> None:
    """One volley of ``u`` at the enemy units in ``target`` (cof.md §7.6, §7.9):
    ``distance`` replaces the range where a rule fixes it (reaction fire at 1 or 2);
    ``pass_through`` reads the Pass-Thru row (§7.7). Reaction fire names the unit it is
    at (``at``: a mover, or the unit that fired): a missile unit fires at one unit
    (rulebook §7.13, §7.44), so a friend the mover is passing through takes none of it."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    h = GHex.parse(target)
    units = [x for x in s.units_at(target) if x.side != u.side]
    if at is not None:
        mine = {m.id for m in ph.stack(at)}
        units = [x for x in units if x.id in mine]
    if not u.on_map:
        return
    if not units:
        _at_leaders(ph, u, target, kind)
        return
    d = u.at.distance(h) if distance is None else distance
    dr = ctx.d10(f"{kind} of {u.id} at {target}", Roll(kind, u.id, target))
    units, troop = aimed(ph, u, units)
    got = missile.resolve_fire(
        s.charts,
        u.missile,
        d,
        troop,
        dr,
        supply=u.supply,
        pass_through=pass_through,
        bow_moving=u.type == "LI" and u.id in ph.moved and u.side == ph.side,
        target_terrain=s.terrain_at(h),
        lower_target=s.elevation.get(target, 0) < s.elevation.get(u.hex, 0),
    )
    how_far = "passing through" if pass_through else f"{d} hex{'es' if d > 1 else ''}"
    one = f" ({units[0].id} of the stack)" if troop.code != chart_type(s, units[0]).code else ""
    ctx.log(
        "fire",
        f"{u.id} ({u.missile}) {kind} at {target}{one}, {how_far}: "
        f"rolls {dr}, modified {got.modified}: {got.hits} hit{'s' if got.hits != 1 else ''}",
        {"unit": u.id, "hex": u.hex, "target": target, "range": d, "modified": got.modified,
         "hits": got.hits, "kind": kind, "hit": [x.id for x in units]},
        (dr,),
    )  # fmt: skip
    if got.supply != u.supply:
        u.supply = got.supply
        ctx.log("supply", f"{u.id} is now Missile {got.supply.title()}", {"unit": u.id})
    shares = distribute_hits(got.hits, [x.id for x in units])
    for x in units:
        add_hits(ctx, x, shares[x.id], f"{kind} of {u.id}")
    if got.leader_check:
        for ld in s.leaders_at(target):
            if ld.side != u.side:
                leader_check(ctx, ld, "missile", dr)


def _at_leaders(ph: Phase, u: Unit, target: str, kind: str) -> None:
    """Fire at a hex holding only enemy leaders (rulebook §7.18, last sentence; cof.md §7.9):
    no unit to hit, so the roll only uses missiles (§7.5) and, unmodified 0, makes each
    leader there check."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    leaders = [ld for ld in s.leaders_at(target) if ld.side != u.side]
    if not leaders:
        return
    d = u.at.distance(GHex.parse(target))
    dr = ctx.d10(f"{kind} of {u.id} at {target}", Roll(kind, u.id, target))
    names = ", ".join(ld.name for ld in leaders)
    ctx.log(
        "fire",
        f"{u.id} ({u.missile}) {kind} at {names} alone in {target}: rolls {dr}",
        {"unit": u.id, "hex": u.hex, "target": target, "range": d, "modified": dr, "hits": 0,
         "kind": kind, "hit": []},
        (dr,),
    )  # fmt: skip
    supply = missile.supply_after(s.charts, u.supply, dr)
    if supply != u.supply:
        u.supply = supply
        ctx.log("supply", f"{u.id} is now Missile {supply.title()}", {"unit": u.id})
    if dr == s.charts.missile_modifiers["leader_check_on"].value:
        for ld in leaders:
            leader_check(ctx, ld, "missile", dr)


def _inactive(ph: Phase, near: GHex) -> list[Unit]:
    """Inactive units next to ``near`` whose owners take reaction fire, by id."""
    s = ph.s
    return [
        x
        for x in sorted(s.live(other(ph.side)), key=lambda x: x.id)
        if x.at.distance(near) == 1 and x.missile and reacts(ph, x)
    ]


def _gone(u: Unit) -> bool:
    return not u.on_map or u.routed


def entry_fire(ph: Phase, mover: Unit) -> None:
    """Entry reaction fire at ``mover`` in the hex it has just entered (rulebook §7.44)."""
    s = ph.s
    if any(k == "aggression" and m == mover.id for k, m, _ in ph.reacted):
        return  # never at a unit making an Aggression Reaction (rulebook §8.54)
    passed = [x for x in s.units_at(mover.hex) if x.side != mover.side]
    for x in _inactive(ph, mover.at):
        if _gone(mover):
            return
        if passed and x not in passed:
            continue  # not at a chariot inside another unit's hex (rulebook §7.33)
        _entry_shot(ph, x, mover)


def _entry_shot(ph: Phase, x: Unit, mover: Unit) -> None:
    """``x`` fires entry fire at ``mover`` if the rules let it (rulebook §7.44)."""
    s = ph.s
    rng = reaction.entry_fire(
        s.charts,
        piece(s, x),
        piece(s, mover),
        returned_at_mover=("return", x.id, mover.id) in ph.reacted,
    )
    if rng is not None:
        ph.reacted.add(("entry", x.id, mover.id))
        volley(ph, x, mover.hex, "entry fire", distance=rng, at=mover)


def passed_chariot_fire(ph: Phase, mover: Unit, into: GHex) -> None:
    """A chariot the mover, already next to it, is about to pass through fires first, at
    range 1 (rulebook §7.31)."""
    for x in _inactive(ph, mover.at):
        if x.hex != str(into) or _gone(mover):
            continue
        _entry_shot(ph, x, mover)


def leaving_fire(ph: Phase, mover: Unit, into: GHex) -> None:
    """Withdrawal reaction fire at ``mover`` about to leave its hex for ``into`` (rulebook
    §7.41); not by a chariot it is about to pass through (that one fires as it enters)."""
    s = ph.s
    if any(x.side != mover.side for x in s.units_at(mover.hex)):
        return  # inside an enemy chariot's hex it passes through (rulebook §7.33)
    for x in _inactive(ph, mover.at):
        if _gone(mover):
            return
        if x.at == into:
            continue
        rng = reaction.leaving_fire(s.charts, piece(s, x), piece(s, mover))
        if rng is not None:
            volley(ph, x, mover.hex, "leaving fire", distance=rng, at=mover)


def retreat_fire(ph: Phase, x: Unit, trigger: Unit) -> None:
    """A composite-bow chariot withdrawing in good order fires at the unit that triggered
    it, before it moves (rulebook §7.42)."""
    s = ph.s
    if not reacts(ph, x) or _gone(trigger):
        return
    fired = ("retreat", x.id, "") in ph.reacted
    rng = reaction.retreat_fire(s.charts, piece(s, x), piece(s, trigger), fired=fired)
    if rng is not None:
        ph.reacted.add(("retreat", x.id, ""))
        volley(ph, x, trigger.hex, "retreat fire", distance=rng, at=trigger)


def return_fire(ph: Phase, shooter: Unit, target: str, *, pass_through: bool = False) -> None:
    """The unit ``shooter`` fired at answers once its fire is resolved (rulebook §7.45)."""
    s = ph.s
    for x in sorted((x for x in s.units_at(target) if x.side != shooter.side), key=lambda x: x.id):
        if _gone(shooter) or not x.missile or not reacts(ph, x):
            continue
        rng = reaction.return_fire(
            s.charts,
            piece(s, x),
            piece(s, shooter),
            entry_fired_at_shooter=("entry", x.id, shooter.id) in ph.reacted,
            pass_through=pass_through,
        )
        if rng is not None and ph.sight(x.at, shooter.at):
            ph.reacted.add(("return", x.id, shooter.id))
            volley(ph, x, shooter.hex, "return fire", distance=rng, at=shooter)
            return
