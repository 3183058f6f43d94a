"""The Chariots of Fire game turn (cof.md §3, §5): initiative, the activation markers, trump,
momentum, the end of the turn.

The turn runs by itself from one decision to the next (:func:`next_activation`): it draws a
marker from the pool with the d10 (faces 0-9; a draw among ``n`` markers rolls until the
face falls below the largest multiple of ``n`` up to 10, or with two dice beyond ten
markers, so every marker is equally likely), asks the opponent about a Trump (a question,
or his standing order), and stops at the Orders Phase of the wing activated, where its
owner's orders are needed. When the pool is empty it plays Phases D and E and rolls the
next turn's Initiative.

On turn 1 both sides roll for the Initiative unless the battle gives it to one side
(rulebook §5.1: "in some battles one player begins the game with the Initiative"; the
scenario's ``first``). pbem's reading [E]: after a failed Trump the drawn side's Momentum
marker returns to the pool (a choice no player would decline); a killed wing commander's
replacement keeps his ratings.
"""

from __future__ import annotations

from typing import Any

from engine.cof import command, standards
from engine.cof.arrivals import arrive, present_wings
from engine.cof.heroics import skip_marker
from engine.cof.leadmove import momentum_leader
from engine.cof.phase import Phase
from engine.cof.policy import policy_of
from engine.cof.state import MOMENTUM, SIDES, CofState, Leader, other
from engine.cof.steps import Ctx, replace_leaders, within_command
from engine.gboh.grid import GHex

__all__ = [
    "answer_initiative",
    "answer_trump",
    "eligible_wings",
    "end_turn",
    "finish_activation",
    "free_leaders",
    "initiative_question",
    "next_activation",
    "opening",
    "pick",
    "trump_question",
    "use_momentum",
]


def markers(s: CofState, side: str) -> list[str]:
    """A side's activation markers (cof.md §5.2): one a wing (not for a wing still to
    arrive, :func:`engine.cof.arrivals.present_wings`), and its Momentum marker."""
    return [f"{side}:{w}" for w in present_wings(s, side)] + [f"{side}:{MOMENTUM}"]


def opening(s: CofState) -> None:
    """Turn 1 (cof.md §3 A1, rulebook §5.1). A battle that gives one side the Initiative
    (its ``first``) starts with that side's choice, without a die. Otherwise both sides roll
    as on every turn; no die may be rolled before the game's first mail (the setup epoch has
    none), so the battle opens with a question to the first seat, ``answer roll``, whose
    resolution rolls (:func:`answer_initiative`)."""
    s.pool = sorted(m for side in SIDES for m in markers(s, side))
    s.used, s.pending, s.step = [], {}, 0
    if s.first_side:
        _initiative_choice(s, s.first_side)
        return
    s.initiative, s.active, s.step = "", {}, 1
    s.pending = {"id": "initiative-1", "side": SIDES[0], "label": "initiative", "step": 1}


def initiative_question(s: CofState) -> tuple[str, tuple[str, ...], str]:
    """The text, answers and default of the turn-1 Initiative question."""
    names = " and ".join(s.sides[side].name for side in SIDES)
    text = (
        f"The battle begins: {names} roll a d10 plus their overall commander's Initiative "
        "for the Initiative of turn 1 (cof.md §3 A1, §5.1). Answer 'roll' to roll."
    )
    return text, ("roll",), "roll"


def answer_initiative(ctx: Ctx) -> None:
    """Turn 1's Initiative roll, once the opening question is answered."""
    ctx.s.pending = {}
    _roll_initiative(ctx)


def _initiative_choice(s: CofState, side: str) -> None:
    """The Initiative player picks the marker that opens the turn: a wing's or his Momentum
    marker (rulebook §5.22: "any of his AMs"), or puts them all in the pool."""
    s.initiative = side
    s.active = {
        "side": side,
        "wing": "",
        "how": "initiative",
        "choices": [*present_wings(s, side), MOMENTUM, "pool"],
    }


def pick(ctx: Ctx, n: int, purpose: str) -> int:
    """A uniform index below ``n`` from d10 rolls (see the module docstring)."""
    if n <= 1:
        return 0
    dice, span = (1, 10) if n <= 10 else (2, 100)
    limit = span - span % n
    while True:
        value = 0
        for _ in range(dice):
            value = value * 10 + ctx.d10(purpose)
        if value < limit:
            return value % n


def _rating(s: CofState, side: str) -> int:
    oc = s.oc(side)
    return oc.rating(oc.initiative) if oc is not None else 0


def begin_turn(ctx: Ctx) -> None:
    """Phase A (cof.md §3 A): reinforcements due enter (:mod:`engine.cof.arrivals`); the
    Initiative roll; every marker into the pool."""
    arrive(ctx)
    _roll_initiative(ctx)


def _roll_initiative(ctx: Ctx) -> None:
    s = ctx.s
    s.pool = sorted(m for side in SIDES for m in markers(s, side))
    s.used, s.pending, s.step, s.active = [], {}, 0, {}
    rolls = (ctx.d10("north's Initiative roll"), ctx.d10("south's Initiative roll"))
    ratings = (_rating(s, "north"), _rating(s, "south"))
    got = command.initiative(rolls, ratings)
    who = SIDES[got] if got is not None else ""
    ctx.log(
        "initiative",
        f"Turn {s.turn}: Initiative north {rolls[0]}+{ratings[0]}, south {rolls[1]}+{ratings[1]}: "
        + (f"{who} has it" if who else "nobody has it"),
        {"turn": s.turn, "side": who},
        rolls,
    )
    if who:
        _initiative_choice(s, who)
        return
    s.initiative = ""
    next_activation(ctx)


def eligible_wings(s: CofState, side: str) -> list[str]:
    """Wings a Momentum or Trump may activate (cof.md §5.3, §5.4): led by the OC, or by a
    wing commander within the OC's command range, measured as for command (rulebook §5.42:
    no enemy unit or terrain he may not enter on the path, halved with an Engaged unit)."""
    oc = s.oc(side)
    if oc is None or not oc.on_map:
        return []
    out = []
    for wing in s.sides[side].wings:
        ld = s.wing_leader(side, wing)
        if ld is None:
            continue
        if ld.id == oc.id or within_command(s, oc, GHex.parse(ld.hex)):
            out.append(wing)
    return out


def free_leaders(s: CofState, side: str) -> list[Leader]:
    """The leaders of ``side`` on the map that move on its Momentum marker whatever the
    attempt (:func:`engine.cof.leadmove.momentum_leader`: an overall commander without a
    wing, a hero who leads nobody; rulebook §5.46, §10.14)."""
    return [ld for ld in s.leaders if ld.side == side and ld.on_map and momentum_leader(ld)]


def _trump_allowed(s: CofState, side: str) -> bool:
    oc = s.oc(side)
    with_engaged = oc is not None and any(u.engaged for u in s.units_at(oc.hex))
    return command.trump_allowed(
        oc_alive=oc is not None and oc.on_map,
        used_this_turn=s.sides[side].trump_used,
        oc_with_engaged=with_engaged,
        marker_chosen=False,
    )


def next_activation(ctx: Ctx) -> None:
    """Draw markers until an Orders Phase, a question or the end of the turn (cof.md §3 B)."""
    s = ctx.s
    while not s.active and not s.pending and not s.result:
        if not s.pool:
            end_turn(ctx)
            continue
        i = pick(ctx, len(s.pool), f"draw an activation marker ({len(s.pool)} in the pool)")
        marker = s.pool.pop(i)
        s.used.append(marker)
        owner = marker.split(":", 1)[0]
        ctx.log("draw", f"{_name(s, marker)} is drawn", {"marker": marker, "side": owner})
        if skip_marker(ctx, marker):
            continue
        foe = other(owner)
        if _trump_allowed(s, foe):
            wish = policy_of(s, foe).get("trump")
            if wish == "ask":
                s.step += 1
                s.pending = {
                    "id": f"trump-{s.turn}-{len(s.used)}",
                    "side": foe,
                    "label": "trump",
                    "marker": marker,
                    "step": s.step,
                }
                return
            if wish == "always":
                _trump(ctx, foe, marker)
                continue
        _use(ctx, marker)


def _name(s: CofState, marker: str) -> str:
    side, what = marker.split(":", 1)
    army = s.sides[side].name
    return f"{army} Momentum marker" if what == MOMENTUM else f"{army} wing {what} marker"


def trump_question(s: CofState) -> tuple[str, tuple[str, ...], str]:
    """The text, answers and default of the Trump question waiting."""
    p = s.pending
    text = f"{_name(s, p['marker'])} was drawn: try to Trump it? (cof.md §5.4)"
    return text, ("trump", "no"), "no"


def answer_trump(ctx: Ctx, answer: str) -> None:
    s = ctx.s
    p, s.pending = s.pending, {}
    if answer == "trump":
        _trump(ctx, p["side"], p["marker"])
    else:
        ctx.log("trump", f"{p['side']} lets it pass", {"side": p["side"]})
        _use(ctx, p["marker"])
    next_activation(ctx)


def _trump(ctx: Ctx, side: str, marker: str) -> None:
    """A Trump attempt (cof.md §5.4): d10 at most the OC's Initiative."""
    s = ctx.s
    s.sides[side].trump_used = True
    rating = _rating(s, side)
    dr = ctx.d10(f"{side}'s Trump")
    if command.trump(dr, rating):
        ctx.log(
            "trump",
            f"{side} Trumps (rolls {dr}, Initiative {rating}): the marker is set aside",
            {"side": side, "passed": True},
            (dr,),
        )
        wings = eligible_wings(s, side)
        if wings:
            s.active = {"side": side, "wing": "", "how": "trump", "choices": [*wings, "none"]}
        return
    owner = marker.split(":", 1)[0]
    ctx.log(
        "trump",
        f"{side} fails to Trump (rolls {dr}, Initiative {rating})",
        {"side": side, "passed": False},
        (dr,),
    )
    momentum = f"{owner}:{MOMENTUM}"
    if momentum in s.used and momentum != marker:
        s.used.remove(momentum)
        s.pool = sorted([*s.pool, momentum])
        ctx.log("momentum", f"{_name(s, momentum)} goes back into the pool", {"side": owner})
    elif momentum not in s.pool:
        s.sides[owner].momentum_back = True
    _use(ctx, marker)


def _use(ctx: Ctx, marker: str) -> None:
    s = ctx.s
    side, what = marker.split(":", 1)
    if what == MOMENTUM:
        wings = eligible_wings(s, side)
        if not wings:
            ctx.log("momentum", f"{side} has no wing its Momentum may activate", {"side": side})
            if free_leaders(s, side):  # the Momentum is lost, the king still moves (§5.25)
                s.active = {"side": side, "wing": "", "how": "momentum", "choices": ["none"]}
                return
            _momentum_back(ctx, side)
            return
        s.active = {"side": side, "wing": "", "how": "momentum", "choices": [*wings, "none"]}
        return
    if not [u for u in s.live(side) if u.wing == what]:
        ctx.log("activation", f"wing {what} has no unit left", {"side": side, "wing": what})
        return
    s.active = {"side": side, "wing": what, "how": "draw"}


def _momentum_back(ctx: Ctx, side: str) -> None:
    s = ctx.s
    if s.sides[side].momentum_back:
        s.sides[side].momentum_back = False
        marker = f"{side}:{MOMENTUM}"
        if marker in s.pool:  # already back (a challenger's win, cof.md §10.4 #1)
            return
        if marker in s.used:
            s.used.remove(marker)
        s.pool = sorted([*s.pool, marker])
        ctx.log("momentum", f"{_name(s, marker)} goes back into the pool", {"side": side})


def finish_activation(ctx: Ctx) -> None:
    """The Orders Phase is over: back to the pool (cof.md §3 C3)."""
    s = ctx.s
    done: dict[str, Any] = s.active
    s.active = {}
    if done.get("how") == "momentum":
        _momentum_back(ctx, done["side"])
    next_activation(ctx)


def use_momentum(ctx: Ctx, side: str) -> None:
    """The Initiative player opens the turn with his Momentum marker (rulebook §5.22): set
    aside like any marker he picks, never trumped (§5.34), then used as when drawn."""
    s = ctx.s
    marker = f"{side}:{MOMENTUM}"
    s.pool.remove(marker)
    s.used.append(marker)
    s.active = {}
    ctx.log("initiative", f"{side} opens with its Momentum marker", {"side": side})
    _use(ctx, marker)
    if not s.active:
        next_activation(ctx)


def momentum_roll(ctx: Ctx, side: str, wing: str) -> bool:
    """A Momentum attempt for ``wing`` (cof.md §5.3)."""
    s = ctx.s
    ld = s.wing_leader(side, wing)
    if ld is None:
        return False
    rating = ld.rating(ld.initiative if ld.role == "OC" else ld.ability)
    dr = ctx.d10(f"{side}'s Momentum for wing {wing}")
    ok = command.momentum(dr, rating)
    ctx.log(
        "momentum",
        f"Momentum for wing {wing}: rolls {dr} against {rating}: "
        + ("the wing acts again" if ok else "nothing happens"),
        {"side": side, "wing": wing, "passed": ok},
        (dr,),
    )
    return ok


def _reload(ctx: Ctx) -> None:
    s = ctx.s
    for u in s.live():
        if u.supply == "full" or u.engaged:
            continue
        if Phase(s, u.side, u.wing).under_missiles(u):  # rulebook §7.16: range and sight
            continue
        u.supply = "full"
        ctx.log("reload", f"{u.id} reloads", {"unit": u.id})


def end_turn(ctx: Ctx) -> None:
    """Phases D and E (cof.md §3 D-E): replacements, reload, markers off; withdrawal."""
    s = ctx.s
    replace_leaders(ctx)
    standards.end_of_turn(ctx)
    _reload(ctx)
    for u in s.units:
        u.moved = u.rallied = u.recovered = False
    for side in SIDES:
        s.sides[side].trump_used = s.sides[side].momentum_back = False
    points = (s.sides["north"].points, s.sides["south"].points)
    levels = (s.sides["north"].withdrawal_level, s.sides["south"].withdrawal_level)
    got = command.outcome(points, levels)
    gone = [side for side in SIDES if not any(s.live(side))]
    if gone and got == "on":  # an army with no unit left on the map has withdrawn
        got = "draw" if len(gone) == 2 else str(SIDES.index(other(gone[0])))
    ctx.log(
        "withdrawal",
        f"End of turn {s.turn}: withdrawal points north {points[0]}/{levels[0]}, "
        f"south {points[1]}/{levels[1]}",
        {"points": list(points), "levels": list(levels)},
    )
    if got != "on":
        s.result = got if got == "draw" else SIDES[int(got)]
        ctx.log("over", _verdict(s), {"result": s.result})
        return
    if s.turns and s.turn >= s.turns:
        share = [points[i] * levels[1 - i] for i in (0, 1)]
        s.result = "draw" if share[0] == share[1] else SIDES[0 if share[0] < share[1] else 1]
        ctx.log("over", f"The last turn is over. {_verdict(s)}", {"result": s.result})
        return
    s.turn += 1
    begin_turn(ctx)


def _verdict(s: CofState) -> str:
    if s.result == "draw":
        return "The battle is a draw."
    loser = other(s.result)
    return f"{s.sides[loser].name} withdraw: {s.sides[s.result].name} win."
