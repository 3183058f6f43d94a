"""Advance after combat in the turn (cof.md §8.9 #3; rulebook §8.21-§8.23, §6.66, §4.24).

Every hex a shock emptied is entered by one of its attackers next to it
(:func:`engine.cof.segment.advancers`: the one with superiority, else the highest TQ, ties
the attacking player's choice), so two emptied hexes may take two advancers. The attacking
player writes his choices as order lines, checked with the mail and used if the dice bring
the advance about::

    advance E6 0907 face NE   if E6 advances, it enters 0907 (of the hexes emptied next to
                              it) and then turns to face NE (rulebook §8.22: one vertex,
                              even in an enemy front hex); both parts optional

Without a line (and for the inactive side, whose Aggression Reaction's shock may advance)
the owner's standing order ``advance-facing`` turns the unit: ``enemy`` (default) to the
vertex one away that puts the most enemy units next to it in its front hexes (none more:
it keeps its facing), ``keep`` never. After the advance the enemy's reaction fire and
reaction facing answer it (§6.66), and a lone enemy leader next to its new hex falls back
(§4.24).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cof import segment, standards
from engine.cof.adapt import counter
from engine.cof.leadmove import ride_along
from engine.cof.movement import terrain_hits
from engine.cof.phase import Action, Phase
from engine.cof.policy import policy_of
from engine.cof.state import CofState, Unit
from engine.cof.steps import Ctx, displace_lone_leaders, unstack
from engine.gboh.grid import VERTICES, GHex, MapNotationError, front_hexes

__all__ = ["advance_line", "advance_unit", "chosen", "entry_hits", "hex_order"]


def advance_line(ph: Phase, x: Action) -> str | None:
    """Read an ``advance UNIT [HEX] [face] [VERTEX]`` line into ``ph.advance``; the problem
    if it names no unit of the wing or words that are neither a hex nor a vertex."""
    u = ph.find(x.who)
    if not isinstance(u, Unit) or u.wing != ph.wing:
        return f"no unit {x.who!r} in wing {ph.wing}"
    hex_, vertex = "", ""
    for w in (a for a in x.args if a.lower() != "face"):
        if w.upper() in VERTICES and not vertex:
            vertex = w.upper()
            continue
        try:
            hex_ = str(GHex.parse(w)) if not hex_ else "?"
        except MapNotationError:
            hex_ = "?"
        if hex_ == "?":
            return f"advance {u.id} [HEX] [face VERTEX]: {w!r} is neither"
    ph.advance[u.id] = (hex_, vertex)
    return None


def hex_order(ph: Phase, hexes: Sequence[str]) -> list[str]:
    """The emptied hexes in the order they are filled: those an ``advance`` line names first
    (so a unit next to two goes where its line says), then as the shock lists them."""
    named = {h for h, _ in ph.advance.values()}
    return sorted(dict.fromkeys(hexes), key=lambda h: (h not in named, list(hexes).index(h)))


def chosen(ph: Phase, who: Sequence[str], h: str) -> str:
    """The attacking player's choice among equal advancers ``who`` into ``h`` (rulebook
    §8.23): one whose ``advance`` line names ``h``, else one with a line naming no hex,
    else the lowest id."""
    for want in (h, ""):
        for uid in who:
            if uid in ph.advance and ph.advance[uid][0] == want:
                return uid
    return who[0]


def advance_unit(
    ctx: Ctx, ph: Phase, mover: Unit, h: str, mates: list[Unit], *, reactions: bool
) -> None:
    """``mover`` (with ``mates``, its stack's counters that go along) advances into ``h``:
    each pays the hits of entering (:func:`engine.cof.segment.advance_hits`), turns as its
    line or its owner's standing order says, and the enemy answers (``reactions``: entry
    fire, not at an Aggression Reactor, §8.10; reaction facing) while a lone leader next to
    it falls back."""
    s = ph.s
    react = ph.hooks if ph.hooks is not None and mover.side == ph.side else None
    before = react.before(ph, mover) if react is not None else set()
    start = mover.hex
    to = GHex.parse(h)
    for m in mates:
        m.hits = segment.advance_hits(counter(m), entry_hits(s, m, h))
    if mover.stacked_with and mover.stacked_with not in {m.id for m in mates}:
        unstack(s, mover)  # (its mate held back: they part)
    facing = _facing(ctx, ph, mover, to)
    for m in mates:
        m.hex, m.engaged, m.facing = h, False, facing
    ride_along(s, start, mover)  # his heroes go with him (rulebook §10.16)
    ctx.log("advance", f"{mover.id} advances {start} -> {h} facing {facing}",
            {"unit": mover.id, "from": start, "to": h, "facing": facing})  # fmt: skip
    displace_lone_leaders(ctx, mover)
    standards.update(ctx)
    if reactions:
        ph.entry_fire(mover)
    if react is not None and mover.on_map and not mover.routed:  # (not at its own side)
        react.arrived(ph, mover, before)


def entry_hits(s: CofState, u: Unit, h: str) -> int:
    """The hits ``u`` would take entering ``h`` from where it stands (cof.md §6.2)."""
    to = GHex.parse(h)
    return terrain_hits(
        s.charts, s.charts.types[u.type], s.terrain_at(to), s.hexside_kinds(u.at, to)
    )


def _facing(ctx: Ctx, ph: Phase, mover: Unit, to: GHex) -> str:
    """The facing after the advance (rulebook §8.22): the line's vertex if one vertex from
    the unit's own (a battle wagon keeps its facing), else the owner's standing order."""
    s = ph.s
    options = segment.advance_facings(s.charts, counter(mover))
    _, want = ph.advance.get(mover.id, ("", ""))
    if want and mover.side == ph.side:
        if want in options:
            return want
        ctx.log("not-done", f"{mover.id} may not turn to {want} after its advance "
                f"(one of {', '.join(options)})", {"unit": mover.id})  # fmt: skip
    if policy_of(s, mover.side).get("advance-facing") == "keep":
        return mover.facing
    foes = [e.at for e in s.live() if e.side != mover.side and e.at.distance(to) == 1]

    def facing_foes(v: str) -> int:
        return sum(1 for f in foes if f in front_hexes(to, v))

    return max(options, key=lambda v: (facing_foes(v), v == mover.facing))
