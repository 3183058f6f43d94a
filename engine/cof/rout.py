"""Chariots of Fire rout, Standards, withdrawal from engagement and stacking (cof.md §6.6,
§9.4-§9.7), as pure functions over :mod:`engine.cof.pieces`.

A routing unit that passes its rout roll (:func:`engine.cof.cohesion.rout_roll`) is placed
as near its Standard as it can trace a path to (:func:`rout_hexes`); none: it flees. A
Standard that moves or is captured makes the routed units near it flee
(:func:`flee_near_standard`, :func:`standard_captured`). An Engaged unit ordered to withdraw
steps one hex away (:func:`engaged_withdrawal_hexes`). :func:`stack_problem`,
:func:`may_enter` and :func:`passing_friend` are the stacking rules every move, retreat and
advance checks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.cof.pieces import CHARIOTS, Chief, Ground, Piece, adjacent
from engine.cof.tables import CofTables
from engine.gboh.grid import GHex

__all__ = [
    "Passing",
    "Standard",
    "engaged_withdrawal_hexes",
    "flee_near_standard",
    "leaders_lost",
    "may_enter",
    "passing_friend",
    "rout_hexes",
    "routed_hit",
    "stack_problem",
    "standard_captured",
    "standard_returns",
]


def rout_hexes(
    charts: CofTables,
    ground: Ground,
    pieces: Sequence[Piece],
    unit: Piece,
    standard: GHex | None,
) -> list[GHex]:
    """Where a unit that passed its rout roll is placed (rulebook §9.41; cof.md §9.7). It
    must trace a path to its Standard free of every other combat unit and of terrain it may
    not enter, no hex of it next to an enemy chariot (CH-2, CH-3, CH-2 + RI; the start hex
    exempt, as the §8.18 example forces); reaching the Standard's hex or a hex next to it
    (a friend may hold the Standard's hex) [E]. It is then placed in the reachable vacant
    hexes nearest the Standard (ties: the owner's choice, all listed). Empty when there is
    no Standard or no such path: the unit flees (eliminated)."""
    if standard is None:
        return []
    column = charts.types[unit.type].move_column
    others = {p.hex for p in pieces if p.id != unit.id}
    chariots = [p.hex for p in pieces if p.side != unit.side and p.type in CHARIOTS]
    seen = {unit.hex}
    queue = deque([unit.hex])
    while queue:
        h = queue.popleft()
        for n in ground.grid.neighbours(h):
            if n in seen or n in others:
                continue
            if charts.terrain[ground.kind(n)].cost(column) is None:
                continue
            if any(
                s in charts.terrain and charts.terrain[s].cost(column) is None
                for s in ground.hexsides(h, n)
            ):
                continue
            if any(adjacent(n, c) for c in chariots):
                continue
            seen.add(n)
            queue.append(n)
    if not any(h.distance(standard) <= 1 for h in seen):
        return []
    vacant = [h for h in seen if h not in others]  # (not the hex of a friend it was passing)
    if not vacant:
        return []
    best = min(h.distance(standard) for h in vacant)
    return sorted(h for h in vacant if h.distance(standard) == best)


def routed_hit(unit: Piece, hits: int) -> bool:
    """A routed unit that takes any further hit, by fire or shock, is eliminated (rulebook
    §9.43)."""
    return unit.routed and hits > 0


@dataclass(frozen=True)
class Standard:
    """An army's Standard (cof.md §9.6): where it stands, whose it is, who holds it."""

    side: str
    hex: GHex | None
    captured_by: str | None = None
    captured_turn: int | None = None
    eliminated: bool = False


def flee_near_standard(charts: CofTables, pieces: Iterable[Piece], standard: Standard) -> list[str]:
    """Ids of the routed units of the Standard's side within the chart's
    ``standard_flee_radius`` (3) of it: they flee at once when it moves or is captured
    (rulebook §9.34)."""
    if standard.hex is None:
        return []
    r = charts.actions["standard_flee_radius"].value
    return sorted(
        p.id
        for p in pieces
        if p.side == standard.side and p.routed and p.hex.distance(standard.hex) <= r
    )


def standard_captured(pieces: Iterable[Piece], standard: Standard, entering: Piece) -> bool:
    """Whether ``entering`` captures the Standard (rulebook §9.33): an enemy combat unit
    entering its hex while no friendly combat unit is there."""
    if standard.hex is None or entering.side == standard.side or entering.hex != standard.hex:
        return False
    return not any(p.side == standard.side and p.hex == standard.hex for p in pieces)


def standard_returns(standard: Standard, turn: int, *, owner_may_move: bool) -> bool:
    """Whether the owner's leader has his Standard again now (rulebook §9.33): one kept by
    its captor goes back, and one the captor eliminated is replaced by a new one placed with
    him, once that leader is activated or may move in a game turn after the capture."""
    if standard.captured_turn is None or (standard.captured_by is None and not standard.eliminated):
        return False
    return owner_may_move and turn > standard.captured_turn


def leaders_lost(
    chiefs: Iterable[Chief], pieces: Sequence[Piece], fled: Iterable[str]
) -> list[str]:
    """Ids of the leaders eliminated with fleeing units (rulebook §9.44): those in a hex
    where every combat unit fled (they may be replaced, §4.25)."""
    gone = set(fled)
    hexes = {p.hex for p in pieces if p.id in gone}
    lost = {h for h in hexes if all(p.id in gone for p in pieces if p.hex == h)}
    return sorted(c.id for c in chiefs if c.hex in lost)


def engaged_withdrawal_hexes(
    charts: CofTables,
    ground: Ground,
    pieces: Sequence[Piece],
    unit: Piece,
    engaged_with: Sequence[Piece],
) -> list[GHex]:
    """Where an Engaged unit that withdraws may go (rulebook §9.24; cof.md §9.5): one hex
    further from every enemy it was engaged with, facing kept, no MP or hits; never next to
    an enemy unit, into prohibited terrain or onto another combat unit. Empty: it stays
    Engaged."""
    column = charts.types[unit.type].move_column
    taken = {p.hex for p in pieces if p.id != unit.id}
    enemies = [p.hex for p in pieces if p.side != unit.side]
    out = []
    for n in ground.grid.neighbours(unit.hex):
        if n in taken or charts.terrain[ground.kind(n)].cost(column) is None:
            continue
        if any(charts.terrain[s].cost(column) is None for s in ground.hexsides(unit.hex, n)):
            continue
        if any(n.distance(e.hex) <= unit.hex.distance(e.hex) for e in engaged_with):
            continue
        if any(adjacent(n, e) for e in enemies):
            continue
        out.append(n)
    return sorted(out)


# --- stacking (cof.md §6.6) -------------------------------------------------------------------


def stack_problem(units: Sequence[Piece]) -> str | None:
    """Why combat units may not end a move together in one hex (rulebook §6.51-§6.52), or
    ``None``: one combat unit a hex, but one RI with one CH-2 (never a CH-3). Leaders and
    markers do not count."""
    if len(units) <= 1:
        return None
    types = sorted(u.type for u in units)
    if types == ["CH2", "RI"] and len({u.side for u in units}) == 1:
        return None
    return "one combat unit a hex (only one RI may stack with one CH-2)"


def may_enter(mover: Piece, there: Sequence[Piece], *, passing: bool = True) -> str | None:
    """Why ``mover`` may not enter a hex holding ``there`` (rulebook §6.53-§6.54), or
    ``None``: infantry and wagons never enter an enemy unit's hex; a chariot (or CH-2 + RI)
    only passes through a non-Engaged enemy chariot's, never stopping (``passing`` False);
    friends may be passed through (:func:`passing_friend`), never ended on
    (:func:`stack_problem`)."""
    enemies = [p for p in there if p.side != mover.side]
    if not enemies:
        if not passing and stack_problem([*there, mover]):
            return "a combat unit may not end its move on another"
        return None
    if mover.type not in CHARIOTS:
        return "infantry and battle wagons never enter an enemy unit's hex"
    if any(e.type not in CHARIOTS or e.engaged for e in enemies):
        return "a chariot passes only through a non-engaged enemy chariot's hex"
    if not passing:
        return "a chariot may not stop in an enemy chariot's hex"
    return None


@dataclass(frozen=True)
class Passing:
    """What moving through a friend costs (rulebook §6.55): the mover's extra MP, hits on
    each unit, and whether the passed unit (routed) is eliminated."""

    mp: int
    mover_hits: int
    passed_hits: int
    passed_eliminated: bool


def passing_friend(
    charts: CofTables,
    mover: Piece,
    passed: Piece,
    *,
    active: bool = True,
    along_road: bool = False,
) -> Passing:
    """Moving or retreating through a friendly unit (rulebook §6.55): +1 MP for an active
    mover (not for units displaced by advance or retreat); when an SI or HI is involved each
    SI/HI involved takes a hit; a routed unit passed through is eliminated unless it is on a
    road the mover follows."""
    heavy = {t for t, row in charts.types.items() if row.heavy}
    involved = mover.type in heavy or passed.type in heavy
    per = charts.events["through_friend"].hits
    return Passing(
        mp=charts.actions["through_friend"].value if active else 0,
        mover_hits=per if involved and mover.type in heavy else 0,
        passed_hits=per if involved and passed.type in heavy else 0,
        passed_eliminated=passed.routed and not along_road,
    )
