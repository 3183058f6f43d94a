"""Reinforcements: wings that enter the battle on a later turn (a scenario's ``arrives``).

The rulebook has no general reinforcement rule (cof.md §13: reinforcements are scenario
matters, and the seed holds no scenario). pbem's reading [E], for the scenarios that name
an arrival turn (docs/cof-scenarios.md, "Reinforcements"):

* at the start of its turn, before the Initiative (cof.md §3 A), each arriving unit is set
  on the map-edge hex the scenario gives it, facing as given; a CH-2 and its runners enter
  together. If that hex holds a unit, or its terrain bars the unit, it enters at the nearest
  edge hex that is free and open to it (ties: the lowest hex number); if there is none
  within :data:`SEARCH` hexes, it waits for the next turn;
* the wing's commander enters at his own edge hex (with the first of his units there if an
  enemy holds it);
* a wing whose units are all still to come has no activation marker in the pool and cannot
  be chosen (:func:`present_wings`); once in, the wing plays like any other.
"""

from __future__ import annotations

from engine.cof.state import ARRIVING, IN_PLAY, CofState, Unit
from engine.cof.steps import Ctx
from engine.gboh.grid import GHex

__all__ = ["SEARCH", "arrive", "edge_hexes", "present_wings", "scheduled"]

SEARCH = 6
"""How far (in hexes) an arriving unit looks along the edge for a free hex."""


def present_wings(s: CofState, side: str) -> list[str]:
    """The side's wings with a unit that has entered the battle (every wing but those whose
    units all arrive later)."""
    waiting = {u.wing for u in s.units if u.side == side and u.status == ARRIVING}
    entered = {u.wing for u in s.units if u.side == side and u.status != ARRIVING}
    return [w for w in s.sides[side].wings if w not in waiting or w in entered]


def scheduled(s: CofState) -> list[Unit]:
    """The units still to arrive, by turn then id."""
    return sorted((u for u in s.units if u.status == ARRIVING), key=lambda u: (u.arrives, u.id))


def edge_hexes(s: CofState) -> list[GHex]:
    """Every hex on the map's edge, by number."""
    (c0, c1), (r0, r1) = s.columns, s.rows
    out = {GHex(c, r) for c in range(c0, c1 + 1) for r in (r0, r1)}
    out |= {GHex(c, r) for c in (c0, c1) for r in range(r0, r1 + 1)}
    return sorted((h for h in out if h in s.grid), key=str)


def _open(s: CofState, group: list[Unit], h: GHex) -> bool:
    if s.units_at(str(h)):
        return False
    terrain = s.charts.terrain[s.terrain_at(h)]
    columns = {s.charts.types[u.type].move_column for u in group}
    return all(terrain.infantry_ok if c == "infantry" else terrain.chariot_ok for c in columns)


def _spot(s: CofState, group: list[Unit]) -> GHex | None:
    want = GHex.parse(group[0].hex)
    if _open(s, group, want):
        return want
    near = [h for h in edge_hexes(s) if 0 < h.distance(want) <= SEARCH and _open(s, group, h)]
    return min(near, key=lambda h: (h.distance(want), str(h))) if near else None


def arrive(ctx: Ctx) -> None:
    """Set every reinforcement due this turn on the map (see the module docstring)."""
    s = ctx.s
    groups: dict[tuple[str, str], list[Unit]] = {}
    for u in scheduled(s):
        if u.arrives <= s.turn:
            groups.setdefault((u.side, u.hex), []).append(u)
    entered: dict[tuple[str, str], str] = {}  # (side, wing) -> the first hex its units took
    for (side, _), group in sorted(groups.items()):
        spot = _spot(s, group)
        ids = ", ".join(u.id for u in group)
        if spot is None:
            ctx.log("arrival", f"{ids} cannot enter near {group[0].hex}: they try next turn",
                    {"side": side, "units": [u.id for u in group]})  # fmt: skip
            continue
        for u in group:
            u.status, u.hex = IN_PLAY, str(spot)
        entered.setdefault((side, group[0].wing), str(spot))
        ctx.log(
            "arrival",
            f"{s.sides[side].name}: {ids} (wing {group[0].wing}) enter the battle at {spot}",
            {"side": side, "wing": group[0].wing, "units": [u.id for u in group], "hex": str(spot)},
        )
    for ld in s.leaders:
        if ld.status != ARRIVING or ld.arrives > s.turn or (ld.side, ld.wing) not in entered:
            continue
        if any(u.side != ld.side for u in s.units_at(ld.hex)):
            ld.hex = entered[ld.side, ld.wing]
        ld.status = IN_PLAY
        ctx.log("arrival", f"{ld.name} enters the battle at {ld.hex}", {"leader": ld.id})
