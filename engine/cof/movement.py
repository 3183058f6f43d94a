"""Chariots of Fire movement as pure functions of the charts (cof.md §6, §12.1).

A move is traced step by step (:func:`trace_move`): each step enters a hex or turns one
vertex, paying the Movement Cost Chart (``movement.toml``) and taking the hits the Cohesion
Hit chart lists (``checks.toml``). Nothing here knows a game state: the caller says what
stands where (terrain of a hex, hexsides crossed, enemy front hexes, friendly units), so the
same functions serve movement, orderly withdrawal and the autoplayer.

There are no zones of control in this volume (cof.md §6.5); what limits a unit near the enemy
is facing: no turning in a hex that is an enemy's front hex (:func:`may_turn_in`), the
start-adjacent allowance (:func:`start_turn_allowance`), and out-of-command units never
entering a hex next to an enemy (:func:`out_of_command_may_enter`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from engine.cof.tables import CofTables, TroopType
from engine.gboh.grid import (
    SIDES,
    VERTICES,
    GHex,
    column_front,
    front_hexes,
    side_between,
    turns,
)

__all__ = [
    "MoveTrace",
    "Terrainer",
    "column_ma",
    "enemy_front_hexes",
    "entry_cost",
    "facing_cost",
    "facing_mp",
    "is_facing",
    "may_turn_in",
    "moved_again_hits",
    "out_of_command_may_enter",
    "start_turn_allowance",
    "terrain_hits",
    "trace_move",
    "turn_hits",
    "withdrawal_allowance",
]

Terrainer = Callable[[GHex], str]
"""The terrain code (``movement.toml`` row) of a hex."""


def _chart(charts: CofTables, code: str) -> int:
    return charts.actions[code].value


def entry_cost(
    charts: CofTables,
    troop: TroopType,
    terrain: str,
    hexsides: Iterable[str] = (),
    *,
    climb: bool = False,
    through_friend: bool = False,
    column: str | None = None,
) -> int | None:
    """MP to enter a hex of ``terrain`` across ``hexsides`` (cof.md §6.2, §6.6);
    ``None`` if the unit may not enter it. ``column`` overrides the type's movement column
    (a leader: ``chariot`` mounted, ``infantry`` on foot)."""
    col = column or troop.move_column
    cost = charts.terrain[terrain].cost(col)
    if cost is None:
        return None
    for side in hexsides:
        extra = charts.terrain[side].cost(col)
        if extra is None:
            return None
        cost += extra
    if climb:
        extra = charts.terrain["climb"].cost(col)
        if extra is None:
            return None
        cost += extra
    if through_friend:
        cost += _chart(charts, "through_friend")
    return cost


def terrain_hits(
    charts: CofTables,
    troop: TroopType,
    terrain: str,
    hexsides: Iterable[str] = (),
    *,
    in_column: bool = False,
) -> int:
    """Hits for entering ``terrain`` across ``hexsides`` (cof.md §6.2): chariots in Rough,
    SI/HI (not in column) in Rough, Woods, Marsh and across a Minor River."""
    per = charts.events["terrain_entry"].hits
    hits = 0
    for code in (terrain, *hexsides):
        row = charts.terrain[code]
        if (row.heavy_hit and troop.heavy and not in_column) or (
            row.chariot_hit and troop.rough_hits
        ):
            hits += per
    return hits


def is_facing(step: str) -> bool:
    """Whether a move's step is a facing (a vertex, or a hexside in column), not a hex."""
    return step in VERTICES or step in SIDES


def _turns(start: str, end: str, in_column: bool) -> int:
    """Vertices turned from ``start`` to ``end``; in column, hexsides."""
    if not in_column:
        return turns(start, end)
    d = (SIDES.index(end) - SIDES.index(start)) % 6
    return min(d, 6 - d)


def facing_cost(charts: CofTables, start: str, end: str, *, in_column: bool = False) -> int:
    """MP to turn from vertex ``start`` to ``end`` the short way (cof.md §6.5); in column,
    from hexside to hexside, as much a hexside (see :func:`trace_move`)."""
    return _turns(start, end, in_column) * _chart(charts, "facing_vertex")


def facing_mp(charts: CofTables, facing: str, steps: Sequence[str], *, in_column: bool) -> int:
    """MP a move spends turning where it starts (``steps`` up to the first hex entered)."""
    mp = 0
    for x in steps:
        if not is_facing(x):
            break
        mp += facing_cost(charts, facing, x, in_column=in_column)
        facing = x
    return mp


def turn_hits(
    charts: CofTables, troop: TroopType, terrain: str, vertices: int, *, in_column: bool = False
) -> int:
    """Hits an SI/HI (not in column) takes turning ``vertices`` inside Rough, Marsh or Woods
    (cof.md §6.2, §6.5)."""
    if not troop.heavy or in_column or not charts.terrain[terrain].turn_hit:
        return 0
    return vertices * charts.events["turn_in_terrain"].hits


def may_turn_in(h: GHex, enemy_fronts: frozenset[GHex], entered: bool) -> bool:
    """Whether a moving unit may change facing in ``h`` (cof.md §6.5): never in a hex it has
    entered that is an enemy unit's front hex (its start hex: :func:`start_turn_allowance`)."""
    return not (entered and h in enemy_fronts)


def start_turn_allowance(ma: int, fronting_enemies: int) -> int | None:
    """MP a unit beginning its segment in enemy front hexes may spend on facing (cof.md §6.5):
    ``None`` (no limit) when in none, half its MA rounded up in one, 0 in two or more."""
    if fronting_enemies == 0:
        return None
    if fronting_enemies == 1:
        return (ma + 1) // 2
    return 0


def enemy_front_hexes(enemies: Iterable[tuple[GHex, str]]) -> frozenset[GHex]:
    """Every hex that is a front hex of one of ``enemies`` (hex, facing vertex)."""
    return frozenset(x for h, f in enemies for x in front_hexes(h, f))


def out_of_command_may_enter(h: GHex, enemy_hexes: frozenset[GHex]) -> bool:
    """An out-of-command unit never enters a hex adjacent to an enemy unit (cof.md §5.5)."""
    return not any(n in enemy_hexes for n in h.neighbours())


def column_ma(charts: CofTables, ma: int, in_column: bool) -> int:
    """MA in or out of column (cof.md §6.3: +1 in column)."""
    return ma + _chart(charts, "column_ma_bonus") if in_column else ma


def moved_again_hits(charts: CofTables, troop: TroopType, moved: bool) -> int:
    """Hits an SI/HI already marked Moved takes each time it moves again this turn (cof.md
    §6.1); advance after combat is not a move."""
    return charts.events["moved_again"].hits if moved and troop.moved_hits else 0


def withdrawal_allowance(own_ma: int, enemy_ma: int) -> int:
    """Orderly withdrawal: MP = own MA minus the approaching enemy's; 0 if not faster
    (cof.md §6.4)."""
    return max(0, own_ma - enemy_ma)


@dataclass
class MoveTrace:
    """What a traced move costs and where it ends; ``problem`` says why it stopped short.
    ``hits_at`` lists the hits as they come, ``(i, kind, n)``: ``n`` hits in ``path[i]``,
    ``enter`` for entering it, ``turn`` for turning in it (rulebook §6.22: every hit of a
    move is taken at once, where it happens)."""

    hex: GHex
    facing: str
    mp: int = 0
    hits: int = 0
    path: list[GHex] = field(default_factory=list)
    problem: str = ""
    hits_at: list[tuple[int, str, int]] = field(default_factory=list)
    facings: list[str] = field(default_factory=list)
    """The facing with which the move entered each hex of ``path`` after the first."""

    def hits_in(self, i: int, kind: str) -> int:
        """The hits of ``kind`` (``enter`` or ``turn``) the move takes in ``path[i]``."""
        return sum(n for j, k, n in self.hits_at if j == i and k == kind)

    def _hit(self, kind: str, n: int) -> None:
        if n:
            self.hits += n
            self.hits_at.append((len(self.path) - 1, kind, n))


def trace_move(
    charts: CofTables,
    troop: TroopType,
    start: GHex,
    facing: str,
    steps: Sequence[str],
    *,
    ma: int,
    terrain: Terrainer,
    hexsides: Callable[[GHex, GHex], tuple[str, ...]] = lambda a, b: (),
    enemy_fronts: frozenset[GHex] = frozenset(),
    blocked: frozenset[GHex] = frozenset(),
    friends: frozenset[GHex] = frozenset(),
    enemy_chariots: frozenset[GHex] = frozenset(),
    in_column: bool = False,
    level: Callable[[GHex], int] = lambda h: 0,
) -> MoveTrace:
    """Follow ``steps`` (a hex number to enter, or a vertex to face: ``"1424"``, ``"NE"``)
    from ``start`` facing ``facing`` (a hexside in column) within ``ma`` MP (cof.md §6.1-§6.6).

    A unit enters only a front hex (in column: the hex ahead or either beside it, re-facing
    free); turning costs MP per vertex, up to the type's limit per hex, never in an enemy
    front hex it has entered (a column turns from hexside to hexside for the same MP a
    hexside: the rulebook, §6.33-§6.34, prices only the free turn into the hexes beside the
    one ahead; pbem reads any other turn as infantry's, §6.62, as cof.md §6.3 [E] does);
    ``blocked`` hexes (enemy units, prohibited) are not entered;
    passing a friend costs the extra MP and SI/HI hits. A chariot may pass through
    ``enemy_chariots`` (non-engaged enemy CH or CH-2+RI hexes, cof.md §6.7) at the terrain's
    cost, never turning or stopping there; the block roll is the caller's (it ends the move
    in the hex before). A step up to a higher ``level`` (elevation) pays the chart's
    ``climb`` row (cof.md §6.2, §12.1). Stops at the first illegal step.
    """
    t = MoveTrace(start, facing, path=[start])
    turned_here = 0
    for step in steps:
        if is_facing(step):
            ways = SIDES if in_column else VERTICES
            if step not in ways:
                what = "in column a unit faces a hexside" if in_column else "a unit faces a vertex"
                t.problem = f"{what} ({' '.join(ways)}), not {step}"
                return t
            n = _turns(t.facing, step, in_column)
            cost = facing_cost(charts, t.facing, step, in_column=in_column)
            limit = troop.max_turns_in_hex
            if limit and turned_here + n > limit:
                t.problem = f"{troop.code} may turn at most {limit} vertices in one hex"
                return t
            if t.hex in enemy_chariots:
                t.problem = f"no facing change while passing through {t.hex}"
                return t
            if not may_turn_in(t.hex, enemy_fronts, entered=len(t.path) > 1):
                t.problem = f"no facing change in {t.hex}: it is an enemy front hex"
                return t
            if t.mp + cost > ma:
                t.problem = f"turning to {step} needs {cost} MP, {ma - t.mp} left"
                return t
            t.mp += cost
            t._hit("turn", turn_hits(charts, troop, terrain(t.hex), n, in_column=in_column))
            turned_here += n
            t.facing = step
            continue
        target = GHex.parse(step)
        ahead = column_front(t.hex, t.facing) if in_column else front_hexes(t.hex, t.facing)
        if target not in ahead:
            t.problem = f"{target} is not a front hex of {t.hex} facing {t.facing}"
            return t
        if target in blocked or (target in enemy_chariots and not troop.pass_through):
            t.problem = f"{target} may not be entered"
            return t
        sides = hexsides(t.hex, target)
        price = entry_cost(
            charts,
            troop,
            terrain(target),
            sides,
            climb=level(target) > level(t.hex),
            through_friend=target in friends,
        )
        if price is None:
            t.problem = f"{troop.code} may not enter {target} ({terrain(target)})"
            return t
        if t.mp + price > ma:
            t.problem = f"entering {target} needs {price} MP, {ma - t.mp} left"
            return t
        t.mp += price
        if in_column:
            t.facing = side_between(t.hex, target)
        t.hex = target
        t.path.append(target)
        t.facings.append(t.facing)
        got = terrain_hits(charts, troop, terrain(target), sides, in_column=in_column)
        if target in friends and troop.heavy:
            got += charts.events["through_friend"].hits
        t._hit("enter", got)
        turned_here = 0
    if t.hex in enemy_chariots:
        t.problem = f"a chariot may not stop in {t.hex}, an enemy chariot's hex"
    return t
