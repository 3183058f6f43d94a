"""The Shock Segment of an Orders Phase (cof.md §3 C2, §8, §9.2, §9.4).

Each step is completed for every shock before the next, and each is a call to the pure rules
of :mod:`engine.cof.segment` on the state's :mod:`engine.cof.adapt` view: designation and the
target plan (:func:`~engine.cof.segment.designate`, :func:`~engine.cof.segment.plan`, a
player's flank targets checked by :func:`~engine.cof.segment.plan_problem`, §8.2-§8.3),
pre-shock TQ checks (§8.4, :func:`~engine.cof.segment.defender_check`), leader casualties
(§8.5), resolution on the charts (:func:`engine.cof.shock.resolve_shock`, §8.6-§8.8), then
collapse and mutual rout, the Engaged units' collapse check, advance and Engaged markers
(§8.9: :func:`~engine.cof.segment.collapse`, :func:`~engine.cof.segment.engaged_collapse`,
:func:`~engine.cof.segment.advancers`, :func:`~engine.cof.segment.engaged_after`). Shock is
not an order: who must shock follows from position; a unit that *may* shock (adjacent all
the Movement Segment without moving) shocks only when its orders say ``shock UNIT``, and
``shock UNIT HEX`` adds a defender in a flank hex. A CH-2 and its runners check one by one
before a shock (rulebook §8.41): one that fails holds back and the other attacks alone.
pbem's readings where the rules leave a choice [E]: the attacker fights on the chart line
that gives it the best column, the defender on the worst for the attacker; among
equal advancers the lowest id advances, into the first hex emptied, keeping its facing.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass, field

from engine.cof import cohesion, segment, shock
from engine.cof.adapt import counter, ground, piece, pieces
from engine.cof.advance import advance_unit, chosen, entry_hits, hex_order
from engine.cof.choices import hit_order
from engine.cof.elevation import shock_shifts
from engine.cof.heroics import is_heroic_shock, shock_duel
from engine.cof.phase import Phase
from engine.cof.pieces import CHARIOTS, Piece
from engine.cof.policy import policy_of
from engine.cof.reaction import aggression_against_shock, aggression_must_attack
from engine.cof.state import CofState, Leader, Unit, other
from engine.cof.steps import (
    Ctx,
    Roll,
    add_hits,
    chart_type,
    eliminate,
    leader_check,
    rout,
    separate,
)
from engine.cof.tables import TroopType
from engine.gboh.grid import GHex, flank_hexes, front_hexes, rear_hexes

__all__ = ["Plan", "aggression_shock", "plan_problem", "shock_segment"]


@dataclass
class _Shock:
    """One attack of the plan: its attacking pieces (a stack by its chariot) and the
    defending pieces' hexes, what became of them step by step."""

    attackers: list[Unit]
    defenders: list[str]
    side: str
    duty: dict[str, str] = field(default_factory=dict)
    vacated: list[str] = field(default_factory=list)
    advanced: set[str] = field(default_factory=set)
    fought: list[Unit] = field(default_factory=list)
    superior: str | None = None
    idle: set[str] = field(default_factory=set)
    held: set[str] = field(default_factory=set)


def _type(s: CofState, g: _Shock, u: Unit) -> TroopType:
    """The chart line ``u`` attacks on in ``g``: its own when its stack mate failed its
    pre-shock check and holds back (rulebook §8.41)."""
    return s.charts.types[u.type] if u.stacked_with in g.held else chart_type(s, u)


def _with_mates(s: CofState, units: list[Unit], held: Set[str] = frozenset()) -> list[Unit]:
    """The counters of ``units``' pieces: a chariot and its runners both (but not one that
    holds back, ``held``)."""
    out: list[Unit] = []
    for u in units:
        out.append(u)
        if u.stacked_with and u.stacked_with not in held:
            mate = s.unit(u.stacked_with)
            if mate.on_map and mate.hex == u.hex and mate not in out:
                out.append(mate)
    return out


def _defending(s: CofState, g: _Shock, hexes: list[str] | None = None) -> list[Unit]:
    """The counters defending against ``g`` (in ``hexes``, by default all of its)."""
    return [x for h in (g.defenders if hexes is None else hexes) for x in s.units_at(h)
            if x.side != g.side]  # fmt: skip


Plan = Sequence[tuple[Sequence[str], Sequence[str]]]
"""A player's target assignment as written: (attackers, defenders) by unit id or hex."""


def _enemy(s: CofState, side: str, ref: str) -> Unit | None:
    """An enemy unit on the map by id or hex (a stack: its chariot)."""
    here = [u for u in s.live() if u.side != side and ref.lower() in (u.id.lower(), u.hex)]
    here.sort(key=lambda u: u.type != "CH2")
    return here[0] if here else None


def _written(ph: Phase, plan: Plan) -> list[segment.Attack] | str:
    """The player's plan as the rules' attacks, or what it names that is not there."""
    s = ph.s
    out = []
    for atts, defs in plan:
        a_ids, d_ids = [], []
        for ref in atts:
            u = ph.find(ref)
            if not isinstance(u, Unit) or not u.on_map:
                return f"no unit {ref!r} of {ph.side} on the map"
            a_ids.append(piece(s, u).id)
        for ref in defs:
            e = _enemy(s, ph.side, ref)
            if e is None:
                return f"no enemy unit {ref!r} on the map"
            d_ids.append(piece(s, e).id)
        out.append(segment.Attack(tuple(dict.fromkeys(a_ids)), tuple(dict.fromkeys(d_ids))))
    return out


def _plan(ph: Phase, plan: Plan = ()) -> tuple[list[segment.Attack], dict[str, str], str | None]:
    """Steps a and the targets (cof.md §8.2-§8.3): the designated pieces of the activated
    wing (a may-shock one only if ordered, by ``shock`` or in the player's plan) and the
    attacks: the player's ``plan`` if :func:`engine.cof.segment.plan_problem` finds it
    legal, else pbem's plan with the flank targets the orders add where the plan stays
    legal; and why the player's plan was not used."""
    s = ph.s
    wing = {u.id for u in ph.units() if not u.rallied}
    board = [p for p in pieces(s) if p.side != ph.side or p.id in wing]
    ordered = {piece(s, u).id: h for u, h in ((s.unit(i), h) for i, h in ph.shock) if u.on_map}
    written = _written(ph, plan) if plan else []
    if not isinstance(written, str):
        ordered.update({uid: "" for a in written for uid in a.attackers if uid not in ordered})
    duties = {
        uid: duty
        for uid, duty in segment.designate(
            s.charts, board, ph.side, moved=ph.moved, turned_in_place=ph.turned
        ).items()
        if duty == "must" or uid in ordered
    }
    if isinstance(written, str):
        problem: str | None = written
    elif written:
        problem = segment.plan_problem(s.charts, board, duties, written)
        if problem is None:
            return written, duties, None
    else:
        problem = None
    attacks = segment.plan(s.charts, board, duties, include_may=ordered)
    for uid, h in sorted(ordered.items()):
        if not h:
            continue
        for i, a in enumerate(attacks):
            extra = [p.id for p in board if str(p.hex) == h and p.side != ph.side]
            if a.attackers != (uid,) or not extra:
                continue
            tried = [*attacks]
            tried[i] = segment.Attack(a.attackers, (*a.defenders, *extra))
            if segment.plan_problem(s.charts, board, duties, tried) is None:
                attacks = tried
    return attacks, duties, problem


def plan_problem(ph: Phase, plan: Plan) -> str | None:
    """Why the player's written ``plan`` would not be played now (cof.md §8.3), or ``None``:
    the check of an orders mail, on the position its moves lead to."""
    return _plan(ph, plan)[2]


def _designate(ph: Phase, plan: Plan) -> list[_Shock]:
    s = ph.s
    attacks, duties, problem = _plan(ph, plan)
    if problem is not None and ph.ctx is not None:
        ph.ctx.log("not-done", f"the attack plan is not played ({problem}): pbem's plan is",
                   {"problem": problem})  # fmt: skip
    out = []
    for a in attacks:
        hexes = sorted({s.unit(d).hex for d in a.defenders})
        units = [s.unit(i) for i in a.attackers]
        out.append(_Shock(units, hexes, ph.side, {i: duties[i] for i in a.attackers}))
    return out


def _prechecks(ctx: Ctx, ph: Phase, shocks: list[_Shock]) -> list[_Shock]:
    """Step b (cof.md §8.4, §8.10): may-shock attackers check; a defender that may react
    aggressively tries (its shock then comes first, the attackers defending); then every
    defender not Engaged checks. The shocks to fight, in order."""
    s = ph.s
    first: list[_Shock] = []
    out: list[_Shock] = []
    for g in shocks:
        for a in list(g.attackers):
            if g.duty[a.id] != "may" or all(x.routed for x in _defending(s, g)):
                continue
            _attacker_check(ctx, g, a)
        if not g.attackers:
            continue
        fight = _aggression(ctx, g) or g
        (first if fight is not g else out).append(fight)
        for d in _defending(s, fight):
            if d.engaged or not d.on_map:
                continue
            dr = ctx.d10(f"defender check of {d.id}", Roll("defender check", d.id))
            hits, outcome = segment.defender_check(s.charts, counter(d), dr)
            ctx.log(
                "pre-shock",
                f"{d.id} braces for the shock: rolls {dr} against TQ {_tq_text(s, d)}: {outcome}",
                {"unit": d.id, "hits": hits, "outcome": outcome},
                (dr,),
            )
            if outcome == "eliminated":
                eliminate(ctx, d)
            else:
                add_hits(ctx, d, hits, "defender pre-shock check")
        for h in list(fight.defenders):
            if not _defending(s, fight, [h]):
                fight.defenders.remove(h)
                fight.vacated.append(h)
    return first + out


def _tq_text(s: CofState, u: Unit) -> str:
    """A unit's TQ as a check reads it: in column, the printed TQ less 2 (rulebook §6.35)."""
    tq = segment.column_tq(s.charts, counter(u))
    return f"{tq} (in column)" if tq != u.tq else str(tq)


def _attacker_check(ctx: Ctx, g: _Shock, a: Unit) -> None:
    """A may-shock attacker's pre-shock check (cof.md §8.4 #1): a CH-2 and its runners each
    check (rulebook §8.41, §8.14); one that fails holds back with its hit, and the other
    attacks alone on its own chart line (a CH-2 whose runners hold back may then find no
    column against its target, §8.6: it does not shock)."""
    s = ctx.s
    mates = _with_mates(s, [a])
    failed = []
    for u in mates:
        dr = ctx.d10(f"pre-shock check of {u.id}", Roll("pre-shock check", u.id))
        got = cohesion.check(s.charts, "must_check_attacker", u.tq, dr)
        ctx.log(
            "pre-shock",
            f"{u.id} must check to shock: rolls {dr} against TQ {u.tq}: "
            + ("it attacks" if got.passed else "it holds back"),
            {"unit": u.id, "passed": got.passed},
            (dr,),
        )
        if not got.passed:
            failed.append(u)
            add_hits(ctx, u, got.hits, "failed pre-shock check")
    if not failed:
        return
    i = g.attackers.index(a)
    foes = {chart_type(s, d).code for d in _defending(s, g)}
    left = [
        u
        for u in mates
        if u not in failed and u.on_map and not u.routed
        and any(s.charts.clash[(u.type, f)].column > 0 for f in foes)
    ]  # fmt: skip
    for u in mates:
        if u not in failed and u not in left and u.on_map:
            ctx.log("pre-shock", f"{u.id} may not shock alone: it holds back", {"unit": u.id})
    g.held.update(u.id for u in mates if u not in left)
    g.attackers[i : i + 1] = left[:1]
    for u in left[:1]:
        g.duty.setdefault(u.id, g.duty[a.id])


def _aggression(ctx: Ctx, g: _Shock) -> _Shock | None:
    """Aggression Reaction against shock (cof.md §8.10, rulebook §8.55-§8.56): the one
    defending BI or lone RI, attacked only by chariots (an RI: by CH-3) with one in its front
    hexes, tries when its owner's standing order ``aggression-shock`` says so: a roll at most its
    printed TQ turns it into the attacker of every original attacker in its front hexes, with
    no check of its own. pbem [E]: only a shock on that one defending piece may be turned;
    an original attacker in its flank fights no shock."""
    s = ctx.s
    reactors = {piece(s, d).id: piece(s, d) for d in _defending(s, g)}
    if len(reactors) != 1:
        return None
    (reactor,) = reactors.values()
    attackers = [piece(s, a) for a in g.attackers]
    if not aggression_against_shock(reactor, attackers):
        return None
    if policy_of(s, reactor.side).get("aggression-shock") != "always":
        return None
    dr = ctx.d10(f"aggression reaction of {reactor.id}", Roll("aggression reaction", reactor.id))
    ok = cohesion.aggression_vs_shock(s.charts, reactor.tq, dr)
    verdict = "it attacks instead" if ok else "it awaits the shock"
    what = f"{reactor.id} tries to strike first: rolls {dr} against TQ {reactor.tq}: {verdict}"
    ctx.log("aggression", what, {"unit": reactor.id, "passed": ok}, (dr,))
    if not ok:
        return None
    targets = aggression_must_attack(reactor, attackers)
    unit = s.unit(reactor.id)
    return _Shock([unit], sorted({s.unit(t).hex for t in targets}), unit.side, {unit.id: "ar"})


def _involved(s: CofState, g: _Shock) -> tuple[list[Leader], list[Leader]]:
    """The leaders stacked with a unit of the shock, attacker's and defender's."""
    att = sorted({u.hex for u in g.attackers})
    return (
        [ld for h in att for ld in s.leaders_at(h) if ld.side == g.side],
        [ld for h in g.defenders for ld in s.leaders_at(h) if ld.side != g.side],
    )


def _leaders(ctx: Ctx, ph: Phase, shocks: list[_Shock]) -> int:
    """Step c (cof.md §8.5, §10.2 #1): in a heroic battle a shock with leaders of both sides
    and a hero among them brings a duel; otherwise every leader with a unit of a shock
    checks for casualties. The duels' modifier for the active side's shocks."""
    s = ph.s
    drm = 0
    for g in shocks:
        if not g.attackers or not g.defenders:
            continue
        att, dfd = _involved(s, g)
        if att and dfd and is_heroic_shock(s, att, dfd):
            got, duelists = shock_duel(ctx, att, dfd)
            drm += got if g.side == ph.side else -got
            g.idle = {ld.id for ld in (*att, *dfd)} - set(duelists)
            continue
        for ld in (*att, *dfd):
            if ld.on_map:
                leader_check(ctx, ld, "shock")
    return drm


def _bonus(s: CofState, units: list[Unit], idle: set[str]) -> list[int]:
    out = []
    for h in sorted({u.hex for u in units}):
        for ld in s.leaders_at(h):
            if ld.side != units[0].side or ld.id in idle:
                continue
            if ld.role == "OC":
                out.append(ld.rating(ld.charisma))
            elif ld.role == "WC":
                out.append(shock.wing_leader_bonus(s.charts))
    return out


def _fronted(s: CofState, lead: Unit, behind: set[str], shocks: list[_Shock]) -> bool:
    """Whether a rear attack by ``lead`` (on the units in ``behind``) loses its superiority
    (rulebook §8.17 #1A): ``lead`` stands in the front hex of another enemy unit that no
    other friendly unit attacks in this Shock Segment."""
    mine = {lead.id, lead.stacked_with}
    attacked = {
        h for g in shocks for h in g.defenders if any(a.id not in mine for a in g.attackers)
    }
    return any(
        lead.at in front_hexes(e.at, e.facing)
        for e in s.live(other(lead.side))
        if e.hex not in behind and e.hex not in attacked
    )


def _resolve(ctx: Ctx, ph: Phase, g: _Shock, hero_drm: int, shocks: list[_Shock]) -> None:
    """Step d (cof.md §8.6-§8.8) for one shock; ``hero_drm`` the duels' modifier for the
    active side's shocks (cof.md §10.4 #2); ``shocks`` every shock of the segment."""
    s = ph.s
    defenders = _defending(s, g)
    if not g.attackers or not defenders:
        return
    d_types = {chart_type(s, d).code: d for d in defenders}
    best: tuple[int, str, Unit] | None = None
    for a in g.attackers:
        at = _type(s, g, a)
        cols = [s.charts.clash[(at.code, dc)].column for dc in d_types]
        if min(cols) > 0 and (best is None or min(cols) > best[0]):
            best = (min(cols), at.code, a)
    if best is None:
        return
    _, a_code, lead = best
    d_code = min(d_types, key=lambda dc: (s.charts.clash[(a_code, dc)].column, dc))
    target = d_types[d_code]
    behind = {d.hex for d in defenders if lead.at in rear_hexes(d.at, d.facing)}
    rear = bool(behind)
    fronted = _fronted(s, lead, behind, shocks)
    flank = any(a.at in flank_hexes(d.at, d.facing) for a in g.attackers for d in defenders)
    shifts = shock_shifts(
        s.charts,
        ground(s),
        [GHex.parse(h) for h in g.defenders],
        [a.at for a in g.attackers],
        chariots_attack=all(_type(s, g, a).code in CHARIOTS for a in g.attackers),
    )
    drm = shock.leader_drm(_bonus(s, g.attackers, g.idle), _bonus(s, defenders, g.idle))
    drm += hero_drm if g.side == ph.side else -hero_drm
    dr = ctx.d10(f"shock of {lead.id} on {target.hex}", Roll("shock", lead.id, target.hex))
    res = shock.resolve_shock(
        s.charts,
        s.charts.types[a_code],
        s.charts.types[d_code],
        dr,
        rear=rear,
        rear_attacker_fronted=fronted,
        defender_in_column=any(d.column for d in defenders),
        flank=flank,
        attackers=len(g.attackers),
        defenders=len({piece(s, d).id for d in defenders}),
        terrain_shifts=shifts,
        drm=drm,
    )
    ctx.log(
        "shock",
        f"{', '.join(a.id for a in g.attackers)} shock {', '.join(g.defenders)} "
        f"({a_code} on {d_code}, column {res.column}, {res.superiority}): rolls {dr}"
        f"{f' {drm:+d}' if drm else ''}: {res.attacker_hits} ({res.defender_hits})",
        {"attackers": [a.id for a in g.attackers], "hexes": [a.hex for a in g.attackers],
         "defenders": list(g.defenders),
         "column": res.column, "superiority": res.superiority, "modified": res.modified,
         "attacker_hits": res.attacker_hits, "defender_hits": res.defender_hits},
        (dr,),
    )  # fmt: skip
    att = _with_mates(s, g.attackers, g.held)
    g.superior = lead.id if res.superiority == "AS" else None
    first = [lead.id] if res.superiority == "AS" else []  # §9.2 #1, then the owner's choice
    got = shock.distribute_hits(res.attacker_hits, [u.id for u in att], first + hit_order(s, att))
    for u in att:
        add_hits(ctx, u, got[u.id], "shock", rout_now=False)
    first = [target.id] if res.superiority == "DS" else []
    shares = shock.distribute_hits(
        res.defender_hits, [d.id for d in defenders], first + hit_order(s, defenders)
    )
    for d in defenders:
        add_hits(ctx, d, shares[d.id], "shock", rout_now=False)
    g.fought = att + defenders


def _sides(g: _Shock, side: str) -> tuple[list[Piece], list[Piece]]:
    """A shock's counters still on the map, one by one, as the rules see them now:
    (attackers, defenders) for the attacking ``side``."""
    on = [counter(u) for u in g.fought if u.on_map]
    return [p for p in on if p.side == side], [p for p in on if p.side != side]


def _collapse(ctx: Ctx, ph: Phase, shocks: list[_Shock], engaged_before: set[str]) -> None:
    """Step e #1-#2 (cof.md §8.9, §9.2 #3)."""
    s = ph.s
    fought = [g for g in shocks if g.fought]
    extra = {
        u.id: entry_hits(s, u, g.defenders[0])
        for g in fought
        for u in g.attackers
        if u.on_map and u.at.distance(GHex.parse(g.defenders[0])) == 1
    }
    got = segment.collapse(s.charts, [_sides(g, g.side) for g in fought], advance_hits=extra)
    for uid, hits in sorted(got.hits.items()):
        s.unit(uid).hits = hits
        ctx.log("mutual-rout", f"both sides break: {uid} holds with {hits} hits", {"unit": uid})
    for uid in got.routs:
        u = s.unit(uid)
        if u.on_map and not u.routed:
            rout(ctx, u)
    for u in sorted(s.live(), key=lambda u: u.id):
        p, was = counter(u), u.id in engaged_before
        if not segment.collapse_check_due(s.charts, p, engaged_at_start=was):
            continue
        dr = ctx.d10(f"collapse check of {u.id}")
        if segment.engaged_collapse(s.charts, p, dr, engaged_at_start=was) == "recovers":
            u.hits -= 1
            ctx.log("collapse", f"{u.id} holds (rolls {dr}): one hit off", {"unit": u.id}, (dr,))
        else:
            ctx.log("collapse", f"{u.id} collapses (rolls {dr})", {"unit": u.id}, (dr,))
            rout(ctx, u)


def _advance(ctx: Ctx, ph: Phase, g: _Shock) -> None:
    """Step e #3 (cof.md §8.9 #3, rulebook §8.21-§8.23): every hex the shock emptied is
    entered by one of its attackers next to it that has not advanced yet
    (:mod:`engine.cof.advance`)."""
    s = ph.s
    for h in hex_order(ph, g.vacated + g.defenders):
        if s.units_at(h):
            continue
        to = GHex.parse(h)
        near = [
            a for a in g.attackers
            if a.on_map and not a.routed and a.id not in g.advanced and to in a.at.neighbours()
        ]  # fmt: skip
        who = segment.advancers(
            pieces(s),
            [counter(a) if a.stacked_with in g.held else piece(s, a) for a in near],
            superior=g.superior,
            emptied_by_check=h in g.vacated,
        )
        if not who:
            continue
        mover = s.unit(chosen(ph, who, h))
        mates = _with_mates(s, [mover], g.held)
        g.advanced.update(m.id for m in mates)
        advance_unit(ctx, ph, mover, h, mates, reactions="ar" not in g.duty.values())


def _engaged(ph: Phase, shocks: list[_Shock]) -> None:
    """Step e #4 (cof.md §8.9 #4, §9.4)."""
    s = ph.s
    groups = []
    for g in shocks:
        if g.fought:
            a, d = _sides(g, g.side)
            groups.append(([p for p in a if not p.routed], [p for p in d if not p.routed]))
    gone = {uid for g in shocks for uid in g.advanced}
    for uid in segment.engaged_after(groups, gone=gone):
        s.unit(uid).engaged = True


def shock_segment(ph: Phase, plan: Plan = ()) -> None:
    """Run the Shock Segment after the activated wing's movement and fire; ``plan`` the
    attacks the player wrote (none: pbem's plan)."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    engaged_before = {u.id for u in s.live() if u.engaged}
    shocks = _designate(ph, plan)
    if shocks:
        _fight(ctx, ph, shocks, engaged_before)


def aggression_shock(ph: Phase, reactor: Unit, defenders: list[str]) -> None:
    """The shock of a unit making an Aggression Reaction against fire (cof.md §8.10),
    resolved at once: ``ph`` is its own side's (its owner attacks), ``defenders`` the hexes it
    must attack; the reactor takes no pre-shock check and no reaction fire, the defenders
    their checks."""
    ctx = ph.ctx
    assert ctx is not None
    engaged_before = {u.id for u in ph.s.live() if u.engaged}
    g = _Shock([reactor], list(defenders), reactor.side, {reactor.id: "ar"})
    _fight(ctx, ph, [g], engaged_before)


def _fight(ctx: Ctx, ph: Phase, shocks: list[_Shock], engaged_before: set[str]) -> None:
    """Steps b to e of the Shock Segment (cof.md §8.4-§8.9) for the designated shocks."""
    s = ph.s
    shocks = _prechecks(ctx, ph, shocks)
    hero_drm = _leaders(ctx, ph, shocks)
    for g in shocks:
        _resolve(ctx, ph, g, hero_drm, shocks)
    _collapse(ctx, ph, shocks, engaged_before)
    for g in shocks:
        _advance(ctx, ph, g)
    _engaged(ph, shocks)
    separate(s)
