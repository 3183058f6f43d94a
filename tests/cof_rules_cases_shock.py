"""The rules a Chariots of Fire rules case may call (``do``), part two: shock, effects,
leaders, command, heroes and withdrawal (cof.md §3-§5, §8-§11). :data:`RULES` holds both parts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from cof_rules_cases_rules import RULES_MOVE_FIRE, Ctx, hexes, ids, num, yn

from engine.cof import cohesion, command, heroes, leaders, rout, segment, shock
from engine.cof.pieces import Piece
from engine.gboh.grid import GHex, HexMap

H = GHex.parse


# --- §8 shock ---------------------------------------------------------------------------------


def _may_shock(c: Ctx, a: dict[str, Any]) -> str:
    return yn(shock.may_shock(c.charts, c.type(a["attacker"]), c.type(a["defender"])))


def _clash(c: Ctx, a: dict[str, Any]) -> str:
    att, dfn = c.type(a["attacker"]), c.type(a["defender"])
    col = shock.base_column(c.charts, att, dfn)
    sup = shock.superiority(
        c.charts,
        att,
        dfn,
        rear=a.get("rear", False),
        rear_attacker_fronted=a.get("fronted", False),
        defender_in_column=a.get("column", False),
    )
    return f"column={col} {sup}"


def _shifted(c: Ctx, a: dict[str, Any]) -> str:
    return str(
        shock.shifted_column(
            c.charts,
            a["base"],
            flank=a.get("flank", False),
            attackers=a.get("attackers", 1),
            defenders=a.get("defenders", 1),
            terrain_shifts=a.get("terrain", []),
        )
    )


def _crt(c: Ctx, a: dict[str, Any]) -> str:
    att, dfn = shock.crt(c.charts, a["column"], a["dr"])
    if "superiority" in a:
        att, dfn = shock.multiplied(c.charts, (att, dfn), a["superiority"])
    return f"{att} ({dfn})"


def _resolve_shock(c: Ctx, a: dict[str, Any]) -> str:
    s = shock.resolve_shock(
        c.charts,
        c.type(a["attacker"]),
        c.type(a["defender"]),
        a["dr"],
        rear=a.get("rear", False),
        defender_in_column=a.get("column", False),
        flank=a.get("flank", False),
        attackers=a.get("attackers", 1),
        defenders=a.get("defenders", 1),
        terrain_shifts=a.get("terrain", []),
        drm=a.get("drm", 0),
    )
    return (
        f"column={s.column} {s.superiority} dr={s.modified} {s.attacker_hits} ({s.defender_hits})"
    )


def _leader_drm(c: Ctx, a: dict[str, Any]) -> str:
    return str(shock.leader_drm(a.get("attacking", []), a.get("defending", [])))


def _modifier(c: Ctx, a: dict[str, Any]) -> str:
    if a["name"] == "wing_leader":
        return str(shock.wing_leader_bonus(c.charts))
    return str(heroes.hero_drm(c.charts, a.get("attacker_won", True)))


def _distribute(c: Ctx, a: dict[str, Any]) -> str:
    got = shock.distribute_hits(a["hits"], a["units"].split(), a.get("priority", "").split())
    return " ".join(f"{k}={v}" for k, v in got.items())


def _mutual(c: Ctx, a: dict[str, Any]) -> str:
    def pairs(s: str) -> list[tuple[int, int]]:
        return [(int(x.split("/")[0]), int(x.split("/")[1])) for x in s.split()]

    return shock.mutual_rout(pairs(a["attackers"]), pairs(a["defenders"])) or "none"


def _designate(c: Ctx, a: dict[str, Any]) -> str:
    got = segment.designate(
        c.charts,
        c.pieces,
        a["side"],
        moved=a.get("moved", "").split(),
        turned_in_place=a.get("turned", "").split(),
    )
    return " ".join(f"{k}:{v}" for k, v in sorted(got.items())) or "none"


def _attacks(text: str) -> list[segment.Attack]:
    out = []
    for part in text.split(";"):
        att, _, dfn = part.partition(">")
        out.append(segment.Attack(tuple(att.split()), tuple(dfn.split())))
    return out


def _show(attacks: list[segment.Attack]) -> str:
    return "; ".join(f"{' '.join(x.attackers)}>{' '.join(x.defenders)}" for x in attacks)


def _plan(c: Ctx, a: dict[str, Any]) -> str:
    duties = segment.designate(c.charts, c.pieces, a["side"], moved=a.get("moved", "").split())
    return _show(segment.plan(c.charts, c.pieces, duties, include_may=a.get("may", "").split()))


def _plan_problem(c: Ctx, a: dict[str, Any]) -> str:
    duties = segment.designate(c.charts, c.pieces, a["side"], moved=a.get("moved", "").split())
    return segment.plan_problem(c.charts, c.pieces, duties, _attacks(a["plan"])) or "ok"


def _defender_check(c: Ctx, a: dict[str, Any]) -> str:
    hits, outcome = segment.defender_check(c.charts, c.unit(a["unit"]), a["dr"])
    return f"{hits} {outcome}"


def _check(c: Ctx, a: dict[str, Any]) -> str:
    got = cohesion.check(c.charts, a["event"], a["tq"], a["dr"])
    return f"{'passed' if got.passed else 'failed'} hits={got.hits}"


def _shocks(c: Ctx, groups: list[str]) -> list[tuple[list[Piece], list[Piece]]]:
    out = []
    for g in groups:
        att, _, dfn = g.partition(">")
        out.append((c.units(att), c.units(dfn)))
    return out


def _collapse(c: Ctx, a: dict[str, Any]) -> str:
    got = segment.collapse(c.charts, _shocks(c, a["shocks"]), advance_hits=a.get("advance_hits"))
    hits = " ".join(f"{k}={v}" for k, v in sorted(got.hits.items()))
    return f"routs={ids(got.routs)} hits={hits or 'none'}"


def _engaged_collapse(c: Ctx, a: dict[str, Any]) -> str:
    return segment.engaged_collapse(
        c.charts, c.unit(a["unit"]), a["dr"], engaged_at_start=a.get("engaged_at_start", True)
    )


def _advancers(c: Ctx, a: dict[str, Any]) -> str:
    return ids(
        segment.advancers(
            c.pieces,
            c.units(a["attackers"]),
            superior=a.get("superior"),
            emptied_by_check=a.get("by_check", False),
        )
    )


def _advance_hits(c: Ctx, a: dict[str, Any]) -> str:
    return str(segment.advance_hits(c.unit(a["unit"]), a["entry_hits"]))


def _advance_facings(c: Ctx, a: dict[str, Any]) -> str:
    return ids(segment.advance_facings(c.charts, c.unit(a["unit"])))


def _engaged_after(c: Ctx, a: dict[str, Any]) -> str:
    return ids(segment.engaged_after(_shocks(c, a["shocks"]), gone=a.get("gone", "").split()))


# --- §9 effects ---------------------------------------------------------------------------------


def _rout_hexes(c: Ctx, a: dict[str, Any]) -> str:
    std = H(a["standard"]) if a.get("standard") else None
    return hexes(rout.rout_hexes(c.charts, c.ground, c.pieces, c.unit(a["unit"]), std))


def _rout_roll(c: Ctx, a: dict[str, Any]) -> str:
    return cohesion.rout_roll(c.charts, a["tq"], a["dr"], standard=a.get("standard", True))


def _routed_hit(c: Ctx, a: dict[str, Any]) -> str:
    return "eliminated" if rout.routed_hit(c.unit(a["unit"]), a["hits"]) else "stays"


def _standard(a: dict[str, Any]) -> rout.Standard:
    at = a.get("standard")
    return rout.Standard(
        a["standard_side"],
        H(at) if at else None,
        a.get("captured_by"),
        a.get("captured_turn"),
        a.get("eliminated", False),
    )


def _leaders_lost(c: Ctx, a: dict[str, Any]) -> str:
    return ids(rout.leaders_lost(c.chiefs, c.pieces, a["fled"].split()))


def _flee(c: Ctx, a: dict[str, Any]) -> str:
    return ids(rout.flee_near_standard(c.charts, c.pieces, _standard(a)))


def _captured(c: Ctx, a: dict[str, Any]) -> str:
    return yn(rout.standard_captured(c.pieces, _standard(a), c.unit(a["entering"])))


def _returns(c: Ctx, a: dict[str, Any]) -> str:
    return yn(rout.standard_returns(_standard(a), a["turn"], owner_may_move=a["owner_may_move"]))


def _withdraw_hexes(c: Ctx, a: dict[str, Any]) -> str:
    return hexes(
        rout.engaged_withdrawal_hexes(
            c.charts, c.ground, c.pieces, c.unit(a["unit"]), c.units(a["engaged_with"])
        )
    )


def _withdraw_roll(c: Ctx, a: dict[str, Any]) -> str:
    return yn(command.withdraw_engaged(a["dr"], a["rating"], oc_charisma=a.get("charisma", 0)))


def _stack(c: Ctx, a: dict[str, Any]) -> str:
    return rout.stack_problem(c.units(a["units"])) or "ok"


def _may_enter(c: Ctx, a: dict[str, Any]) -> str:
    there = [p for p in c.pieces if p.hex == H(a["hex"])]
    return rout.may_enter(c.unit(a["mover"]), there, passing=a.get("passing", True)) or "ok"


def _passing(c: Ctx, a: dict[str, Any]) -> str:
    p = rout.passing_friend(
        c.charts,
        c.unit(a["mover"]),
        c.unit(a["passed"]),
        active=a.get("active", True),
        along_road=a.get("road", False),
    )
    gone = yn(p.passed_eliminated)
    return f"mp={p.mp} mover={p.mover_hits} passed={p.passed_hits} eliminated={gone}"


def _rally(c: Ctx, a: dict[str, Any]) -> str:
    got = cohesion.rally(a["rating"], a["tq"], a["dr"])
    return "routed" if got is None else f"rallied hits={got}"


def _recover(c: Ctx, a: dict[str, Any]) -> str:
    return str(cohesion.recover(a["hits"]))


def _effective_tq(c: Ctx, a: dict[str, Any]) -> str:
    return str(
        cohesion.effective_tq(
            c.charts, a["tq"], routed=a.get("routed", False), column=a.get("column", False)
        )
    )


def _routs(c: Ctx, a: dict[str, Any]) -> str:
    return yn(cohesion.routs(a["hits"], a["tq"]))


def _pass_block(c: Ctx, a: dict[str, Any]) -> str:
    return "blocked" if cohesion.pass_through_blocked(c.charts, a["tq"], a["dr"]) else "passes"


def _turnover(c: Ctx, a: dict[str, Any]) -> str:
    got = cohesion.turnover(
        c.charts, a["unit"], a.get("speed", 0), a["dr"], fire_and_run=a.get("fr", False)
    )
    return "overturns" if got else "stays up"


def _casualty(c: Ctx, a: dict[str, Any]) -> str:
    rolls: Iterator[int] = iter(a["rolls"])
    return cohesion.leader_casualty(
        c.charts, a["kind"], rolls, num(c, a["rating"]), wounded=a.get("wounded", False)
    )


# --- §3, §4, §5, §11 leaders and command --------------------------------------------------


def _initiative(c: Ctx, a: dict[str, Any]) -> str:
    got = command.initiative(tuple(a["rolls"]), tuple(a["ratings"]))  # type: ignore[arg-type]
    return "none" if got is None else str(got)


def _momentum(c: Ctx, a: dict[str, Any]) -> str:
    return yn(command.momentum(a["dr"], a["rating"]))


def _trump(c: Ctx, a: dict[str, Any]) -> str:
    return yn(command.trump(a["dr"], num(c, a["initiative"])))


def _trump_allowed(c: Ctx, a: dict[str, Any]) -> str:
    return yn(
        command.trump_allowed(
            oc_alive=a.get("oc_alive", True),
            used_this_turn=a.get("used", False),
            oc_with_engaged=a.get("with_engaged", False),
            marker_chosen=a.get("chosen", False),
        )
    )


def _command_range(c: Ctx, a: dict[str, Any]) -> str:
    return str(
        command.command_range(
            a["printed"], wounded=a.get("wounded", False), with_engaged=a.get("with_engaged", False)
        )
    )


def _command_path(c: Ctx, a: dict[str, Any]) -> str:
    ld = c.chief(a["leader"])
    assert ld.hex is not None
    enemies = {p.hex for p in c.pieces if p.side != ld.side}
    got = command.command_path(
        HexMap(),
        ld.hex,
        H(a["unit"]),
        lambda h: h not in enemies and c.charts.terrain[c.ground.kind(h)].chariot_ok,
    )
    return "none" if got is None else str(got)


def _points(c: Ctx, a: dict[str, Any]) -> str:
    return str(command.withdrawal_points(a["tq"], a.get("oc_initiative", 0)))


def _outcome(c: Ctx, a: dict[str, Any]) -> str:
    return command.outcome(tuple(a["points"]), tuple(a["levels"]))  # type: ignore[arg-type]


def _displaced(c: Ctx, a: dict[str, Any]) -> str:
    got = leaders.displaced(c.pieces, c.chief(a["leader"]), H(a["enemy_at"]))
    return "eliminated" if got is None else hexes(got) if got else "stays"


def _wound(c: Ctx, a: dict[str, Any]) -> str:
    got = leaders.wound(c.chief(a["leader"]))
    if got is None:
        return "killed"
    r = leaders.ratings(got)
    return (
        f"wounded init={r.initiative} range={r.command_range}"
        f" charisma={r.charisma} ability={r.ability}"
    )


def _replacement(c: Ctx, a: dict[str, Any]) -> str:
    return hexes(leaders.replacement_hexes(c.pieces, c.chief(a["leader"])))


def _leader_move(c: Ctx, a: dict[str, Any]) -> str:
    ch = c.chief(a["leader"])
    mp, problem = leaders.trace_leader(
        c.charts, c.ground, c.pieces, ch, [H(h) for h in a["path"].split()]
    )
    ma = leaders.leader_ma(c.charts, ch)
    return f"mp={mp}/{ma}" + (f" stop: {problem}" if problem else "")


def _moves_on(c: Ctx, a: dict[str, Any]) -> str:
    wing = a["commands_wing"]
    wing = (
        bool(c.charts.tables.table("leaders")[wing]["commands_wing"])
        if isinstance(wing, str)
        else wing
    )
    return yn(leaders.moves_on(c.chief(a["leader"]), a["marker"], commands_wing=wing))


# --- §10 heroes --------------------------------------------------------------------------------


def _duel_round(c: Ctx, a: dict[str, Any]) -> str:
    r = heroes.duel_round(
        tuple(a["rolls"]),
        tuple(a["combat"]),
        tuple(a["endurance"]),  # type: ignore[arg-type]
        tuple(a.get("before", [0, 0])),  # type: ignore[arg-type]
    )
    return f"hits={r.hits[0]},{r.hits[1]} dead={yn(r.dead[0])},{yn(r.dead[1])}"


def _duel_hits(c: Ctx, a: dict[str, Any]) -> str:
    return str(heroes.duel_hits(a["lower"], a["higher"]))


def _hits_kept(c: Ctx, a: dict[str, Any]) -> str:
    return str(heroes.hits_kept(a["before"], a["taken"]))


def _archer(c: Ctx, a: dict[str, Any]) -> str:
    return "killed" if heroes.killed_by_archer(a["dr"]) else "missed"


def _heroic_shock(c: Ctx, a: dict[str, Any]) -> str:
    att = [c.chief(i) for i in a.get("attacking", "").split()]
    dfn = [c.chief(i) for i in a.get("defending", "").split()]
    return yn(heroes.heroic_shock(att, dfn))


def _duel_leader(c: Ctx, a: dict[str, Any]) -> str:
    return ids(heroes.duel_leader([c.chief(i) for i in a["involved"].split()]))


def _checks_casualty(c: Ctx, a: dict[str, Any]) -> str:
    return yn(heroes.checks_casualty(c.chief(a["leader"])))


def _challenge(c: Ctx, a: dict[str, Any]) -> str:
    got = heroes.challenge_problem(
        c.charts,
        c.ground,
        c.pieces,
        c.chief(a["hero"]),
        c.chief(a["target"]),
        path=[H(h) for h in a["path"].split()],
    )
    return got or "ok"


def _declined(c: Ctx, a: dict[str, Any]) -> str:
    return heroes.declined(c.chief(a["leader"]), c.pieces)


def _after_round(c: Ctx, a: dict[str, Any]) -> str:
    return heroes.after_round(tuple(a["taken"]), tuple(a.get("dead", [False, False])))  # type: ignore[arg-type]


def _marker(c: Ctx, a: dict[str, Any]) -> str:
    archer = a.get("archer", False)
    if isinstance(archer, str):
        archer = c.chief(archer).archer
    return heroes.marker_after_challenge(initiator_won=a["won"], archer=archer)


def _mode(c: Ctx, a: dict[str, Any]) -> str:
    got = heroes.on_foot_after(c.chief(a["leader"]), a["event"], choose_foot=a.get("foot", False))
    return "on foot" if got.on_foot else "in chariot"


def _value(c: Ctx, a: dict[str, Any]) -> str:
    table, row, field = a["cell"].split()
    return str(c.charts.tables.table(table)[row][field])


RULES: dict[str, Callable[[Ctx, dict[str, Any]], str]] = {
    **RULES_MOVE_FIRE,
    "may-shock": _may_shock,
    "clash": _clash,
    "shifted-column": _shifted,
    "crt": _crt,
    "resolve-shock": _resolve_shock,
    "leader-drm": _leader_drm,
    "modifier": _modifier,
    "distribute": _distribute,
    "mutual-rout": _mutual,
    "designate": _designate,
    "plan": _plan,
    "plan-problem": _plan_problem,
    "defender-check": _defender_check,
    "check": _check,
    "collapse": _collapse,
    "engaged-collapse": _engaged_collapse,
    "advancers": _advancers,
    "advance-hits": _advance_hits,
    "advance-facings": _advance_facings,
    "engaged-after": _engaged_after,
    "rout-hexes": _rout_hexes,
    "rout-roll": _rout_roll,
    "routed-hit": _routed_hit,
    "flee": _flee,
    "captured": _captured,
    "standard-returns": _returns,
    "leaders-lost": _leaders_lost,
    "withdraw-hexes": _withdraw_hexes,
    "withdraw-roll": _withdraw_roll,
    "stack": _stack,
    "may-enter": _may_enter,
    "passing": _passing,
    "rally": _rally,
    "recover": _recover,
    "effective-tq": _effective_tq,
    "routs": _routs,
    "pass-block": _pass_block,
    "turnover": _turnover,
    "casualty": _casualty,
    "initiative": _initiative,
    "momentum": _momentum,
    "trump": _trump,
    "trump-allowed": _trump_allowed,
    "command-range": _command_range,
    "command-path": _command_path,
    "withdrawal-points": _points,
    "outcome": _outcome,
    "displaced": _displaced,
    "wound": _wound,
    "replacement": _replacement,
    "leader-move": _leader_move,
    "moves-on": _moves_on,
    "duel-round": _duel_round,
    "duel-hits": _duel_hits,
    "hits-kept": _hits_kept,
    "archer": _archer,
    "heroic-shock": _heroic_shock,
    "duel-leader": _duel_leader,
    "checks-casualty": _checks_casualty,
    "challenge": _challenge,
    "declined": _declined,
    "after-round": _after_round,
    "marker": _marker,
    "mode": _mode,
    "value": _value,
}
