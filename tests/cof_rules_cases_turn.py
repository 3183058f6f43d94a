"""Rules cases played through the whole turn (``do = "turn"``): the Shock Segment's rules,
Standards and heroes as a mail meets them.

The case becomes a game as for ``do = "play"`` (:func:`cof_rules_turn.game`: the first
unit's side is active, its wing ``1`` activated, the fixture charts); then the active side's
orders mail is read and carried out whole (:func:`engine.cof.orders.carry_out`: the Orders
Phase, the Shock Segment, the end of the activation, and, with no other marker left, the end
of the game's only turn), with the d10 faces the case gives; the answer to a question the turn
asks, if any, follows. ``args`` beyond ``play``'s::

    orders = "challenge achil hect 1110"   the mail (``;`` between lines)
    dice = "3 7 5"                 the d10 faces, in order
    how = "momentum"               how the marker came (``draw`` by default)
    drawn = true                   the marker is drawn from the pool now (the turn's own
                                   :func:`~engine.cof.turn.next_activation`: eligibility,
                                   the prompt's choices) rather than already in use
    answer = "accept"              the answer to the question the turn asks (if it asks)
    standing_active = "duelist: endurance"   the active side's standing orders
    rules = ["heroic"]             the battle's special rules
    turn = 2                       the game turn (1 by default; the battle ends with it)
    captured = "hittite 1"         a Standard the enemy destroyed on that turn
    show = "Y hect pool"           units and leaders by id; ``pool``, ``question``,
                                   ``choices`` (with ``drawn``: the prompt's choices, alone),
                                   ``standard:SIDE``, ``skip:SIDE`` (its next marker is
                                   spent), ``events:KIND`` (how many), ``dice`` (how many
                                   were rolled), ``stacks`` (the CH-2 + RI
                                   stacks on the map: ``stacks C+R`` or ``stacks none``),
                                   ``at:ID`` (where leader ID is, replaced or not),
                                   ``facing:ID`` (the vertex unit ID faces)

Both sides play with :data:`QUIET` under their standing orders (no Trump, reaction fire,
orderly withdrawal or reaction facing) unless the case says otherwise. A unit shows
``ID HEX hits=N`` and ``routed`` / ``engaged`` / ``supply=low|no``, or ``ID fled`` /
``ID eliminated``; a leader ``ID HEX`` with ``hits=N``, ``wounded``, ``foot``, or ``ID killed``
(``ID replaced`` once a killed wing leader has his replacement, Phase D). Parts are joined
with ``; ``; orders the turn refuses show ``refused: `` and the first problem.
"""

from __future__ import annotations

from typing import Any

from cof_rules_cases_rules import Ctx
from cof_rules_turn import game, stacks

from engine.cof.orders import carry_out, parse
from engine.cof.policy import parse_policy
from engine.cof.state import CofState
from engine.cof.steps import Ctx as TurnCtx
from engine.cof.turn import next_activation
from engine.core.api import Event, OrdersError
from engine.randomness import ScriptedDice

QUIET = "trump: never\nreaction-fire: never\nwithdraw: never\nreaction-facing: never\n"
"""What the case's sides do off their turn unless the case says otherwise."""


def state_of(c: Ctx, a: dict[str, Any]) -> CofState:
    """The case as a game at the start of the active side's Orders Phase."""
    s = game(c, a)
    s.sides["north"].standing = a.get("standing_active", "").replace(";", "\n")
    for side in s.sides.values():
        side.standing = parse_policy(QUIET).merged(parse_policy(side.standing)).text()
        side.wings = sorted({u.wing for u in s.units if u.side == _seat(s, side.name)} | {"1"})
    for item in a.get("captured", "").split(";"):
        if item.strip():
            name, turn = item.split()
            side = s.sides[_seat(s, name)]
            side.standard, side.standard_captured = "", int(turn)
    how = a.get("how", "draw")
    marker = f"north:{'momentum' if how == 'momentum' else '1'}"
    s.turn = s.turns = int(a.get("turn", 1))
    s.special_rules = list(a.get("rules", []))
    s.pool, s.used, s.initiative = [], [marker], "north"
    s.active = {"side": "north", "wing": "" if how == "momentum" else "1", "how": how,
                "choices": ["1"]}  # fmt: skip
    if a.get("drawn"):
        s.pool, s.used, s.active = [marker], [], {}
    return s


def _seat(s: CofState, name: str) -> str:
    return next(k for k, v in s.sides.items() if v.name == name)


def _show(s: CofState, what: str, dice: ScriptedDice, events: list[Event]) -> str:
    kind, _, arg = what.partition(":")
    if what == "pool":
        return "pool " + (" ".join(s.pool) or "empty")
    if what == "question":
        return "question " + (s.pending.get("label", "none") if s.pending else "none")
    if what == "dice":
        return f"dice {len(dice.log)}"
    if what == "stacks":
        return stacks(s)
    if kind == "at":
        return f"{arg} at {s.leader(arg).hex or 'none'}"
    if kind == "facing":
        return f"{arg} faces {s.unit(arg).facing}"
    if kind == "events":
        return f"{arg} {sum(1 for e in events if e.kind == arg)}"
    if kind == "skip":
        return f"skip {arg if s.sides[_seat(s, arg)].skip_marker else 'none'}"
    if kind == "standard":
        side = s.sides[_seat(s, arg)]
        taken = " captured" if side.standard_captured else ""
        return f"standard {side.standard or 'none'}{taken}"
    u = next((u for u in s.units if u.id == what), None)
    if u is not None:
        flags = [f for f in ("routed", "engaged") if getattr(u, f)]
        flags += [f"supply={u.supply}"] * (u.supply != "full")
        return (
            " ".join([u.id, u.hex, f"hits={u.hits}", *flags]) if u.on_map else f"{u.id} {u.status}"
        )
    ld = s.leader(what)
    if ld.replacement or not ld.on_map:
        return f"{ld.id} {'replaced' if ld.replacement else 'killed'}"
    marks = [f"hits={ld.hits}"] * bool(ld.hits) + ["wounded"] * ld.wounded + ["foot"] * ld.on_foot
    return " ".join([ld.id, ld.hex, *marks])


def _turn(c: Ctx, a: dict[str, Any]) -> str:
    s = state_of(c, a)
    dice = ScriptedDice(str(a.get("dice", "")).split())
    ctx = TurnCtx(s, dice)
    if a.get("drawn"):
        next_activation(ctx)
        if "choices" in str(a.get("show", "")).split():
            return "choices " + " ".join(ctx.s.active.get("choices", []))
    text = "".join(line.strip() + "\n" for line in str(a.get("orders", "pass")).split(";"))
    try:
        sub = parse(s, "north", text)
    except OrdersError as e:
        return f"refused: {e.problems[0].message}"
    carry_out(ctx, sub)
    if "answer" in a and ctx.s.pending:
        side = ctx.s.pending["side"]
        carry_out(ctx, parse(ctx.s, side, f"answer {a['answer']}\n"))
    return "; ".join(_show(ctx.s, w, dice, ctx.events) for w in str(a["show"]).split())


TURN = {"turn": _turn}
