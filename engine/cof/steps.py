"""Steps of a Chariots of Fire turn that change the state: hits, rout, elimination, leaders.

The rule modules are pure functions of rolls, ratings and :mod:`engine.cof.pieces` records
(:mod:`engine.cof.cohesion` for the rolls, :mod:`engine.cof.rout` for where a routed unit
goes, :mod:`engine.cof.leaders` for lone leaders and replacements); these steps apply them to
a :class:`CofState` (seen through :mod:`engine.cof.adapt`) with a :class:`Ctx` that rolls the
d10 (faces 0-9, cof.md §2.1) on the committed stream and records events. Where the rules
leave the owner a choice among equal hexes, pbem takes the lowest hex number.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.cof import cohesion, command
from engine.cof.adapt import chief, counter, ground, piece, pieces
from engine.cof.choices import replacement_hex
from engine.cof.heroes import checks_casualty
from engine.cof.leaders import displaced, replacement_hexes, wound
from engine.cof.policy import policy_of
from engine.cof.rout import Standard, flee_near_standard, leaders_lost, rout_hexes
from engine.cof.state import IN_PLAY, CofState, Leader, Unit, other
from engine.cof.tables import TroopType
from engine.core.api import Event
from engine.gboh.grid import GHex, side_vertices
from engine.randomness import D10, Randomness

__all__ = [
    "CHARIOTS",
    "Ctx",
    "Roll",
    "add_hits",
    "chart_type",
    "displace_lone_leaders",
    "eliminate",
    "flee_near",
    "kill_leader",
    "leader_check",
    "rout",
    "unstack",
    "within_command",
]

CHARIOTS = frozenset({"CH2", "CH3"})
"""Enemy chariots for rout placement and pass-through (not BW, cof.md §9.7)."""


@dataclass(frozen=True)
class Roll:
    """What a d10 is rolled for, as data: its ``kind`` (``fire``, ``pre-shock check``,
    ``defender check``, ``shock``, ``aggression reaction``, ``casualty check``...), the unit
    or leader it is for (``who``) and the hex it aims at (``at``). The odds
    (:mod:`engine.cof.forecast`) serve their faces by it, never by the purpose's text."""

    kind: str
    who: str = ""
    at: str = ""


@dataclass
class Ctx:
    """One resolution: the state being changed, the dice, the events so far."""

    s: CofState
    rng: Randomness
    events: list[Event] = field(default_factory=list)

    def d10(self, purpose: str, roll: Roll | None = None) -> int:
        """Roll one d10, 0-9 (cof.md §2.1); ``purpose`` goes with it on the dice stream,
        ``roll`` says what it is for as data."""
        (face,) = self.rng.roll(D10, 1, purpose)
        return int(face)

    def rolls(self, purpose: str, roll: Roll | None = None) -> Iterator[int]:
        """As many d10 as a rule asks for, one at a time."""
        while True:
            yield self.d10(purpose, roll)

    def log(
        self,
        kind: str,
        text: str,
        data: Mapping[str, Any] | None = None,
        dice: tuple[int, ...] = (),
    ) -> None:
        self.events.append(Event(kind, text, dict(data or {}), tuple(str(d) for d in dice)))


def chart_type(s: CofState, u: Unit) -> TroopType:
    """The chart line a unit fights on: a CH-2 with its runners is the ``CH2RI`` stack."""
    if u.stacked_with and u.type in ("CH2", "RI"):
        mate = s.unit(u.stacked_with)
        if mate.on_map and mate.hex == u.hex:
            return s.charts.types["CH2RI"]
    return s.charts.types[u.type]


def label(u: Unit) -> str:
    return f"{u.id} ({u.type} {u.hex})" if u.hex else u.id


def eliminate(ctx: Ctx, u: Unit, status: str = "eliminated") -> None:
    """Take a unit off the map; its printed TQ counts to its side's withdrawal points (§11)."""
    s = ctx.s
    was = u.hex
    lost = (
        leaders_lost(
            [chief(ld) for ld in s.leaders if ld.side == u.side],
            [counter(x) for x in s.live()],
            [u.id],
        )
        if status == "fled" and was
        else []
    )
    u.status, u.hex = status, ""
    u.engaged = u.routed = u.column = False
    unstack(s, u)
    s.sides[u.side].points += u.tq
    ctx.log(
        "eliminated",
        f"{u.id} {'flees' if status == 'fled' else 'is eliminated'}: "
        f"{u.side} withdrawal points {s.sides[u.side].points}",
        {"unit": u.id, "hex": was, "side": u.side, "points": s.sides[u.side].points},
    )
    for lid in lost:  # every combat unit of the hex fled (cof.md §9.7)
        kill_leader(ctx, s.leader(lid), "with his fleeing troops")


def unstack(s: CofState, u: Unit) -> None:
    """``u`` leaves the CH-2 + RI stack it is part of (cof.md §6.6, §8.11): both go on as
    separate units."""
    if u.stacked_with:
        s.unit(u.stacked_with).stacked_with = ""
        u.stacked_with = ""


def add_hits(ctx: Ctx, u: Unit, n: int, why: str, *, rout_now: bool = True) -> None:
    """Give ``n`` cohesion hits (cof.md §9.1): a routed unit hit again is eliminated; a unit
    reaching its TQ routs at once (in shock, at the Collapse step: ``rout_now=False``)."""
    if n <= 0 or not u.on_map:
        return
    if u.routed:
        ctx.log("hits", f"{u.id} is hit while routed ({why})", {"unit": u.id, "hits": n})
        eliminate(ctx, u)
        return
    u.hits += n
    ctx.log(
        "hits",
        f"{u.id} takes {n} hit{'s' if n != 1 else ''} ({why}): {u.hits} of TQ {u.tq}",
        {"unit": u.id, "hits": n, "total": u.hits, "why": why},
    )
    tq = cohesion.effective_tq(ctx.s.charts, u.tq, column=u.column)  # §6.3: TQ -2 in column
    if rout_now and cohesion.routs(u.hits, tq):
        rout(ctx, u)


def rout(ctx: Ctx, u: Unit) -> None:
    """A unit routs (cof.md §9.7): roll against its printed TQ; placed by its Standard on a
    pass, else (or without a Standard, or with no free path) it flees."""
    s = ctx.s
    side = s.sides[u.side]
    if u.column:  # out of column it faces a vertex at an end of its hexside (§6.3)
        u.facing = side_vertices(u.facing)[0]
    u.engaged = u.column = False
    unstack(s, u)  # its chariot or runners stay: each routs only by its own hits (§8.11)
    if not side.standard:
        ctx.log("rout", f"{u.id} routs with no Standard to run to", {"unit": u.id})
        eliminate(ctx, u, "fled")
        return
    dr = ctx.d10(f"rout roll of {u.id}")
    if cohesion.rout_roll(s.charts, u.tq, dr) == "flees":
        ctx.log("rout", f"{u.id} routs and rolls {dr} > TQ {u.tq}: it flees", {"unit": u.id}, (dr,))
        eliminate(ctx, u, "fled")
        return
    spot = rout_hex(s, u)
    if spot is None:
        ctx.log("rout", f"{u.id} routs; no free path to its Standard: it flees", {"unit": u.id})
        eliminate(ctx, u, "fled")
        return
    start = u.hex
    u.hex, u.routed, u.engaged = spot, True, False
    if policy_of(s, u.side).get("rout-leaders") == "go":  # (the owner's choice, cof.md §9.7)
        for ld in s.leaders_at(start):
            if ld.side == u.side:
                ld.hex = spot
    ctx.log(
        "rout",
        f"{u.id} routs (rolls {dr}, TQ {u.tq}) and is placed at {spot} by its Standard",
        {"unit": u.id, "from": start, "to": spot},
        (dr,),
    )


def rout_hex(s: CofState, u: Unit) -> str | None:
    """Where a routing unit is placed (cof.md §9.7, :func:`engine.cof.rout.rout_hexes`): the
    nearest vacant hex to its Standard it can reach (ties: the lowest number), or None."""
    std = GHex.parse(s.sides[u.side].standard) if s.sides[u.side].standard else None
    found = rout_hexes(s.charts, ground(s), pieces(s), piece(s, u), std)
    return str(found[0]) if found else None


def kill_leader(ctx: Ctx, ld: Leader, why: str) -> None:
    """A leader dies (cof.md §4.5): an OC's death costs five times his Initiative in
    withdrawal points (§11); a wing commander is replaced in Phase D."""
    s = ctx.s
    ld.status, ld.hex = "killed", ""
    if ld.role == "OC":
        s.sides[ld.side].points += 5 * ld.initiative
    ctx.log(
        "leader-killed",
        f"{ld.name} is killed ({why})",
        {"leader": ld.id, "side": ld.side, "points": s.sides[ld.side].points},
    )


def leader_check(ctx: Ctx, ld: Leader, kind: str, first: int | None = None) -> None:
    """A leader's casualty check (cof.md §7.9, §8.5); ``first`` is the unmodified fire roll."""
    if not checks_casualty(chief(ld)):
        return
    rating = ld.initiative if ld.role == "OC" else ld.ability
    rolls = ctx.rolls(f"casualty check of {ld.name}", Roll("casualty check", ld.id))
    seq: Iterator[int] = rolls if first is None else _chain(first, rolls)
    got = cohesion.leader_casualty(ctx.s.charts, kind, seq, rating, wounded=ld.wounded)
    if got == "unhurt":
        return
    if got == "killed" or wound(chief(ld)) is None:
        kill_leader(ctx, ld, f"{kind} casualty check")
        return
    ld.wounded = True
    ctx.log("leader-wounded", f"{ld.name} is wounded: his ratings drop by 1", {"leader": ld.id})


def _chain(first: int, rest: Iterator[int]) -> Iterator[int]:
    yield first
    yield from rest


def displace_lone_leaders(ctx: Ctx, mover: Unit) -> None:
    """An enemy unit next to a leader without a friendly combat unit (cof.md §4.2,
    :func:`engine.cof.leaders.displaced`): the leader goes to the nearest friendly combat unit
    (ties: the lowest hex number), or is eliminated when his side has none."""
    s = ctx.s
    if not mover.on_map:
        return
    near = [
        ld
        for ld in s.leaders
        if ld.side != mover.side and ld.on_map and GHex.parse(ld.hex).distance(mover.at) <= 1
    ]
    board = pieces(s) if near else []
    for ld in near:
        where = displaced(board, chief(ld), mover.at)
        if where is None:
            kill_leader(ctx, ld, "alone among the enemy")
        elif where:
            was, ld.hex = ld.hex, str(where[0])
            ctx.log("leader-displaced", f"{ld.name} falls back to {ld.hex}", {"leader": ld.id})
            side = s.sides[ld.side]
            if side.standard == was and not side.standard_captured:  # it goes with him (§9.6)
                side.standard = ld.hex
                ctx.log("standard", f"the {side.name} Standard goes with him", {"side": ld.side})
                flee_near(ctx, Standard(ld.side, GHex.parse(ld.hex)), "moves")


def flee_near(ctx: Ctx, standard: Standard, why: str) -> None:
    """A Standard moved or captured: its side's routed units within 3 hexes of ``standard``
    flee at once (cof.md §9.6, :func:`engine.cof.rout.flee_near_standard`)."""
    s = ctx.s
    for uid in flee_near_standard(s.charts, [counter(u) for u in s.live()], standard):
        u = s.unit(uid)
        if u.on_map:
            ctx.log("standard", f"{u.id} flees: its Standard {why}", {"unit": u.id})
            eliminate(ctx, u, "fled")


def separate(s: CofState) -> None:
    """Engaged markers come off units no longer next to an enemy unit (cof.md §9.4)."""
    for u in s.live():
        if u.engaged and not any(e.at.distance(u.at) == 1 for e in s.live(other(u.side))):
            u.engaged = False


def replace_leaders(ctx: Ctx) -> None:
    """Phase D (cof.md §4.5, :func:`engine.cof.leaders.replacement_hexes`): a killed wing
    commander's replacement joins a unit of his wing (pbem: the lowest hex number); none if
    the wing has no unit left."""
    s = ctx.s
    for ld in s.leaders:
        if ld.status != "killed" or ld.role != "WC":
            continue
        where = replacement_hexes(pieces(s), chief(ld))
        if not where:
            continue
        ld.status, ld.hex, ld.wounded = IN_PLAY, str(replacement_hex(s, ld.side, where)), False
        ld.replacement += 1
        ctx.log(
            "leader-replaced",
            f"a replacement for {ld.name} takes command of wing {ld.wing} at {ld.hex}",
            {"leader": ld.id, "hex": ld.hex},
        )


def within_command(s: CofState, ld: Leader, at: GHex) -> bool:
    """Whether ``at`` lies within ``ld``'s command range (rulebook §5.42, cof.md §5.5): a path
    of hexes no longer than his range (halved with an Engaged unit in his hex, one less
    wounded), through no enemy unit and no terrain he may not enter. A unit's command, and a
    wing commander within his OC's reach for Momentum and Trump (§5.25, §5.32)."""
    engaged_here = any(x.engaged for x in s.units_at(ld.hex))
    rng = command.command_range(ld.command_range, wounded=ld.wounded, with_engaged=engaged_here)
    home = GHex.parse(ld.hex)
    if home.distance(at) > rng:
        return False
    enemy = {x.hex for x in s.live(other(ld.side))}
    column = "infantry" if ld.on_foot else "chariot"

    def passable(h: GHex) -> bool:  # a path of at most rng hexes stays within rng
        if h.distance(home) > rng or h not in s.grid or str(h) in enemy:
            return False
        return s.charts.terrain[s.terrain_at(h)].cost(column) is not None

    return command.in_command(s.grid, home, at, rng, passable)
