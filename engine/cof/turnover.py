"""The optional Chariot Turnover rule in the turn (rulebook §6.8, §6.92, §7.26; cof.md §6.8).

A game plays it when it was created with the option ``turnover`` (``pbem game create ...
--option turnover=true``; the state's ``special_rules`` then hold ``turnover``). Then:

* a chariot or battle wagon (``units.toml`` ``turnover``) moving declares its **Speed**, the
  MP it will use this phase (rulebook §6.81): ``move E1 speed 7 0404 NE 0405``; without the
  word its Speed is the MP its move uses (pbem's reading [E]); it may not use more;
* each vertex it turns once it has left its starting hex, and each hex or hexside it enters
  that the Movement Cost Chart marks ``turnover``, rolls a d10 on the Turnover Table's column
  of its type and Speed (rulebook §6.82): a roll the table marks overturns it, 1 hit at once
  (:func:`engine.cof.cohesion.turnover`); turning in its starting hex is exempt (§6.83);
* a CH-2 that fires and runs rolls once on the table's fire-and-run column, whatever its
  speed, after the fire and its target's reply (rulebook §7.26; cof.md §7.10 #4).

A CH-2 with its runners rolls on the CH-2's column and the chariot takes the hit. pbem's
reading [E]: a Speed no band of the table covers rolls no die; the checks of a hex come once
the unit stands in it (after the reaction fire it meets there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.cof import cohesion
from engine.cof.state import CofState, Unit
from engine.cof.steps import Roll, add_hits, chart_type
from engine.cof.tables import CofTables
from engine.gboh.grid import VERTICES, GHex, turns

if TYPE_CHECKING:
    from engine.cof.phase import Phase

__all__ = [
    "RULE",
    "Checks",
    "checks_at",
    "fire_and_run_check",
    "plan",
    "playing",
    "prepare",
    "speed_problem",
]

RULE = "turnover"
"""The name of the option (and of the special rule a game holds) that plays turnover."""


@dataclass(frozen=True)
class Checks:
    """A move's turnover checks: its declared ``speed`` and, for each check, the index of
    the hex of its path where it comes and why (``turn`` or the terrain's name)."""

    speed: int
    due: tuple[tuple[int, str], ...]


def playing(s: CofState) -> bool:
    """Whether this game plays the optional Chariot Turnover rule."""
    return RULE in s.special_rules


def _band_unit(code: str) -> str:
    """The Turnover Table's type of a chart line: a CH-2 with runners reads the CH-2's."""
    return "CH2" if code == "CH2RI" else code


def speed_problem(s: CofState, u: Unit, speed: int | None, mp: int, ma: int) -> str | None:
    """Why ``u`` may not move ``mp`` MP at the Speed it declares (``None``: none declared)."""
    if speed is None:
        return None
    if not playing(s):
        return "a Speed is declared only under the optional Chariot Turnover rule (§6.81)"
    if not chart_type(s, u).turnover:
        return f"{u.id} is no chariot or battle wagon: it declares no Speed (§6.81)"
    if not 1 <= speed <= ma:
        return f"{u.id} declares a Speed from 1 to its MA {ma}, not {speed} (§6.81)"
    if mp > speed:
        return f"the move uses {mp} MP, more than the Speed {speed} declared (§6.81)"
    return None


def plan(
    charts: CofTables,
    facing: str,
    steps: Sequence[str],
    *,
    speed: int,
    terrain: Callable[[GHex], str],
    hexsides: Callable[[GHex, GHex], Sequence[str]],
    start: GHex,
) -> Checks:
    """The checks a chariot's move brings (rulebook §6.82-§6.83): one a vertex turned after
    it has left ``start``, one a hex or hexside entered that the chart marks ``turnover``."""
    due: list[tuple[int, str]] = []
    k, here = 0, start
    for x in steps:
        if x in VERTICES:
            if k:
                due += [(k, "turn")] * turns(facing, x)
            facing = x
            continue
        nxt = GHex.parse(x)
        k += 1
        marked = [kind for kind in hexsides(here, nxt) if charts.terrain[kind].turnover]
        if charts.terrain[terrain(nxt)].turnover:
            marked.append(terrain(nxt))
        due += [(k, kind) for kind in marked]
        here = nxt
    return Checks(speed, tuple(due))


def prepare(ph: Phase, u: Unit, steps: Sequence[str], speed: int) -> None:
    """Before ``u`` moves along ``steps`` at ``speed``: the checks its move will bring, if
    the game plays the rule and ``u`` is a chariot or a battle wagon."""
    s = ph.s
    if playing(s) and chart_type(s, u).turnover:
        ph.turnover[u.id] = plan(
            s.charts, u.facing, steps, speed=speed, start=u.at,
            terrain=s.terrain_at, hexsides=s.hexside_kinds,
        )  # fmt: skip


def _roll(ph: Phase, u: Unit, why: str, speed: int, *, fire_and_run: bool = False) -> None:
    ctx = ph.ctx
    assert ctx is not None
    s = ph.s
    unit = _band_unit(chart_type(s, u).code)
    bands = [
        b
        for b in s.charts.bands.values()
        if b.unit == unit
        and b.fire_and_run == fire_and_run
        and (fire_and_run or b.min_speed <= speed <= b.max_speed)
    ]
    if not bands:
        return
    dr = ctx.d10(f"turnover check of {u.id}", Roll("turnover", u.id))
    over = cohesion.turnover(s.charts, unit, speed, dr, fire_and_run=fire_and_run)
    column = "fire and run" if fire_and_run else f"Speed {speed}"
    ctx.log(
        "turnover",
        f"{u.id} checks for turnover ({why}, {column}): rolls {dr}: "
        + ("it overturns" if over else "it stays up"),
        {"unit": u.id, "why": why, "speed": speed, "over": over},
        (dr,),
    )
    if over:
        add_hits(ctx, u, 1, "turnover")


def checks_at(ph: Phase, u: Unit, k: int) -> None:
    """Roll the turnover checks of ``u``'s move that come in the ``k``-th hex of its path."""
    got = ph.turnover.get(u.id)
    if got is None:
        return
    for i, why in got.due:
        if i == k and u.on_map and not u.routed:
            _roll(ph, u, why, got.speed)


def fire_and_run_check(ph: Phase, u: Unit) -> None:
    """A chariot that fired and ran checks on the table's fire-and-run column (§7.26)."""
    if playing(ph.s) and u.on_map and not u.routed and chart_type(ph.s, u).turnover:
        _roll(ph, u, "fire and run", 0, fire_and_run=True)
