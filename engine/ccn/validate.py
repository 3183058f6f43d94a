"""Check a whole Napoleonics submission before any die is rolled (ccn.md §26.4).

:func:`check_submission` parses the text, checks what every C&C submission is checked for
(header, answer, turn, card: :mod:`engine.cc.submission`), then what the card orders
(:mod:`engine.ccn.ordering`), then replays every break and move line on a working copy and
checks every battle line against the board after the moves (range, line of sight,
adjacency, moved too far, card restrictions, one battle per unit). Every problem is reported
together in one :class:`OrdersError` with its line; nothing is changed.
"""

from __future__ import annotations

from dataclasses import replace

from engine.cc.decide import Decider
from engine.cc.orders import Action, Submission, parse_submission
from engine.cc.submission import bare_answer, check_common, unknown_hexes
from engine.ccn.battle import fire_problem, melee_problem
from engine.ccn.cards import CARDS, LANGUAGE, card_name
from engine.ccn.ordering import order_units
from engine.ccn.policy import parse_policy
from engine.ccn.state import State
from engine.ccn.steps import break_step, move_step
from engine.ccn.work import Work, WUnit
from engine.core.api import OrdersError, OrdersProblem
from engine.core.replay import AnswerBook
from engine.randomness import ScriptedDice

__all__ = ["check_submission", "simulate"]


def check_submission(state: State, side: str, text: str) -> Submission:
    """Parse and check ``text`` from ``side``; raise OrdersError listing every problem."""
    if state.pending is not None:
        text = bare_answer(text, LANGUAGE.verbs)
    sub = parse_submission(text, LANGUAGE)
    reaction = _reaction(state, side)
    problems, accepted = check_common(
        state, side, sub, lambda t, n: parse_policy(t, first_line=n), card_name, reaction
    )
    if accepted is not None:
        if problems:
            raise OrdersError(problems)
        return accepted
    problems += unknown_hexes(state.board, sub)
    if problems:
        raise OrdersError(problems)
    w, found = simulate(state, side, sub)
    if found:
        raise OrdersError(found)
    del w
    return replace(sub, side=side)


def _bonus_joined(w: Work, u: WUnit, a: Action) -> str | None:
    """What is wrong with the artillery named to join ``u``'s bonus melee (§18.3, §22), as
    far as it can be told before the dice: cavalry makes bonus melees; each hex holds an
    ordered artillery unit of yours that battles nowhere else. Whether it can reach the
    bonus target is checked when the bonus melee is made."""
    if not a.bonus_joined:
        return None
    if w.arm(u) != "cavalry":
        return "only cavalry makes a bonus melee (§18.3): no artillery can join one"
    for h in a.bonus_joined:
        art = w.unit_at(h)
        if art is None or art.side != u.side or w.arm(art) != "artillery":
            return f"no artillery of yours in {h} to join the bonus melee"
        if art.id not in w.ordered:
            return f"the {art.type} in {h} is not ordered: joining takes its order (§22)"
        if art.id in w.battled or h in a.joined:
            return f"the {art.type} in {h} battles already this turn"
    return None


def _reaction(state: State, side: str) -> tuple[str, ...]:
    """First Strike is played when attacked, never as a turn - unless the hand holds nothing
    else: a turn must play a card (§8), and one that orders nothing skips to the draw."""
    if state.pending is None and set(state.sides[side].hand) <= {"first_strike"}:
        return ()
    return ("first_strike",)


def simulate(state: State, side: str, sub: Submission) -> tuple[Work, list[OrdersProblem]]:
    """The working copy after the order and move lines, and every problem of the submission."""
    w = Work.start(state, ScriptedDice([]), Decider({}, AnswerBook(())))
    w.simulate = True
    assert sub.card is not None
    w.hands[side].remove(sub.card)
    problems = order_units(w, side, sub, validating=True)
    if problems:
        return w, problems
    problems += _check_actions(w, side, sub)
    return w, problems


def _check_actions(w: Work, side: str, sub: Submission) -> list[OrdersProblem]:
    problems: list[OrdersProblem] = []

    def bad(line: int, code: str, msg: str) -> None:
        quote = sub.lines[line - 1] if 0 < line <= len(sub.lines) else ""
        problems.append(OrdersProblem(line, quote, code, msg))

    moving = True
    card = CARDS[w.card] if w.card else None
    for a in sub.actions:
        if a.verb == "enter":
            bad(a.line, "no-reserves", "Napoleonics scenarios bring no units on by 'enter'")
            continue
        if a.verb in ("move", "break"):
            if not moving:
                bad(
                    a.line,
                    "move-after-battle",
                    "all movement ends before the first battle (§8): move this line up",
                )
                continue
            why = move_step(w, side, a) if a.verb == "move" else break_step(w, side, a)
            if why:
                bad(a.line, f"illegal-{a.verb}", why)
            continue
        moving = False
        assert a.ref.hex is not None and a.target is not None
        u = w.unit_at(a.ref.hex)
        if u is None or u.side != side:
            bad(a.line, "no-unit", f"no unit of yours in {a.ref.hex}")
            continue
        if a.verb == "fire":
            why = fire_problem(w, u, a.target)
        else:
            why = melee_problem(w, u, a.target, a.joined) or _bonus_joined(w, u, a)
        if why:
            bad(a.line, f"illegal-{a.verb}", why)
            continue
        w.battled.add(u.id)
        for h in (*a.joined, *a.bonus_joined):
            art = w.unit_at(h)
            if art is not None:
                w.battled.add(art.id)
    moves = sum(1 for a in sub.actions if a.verb == "move")
    if card is not None and card.code == "short_supply" and not w.fallback and moves > 1:
        bad(sub.card_line, "too-many", "Short Supply moves one unit")
    return problems
