"""Chariots of Fire reactions of the inactive side during an enemy move (cof.md §6.4, §6.5,
§7.7, §7.8, §7.10, §8.10), as pure functions over :mod:`engine.cof.pieces`.

The turn sequence asks these after each hex a mover enters (cof.md §14 #3): which units may
make an orderly withdrawal (:func:`withdrawal_triggered`) and where to
(:func:`withdrawal_hexes`), who may turn to face the mover (:func:`reaction_facing_allowed`),
who may fire and at what range (:func:`entry_fire`, :func:`leaving_fire`,
:func:`retreat_fire`, :func:`return_fire`); at the start of a chariot's action whether it may
fire and run (:func:`fire_and_run_path`); and after chariot fire or before a chariot shock
whether a BI/RI reacts aggressively (:func:`aggression_against_fire`,
:func:`aggression_against_shock`, :func:`aggression_hexes`). The rolls themselves are
:mod:`engine.cof.cohesion`'s.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from engine.cof.cohesion import check
from engine.cof.elevation import step_cost
from engine.cof.missile import may_target
from engine.cof.pieces import CHARIOTS, Ground, Piece, adjacent
from engine.cof.tables import CofTables
from engine.gboh.grid import GHex, front_hexes, sectors

__all__ = [
    "aggression_against_fire",
    "aggression_against_shock",
    "aggression_hexes",
    "aggression_must_attack",
    "approach_hit",
    "can_fire",
    "entry_fire",
    "fire_and_run_path",
    "fire_and_run_reply",
    "fire_and_run_targets",
    "leaving_fire",
    "pass_through_targets",
    "reaction_facing_allowed",
    "reaction_facing_hits",
    "retreat_fire",
    "return_fire",
    "withdrawal_eligible",
    "withdrawal_hexes",
    "withdrawal_triggered",
]


def _troop_ma(charts: CofTables, p: Piece) -> int:
    return p.ma + charts.actions["column_ma_bonus"].value if p.column else p.ma


# --- orderly withdrawal (cof.md §6.4) ------------------------------------------------------


def withdrawal_eligible(charts: CofTables, unit: Piece, mover: Piece) -> bool:
    """Whether ``unit`` may withdraw before ``mover`` (cof.md §6.4): not Engaged, not in
    column, not routed, and faster than the mover (current MA: a column's is one more)."""
    if unit.engaged or unit.column or unit.routed:
        return False
    return _troop_ma(charts, unit) > _troop_ma(charts, mover)


def withdrawal_triggered(
    charts: CofTables,
    pieces: Iterable[Piece],
    mover: Piece,
    entered: GHex,
    *,
    first_step: bool = False,
) -> list[Piece]:
    """The inactive units an active ``mover`` entering ``entered`` lets withdraw (rulebook
    §6.41, cof.md §6.4): every eligible enemy of the mover within the chart's
    ``withdrawal_trigger`` hexes (2) of that hex, whichever way the mover heads; on its
    ``first_step`` also those within 2 of the hex it started from. The mover pauses while
    they withdraw; an opportunity not taken is lost."""
    reach = charts.actions["withdrawal_trigger"].value
    out = []
    for p in pieces:
        if p.side == mover.side or not withdrawal_eligible(charts, p, mover):
            continue
        near = p.hex.distance(entered) <= reach
        if first_step and p.hex.distance(mover.hex) <= reach:
            near = True
        if near:
            out.append(p)
    return out


def approach_hit(charts: CofTables, unit: Piece, approach: GHex) -> int:
    """Hits a withdrawing unit takes before it moves (rulebook §6.44): 1 if the hex the
    enemy entered lies in its flank or rear and not in its front (cof.md §15 item 13)."""
    got = sectors(unit.hex, unit.facing, approach)
    if "front" in got:
        return 0
    return charts.events["withdrawal_exposed"].hits


def withdrawal_hexes(
    charts: CofTables,
    ground: Ground,
    pieces: Sequence[Piece],
    unit: Piece,
    *,
    mover_hex: GHex,
    allowance: int,
) -> dict[GHex, int]:
    """Where an orderly withdrawal may end, with the MP it spends (rulebook §6.42-§6.46):
    within ``allowance`` MP (own MA minus the mover's, :func:`engine.cof.movement.
    withdrawal_allowance`), facing kept (no facing cost, any direction), each hex entered
    **no closer** to the mover than the hex left; never into or next to an enemy unit or
    prohibited terrain; through friends at the extra MP, never ending on one."""
    troop = charts.types[unit.type]
    enemies = {p.hex for p in pieces if p.side != unit.side}
    friends = {p.hex for p in pieces if p.side == unit.side and p.id != unit.id}
    best: dict[GHex, int] = {unit.hex: 0}
    queue = deque([unit.hex])
    while queue:
        h = queue.popleft()
        for n in ground.grid.neighbours(h):
            if n in enemies or any(adjacent(n, e) for e in enemies):
                continue
            if n.distance(mover_hex) < h.distance(mover_hex):
                continue
            cost = step_cost(charts, ground, troop, h, n, through_friend=n in friends)
            if cost is None:
                continue
            spent = best[h] + cost
            if spent <= allowance and spent < best.get(n, allowance + 1):
                best[n] = spent
                queue.append(n)
    return {h: mp for h, mp in best.items() if h != unit.hex and h not in friends}


# --- reaction facing (cof.md §6.5) --------------------------------------------------------


def reaction_facing_allowed(
    charts: CofTables, unit: Piece, mover: Piece, pieces: Iterable[Piece], *, used: bool
) -> bool:
    """Whether ``unit`` may turn one vertex as ``mover`` comes next to it (rulebook §6.66):
    not a battle wagon, once per enemy Orders Phase (``used``), the mover now adjacent, and
    no *other* enemy unit already adjacent."""
    if charts.types[unit.type].reaction_facing == "none" or used or unit.routed:
        return False
    if not adjacent(unit.hex, mover.hex):
        return False
    return not any(
        p.side != unit.side and p.id != mover.id and adjacent(p.hex, unit.hex) for p in pieces
    )


def reaction_facing_hits(charts: CofTables, unit: Piece, dr: int) -> int:
    """Hits after a reaction facing change (rulebook §6.66): chariots none; infantry roll
    after turning and take the excess of the roll over the TQ."""
    if charts.types[unit.type].reaction_facing != "roll":
        return 0
    return check(charts, "reaction_facing", unit.tq, dr).hits


# --- reaction fire (cof.md §7.7, §7.8) ----------------------------------------------------


def can_fire(unit: Piece) -> bool:
    """Whether a unit may fire at all (cof.md §7.1, §7.5): a weapon, missiles left, not
    Engaged, routed or in column."""
    return (
        unit.weapon is not None
        and unit.supply != "no"
        and not (unit.engaged or unit.routed or unit.column)
    )


def _in_field(charts: CofTables, firer: Piece, target: GHex) -> bool:
    return may_target(charts.types[firer.type], firer.hex, firer.facing, target)


def entry_fire(
    charts: CofTables,
    firer: Piece,
    mover: Piece,
    *,
    returned_at_mover: bool = False,
    mover_passing_other: bool = False,
    mover_reacting: bool = False,
) -> int | None:
    """Entry reaction fire (rulebook §7.44): the range (1) at which inactive ``firer`` may
    fire at ``mover`` now adjacent (advance after combat included), in its field of fire;
    ``None`` if it may not. Not after Return fire at the same unit this phase (§7.45), not
    at a chariot inside another unit's hex it is passing through (§7.33), never at a unit
    making an Aggression Reaction (§8.54)."""
    if not can_fire(firer) or returned_at_mover or mover_passing_other or mover_reacting:
        return None
    if not adjacent(firer.hex, mover.hex) or mover.engaged:
        return None
    return 1 if _in_field(charts, firer, mover.hex) else None


def leaving_fire(
    charts: CofTables, firer: Piece, mover: Piece, *, mover_reacting: bool = False
) -> int | None:
    """Withdrawal reaction fire (rulebook §7.41, §7.43): a non-routed ``mover`` about to
    leave a hex next to ``firer`` and in its field of fire is fired at before it moves,
    at the chart's ``retreat_fire_range`` (2), by a weapon reaching 2 hexes or more."""
    if not can_fire(firer) or mover.routed or mover_reacting:
        return None
    if not adjacent(firer.hex, mover.hex) or not _in_field(charts, firer, mover.hex):
        return None
    reach = charts.missile_modifiers["retreat_fire_range"].value
    assert firer.weapon is not None
    return reach if charts.weapons[firer.weapon].value >= reach else None


def retreat_fire(charts: CofTables, firer: Piece, trigger: Piece, *, fired: bool) -> int | None:
    """Fire during an orderly withdrawal (rulebook §7.42): a C-armed chariot withdrawing
    fires once per Orders Phase (``fired``) at the unit that triggered it, before moving,
    at range 2 whatever the distance."""
    if not can_fire(firer) or fired or not firer.chariot or firer.weapon != "C":
        return None
    del trigger  # any triggering unit: no range or field-of-fire test
    return charts.missile_modifiers["retreat_fire_range"].value


def return_fire(
    charts: CofTables,
    firer: Piece,
    shooter: Piece,
    *,
    entry_fired_at_shooter: bool = False,
    pass_through: bool = False,
) -> int | None:
    """Return fire (rulebook §7.45): after an active unit's fire is resolved, its target may
    answer at the actual range if in range and field of fire; not a pass-through target
    (§7.31), not after Entry fire at the same unit."""
    if not can_fire(firer) or entry_fired_at_shooter or pass_through or shooter.engaged:
        return None
    distance = firer.hex.distance(shooter.hex)
    assert firer.weapon is not None
    if not 1 <= distance <= charts.weapons[firer.weapon].value:
        return None
    return distance if _in_field(charts, firer, shooter.hex) else None


def pass_through_targets(passed: Piece) -> tuple[str, ...]:
    """What a chariot passing through ``passed`` may fire at with the Pass-Thru row
    (rulebook §7.31-§7.32): that chariot, or either unit of a CH-2 with runners."""
    if passed.type == "CH2RI":
        return ("CH2", "RI")
    return (passed.type,) if passed.chariot else ()


# --- fire and run (cof.md §7.10) -----------------------------------------------------------


def _fr_can_enter(charts: CofTables, ground: Ground, a: GHex, b: GHex) -> bool:
    row = charts.terrain[ground.kind(b)]
    if not row.fire_and_run_ok or not row.chariot_ok:
        return False
    return all(charts.terrain[s].fire_and_run_ok for s in ground.hexsides(a, b))


def fire_and_run_path(
    charts: CofTables,
    ground: Ground,
    pieces: Sequence[Piece],
    unit: Piece,
    target: Piece,
    *,
    in_command: bool = True,
) -> list[GHex] | None:
    """A path that lets ``unit`` fire and run at ``target`` (rulebook §7.21-§7.23, cof.md
    §7.10), or ``None``. A CH-2 (alone or with runners), in command, beginning within the
    chart's ``fire_and_run_reach`` (3) of a non-chariot, non-Engaged target; the path steps
    only into its current front hexes (no facing change: the reading the Astarpa example
    forces), no hex before the last next to an enemy combat unit, through friends but not
    enemies, never into Rough nor across a hexside the chart bars; it ends next to the
    target. Shortest such path, in hexes."""
    troop = charts.types[unit.type]
    if not troop.fire_and_run or not in_command or unit.engaged or not can_fire(unit):
        return None
    if target.side == unit.side or target.chariot or target.engaged:
        return None
    if unit.hex.distance(target.hex) > charts.missile_modifiers["fire_and_run_reach"].value:
        return None
    enemies = {p.hex for p in pieces if p.side != unit.side}
    seen = {unit.hex}
    queue: deque[list[GHex]] = deque([[unit.hex]])
    while queue:
        path = queue.popleft()
        h = path[-1]
        if len(path) > 1 and any(adjacent(h, e) for e in enemies):
            continue  # only the last hex may touch the enemy
        for n in front_hexes(h, unit.facing):
            if n in seen or n in enemies or n not in ground.grid:
                continue
            if not _fr_can_enter(charts, ground, h, n):
                continue
            seen.add(n)
            if adjacent(n, target.hex):
                return [*path[1:], n]
            if len(path) <= unit.ma:
                queue.append([*path, n])
    return None


def fire_and_run_targets(
    charts: CofTables, ground: Ground, pieces: Sequence[Piece], unit: Piece
) -> list[str]:
    """Ids of every enemy ``unit`` may fire and run at (cof.md §7.10), sorted."""
    return sorted(
        p.id
        for p in pieces
        if p.side != unit.side and fire_and_run_path(charts, ground, pieces, unit, p)
    )


def fire_and_run_reply(charts: CofTables, target: Piece, end: GHex) -> int | None:
    """Reaction fire at a unit firing and running (rulebook §7.24-§7.25; cof.md §7.10 [E]):
    only its target replies, at range 1, at the path's last hex (``end``) if that hex is in
    its field of fire (it may first turn to face it, :func:`reaction_facing_allowed`)."""
    if not can_fire(target) or not adjacent(target.hex, end):
        return None
    return 1 if _in_field(charts, target, end) else None


# --- aggression reaction (cof.md §8.10) -----------------------------------------------------


def aggression_against_fire(charts: CofTables, reactor: Piece, firer: Piece) -> str | None:
    """Whether fire from ``firer`` lets ``reactor`` react aggressively (rulebook §8.52-§8.53):
    ``mandatory`` (BI), ``voluntary`` (an RI not stacked with a CH-2: a piece of type RI) or
    ``None``; only against CH-2, CH-3 or CH-2 + RI fire, never by a routed unit. The roll is
    :func:`engine.cof.cohesion.aggression_vs_fire`."""
    if reactor.routed or firer.type not in CHARIOTS:
        return None
    kind = charts.types[reactor.type].aggression
    if kind == "mandatory-vs-fire":
        return "mandatory"
    return "voluntary" if kind == "voluntary" else None


def aggression_against_shock(reactor: Piece, attackers: Sequence[Piece]) -> bool:
    """Whether ``reactor`` may try an Aggression Reaction instead of awaiting a shock
    (rulebook §8.55): a BI attacked only by chariots, or a lone RI attacked only by CH-3;
    at least one attacker in its front hexes; not routed. Voluntary; the roll is
    :func:`engine.cof.cohesion.aggression_vs_shock`."""
    if reactor.routed or not attackers:
        return False
    if reactor.type == "BI":
        allowed = CHARIOTS
    elif reactor.type == "RI":
        allowed = frozenset({"CH3"})
    else:
        return False
    if any(a.type not in allowed for a in attackers):
        return False
    return any(a.hex in reactor.fronts() for a in attackers)


def aggression_must_attack(reactor: Piece, attackers: Sequence[Piece]) -> list[str]:
    """Ids of the original attackers a successful shock reactor must attack: all those in
    its front hexes (rulebook §8.55)."""
    return sorted(a.id for a in attackers if a.hex in reactor.fronts())


def aggression_hexes(
    charts: CofTables, ground: Ground, pieces: Sequence[Piece], reactor: Piece, firer: Piece
) -> list[GHex]:
    """Where a successful reactor against fire goes (rulebook §8.54; placement [E] cof.md
    §8.10): its own hex if next to the firer, else the vacant hexes next to the firer nearest
    to it by a path avoiding enemy units and terrain it may not enter (no MP: not a move);
    several at the same distance are the owner's choice; none: no reaction. It then faces
    the firer (:func:`engine.cof.pieces.facings_toward`)."""
    if adjacent(reactor.hex, firer.hex):
        return [reactor.hex]
    troop = charts.types[reactor.type]
    taken = {p.hex for p in pieces if p.id != reactor.id}
    enemies = {p.hex for p in pieces if p.side != reactor.side}
    goals = {n for n in ground.grid.neighbours(firer.hex) if n not in taken}
    dist = {reactor.hex: 0}
    queue = deque([reactor.hex])
    found: list[GHex] = []
    while queue:
        h = queue.popleft()
        if found and dist[h] >= dist[found[0]]:
            break
        for n in ground.grid.neighbours(h):
            if n in dist or n in enemies:
                continue
            if charts.terrain[ground.kind(n)].cost(troop.move_column) is None:
                continue
            dist[n] = dist[h] + 1
            if n in goals:
                found.append(n)
            else:
                queue.append(n)
    return sorted(found)
