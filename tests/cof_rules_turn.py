"""Rules cases that play an Orders Phase through the turn (``do = "play"``).

The case's counters, leaders and ground become a small game on the corpus's fixture charts
(never a placeholder value); the first unit's side is the active one (seat ``north``), its
wing ``1`` is activated, and the orders mail in ``args.orders`` is checked whole and then
carried out through its Movement & Missile Segment (:func:`engine.cof.orders.
movement_segment`) with the d10 faces of ``args.dice``, every one of which must be used::

    [[case]]
    section = "6.3"
    name = "an SI forms column at the end of its move"
    units = ["S egypt SI 1010 E ma=4", "X hittite SI 1510 W"]
    do = "play"
    args = { orders = "move S 1110 column", show = "S" }
    expect = "S 1110 NE hits=0 column"

Optional ``args``: ``stacks`` (``"C R"``: a CH-2 and its runners), ``standing`` (the
inactive side's standing orders, one ``key: value`` a ``;``), ``standards`` (``side hex``
pairs; a side without one flees when it routs), ``wing`` (another unit wing than ``1``:
``"X 2"``), ``moved`` (units already marked Moved this turn: ``"S T"``), ``shock = true``
(play the Shock Segment too), ``rules`` (the game's special rules and options:
``["turnover"]``). A case with ``charts = "rulebook"`` plays on the bundled charts with
every placeholder poisoned. The answer is each unit of ``show`` as ``ID HEX FACING
hits=N`` and its markers (``stacks``: the CH-2 + RI stacks, ``stacks C+R``; a leader:
``ID HEX``), ``; `` between units, or
``refused line N: why`` for a mail the checks refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cof_rules_cases_rules import Ctx
from cof_rules_kit import FIXTURE, RULEBOOK

from engine.cof import state as cof_state
from engine.cof.orders import movement_segment, orders_phase, parse
from engine.cof.phase import Phase
from engine.cof.reactions import REACTIONS
from engine.cof.scenario import load_scenario
from engine.cof.state import CofState, Leader, SideState, Unit, from_scenario
from engine.cof.steps import Ctx as TurnCtx
from engine.cof.turn import markers
from engine.core.api import OrdersError
from engine.gboh.grid import side_between
from engine.randomness import ScriptedDice

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "cof"
FIXTURE_KEY = "# the fixture charts of tests/cof_rules_kit.py\n"
cof_state._CHARTS[FIXTURE_KEY] = FIXTURE  # a game on the corpus's own chart values
RULEBOOK_KEY = "# the bundled charts of tests/cof_rules_kit.py, placeholders poisoned\n"
cof_state._CHARTS[RULEBOOK_KEY] = RULEBOOK  # a case of a confirmed cell (charts = "rulebook")

__all__ = ["RULES_TURN", "game", "stacks"]


def game(c: Ctx, a: dict[str, Any]) -> CofState:
    """The case as a game whose wing 1 of the first unit's side takes its Orders Phase."""
    names = list(dict.fromkeys(p.side for p in c.pieces))
    seat = {names[0]: "north", [*names, "other"][1]: "south"}
    wings = dict(item.split() for item in a.get("wing", "").split(";") if item.strip())
    units = [
        Unit(
            id=p.id, side=seat[p.side], wing=wings.get(p.id, "1"), type=p.type, tq=p.tq,
            ma=p.ma, hex=str(p.hex), facing=p.facing, missile=p.weapon or "", hits=p.hits,
            supply=p.supply, column=p.column, engaged=p.engaged, routed=p.routed,
        )
        for p in c.pieces
    ]  # fmt: skip
    for u in units:
        u.moved = u.id in a.get("moved", "").split()
    for pair in a.get("stacks", "").split(";"):
        if pair.strip():
            x, y = pair.split()
            ux, uy = (next(u for u in units if u.id == i) for i in (x, y))
            ux.stacked_with, uy.stacked_with = y, x
    leaders = [
        Leader(
            id=ch.id, side=seat[ch.side], name=ch.id, role=ch.role,
            hex=str(ch.hex) if ch.hex else "", initiative=ch.initiative,
            command_range=ch.command_range, wing=ch.wing or "", charisma=ch.charisma,
            ability=ch.ability, wounded=ch.wounded, combat=ch.combat, endurance=ch.endurance,
            hero=ch.hero, archer=ch.archer, on_foot=ch.on_foot, hits=ch.hits,
        )
        for ch in c.chiefs
    ]  # fmt: skip
    if not any(ld.side == "north" and ld.role == "OC" for ld in leaders):
        leaders.append(Leader("oc", "north", "the OC", "OC", "3030", 5, 60, wing="1"))
    standards = dict(item.split() for item in a.get("standards", "").split(";") if item.strip())
    sides = {
        seat[name]: SideState(name, name, 99, ["1", "2"], standards.get(name, "")) for name in seat
    }
    sides["south"].standing = "".join(
        x.strip() + "\n" for x in a.get("standing", "").split(";") if x.strip()
    )
    g = c.ground
    s = CofState(
        game_id="case", title="a rules case", battle="case", approximation=True, sources=[],
        columns=(1, 60), rows=(1, 60),
        terrain={str(h): k for h, k in g.terrain.items()},
        elevation={str(h): v for h, v in g.levels.items()},
        hexsides=[[str(x), side_between(x, y), k]
                  for pair, kinds in g.sides.items() for x, y in [sorted(pair)] for k in kinds],
        units=units, leaders=leaders, sides=sides, first_side="north", turn=2,
        tables_text=RULEBOOK_KEY if c.charts is RULEBOOK else FIXTURE_KEY,
        special_rules=list(a.get("rules", [])),
    )  # fmt: skip
    s.active = {"side": "north", "wing": "1", "how": "initiative", "choices": []}
    return s


def stacks(s: CofState) -> str:
    """The CH-2 + RI stacks on the map (``stacks C+R``, or ``stacks none``)."""
    pairs = sorted(
        f"{u.id}+{u.stacked_with}"
        for u in s.live()
        if u.type == "CH2" and u.stacked_with and s.unit(u.stacked_with).hex == u.hex
    )
    return "stacks " + (" ".join(pairs) or "none")


def _show(s: CofState, ids: str) -> str:
    out = []
    for uid in ids.split():
        if uid == "stacks":
            out.append(stacks(s))
            continue
        ld = next((x for x in s.leaders if x.id == uid), None)
        if ld is not None:
            out.append(f"{ld.id} {ld.hex if ld.on_map else ld.status}")
            continue
        u = s.unit(uid)
        if not u.on_map:
            out.append(f"{u.id} {u.status}")
            continue
        flags = [f for f in ("column", "routed", "rallied", "engaged", "moved") if getattr(u, f)]
        if u.supply != "full":
            flags.append(f"supply={u.supply}")
        out.append(" ".join([u.id, u.hex, u.facing, f"hits={u.hits}", *flags]))
    return "; ".join(out)


def _play(c: Ctx, a: dict[str, Any]) -> str:
    s = game(c, a)
    text = "".join(line.strip() + "\n" for line in a["orders"].split(";"))
    try:
        sub = parse(s, "north", text)
    except OrdersError as e:
        p = e.problems[0]
        return f"refused line {p.line}: {p.message}"
    dice = ScriptedDice([str(d) for d in a.get("dice", [])])
    ctx = TurnCtx(s, dice)
    ph = Phase(s, "north", "1", sub.order, ctx, hooks=REACTIONS)
    (orders_phase if a.get("shock") else movement_segment)(ph, sub.actions)
    left = len(dice.faces) - len(dice.log)
    assert left == 0, f"{left} dice not used; rolled: {[x[0] for x in dice.log]}"
    return _show(s, a.get("show", " ".join(u.id for u in s.units)))


def _battle(c: Ctx, a: dict[str, Any]) -> str:
    """A bundled battle as it starts (``args.scenario``: the file's stem): ``markers:ARMY``
    its activation markers; ``wing:ARMY:WING`` the leader and units a wing's marker
    activates (the wing's Orders Phase as the turn builds it); ``leader:ID`` his wing."""
    path = SCENARIOS / f"{a['scenario']}.toml"
    s = from_scenario(load_scenario(path.read_text(encoding="utf-8"), path.name))
    seat = {v.name: k for k, v in s.sides.items()} | {v.army: k for k, v in s.sides.items()}
    kind, _, rest = str(a["show"]).partition(":")
    if kind == "markers":
        return " ".join(m.split(":", 1)[1] for m in markers(s, seat[rest]))
    if kind == "wing":
        army, wing = rest.split(":")
        ph = Phase(s, seat[army], wing)
        ld = s.wing_leader(seat[army], wing)
        return f"{ld.id if ld else 'nobody'} and {len(ph.units())} units"
    ld = s.leader(rest)
    return f"{ld.id} {ld.role} wing {ld.wing or 'none'}"


RULES_TURN = {"play": _play, "battle": _battle}
