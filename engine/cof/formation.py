"""The words of a ``move`` order and column formation (cof.md §6.3, §7.1).

A move line is a unit and its steps, in order: hexes to enter, vertices to face (in
column: hexsides), and four words of their own::

    move E4 0704 0705 column N     enter column at the end of the move, facing hexside N
    move E4 0705 deploy NE         leave column at the end of the move, facing vertex NE
    move E4 face S                 a column turns to hexside S where it stands (1 MP a side)
    move E1 0404 fire 0807 0405    fire at 0807 after entering 0404, then move on (§7.1)
    move E1 0404 with achilles     a hero in E1's hex rides along (rulebook §10.16)
    move ramesses 0405 with standard   a leader takes the Standard in his hex (§9.32)

``face`` may stand before a vertex (a hexside in column) and means nothing. Column
formation (rulebook §6.31-§6.36): an SI or HI neither Engaged nor routed may, at the end
of its move, enter or leave column for the chart's ``column_change`` MP (so that much must
be left). On entering it faces one of the two hexsides of its facing vertex (pbem: the
first clockwise unless the order names one); on leaving it faces one of the two vertices
at the ends of its hexside (the owner's choice: the order names it, else the first
clockwise).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cof.steps import Ctx, add_hits
from engine.cof.tables import CofTables, TroopType
from engine.gboh.grid import SIDES, VERTICES, GHex, front_hexes, side_between, side_vertices

__all__ = [
    "MoveWords",
    "column_sides",
    "deploy_vertices",
    "formation_problem",
    "move_words",
    "revert_shocked_columns",
]


@dataclass(frozen=True)
class MoveWords:
    """A move line read: the steps to trace, the formation change at its end (``column``,
    ``deploy`` or ``""``) with the facing named for it, and the fire during the move:
    ``fire_at`` the target hex, ``fire_after`` how many steps come before it, ``fire_pick``
    the counter of a CH-2 with runners it hits (``chariot`` / ``runners``, rulebook §7.13);
    ``speed`` the Speed a chariot declares (``speed 7``, the optional Turnover rule, §6.81);
    ``alone``: a counter of a CH-2 + RI stack leaves its mate (``move C alone ...``, rulebook
    §8.42); ``riders`` what goes along (``with``: heroes by id, or ``standard``), in lower
    case."""

    steps: tuple[str, ...]
    form: str = ""
    form_facing: str = ""
    fire_at: str = ""
    fire_after: int = 0
    fire_pick: str = ""
    speed: int | None = None
    alone: bool = False
    riders: tuple[str, ...] = ()


def move_words(args: tuple[str, ...]) -> MoveWords | str:
    """Read a move line's words after the unit; a problem as text."""
    words = [w.upper() for w in args if w.lower() != "face"]
    alone = words[:1] == ["ALONE"]
    words = words[alone:]
    steps: list[str] = []
    riders: list[str] = []
    form = form_facing = fire_at = fire_pick = ""
    fire_after = 0
    speed: int | None = None
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "WITH":
            if not nxt:
                return "with names what goes along: a hero (with achilles) or the standard"
            if nxt.lower() in riders:
                return f"{nxt.lower()} is named twice"
            riders.append(nxt.lower())
            i += 2
            continue
        if form:
            return f"{w.lower()!r} after {form}: a formation change ends the move"
        if w in ("COLUMN", "DEPLOY"):
            form = w.lower()
            if nxt and nxt in (SIDES if w == "COLUMN" else VERTICES):
                form_facing = nxt
                i += 1
            elif w == "DEPLOY" and nxt:
                return f"deploy names a vertex to face ({', '.join(VERTICES)}), not {nxt!r}"
        elif w == "SPEED":
            if speed is not None or not nxt.isdigit():
                return "speed names the MP the chariot will use, once: speed 7 (§6.81)"
            speed = int(nxt)
            i += 1
        elif w == "FIRE":
            if fire_at:
                return "a unit fires once an Orders Phase (cof.md §7.1)"
            if not nxt:
                return "fire names the hex fired at: fire 0807"
            fire_at, fire_after = nxt, len(steps)
            i += 1
            if i + 1 < len(words) and words[i + 1] in ("CHARIOT", "RUNNERS"):
                fire_pick = words[i + 1].lower()
                i += 1
        else:
            steps.append(w)
        i += 1
    return MoveWords(
        tuple(steps), form, form_facing, fire_at, fire_after, fire_pick, speed, alone,
        tuple(riders),
    )  # fmt: skip


def column_sides(here: GHex, vertex: str) -> list[str]:
    """The hexsides a unit facing ``vertex`` may face on entering column: those of its two
    front hexes, clockwise."""
    return [side_between(here, h) for h in front_hexes(here, vertex)]


def deploy_vertices(side: str) -> list[str]:
    """The vertices at the ends of hexside ``side``: a unit leaving column faces one."""
    return list(side_vertices(side))


def formation_problem(
    charts: CofTables,
    troop: TroopType,
    *,
    in_column: bool,
    form: str,
    engaged: bool,
    routed: bool,
    mp_left: int,
) -> str | None:
    """Why a unit may not enter (``form="column"``) or leave (``"deploy"``) column at the
    end of its move (rulebook §6.31), or ``None``."""
    if not troop.column:
        return f"only SI and HI form column, not {troop.code} (cof.md §6.3)"
    if engaged or routed:
        return "an Engaged or routed unit may not change formation (cof.md §6.3)"
    if form == "column" and in_column:
        return "the unit is in column already"
    if form == "deploy" and not in_column:
        return "the unit is not in column"
    cost = charts.actions["column_change"].value
    if mp_left < cost:
        return f"changing formation needs {cost} MP, {mp_left} left (cof.md §6.3)"
    return None


def revert_shocked_columns(ctx: Ctx, since: int) -> None:
    """Units in column shocked in this Orders Phase (the ``shock`` events from ``since``)
    revert to normal formation at its end and take the chart's ``column_shocked`` hit, even
    if it routs them (rulebook §6.36); they face the first vertex of their hexside."""
    shocks = [e for e in ctx.events[since:] if e.kind == "shock"]
    hexes = {h for e in shocks for h in e.data.get("defenders", ())}
    for u in sorted(ctx.s.live(), key=lambda u: u.id):
        if u.column and u.hex in hexes:
            u.column = False
            u.facing = deploy_vertices(u.facing)[0]
            ctx.log("column", f"{u.id} was shocked in column: it reverts to normal formation",
                    {"unit": u.id})  # fmt: skip
            add_hits(ctx, u, ctx.s.charts.events["column_shocked"].hits, "shocked in column")
