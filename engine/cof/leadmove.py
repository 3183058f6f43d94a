"""Leaders, heroes and Standards moving in the Orders Phase (rulebook §5.46, §6.56, §9.32,
§9.34, §10.16; cof.md §4.6, §9.6, §10.1).

* A leader's own move, ``move ramesses 0404 0405`` (:func:`move_leader`), costed by
  :func:`engine.cof.leaders.trace_leader` (no facing; +1 MP into a friendly unit's hex;
  never into an enemy's). ``with standard`` takes his side's Standard from his hex along:
  a Standard moves only stacked with a leader, on his MA (rulebook §9.32), and every routed
  unit of his side within 3 hexes of it flees at once (§9.34; pbem: of the hex it ends in,
  as when a lone leader falls back with it). The order must say so: the rulebook lets him
  take it ("mogą je przesuwać"), and it costs the routed units near it.
* A hero riding with his unit, ``move E1 0404 0405 with achilles`` (:func:`riders`): a hero
  stacked with a friendly combat unit may move with it and must end its move with it
  (rulebook §10.16). He goes hex by hex with the unit (:meth:`engine.cof.phase.Phase.place`),
  so whatever stops the unit stops him there, a rout places him with it and a unit fleeing
  takes him with it (cof.md §9.7). It is his move of the phase. The rulebook names the
  other moves he may share (withdrawal, advance after combat, rout); no order is written
  for those, and pbem's reading is that he always goes (:func:`ride_along`; a rout and an
  orderly withdrawal take every leader of the hex, rulebook §6.57, §9.4). A unit activated
  by its side's Momentum marker moves as in any Orders Phase: its heroes ride alike.
* The Momentum marker's own leaders (:func:`momentum_leader`): an overall commander who
  leads no wing moves when his side's Momentum marker is drawn, after the Momentum attempt
  whatever its result (rulebook §5.46, whose "Trump" pbem reads as Momentum, cof.md §15),
  and so does a hero who is no leader (§10.14). Their ``move`` lines in the Momentum mail
  are carried out even when the attempt fails or the mail names ``wing none`` (pbem's
  reading: drawing the marker is what lets them move).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cof.adapt import chief, ground, pieces
from engine.cof.leaders import moves_on, trace_leader
from engine.cof.rout import Standard
from engine.cof.state import CofState, Leader, Unit
from engine.cof.steps import flee_near
from engine.gboh.grid import GHex, MapNotationError

if TYPE_CHECKING:
    from engine.cof.phase import Phase

__all__ = ["is_hero", "momentum_leader", "move_leader", "ride_along", "riders"]

STANDARD = "standard"
"""The word of a leader's move that takes the Standard along (``with standard``)."""


def is_hero(ld: Leader) -> bool:
    """A hero, leader or not (rulebook §10.1: an "H" on the counter)."""
    return ld.hero or ld.role == "hero"


def momentum_leader(ld: Leader) -> bool:
    """Whether ``ld`` moves on his side's Momentum marker (see the module docstring)."""
    return moves_on(chief(ld), "momentum", commands_wing=bool(ld.wing))


def riders(ph: Phase, who: Unit, names: tuple[str, ...]) -> list[Leader] | str:
    """The heroes a unit's move order takes along (``with HERO``), or why it may not."""
    s = ph.s
    out = []
    for name in names:
        if name == STANDARD:
            return "only a leader's own move takes the Standard along (cof.md §9.6)"
        ld = next((x for x in s.leaders if x.id.lower() == name and x.side == ph.side), None)
        if ld is None or not ld.on_map:
            return f"no leader {name!r} of {ph.side} on the map"
        if not is_hero(ld):
            return f"{ld.name} is no hero: only a hero moves with a unit (rulebook §10.16)"
        if ld.hex != who.hex:
            return f"{ld.name} is not stacked with {who.id} in {who.hex}"
        if ld.id in ph.acted:
            return f"{ld.name} has already moved this phase"
        out.append(ld)
    return out


def ride_along(s: CofState, start: str, unit: Unit) -> None:
    """Heroes of ``unit``'s side left in ``start`` go with it to its hex: an advance after
    combat, a withdrawal from engagement (rulebook §10.16, see the module docstring)."""
    for ld in s.leaders_at(start):
        if ld.side == unit.side and is_hero(ld) and unit.on_map:
            ld.hex = unit.hex


def move_leader(ph: Phase, ld: Leader, steps: list[str], names: tuple[str, ...]) -> str | None:
    """A leader's own move (see the module docstring); the problem if he may not."""
    s = ph.s
    if ld.side != ph.side or not ld.on_map:
        return f"{ld.name} is not on the map"
    if not (ld.wing == ph.wing and ld.role in ("OC", "WC")) and not (
        ph.momentum and momentum_leader(ld)
    ):
        if momentum_leader(ld):
            return f"{ld.name} moves on his side's Momentum marker (rulebook §5.46, §10.14)"
        return f"{ld.name} does not lead wing {ph.wing}: he moves with his own wing (§4.6)"
    if ld.id in ph.acted:
        return f"{ld.name} has already moved this phase"
    if any(n != STANDARD for n in names):
        return f"{ld.name} takes only the Standard along (with standard), no leader"
    side = s.sides[ld.side]
    carry = bool(names)
    if carry and (side.standard != ld.hex or side.standard_by or side.standard_captured):
        return f"{side.name}'s Standard is not with {ld.name} in {ld.hex} (cof.md §9.6)"
    path = []
    for step in steps:
        try:
            h = GHex.parse(step)
        except MapNotationError:
            return f"{step!r} is not a hex (leaders have no facing)"
        if h not in s.grid:
            return f"{h} is not on the map"
        path.append(h)
    _, problem = trace_leader(s.charts, ground(s), pieces(s), chief(ld), path)
    if problem:
        return f"{ld.name}: {problem}"
    start = ld.hex
    if path:
        ld.hex = str(path[-1])
    ph.acted.add(ld.id)
    if carry and ld.hex != start:
        side.standard = ld.hex
    ctx = ph.ctx
    if ctx is None:
        return None
    ctx.log(
        "leader-move",
        f"{ld.name} moves {start} -> {ld.hex}" + (" with the Standard" if carry else ""),
        {"leader": ld.id, "from": start, "to": ld.hex, "standard": carry},
    )
    if carry and ld.hex != start:
        flee_near(ctx, Standard(ld.side, GHex.parse(ld.hex)), "moves")
    return None
