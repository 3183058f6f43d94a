"""Rules cases played through the turn (``do = "turn"``): the case's counters, leaders and
ground become a game state on the case's charts; the active side's orders are carried out
with the dice the case gives (faces 0-9, in order), as a mail would be; the answer to a
question the turn asks, if any, follows; then the case shows what it names.

``args``::

    side = "egypt"                 the active side (a side name of the units)
    wing = "1"                     its wing this Orders Phase (the marker drawn)
    how = "draw"                   how the marker came (draw, momentum)
    orders = "shock Y"             the order lines (a challenge: "challenge achilles hector 1206")
    dice = "3 7 5"                 the d10 faces, in order
    answer = "accept"              the answer to the question the turn asks (if it asks)
    turn = 2                       the game turn (1 by default; the case's battle ends with it)
    captured = { hittite = 1 }     a Standard the enemy destroyed on that turn
    standing = { egypt = "aggression: never" }   standing orders per side (over the
                                   case's own defaults: no trump, no reaction fire, no
                                   orderly withdrawal, no reaction facing)
    standards = { egypt = "1510" } the Standards
    rules = ["heroic"]             the battle's special rules
    show = "Y Z hector pool"       units and leaders by id; ``pool``, ``question``,
                                   ``standard:SIDE``, ``skip:SIDE`` (its next marker is
                                   spent), ``events:KIND`` (how many), ``dice`` (how many
                                   were rolled)

Orders the turn refuses show ``refused: `` and the first problem.

A unit shows ``ID HEX hits=N`` and ``routed`` / ``engaged`` when so, or ``ID fled`` /
``ID eliminated``; a leader ``ID HEX`` with ``hits=N``, ``wounded``, ``foot`` when so, or
``ID killed`` (``ID replaced`` once a wing leader killed has a replacement, Phase D).
Parts are joined with ``; ``. The charts are the case's (``fixture`` or
``rulebook``), served to the state under a key of their own. A wing without a leader in the
case gets one far away (in 0101, Command Range 60), so that its units are in command.
"""

from __future__ import annotations

from typing import Any

from cof_rules_cases_rules import Ctx
from cof_rules_kit import FIXTURE

from engine.cof.orders import carry_out, parse
from engine.cof.pieces import Chief, Piece
from engine.cof.policy import parse_policy
from engine.cof.state import _CHARTS, CofState, Leader, SideState, Unit
from engine.cof.steps import Ctx as TurnCtx
from engine.core.api import OrdersError
from engine.gboh.grid import SIDES as HEXSIDES
from engine.randomness import ScriptedDice

QUIET = "trump: never\nreaction-fire: never\nwithdraw: never\nreaction-facing: never\n"
"""What the case's sides do off their turn unless the case says otherwise."""

_KEYS = {"fixture": "test-charts: the rules corpus fixture", "rulebook": "test-charts: rulebook"}


def _charts_key(c: Ctx) -> str:
    key = _KEYS["fixture" if c.charts is FIXTURE else "rulebook"]
    _CHARTS[key] = c.charts
    return key


def _seats(c: Ctx, a: dict[str, Any]) -> dict[str, str]:
    names: list[str] = []
    for side in [a["side"], *(p.side for p in c.pieces), *(x.side for x in c.chiefs)]:
        if side not in names:
            names.append(side)
    assert len(names) == 2, names
    return {names[0]: "north", names[1]: "south"}


def _unit(p: Piece, seat: str) -> Unit:
    return Unit(
        id=p.id, side=seat, wing=p.wing or "1", type=p.type, tq=p.tq, ma=p.ma, hex=str(p.hex),
        facing=p.facing, missile=p.weapon or "", hits=p.hits, engaged=p.engaged,
        routed=p.routed, column=p.column, supply=p.supply,
    )  # fmt: skip


def _leader(x: Chief, seat: str) -> Leader:
    return Leader(
        id=x.id, side=seat, name=x.id, role=x.role, hex=str(x.hex) if x.hex else "",
        initiative=x.initiative, command_range=x.command_range, wing=x.wing or "",
        charisma=x.charisma, ability=x.ability, combat=x.combat, endurance=x.endurance,
        hero=x.hero, archer=x.archer, on_foot=x.on_foot, wounded=x.wounded, hits=x.hits,
        status="in" if x.hex else "killed",
    )  # fmt: skip


def _hexsides(c: Ctx) -> list[list[str]]:
    out = []
    for pair, kinds in c.ground.sides.items():
        a, b = sorted(pair)
        side = next(d for d in HEXSIDES if a.neighbour(d) == b)
        out += [[str(a), side, k] for k in kinds]
    return out


def state_of(c: Ctx, a: dict[str, Any]) -> CofState:
    """The case as a game at the start of the active side's Orders Phase."""
    seat = _seats(c, a)
    units = [_unit(p, seat[p.side]) for p in c.pieces]
    for u in units:  # a CH-2 and an RI of one side in one hex are a stack
        mate = [x for x in units if x.hex == u.hex and x.side == u.side and x is not u]
        if mate and {u.type, mate[0].type} == {"CH2", "RI"}:
            u.stacked_with = mate[0].id
    sides = {}
    for name, s in seat.items():
        wings = sorted({u.wing for u in units if u.side == s} | {str(a.get("wing", "1"))})
        std = a.get("standards", {}).get(name, "")
        own = parse_policy(a.get("standing", {}).get(name, ""))
        orders = parse_policy(QUIET).merged(own).text()
        sides[s] = SideState(name, name, 99, wings, std, standing=orders)
        taken = a.get("captured", {}).get(name, 0)  # destroyed on that turn
        if taken:
            sides[s].standard, sides[s].standard_captured = "", int(taken)
    active, wing = seat[a["side"]], str(a.get("wing", "1"))
    how = a.get("how", "draw")
    marker = f"{active}:{'momentum' if how == 'momentum' else wing}"
    leaders = [_leader(x, seat[x.side]) for x in c.chiefs]
    if not any(ld.side == active and ld.wing == wing for ld in leaders):
        leaders.append(Leader("case-wc", active, "the case's wing leader", "WC", "0101", 0, 60,
                              wing=wing, ability=5))  # fmt: skip
    return CofState(
        game_id="case", title="case", battle="", approximation=True, sources=[],
        columns=(1, 60), rows=(1, 60),
        terrain={str(h): k for h, k in c.ground.terrain.items()},
        elevation={str(h): v for h, v in c.ground.levels.items()},
        hexsides=_hexsides(c), units=units,
        leaders=leaders, sides=sides,
        first_side=active, turns=1, special_rules=list(a.get("rules", [])),
        turn=int(a.get("turn", 1)),
        initiative=active, pool=[], used=[marker],
        active={"side": active, "wing": "" if how == "momentum" else wing, "how": how,
                "choices": [wing]},
        tables_text=_charts_key(c),
    )  # fmt: skip


def _show(s: CofState, what: str, dice: ScriptedDice, events: list[Any]) -> str:
    if what == "pool":
        return "pool " + (" ".join(s.pool) or "empty")
    if what == "question":
        return "question " + (s.pending.get("label", "none") if s.pending else "none")
    if what == "dice":
        return f"dice {len(dice.log)}"
    if what.startswith("events:"):
        kind = what.split(":", 1)[1]
        return f"{kind} {sum(1 for e in events if e.kind == kind)}"
    if what.startswith("skip:"):
        name = what.split(":", 1)[1]
        side = next(v for v in s.sides.values() if v.name == name)
        return f"skip {name if side.skip_marker else 'none'}"
    if what.startswith("standard:"):
        side = next(v for v in s.sides.values() if v.name == what.split(":", 1)[1])
        return f"standard {side.standard or 'none'}" + (
            " captured" if side.standard_captured else ""
        )
    for u in s.units:
        if u.id == what:
            if not u.on_map:
                return f"{u.id} {u.status}"
            flags = [f for f in ("routed", "engaged") if getattr(u, f)]
            return " ".join([u.id, u.hex, f"hits={u.hits}", *flags])
    ld = s.leader(what)
    if ld.replacement:
        return f"{ld.id} replaced"
    if not ld.on_map:
        return f"{ld.id} killed"
    flags = [f"hits={ld.hits}"] if ld.hits else []
    flags += ["wounded"] if ld.wounded else []
    flags += ["foot"] if ld.on_foot else []
    return " ".join([ld.id, ld.hex, *flags])


def _turn(c: Ctx, a: dict[str, Any]) -> str:
    s = state_of(c, a)
    dice = ScriptedDice(str(a.get("dice", "")).split())
    ctx = TurnCtx(s, dice)
    text = "\n".join(line.strip() for line in str(a.get("orders", "pass")).split(";")) + "\n"
    try:
        sub = parse(s, _seats(c, a)[a["side"]], text)
    except OrdersError as e:
        return f"refused: {e.problems[0].message}"
    carry_out(ctx, sub)
    if "answer" in a and ctx.s.pending:
        side = ctx.s.pending["side"]
        carry_out(ctx, parse(ctx.s, side, f"answer {a['answer']}\n"))
    return "; ".join(_show(ctx.s, w, dice, ctx.events) for w in str(a["show"]).split())


TURN = {"turn": _turn}
