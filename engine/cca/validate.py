"""Check a whole submission against the rules before any die is rolled.

:func:`check_submission` parses the text, checks the header (game, turn,
side), the card, what it orders, and then replays every move on a working
copy and checks every battle against the board after the moves. All
problems are reported together in one :class:`OrdersError`; nothing is
changed. Answers to a pending question are checked against its legal
answers. :func:`plan_actions` is shared with resolution: it turns move lines
into paths exactly as validation accepted them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from engine.cc.decide import Decider
from engine.cc.submission import bare_answer, check_common, unknown_hexes
from engine.cca.combat import fire_range, melee_dice, ranged_dice
from engine.cca.legal import targets
from engine.cca.movement import (
    WARRIORS_MUST_CLOSE,
    check_leader_path,
    check_path,
    do_leader_move,
    do_move,
    leader_reach,
    moved_too_far_to_battle,
    reach,
    why_not_reach,
)
from engine.cca.ordering import order_units
from engine.cca.orders import Action, Submission, parse_submission
from engine.cca.policy import parse_policy
from engine.cca.special import enter_step, exit_hexes
from engine.cca.state import State, name_key
from engine.cca.work import WLeader, Work, WUnit
from engine.core.api import OrdersError, OrdersProblem
from engine.core.replay import AnswerBook
from engine.hexgrid import Hex
from engine.randomness import ScriptedDice

__all__ = ["check_submission", "move_step"]

_VERBS = {
    "game",
    "turn",
    "side",
    "card",
    "play",
    "order",
    "move",
    "fire",
    "attack",
    "answer",
    "standing",
}


def check_submission(state: State, side: str, text: str) -> Submission:
    """Parse and check ``text`` from ``side``; raise OrdersError listing every problem."""
    if state.pending is not None:
        text = bare_answer(text, _VERBS)
    sub = parse_submission(text)
    names = state.tables.cards
    problems, accepted = check_common(
        state,
        side,
        sub,
        lambda t, n: parse_policy(t, first_line=n),
        lambda c: names[c].name,
        ("FS",),
    )
    if accepted is not None:
        if problems:
            raise OrdersError(problems)
        return accepted
    problems += unknown_hexes(state.board, sub)
    if problems:
        raise OrdersError(problems)
    w = Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))
    w.simulate = True
    problems += order_units(w, side, sub, validating=True)
    if problems:
        raise OrdersError(problems)
    problems += _check_actions(w, side, sub)
    if problems:
        raise OrdersError(problems)
    return replace(sub, side=side)


def _find(w: Work, side: str, a: Action) -> WUnit | WLeader | str:
    if a.ref.leader is not None:
        for ld in w.leaders.values():
            if name_key(ld.name) == name_key(a.ref.leader) and ld.side == side and ld.hex:
                return ld
        return f"you have no leader called {a.ref.leader} on the board"
    assert a.ref.hex is not None
    u = w.unit_at(a.ref.hex)
    if u is not None:
        return u if u.side == side else f"the unit in {a.ref.hex} is not yours"
    lone = w.leader_at(a.ref.hex)
    if lone is not None and lone.side == side:
        return lone
    return f"none of your units is in {a.ref.hex} at this point"


def move_step(w: Work, side: str, a: Action, phase: int) -> str | None:
    """Carry out one move line on ``w``; return why it is illegal (None if done)."""
    it = _find(w, side, a)
    if isinstance(it, str):
        return it
    if w.effect in ("CS", "DS"):
        return f"{w.state.tables.cards[w.effect].name} allows no movement"
    key = f"{phase}:{id(it)}"
    if key in w.moved_lines:
        return "each unit or leader moves once" + (" per move phase" if w.effect == "MFM" else "")
    w.moved_lines.append(key)
    if isinstance(it, WLeader):
        if it.name not in w.ordered_leaders:
            return f"leader {it.name} is not ordered (order it: 'order leader {it.name}')"
        host = w.host(it)
        card = w.state.tables.cards.get(w.card or "")
        detach = card is not None and (
            card.helmet or (card.code == "CH" and bool(w.state.option("mounted_charge_detach")))
        )
        if host is not None and not detach:
            return f"leader {it.name} is attached and this card cannot detach leaders"
        if host is not None and w.moved.get(host.id, 0):
            return f"leader {it.name}'s unit has moved; the leader can no longer detach"
        ld = it
        path = _path_of(
            w,
            a,
            ld.hex,
            leader_reach(w, ld),
            lambda p: check_leader_path(w, ld, p),
            lambda h: f"leader {ld.name} cannot reach {h}",
        )
        if isinstance(path, str):
            return path
        do_leader_move(w, ld, path)
        return None
    u = it
    if u.id not in w.ordered:
        return f"the {u.type} in {u.hex} is not ordered"
    if u.id in w.pinned:
        return f"a leader joined the {u.type} in {u.hex}: it may not move this turn"
    path = _path_of(
        w, a, u.hex, reach(w, u), lambda p: check_path(w, u, p), lambda h: why_not_reach(w, u, h)
    )
    if isinstance(path, str):
        return path
    if a.off:
        end = path[-1] if path else u.hex
        exits = exit_hexes(w, side)
        if end not in exits:
            return f"units may leave the board only from {', '.join(map(str, exits)) or 'nowhere'}"
    do_move(w, u, path, off=a.off)
    return None


def _path_of(  # noqa: PLR0917
    w: Work,
    a: Action,
    here: Hex | None,
    paths: dict[Hex, tuple[Hex, ...]],
    check: Callable[[tuple[Hex, ...]], str | None],
    why_not: Callable[[Hex], str],
) -> tuple[Hex, ...] | str:
    """Return the path a move line gives (``to`` a hex, or hex by hex), or why it is illegal.

    Both forms are judged by the one movement rule (engine.cca.movement): the
    ``to`` form takes the path the legal list shows, the hex-by-hex form is
    checked step by step with the same rule.
    """
    if a.to is not None:
        if a.to not in paths:
            return why_not(a.to) + _legal(w, paths)
        return paths[a.to]
    path = a.path[1:] if a.path and a.path[0] == here else a.path
    why = check(path)
    return why + _legal(w, paths) if why else path


def _legal(w: Work, paths: dict[Hex, tuple[Hex, ...]]) -> str:
    ends = sorted((h for h, p in paths.items() if p), key=lambda h: (h.y, h.x))
    w.hint = tuple(map(str, ends))
    return "; it can reach " + (", ".join(map(str, ends)) if ends else "nowhere")


def _dice_against(w: Work, u: WUnit, a: Action) -> int:
    """The dice ``u`` would roll for battle line ``a`` on the board after the moves."""
    assert a.target is not None
    if a.verb == "fire":
        return ranged_dice(w, u, a.target)
    t = w.unit_at(a.target)
    full = w.full_strength(u)
    if t is None or t.side == u.side:
        return melee_dice(w, u, None, "attack", full, target_hex=a.target)
    return melee_dice(w, u, t, "attack", full, target_full=w.full_strength(t))


def _check_actions(w: Work, side: str, sub: Submission) -> list[OrdersProblem]:
    problems: list[OrdersProblem] = []
    phase = 1
    second_moves = False
    battles: dict[str, int] = {}
    targeted: set[Hex] = set()
    must_attack: dict[str, Action] = {}
    for a in sub.actions:

        def bad(code: str, msg: str, legal: tuple[str, ...] = (), a: Action = a) -> None:
            problems.append(OrdersProblem(a.line, a.quote, code, msg, legal))

        if a.verb == "enter":
            why = "all moves come before the first battle" if phase == 2 else enter_step(w, side, a)
            if why:
                bad("illegal-entry", why)
            continue
        if a.verb == "move":
            if phase == 2 and w.effect != "MFM":
                bad("move-after-battle", "all moves come before the first battle")
                continue
            mp = 3 if phase == 2 else 1
            second_moves = second_moves or phase == 2
            before = w.moved.copy()
            w.hint = ()
            why = move_step(w, side, a, mp)
            if why:
                code = "warriors-must-close" if WARRIORS_MUST_CLOSE in why else "illegal-move"
                bad(code, why, w.hint)
                continue
            for u in w.live_units(side):  # warriors that moved 2+ must close-combat (§3.2)
                now, need = w.moved.get(u.id, 0), u.spec.must_melee_after
                if need and before.get(u.id, 0) != now >= need:
                    must_attack[u.id] = a
            continue
        phase = 2
        assert a.ref.hex is not None and a.target is not None
        bu = w.unit_at(a.ref.hex)
        if bu is None or bu.side != side:
            bad("no-unit", f"none of your units is in {a.ref.hex} after the moves")
            continue
        u = bu
        if u.id not in w.ordered:
            bad("not-ordered", f"the {u.type} in {u.hex} is not ordered")
            continue
        limit = 2 if w.effect == "DS" else 1
        if battles.get(u.id, 0) >= limit:
            bad("battled-twice", f"the {u.type} in {u.hex} already battles this turn")
            continue
        why = moved_too_far_to_battle(w, u)
        if why:
            bad("cannot-battle", why)
            continue
        if a.verb == "fire":
            if second_moves:
                bad("fire-after-move", "Move-Fire-Move: no firing after the second moves")
                continue
            if w.effect in ("CS", "DT", "CH"):
                name = w.state.tables.cards[w.effect].name
                bad("no-fire", f"units ordered by {name} may not use ranged combat")
                continue
            if fire_range(w, u) == 0:
                bad("no-missiles", f"{u.type} has no missile weapons")
                continue
            adj = [e.hex for e in w.enemy_units_adjacent(u)]
            if adj and not (set(adj) & targeted):
                bad(
                    "must-close",
                    f"the {u.type} in {u.hex} is next to an enemy unit and may only close-combat",
                    targets(w, u, True),
                )
                continue
            legal = targets(w, u, False)
            if str(a.target) not in legal and not adj:
                bad(
                    "bad-target", f"{a.target} is not an enemy in range and sight of {u.hex}", legal
                )
                continue
        else:
            if w.effect in ("MFM", "DS"):
                bad(
                    "no-close-combat",
                    f"units ordered by {w.state.tables.cards[w.effect].name} may not close-combat",
                )
                continue
            legal = targets(w, u, True)
            if str(a.target) not in legal:
                bad("bad-target", f"{a.target} is not an enemy next to {u.hex}", legal)
                continue
            if a.extra is not None and not u.spec.cavalry:
                bad("no-extra-hex", "only cavalry take an extra hex after advancing")
                continue
            must_attack.pop(u.id, None)
        dice = _dice_against(w, u, a)
        if dice < 1:  # terrain took every die: the attack may not be made (§17.1)
            bad(
                "no-dice",
                f"the {u.type} in {u.hex} would roll {dice} dice at {a.target}: "
                "an attack reduced below one die may not be made",
            )
            continue
        battles[u.id] = battles.get(u.id, 0) + 1
        targeted.add(a.target)
    for act in must_attack.values():
        problems.append(
            OrdersProblem(
                act.line,
                act.quote,
                "warriors-must-attack",
                "warriors that move 2 or more must close-combat: add an 'attack' line for them",
            )
        )
    return problems
