"""The Shock Segment of an Orders Phase (cof.md §3 C2, §8, §9.2, §9.4).

Each step is completed for every shock before the next: designation (§8.2), target
assignment (§8.3), pre-shock TQ checks (§8.4), leader casualties (§8.5), resolution on the
charts (:func:`engine.cof.shock.resolve_shock`, §8.6-§8.8), then collapse, advance and
Engaged markers (§8.9). Shock is not an order: who must shock follows from position; a unit
that *may* shock (adjacent all the Movement Segment without moving) shocks only when its
orders say ``shock UNIT``, and ``shock UNIT HEX`` adds a defender in a flank hex.
pbem's readings where the rules leave a choice [E]: the attacker fights on the chart line
that gives it the best column, the defender on the worst for the attacker; a CH-2 with its
runners takes the stack's pre-shock check on its chariot; the advancing unit is the one
with the highest TQ; it keeps its facing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.cof import cohesion, shock
from engine.cof.movement import terrain_hits
from engine.cof.phase import Phase
from engine.cof.state import Unit
from engine.cof.steps import Ctx, add_hits, chart_type, leader_check, rout, separate
from engine.gboh.grid import GHex, flank_hexes, front_hexes, rear_hexes

__all__ = ["aggression_shock", "shock_segment"]


@dataclass
class _Shock:
    attackers: list[Unit]
    defenders: list[str]
    duty: dict[str, str] = field(default_factory=dict)
    vacated: list[str] = field(default_factory=list)
    advanced: set[str] = field(default_factory=set)
    fought: list[Unit] = field(default_factory=list)


def _with_mates(ph: Phase, units: list[Unit]) -> list[Unit]:
    out: list[Unit] = []
    for u in units:
        out.append(u)
        if u.stacked_with:
            mate = ph.s.unit(u.stacked_with)
            if mate.on_map and mate.hex == u.hex and mate not in out:
                out.append(mate)
    return out


def _defending(ph: Phase, hexes: list[str]) -> list[Unit]:
    return [x for h in hexes for x in ph.s.units_at(h) if x.side != ph.side]


def _designate(ph: Phase) -> list[_Shock]:
    s = ph.s
    enemies = {
        e.at: chart_type(s, e) for e in ph.enemies() if not (e.type == "RI" and e.stacked_with)
    }
    ordered = {uid for uid, _ in ph.shock}
    extra: dict[str, list[str]] = {}
    for uid, h in ph.shock:
        if h:
            extra.setdefault(uid, []).append(h)
    candidates: list[tuple[int, int, str, Unit, list[GHex]]] = []
    for u in ph.units():
        if u.type == "RI" and u.stacked_with and s.unit(u.stacked_with).hex == u.hex:
            continue  # the stack acts through its chariot
        troop = chart_type(s, u)
        fronts = shock.front_targets(s.charts, troop, u.at, u.facing, enemies)
        if not fronts:
            continue
        duty = shock.shock_duty(
            troop,
            ended_adjacent=u.id in ph.moved,
            engaged=u.engaged,
            adjacent_throughout=u.id not in ph.moved,
            in_column=u.column,
            routed=u.routed or u.rallied,
            turned_in_place=u.id in ph.turned,
        )
        if duty is None or (duty == "may" and u.id not in ordered):
            continue
        candidates.append((0 if duty == "must" else 1, len(fronts), u.id, u, fronts))
    shocks: list[_Shock] = []
    taken: dict[str, _Shock] = {}
    for rank, _, _, u, fronts in sorted(candidates, key=lambda c: c[:3]):
        duty = "must" if rank == 0 else "may"
        own = [str(h) for h in fronts if str(h) not in taken]
        if own:
            for h in extra.get(u.id, []):
                target = GHex.parse(h)
                legal = target in flank_hexes(u.at, u.facing) and target in enemies
                if (
                    legal
                    and h not in taken
                    and shock.may_shock(s.charts, chart_type(s, u), enemies[target])
                ):
                    own.append(h)
            g = _Shock([u], own, {u.id: duty})
            shocks.append(g)
            for h in own:
                taken[h] = g
            continue
        g = taken[str(fronts[0])]
        if len(g.defenders) == 1:
            g.attackers.append(u)
            g.duty[u.id] = duty
    return shocks


def _prechecks(ctx: Ctx, ph: Phase, shocks: list[_Shock]) -> None:
    s = ph.s
    for g in shocks:
        for a in list(g.attackers):
            if g.duty[a.id] != "may" or all(x.routed for x in _defending(ph, g.defenders)):
                continue
            dr = ctx.d10(f"pre-shock check of {a.id}")
            got = cohesion.check(s.charts, "must_check_attacker", a.tq, dr)
            ctx.log(
                "pre-shock",
                f"{a.id} must check to shock: rolls {dr} against TQ {a.tq}: "
                + ("it attacks" if got.passed else "it holds back"),
                {"unit": a.id, "passed": got.passed},
                (dr,),
            )
            if not got.passed:
                g.attackers.remove(a)
                add_hits(ctx, a, got.hits, "failed pre-shock check")
        if not g.attackers:
            continue
        for d in _defending(ph, g.defenders):
            if d.engaged or not d.on_map:
                continue
            tq = cohesion.effective_tq(s.charts, d.tq, routed=d.routed, column=d.column)
            dr = ctx.d10(f"defender check of {d.id}")
            got = cohesion.check(s.charts, "defender_check", tq, dr)
            ctx.log(
                "pre-shock",
                f"{d.id} braces for the shock: rolls {dr} against TQ {tq}",
                {"unit": d.id, "hits": got.hits},
                (dr,),
            )
            add_hits(ctx, d, got.hits, "defender pre-shock check")
        for h in list(g.defenders):
            if not [x for x in s.units_at(h) if x.side != ph.side]:
                g.defenders.remove(h)
                g.vacated.append(h)


def _leaders(ctx: Ctx, ph: Phase, shocks: list[_Shock]) -> None:
    s = ph.s
    hexes = sorted(
        {u.hex for g in shocks if g.attackers and g.defenders for u in g.attackers}
        | {h for g in shocks if g.attackers for h in g.defenders}
    )
    for h in hexes:
        for ld in s.leaders_at(h):
            leader_check(ctx, ld, "shock")


def _bonus(ph: Phase, units: list[Unit]) -> list[int]:
    s = ph.s
    out = []
    for h in sorted({u.hex for u in units}):
        for ld in s.leaders_at(h):
            if ld.side != units[0].side:
                continue
            if ld.role == "OC":
                out.append(ld.rating(ld.charisma))
            elif ld.role == "WC":
                out.append(shock.wing_leader_bonus(s.charts))
    return out


def _resolve(ctx: Ctx, ph: Phase, g: _Shock) -> None:
    s = ph.s
    defenders = _defending(ph, g.defenders)
    if not g.attackers or not defenders:
        return
    d_types = {chart_type(s, d).code: d for d in defenders}
    best: tuple[int, str, Unit] | None = None
    for a in g.attackers:
        at = chart_type(s, a)
        cols = [s.charts.clash[(at.code, dc)].column for dc in d_types]
        if min(cols) > 0 and (best is None or min(cols) > best[0]):
            best = (min(cols), at.code, a)
    if best is None:
        return
    _, a_code, lead = best
    a_type = s.charts.types[a_code]
    d_code = min(d_types, key=lambda dc: (s.charts.clash[(a_code, dc)].column, dc))
    target = d_types[d_code]
    d_type = s.charts.types[d_code]
    fronted = any(
        lead.at in front_hexes(e.at, e.facing) for e in ph.enemies() if e.hex not in g.defenders
    )
    rear = any(lead.at in rear_hexes(d.at, d.facing) for d in defenders)
    flank = any(a.at in flank_hexes(d.at, d.facing) for a in g.attackers for d in defenders)
    shifts = []
    if max(s.elevation.get(h, 0) for h in g.defenders) > max(
        s.elevation.get(a.hex, 0) for a in g.attackers
    ):
        shifts.append("higher_ground")
    crossed = [set(s.hexside_kinds(a.at, d.at)) for a in g.attackers for d in defenders
               if a.at.distance(d.at) == 1]  # fmt: skip
    for kind in ("minor_river", "stream"):
        if crossed and all(kind in c for c in crossed):
            shifts.append(kind)
    drm = shock.leader_drm(_bonus(ph, g.attackers), _bonus(ph, defenders))
    dr = ctx.d10(f"shock of {lead.id} on {target.hex}")
    res = shock.resolve_shock(
        s.charts,
        a_type,
        d_type,
        dr,
        rear=rear,
        rear_attacker_fronted=fronted,
        defender_in_column=any(d.column for d in defenders),
        flank=flank,
        attackers=len(g.attackers),
        defenders=len(g.defenders),
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
    att = _with_mates(ph, g.attackers)
    first = [lead.id] if res.superiority == "AS" or rear else []
    got = shock.distribute_hits(res.attacker_hits, [u.id for u in att], first)
    for u in att:
        add_hits(ctx, u, got[u.id], "shock", rout_now=False)
    shares = shock.distribute_hits(res.defender_hits, [d.id for d in defenders], [target.id])
    for d in defenders:
        add_hits(ctx, d, shares[d.id], "shock", rout_now=False)
    g.fought = att + defenders


def _collapse(ctx: Ctx, ph: Phase, shocks: list[_Shock], engaged_before: set[str]) -> None:
    s = ph.s
    for g in shocks:
        att = [u for u in _with_mates(ph, g.attackers) if u.on_map]
        dfd = [u for u in g.fought if u.on_map and u.side != ph.side]
        loser = shock.mutual_rout([(u.hits, u.tq) for u in att], [(u.hits, u.tq) for u in dfd])
        if loser is None:
            continue
        spared = dfd if loser == "attacker" else att
        for u in spared:
            u.hits = u.tq - 1
        ctx.log("mutual-rout", f"both sides break: the {loser} routs", {"routs": loser})
    for u in sorted(s.live(), key=lambda u: u.id):
        if u.on_map and not u.routed and cohesion.routs(u.hits, u.tq):
            rout(ctx, u)
    for u in sorted(s.live(), key=lambda u: u.id):
        if u.id in engaged_before and not u.routed and u.hits == u.tq - 1:
            dr = ctx.d10(f"collapse check of {u.id}")
            if cohesion.check(s.charts, "engaged_collapse", u.tq, dr).passed:
                u.hits -= 1
                ctx.log(
                    "collapse", f"{u.id} holds (rolls {dr}): one hit off", {"unit": u.id}, (dr,)
                )
            else:
                ctx.log("collapse", f"{u.id} collapses (rolls {dr})", {"unit": u.id}, (dr,))
                rout(ctx, u)


def _advance(ctx: Ctx, ph: Phase, g: _Shock) -> None:
    s = ph.s
    empty = [h for h in g.vacated + g.defenders if not s.units_at(h)]
    able = [a for a in g.attackers if a.on_map and not a.routed]
    if not empty or not able:
        return
    enemy_fronts = {h for e in ph.enemies() for h in front_hexes(e.at, e.facing)}
    mover = max(able, key=lambda a: (a.tq, [-ord(c) for c in a.id]))
    h = GHex.parse(empty[0])
    if h not in mover.at.neighbours():
        return
    if empty[0] in g.vacated and mover.at in enemy_fronts:
        return
    hits = terrain_hits(
        s.charts, s.charts.types[mover.type], s.terrain_at(h), s.hexside_kinds(mover.at, h)
    )
    start = mover.hex
    for m in _with_mates(ph, [mover]):
        m.hex, m.engaged = empty[0], False
        g.advanced.add(m.id)
    if hits:
        mover.hits = min(mover.hits + hits, mover.tq - 1)  # never routs by advancing (§8.9)
    ctx.log("advance", f"{mover.id} advances {start} -> {mover.hex}", {"unit": mover.id})
    ph.entry_fire(mover)


def shock_segment(ph: Phase) -> None:
    """Run the Shock Segment after the activated wing's movement and fire."""
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    engaged_before = {u.id for u in s.live() if u.engaged}
    shocks = _designate(ph)
    if shocks:
        _fight(ctx, ph, shocks, engaged_before)


def aggression_shock(ph: Phase, reactor: Unit, defenders: list[str]) -> None:
    """The shock of a unit making an Aggression Reaction (cof.md §8.10), resolved at once:
    ``ph`` is its own side's (its owner attacks), ``defenders`` the hexes it must attack;
    the reactor takes no pre-shock check, the defenders theirs."""
    ctx = ph.ctx
    assert ctx is not None
    engaged_before = {u.id for u in ph.s.live() if u.engaged}
    _fight(ctx, ph, [_Shock([reactor], list(defenders), {reactor.id: "must"})], engaged_before)


def _fight(ctx: Ctx, ph: Phase, shocks: list[_Shock], engaged_before: set[str]) -> None:
    """Steps b to e of the Shock Segment (cof.md §8.4-§8.9) for the designated shocks."""
    s = ph.s
    _prechecks(ctx, ph, shocks)
    _leaders(ctx, ph, shocks)
    for g in shocks:
        _resolve(ctx, ph, g)
    _collapse(ctx, ph, shocks, engaged_before)
    for g in shocks:
        _advance(ctx, ph, g)
    for g in shocks:
        for u in g.fought:
            if not u.on_map or u.routed or u.id in g.advanced:
                continue
            foes = [x for x in g.fought if x.side != u.side and x.on_map and not x.routed]
            if any(x.at.distance(u.at) == 1 for x in foes):
                u.engaged = True
    separate(s)
