"""The Chariots of Fire Shock Segment in stages (cof.md §8.1-§8.9, §9.2, §14 #4), as pure
functions over :mod:`engine.cof.pieces`.

Each step is done for every shock before the next (rulebook §8.13): :func:`designate`
(who must or may shock), :func:`plan` / :func:`plan_problem` (who attacks whom, §8.3),
:func:`defender_check` (the pre-shock check of a defender, §8.4; the attacker's is
:func:`engine.cof.cohesion.check` ``must_check_attacker``), then one shock at a time
(:func:`engine.cof.shock.resolve_shock`), then :func:`collapse` (rout and mutual rout),
:func:`engaged_collapse` (the Engaged unit one hit short), :func:`advancers` and
:func:`advance_hits` (advance after combat, §8.9 #3), :func:`engaged_after` (the Engaged
markers, §8.9 #4).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from engine.cof.cohesion import check, effective_tq
from engine.cof.pieces import Piece, adjacent
from engine.cof.shock import may_add_target, may_shock, mutual_rout, shock_duty
from engine.cof.tables import CofTables
from engine.gboh.grid import VERTICES, front_hexes

__all__ = [
    "Attack",
    "Collapse",
    "advance_facings",
    "advance_hits",
    "advancers",
    "collapse",
    "collapse_check_due",
    "column_tq",
    "defender_check",
    "designate",
    "engaged_after",
    "engaged_collapse",
    "front_enemies",
    "plan",
    "plan_problem",
]


@dataclass(frozen=True)
class Attack:
    """One shock: the attacking and defending units' ids."""

    attackers: tuple[str, ...]
    defenders: tuple[str, ...]


def front_enemies(charts: CofTables, pieces: Sequence[Piece], unit: Piece) -> list[Piece]:
    """The enemy units in ``unit``'s front hexes that it may shock (cof.md §8.2-§8.3)."""
    fronts = front_hexes(unit.hex, unit.facing)
    return [
        p
        for p in pieces
        if p.side != unit.side
        and p.hex in fronts
        and may_shock(charts, charts.types[unit.type], charts.types[p.type])
    ]


def designate(
    charts: CofTables,
    pieces: Sequence[Piece],
    side: str,
    *,
    moved: Collection[str] = (),
    turned_in_place: Collection[str] = (),
) -> dict[str, str]:
    """Step a (rulebook §8.11, cof.md §8.2): ``{id: "must" | "may"}`` for ``side``'s units
    with an enemy they may shock in their front hexes. ``moved``: ids that moved this Orders
    Phase (they must shock); a unit that did not move was next to the enemy all the segment
    (it may, passing a TQ check); an Engaged unit must. ``turned_in_place``: units that used
    the start-adjacent facing change (they may not)."""
    out: dict[str, str] = {}
    for p in pieces:
        if p.side != side or not front_enemies(charts, pieces, p):
            continue
        duty = shock_duty(
            charts.types[p.type],
            ended_adjacent=p.id in moved,
            engaged=p.engaged,
            adjacent_throughout=p.id not in moved,
            in_column=p.column,
            routed=p.routed,
            turned_in_place=p.id in turned_in_place,
        )
        if duty is not None:
            out[p.id] = duty
    return out


def plan(
    charts: CofTables,
    pieces: Sequence[Piece],
    duties: Mapping[str, str],
    *,
    include_may: Collection[str] = (),
) -> list[Attack]:
    """A target assignment meeting rulebook §8.12 (cof.md §8.3), the one the worked example
    gives: must-shock units with the fewest targets first, each attacking every enemy in its
    front hexes no friend attacks yet; one whose front enemies are all attacked joins the
    attack on the first of them that has defenders in one hex only (attackers combine against
    one hex). Then the may-shock units of ``include_may`` alike. Ties by id; another legal
    plan is the player's (:func:`plan_problem` checks it)."""
    by_id = {p.id: p for p in pieces}
    attacks: list[Attack] = []
    taken: dict[str, int] = {}

    def order(ids: Collection[str]) -> list[str]:
        return sorted(ids, key=lambda i: (len(front_enemies(charts, pieces, by_id[i])), i))

    must = [i for i, d in duties.items() if d == "must"]
    may = [i for i, d in duties.items() if d == "may" and i in include_may]
    for group in (must, may):
        for uid in order(group):
            targets = [t.id for t in front_enemies(charts, pieces, by_id[uid])]
            free = sorted(t for t in targets if t not in taken)
            if free:
                taken.update(dict.fromkeys(free, len(attacks)))
                attacks.append(Attack((uid,), tuple(free)))
                continue
            for t in sorted(targets):
                a = attacks[taken[t]]
                if len({by_id[d].hex for d in a.defenders}) == 1:
                    attacks[taken[t]] = Attack((*a.attackers, uid), a.defenders)
                    break
    return attacks


def plan_problem(
    charts: CofTables,
    pieces: Sequence[Piece],
    duties: Mapping[str, str],
    attacks: Sequence[Attack],
) -> str | None:
    """Why a proposed assignment breaks rulebook §8.12 (cof.md §8.3), or ``None``: every
    attacker shocks once, only if designated; every defender is attacked once; a unit's
    defenders are in its front or flank hexes, with at least one in front; attackers in
    different hexes combine against one hex only; every enemy in a must-shock unit's
    front hexes is attacked by someone."""
    by_id = {p.id: p for p in pieces}
    seen_a: set[str] = set()
    seen_d: set[str] = set()
    for a in attacks:
        hexes = {by_id[d].hex for d in a.defenders}
        if len(a.attackers) > 1 and len(hexes) > 1:
            return "attackers in different hexes combine against defenders in one hex only"
        for uid in a.attackers:
            if uid not in duties:
                return f"{uid} is not designated to shock"
            if uid in seen_a:
                return f"{uid} attacks more than once"
            seen_a.add(uid)
            u = by_id[uid]
            if not any(by_id[d].hex in u.fronts() for d in a.defenders):
                return f"{uid} has none of its defenders in its front hexes"
            for d in a.defenders:
                if not may_add_target(u.hex, u.facing, by_id[d].hex):
                    return f"{d} is not in {uid}'s front or flank hexes"
                if not may_shock(charts, charts.types[u.type], charts.types[by_id[d].type]):
                    return f"{uid} may not shock {d}"
        for d in a.defenders:
            if d in seen_d:
                return f"{d} is attacked more than once"
            seen_d.add(d)
    for uid, duty in duties.items():
        if duty != "must":
            continue
        for t in front_enemies(charts, pieces, by_id[uid]):
            if t.id not in seen_d:
                return f"{uid} must attack {t.id} (in its front hexes, attacked by no one)"
    return None


def column_tq(charts: CofTables, unit: Piece) -> int:
    """The TQ a unit's hits are measured against (rulebook §6.35: a unit in column has its
    TQ lowered by two while it stays in column; cof.md §6.3): its rout threshold, its excess
    in a mutual rout (§9.13) and its collapse check (§8.18)."""
    return effective_tq(charts, unit.tq, column=unit.column)


def defender_check(charts: CofTables, defender: Piece, dr: int) -> tuple[int, str]:
    """A defender's pre-shock check (rulebook §8.14, cof.md §8.4): (hits, outcome). No check
    when Engaged (``engaged``); a roll at most the TQ: ``holds``; above: the excess in hits,
    ``routs`` at once when that reaches the TQ (an attacker may advance into its hex);
    a routed defender (TQ 1) failing is ``eliminated``; one in column checks against its
    TQ less the column penalty (:func:`engine.cof.cohesion.effective_tq`), and routs at it
    (:func:`column_tq`)."""
    if defender.engaged:
        return 0, "engaged"
    tq = effective_tq(charts, defender.tq, routed=defender.routed, column=defender.column)
    got = check(charts, "defender_check", tq, dr)
    if got.passed:
        return 0, "holds"
    if defender.routed:
        return got.hits, "eliminated"
    return got.hits, "routs" if defender.hits + got.hits >= column_tq(charts, defender) else "holds"


@dataclass(frozen=True)
class Collapse:
    """The Collapse step's outcome: ids that rout, and hits set to TQ − 1 (mutual rout)."""

    routs: tuple[str, ...]
    hits: Mapping[str, int]


def collapse(
    charts: CofTables,
    shocks: Sequence[tuple[Sequence[Piece], Sequence[Piece]]],
    *,
    advance_hits: Mapping[str, int] | None = None,
) -> Collapse:
    """Step e #1 (rulebook §8.18, §9.13; cof.md §8.9, §9.2 #3): every unit with hits at
    least its TQ (:func:`column_tq`: in column, TQ − 2, rulebook §6.35) routs, unless **all**
    attackers and **all** defenders of one shock would: then the side with the larger excess
    (attackers counting the hits advancing would give them, ``advance_hits``) routs, the
    defender on a tie, and the other side's hits become TQ − 1. ``shocks``: (attackers,
    defenders) after the hits of every shock."""
    extra = advance_hits or {}
    routs: list[str] = []
    set_hits: dict[str, int] = {}
    for attackers, defenders in shocks:
        att = [(a.hits + extra.get(a.id, 0), column_tq(charts, a)) for a in attackers]
        dfn = [(d.hits, column_tq(charts, d)) for d in defenders]
        loser = mutual_rout(att, dfn)
        if loser is None:
            routs += [p.id for p in (*attackers, *defenders) if p.hits >= column_tq(charts, p)]
            continue
        losing, winning = (attackers, defenders) if loser == "attacker" else (defenders, attackers)
        routs += [p.id for p in losing]
        set_hits.update({p.id: column_tq(charts, p) - 1 for p in winning})
    return Collapse(tuple(sorted(set(routs))), set_hits)


def collapse_check_due(charts: CofTables, unit: Piece, *, engaged_at_start: bool) -> bool:
    """Whether step e #2 (rulebook §8.18) asks ``unit`` to roll: Engaged when the segment
    began, not routed, and now exactly one hit short of routing (:func:`column_tq`)."""
    return engaged_at_start and not unit.routed and unit.hits == column_tq(charts, unit) - 1


def engaged_collapse(charts: CofTables, unit: Piece, dr: int, *, engaged_at_start: bool) -> str:
    """Step e #2 (rulebook §8.18): a unit Engaged when the segment began and now one hit
    short of routing rolls: above its TQ (in column, TQ − 2) ``routs``, else ``recovers``
    (one hit off); ``none`` when the check does not apply."""
    if not collapse_check_due(charts, unit, engaged_at_start=engaged_at_start):
        return "none"
    tq = column_tq(charts, unit)
    return "recovers" if check(charts, "engaged_collapse", tq, dr).passed else "routs"


def advancers(
    pieces: Sequence[Piece],
    attackers: Sequence[Piece],
    *,
    superior: str | None = None,
    emptied_by_check: bool = False,
) -> list[str]:
    """Who must advance into a hex the shock emptied (rulebook §8.21, §8.23): the attacker
    with superiority, else the highest TQ (several: the attacking player's choice, all
    listed). A unit that emptied the hex by the defender's pre-shock check while in the front
    hex of another enemy unit may not (``pieces``: where everyone stands after the rout, the
    routed defender gone); routed attackers do not. Empty: nobody advances."""
    able = [a for a in attackers if not a.routed]
    if emptied_by_check:
        able = [
            a
            for a in able
            if not any(p.side != a.side and a.hex in p.fronts() and not p.routed for p in pieces)
        ]
    if superior is not None and any(a.id == superior for a in able):
        return [superior]
    if not able:
        return []
    top = max(a.tq for a in able)
    return sorted(a.id for a in able if a.tq == top)


def advance_hits(unit: Piece, entry_hits: int) -> int:
    """The advancer's hits after entering (rulebook §8.21): it pays the hits of entering, but
    if they would rout it, it does not rout: its hits become TQ − 1."""
    total = unit.hits + entry_hits
    return unit.tq - 1 if total >= unit.tq else total


def advance_facings(charts: CofTables, unit: Piece) -> tuple[str, ...]:
    """Facings open to a unit after advancing (rulebook §8.22): its own, or one vertex
    either way, even in an enemy front hex; a battle wagon keeps its facing."""
    if charts.types[unit.type].kind == "wagon" or unit.facing not in VERTICES:
        return (unit.facing,)
    i = VERTICES.index(unit.facing)
    return (unit.facing, VERTICES[(i - 1) % 6], VERTICES[(i + 1) % 6])


def engaged_after(
    shocks: Sequence[tuple[Sequence[Piece], Sequence[Piece]]],
    *,
    gone: Collection[str] = (),
) -> list[str]:
    """Step e #4 (rulebook §8.18, §9.21; cof.md §8.9 #4, §15 item 41): the ids marked
    Engaged: units of a shock that neither routed nor advanced (``gone``) and are still next
    to an enemy unit **of that shock**. ``shocks`` hold the pieces where they now stand."""
    out: set[str] = set()
    for attackers, defenders in shocks:
        stay_a = [a for a in attackers if a.id not in gone]
        stay_d = [d for d in defenders if d.id not in gone]
        for a in stay_a:
            for d in stay_d:
                if adjacent(a.hex, d.hex):
                    out.update((a.id, d.id))
    return sorted(out)
