"""Chariots of Fire shock combat as pure functions of the charts (cof.md §8, §9.2, §12.3-§12.6).

One shock, once the attackers and defenders are known: the base column and weapon
superiority from the Clash of Arms and Superiority charts (``shock.toml [clash]``), position
superiority (rear attack, a unit in column), the column shifts (flank, numbers, terrain), the
leaders' die-roll modifiers, the Shock CRT cell, superiority's multiplier, and the hits
shared out among a side's units. Designation, pre-shock checks (:mod:`engine.cof.cohesion`),
collapse and advance are steps of the Shock Segment the system object will chain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.cof.tables import CRT_COLUMNS, CofTables, TroopType
from engine.gboh.grid import GHex, flank_hexes, front_hexes

__all__ = [
    "Shock",
    "base_column",
    "crt",
    "distribute_hits",
    "front_targets",
    "leader_drm",
    "may_add_target",
    "may_shock",
    "multiplied",
    "mutual_rout",
    "resolve_shock",
    "shifted_column",
    "shock_duty",
    "superiority",
    "wing_leader_bonus",
]

CHARIOTS = ("CH2", "CH3", "CH2RI")
"""The chariot types of the shock rules (cof.md §8.2)."""


def shock_duty(
    troop: TroopType,
    *,
    ended_adjacent: bool = False,
    engaged: bool = False,
    adjacent_throughout: bool = False,
    in_column: bool = False,
    routed: bool = False,
    turned_in_place: bool = False,
) -> str | None:
    """A unit's shock designation (cof.md §8.2): ``must`` (ended its move with an enemy it may
    shock in its front, or Engaged and activated), ``may`` (there all the Movement Segment
    without moving: it must pass a TQ check) or ``None``. "Adjacent" means an enemy this
    unit may shock in its front hexes (the caller tests that with :func:`front_targets`).
    Light infantry, columns, routed units and units that used the start-adjacent facing
    change never shock."""
    if troop.shock == "never" or in_column or routed or turned_in_place:
        return None
    if ended_adjacent or engaged:
        return "must"
    return "may" if adjacent_throughout else None


def front_targets(
    charts: CofTables, troop: TroopType, h: GHex, facing: str, enemies: Mapping[GHex, TroopType]
) -> list[GHex]:
    """The enemy hexes in ``troop``'s front hexes it may shock: its obligatory targets unless
    a friend attacks them (cof.md §8.3)."""
    return [
        x for x in front_hexes(h, facing) if x in enemies and may_shock(charts, troop, enemies[x])
    ]


def may_add_target(h: GHex, facing: str, target: GHex) -> bool:
    """An attacker may take in defenders in its front or flank hexes (cof.md §8.3), never
    in its rear."""
    return target in front_hexes(h, facing) or target in flank_hexes(h, facing)


def may_shock(charts: CofTables, attacker: TroopType, defender: TroopType) -> bool:
    """Whether ``attacker`` may shock ``defender`` (cof.md §8.2): its Clash of Arms cell."""
    return charts.clash[(attacker.code, defender.code)].column > 0


def base_column(charts: CofTables, attacker: TroopType, defender: TroopType) -> int:
    """The Clash of Arms column (cof.md §8.6 #1); ``ValueError`` if no shock is allowed."""
    column = charts.clash[(attacker.code, defender.code)].column
    if column <= 0:
        raise ValueError(f"{attacker.code} may not shock {defender.code} (cof.md §8.2)")
    return column


def superiority(
    charts: CofTables,
    attacker: TroopType,
    defender: TroopType,
    *,
    rear: bool = False,
    rear_attacker_fronted: bool = False,
    defender_in_column: bool = False,
) -> str:
    """``AS``, ``DS`` or ``none`` (cof.md §8.6 #2): a rear attack (unless that attacker
    stands in the front hex of another enemy unit no friend attacks) or a defender in
    column gives AS; otherwise the Superiority chart, read from the attacker's side."""
    if defender_in_column or (rear and not rear_attacker_fronted):
        return "AS"
    sup = charts.clash[(attacker.code, defender.code)].superiority
    return sup if sup in ("AS", "DS") else "none"


def shifted_column(
    charts: CofTables,
    base: int,
    *,
    flank: bool = False,
    attackers: int = 1,
    defenders: int = 1,
    terrain_shifts: Sequence[str] = (),
) -> int:
    """The base column after every shift (cof.md §8.7): flank 2 right, 2 per extra unit
    towards the side with more, the terrain shifts named (``shock.toml [shifts]``), then
    held to the table's edge. A CH-2 with runners counts as one unit."""
    s = charts.shifts
    column = base
    if flank:
        column += s["flank"].value
    column += (attackers - defenders) * s["numbers"].value
    column += sum(s[name].value for name in terrain_shifts)
    return min(max(column, 1), CRT_COLUMNS)


def leader_drm(attacker_leaders: Sequence[int], defender_leaders: Sequence[int]) -> int:
    """The shock roll's leader modifier (cof.md §4.1): each leader stacked with an attacker
    adds his bonus, each with a defender subtracts it. A leader's bonus is the wing leader's
    value (``shock.toml [modifiers] wing_leader``) or an OC's Charisma: pass the numbers."""
    return sum(attacker_leaders) - sum(defender_leaders)


def wing_leader_bonus(charts: CofTables) -> int:
    """A wing commander's shock modifier (cof.md §4.1)."""
    return charts.shock_modifiers["wing_leader"].value


def crt(charts: CofTables, column: int, modified_dr: int) -> tuple[int, int]:
    """(attacker hits, defender hits) of the Shock CRT (cof.md §8.8); rolls and columns
    beyond the table read its edge."""
    rows = charts.crt
    dr = min(max(modified_dr, rows[0].dr), rows[-1].dr)
    row = next(r for r in rows if r.dr == dr)
    return row.cells[min(max(column, 1), CRT_COLUMNS) - 1]


def multiplied(charts: CofTables, hits: tuple[int, int], sup: str) -> tuple[int, int]:
    """AS doubles the defender's hits, DS triples the attacker's (cof.md §8.8 #3)."""
    a, d = hits
    if sup == "AS":
        d *= charts.shock_modifiers["attacker_superior"].value
    elif sup == "DS":
        a *= charts.shock_modifiers["defender_superior"].value
    return a, d


def distribute_hits(
    hits: int, units: Sequence[str], priority: Sequence[str] = ()
) -> dict[str, int]:
    """Share ``hits`` among ``units`` as evenly as possible (cof.md §9.2 #1): the odd hits go
    first to the units in ``priority`` (position superiority, then weapon superiority, then the
    owner's choice), then in the order given."""
    if not units:
        return {}
    share, extra = divmod(hits, len(units))
    order = [u for u in priority if u in units] + [u for u in units if u not in priority]
    return {u: share + (1 if order.index(u) < extra else 0) for u in units}


def mutual_rout(
    attackers: Sequence[tuple[int, int]], defenders: Sequence[tuple[int, int]]
) -> str | None:
    """Which side routs when every unit of both sides would (cof.md §9.2 #3): units are
    (hits, TQ); the side with the largest excess of hits over TQ, the defender on a tie.
    ``None`` when mutual rout does not apply (some unit short of its TQ)."""
    if not attackers or not defenders:
        return None
    if not all(h >= tq for h, tq in (*attackers, *defenders)):
        return None
    a = max(h - tq for h, tq in attackers)
    d = max(h - tq for h, tq in defenders)
    return "attacker" if a > d else "defender"


@dataclass(frozen=True)
class Shock:
    """One resolved shock: the columns, the superiority, the roll and the hits each side takes."""

    base: int
    column: int
    superiority: str
    modified: int
    attacker_hits: int
    defender_hits: int


def resolve_shock(
    charts: CofTables,
    attacker: TroopType,
    defender: TroopType,
    dr: int,
    *,
    rear: bool = False,
    rear_attacker_fronted: bool = False,
    defender_in_column: bool = False,
    flank: bool = False,
    attackers: int = 1,
    defenders: int = 1,
    terrain_shifts: Sequence[str] = (),
    drm: int = 0,
) -> Shock:
    """Resolve one shock with die roll ``dr`` (cof.md §8.6-§8.8). ``attacker`` and
    ``defender`` are the types each side chose for the charts; ``drm`` the leaders' and
    heroes' modifier."""
    base = base_column(charts, attacker, defender)
    sup = superiority(
        charts,
        attacker,
        defender,
        rear=rear,
        rear_attacker_fronted=rear_attacker_fronted,
        defender_in_column=defender_in_column,
    )
    column = shifted_column(
        charts,
        base,
        flank=flank and not rear,
        attackers=attackers,
        defenders=defenders,
        terrain_shifts=terrain_shifts,
    )
    a, d = multiplied(charts, crt(charts, column, dr + drm), sup)
    return Shock(base, column, sup, dr + drm, a, d)
