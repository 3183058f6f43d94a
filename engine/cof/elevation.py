"""Chariots of Fire elevation and the ground's effects on fire and shock (cof.md §6.2, §7.3,
§7.6, §8.7).

Line of sight across levels (:func:`sight`) follows the rulebook §7.14 (it wins over the
digest wherever they differ): a hex higher than both units always blocks; between units on
different levels a higher firer is blocked only by terrain nearer the target, a lower firer
only by terrain nearer itself, and terrain exactly halfway always blocks. Which hexes are "blocking
terrain" between two levels is the digest's engine reading [E]: woods, and hexes above the
lower unit's level (a hill's crest). Combat units between count towards the "more than one
unit" limit only where terrain there would block.

:func:`shock_shifts` names the Shock CRT terrain shifts (``shock.toml [shifts]``) a shock
takes; :func:`climb` and :func:`lower_target` are the movement and missile tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.cof.movement import entry_cost
from engine.cof.pieces import Ground
from engine.cof.tables import CofTables, TroopType
from engine.gboh.grid import GHex

__all__ = ["climb", "lower_target", "shock_shifts", "sight", "step_cost"]


def climb(ground: Ground, start: GHex, end: GHex) -> bool:
    """Whether a step from ``start`` to ``end`` goes up a level: it pays the chart's
    ``climb`` row (cof.md §6.2, §12.1)."""
    return ground.level(end) > ground.level(start)


def step_cost(
    charts: CofTables,
    ground: Ground,
    troop: TroopType,
    start: GHex,
    end: GHex,
    *,
    through_friend: bool = False,
    column: str | None = None,
) -> int | None:
    """MP to step from ``start`` into the adjacent ``end`` on this ground: its terrain, the
    hexsides crossed, a climb, a friend passed (:func:`engine.cof.movement.entry_cost`);
    ``None`` where the unit may not go."""
    return entry_cost(
        charts,
        troop,
        ground.kind(end),
        ground.hexsides(start, end),
        climb=climb(ground, start, end),
        through_friend=through_friend,
        column=column,
    )


def lower_target(ground: Ground, firer: GHex, target: GHex) -> bool:
    """Whether the target stands lower than the firer: −1 to the fire at 2 hexes or more
    (cof.md §7.6; :func:`engine.cof.missile.missile_drm` applies the range)."""
    return ground.level(target) < ground.level(firer)


def sight(
    ground: Ground,
    firer: GHex,
    target: GHex,
    *,
    occupied: Callable[[GHex], bool] = lambda h: False,
    blocks: Callable[[GHex], bool] | None = None,
) -> bool:
    """Line of sight from ``firer`` to ``target`` across levels (rulebook §7.14, cof.md §7.3).

    Adjacent targets are always seen. Along the line, each hex between (two where the line
    runs along their hexside: blocked only if both block, the firer's benefit):

    * a hex higher than both units blocks;
    * same level: woods (``blocks``, by default the terrain's ``woods``) block, and two or
      more combat units between block (one never does);
    * different levels: woods and hexes above the lower unit's level are blocking terrain;
      it blocks only where it lies nearer the target (firer higher) or nearer the firer
      (firer lower), and always exactly halfway. Units count only there.
    """
    woods = blocks if blocks is not None else (lambda h: ground.kind(h) == "woods")
    steps = firer.line_to(target)
    n = len(steps) - 1
    if n <= 1:
        return True
    lf, lt = ground.level(firer), ground.level(target)
    top, low = max(lf, lt), min(lf, lt)
    units = 0
    for i, pair in enumerate(steps[1:-1], start=1):
        if all(ground.level(h) > top for h in pair):
            return False
        if lf == lt:
            counts = True
        elif lf > lt:
            counts = 2 * i >= n  # nearer the target, or halfway
        else:
            counts = 2 * i <= n  # nearer the firer, or halfway
        if not counts:
            continue
        if all(woods(h) or (lf != lt and ground.level(h) > low) for h in pair):
            return False
        if all(occupied(h) for h in pair):
            units += 1
    return units <= 1


def shock_shifts(
    charts: CofTables,
    ground: Ground,
    defenders: Iterable[GHex],
    attackers: Iterable[GHex],
    *,
    chariots_attack: bool = False,
) -> list[str]:
    """The Shock CRT terrain shifts of one shock (cof.md §8.7), as ``shock.toml [shifts]``
    names: ``higher_ground`` (the defender higher than every attacker), ``minor_river`` or
    ``stream`` (an attacker across that hexside), ``defender_cover`` or
    ``defender_cover_vs_chariots`` (a defender in woods or rough). With several defenders
    the hex most favourable to the defender is used: the one shifting furthest left."""
    att = list(attackers)
    best: list[str] = []
    best_sum = 0
    for d in defenders:
        got: list[str] = []
        if att and all(ground.level(d) > ground.level(a) for a in att):
            got.append("higher_ground")
        crossed = {s for a in att if a.distance(d) == 1 for s in ground.hexsides(a, d)}
        if "minor_river" in crossed:
            got.append("minor_river")
        elif "stream" in crossed:
            got.append("stream")
        if ground.kind(d) in ("woods", "rough"):
            got.append("defender_cover_vs_chariots" if chariots_attack else "defender_cover")
        total = sum(charts.shifts[name].value for name in got)
        if total < best_sum or (not best and got and total == best_sum):
            best, best_sum = got, total
    return best
