"""Chariots of Fire orders: what a player writes, checked whole before any die.

One order a line (``#`` starts a comment; ``game``, ``turn`` and ``side`` lines are the
mail's header)::

    wing 1                    the wing my marker activates, when I choose (Initiative,
                              Momentum, Trump); ``wing pool`` / ``wing none`` to decline;
                              with the Initiative ``wing momentum`` opens with my Momentum
                              marker (its wing named in the next mail)
    order move                the Orders Phase's order: move (default), withdraw, rally
    move E1 0404 0405 face S  a unit (id or hex) enters hexes and turns to vertices, in order
    move E1 0404 fire 0807 0405   ... and fires at 0807 on the way (cof.md §7.1, §7.7)
    move E4 0405 column N     ... and ends it entering (``deploy NE``: leaving) column (§6.3)
    move ramesses 0404        a leader of the wing moves (no facing); on a Momentum marker
                              also an OC without a wing, whatever the roll (§5.46)
    fire E5 0807              fire at the unit in 0807
    fire E5 0807 runners      ... at the runners of the CH-2 + RI stack there (or ``chariot``;
                              without it the standing order ``fire-at-stack`` picks, §7.13)
    fire-and-run E1 0807      a CH-2's fire and run at the unit in 0807 (cof.md §7.10)
    recover E4                remove 2 hits (cof.md §9.3)
    rally E4                  under ``order rally`` (cof.md §9.8)
    shock E1                  a unit that may shock does (cof.md §8.2); ``shock E1 0506``
                              also attacks the unit in its flank hex 0506
    attack E1 E2 on H3        the Shock Segment's target plan, one attack a line: these units
                              (ids or hexes) attack these enemy units; checked by §8.12
                              (cof.md §8.3); without it pbem plans the attacks
    advance E1 0506 face NE   if E1 advances after combat, it enters 0506 and turns to NE
                              (both optional; cof.md §8.9 #3, :mod:`engine.cof.advance`)
    mode hector foot          a leader this marker activates goes on foot (or ``chariot``),
                              heroic battles only (cof.md §10.1)
    challenge achilles hector 1205 1206
                              instead of the drawn marker's Orders Phase, a hero on foot
                              challenges an enemy leader along a path ending at his hex
                              (cof.md §10.2 #2); nothing else that phase
    pass                      nothing this phase
    answer trump              the answer to a question (``trump``/``no``, ``accept``/``decline``,
                              ``roll`` for turn 1's Initiative)
    standing trump: never     a standing order (any time)

Orders run in the order written (rally attempts first); the Shock Segment follows.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cof import regroup
from engine.cof.advance import advance_line
from engine.cof.formation import revert_shocked_columns
from engine.cof.heroics import (
    answer_challenge,
    challenge,
    challenge_problem,
    challenge_question,
    set_mode,
)
from engine.cof.leadmove import momentum_leader
from engine.cof.phase import Action, Phase
from engine.cof.policy import parse_policy
from engine.cof.reactions import REACTIONS
from engine.cof.shocks import plan_problem, shock_segment
from engine.cof.skirmish import fire_and_run
from engine.cof.standards import restore
from engine.cof.standards import update as update_standards
from engine.cof.state import MOMENTUM, CofState, Leader, Unit, clone
from engine.cof.steps import Ctx, separate
from engine.cof.turn import (
    answer_initiative,
    answer_trump,
    finish_activation,
    initiative_question,
    momentum_roll,
    next_activation,
    trump_question,
    use_momentum,
)
from engine.core.api import OrdersError, OrdersProblem
from engine.gboh.grid import GHex, MapNotationError

__all__ = [
    "ORDERS",
    "Submission",
    "carry_out",
    "do_order",
    "in_order",
    "movement_segment",
    "orders_phase",
    "parse",
    "plan_of",
    "planned",
    "question",
    "read",
]

ORDERS = ("move", "withdraw", "rally")
VERBS = ("move", "fire", "fire-and-run", "recover", "rally", "shock", "mode", "attack", "advance")
HEADER = ("game", "turn", "side")
WORDS = (*VERBS, "wing", "order", "pass", "answer", "standing", "challenge")
ANSWERS = {"trump": ("trump", "no"), "challenge": ("accept", "decline"), "initiative": ("roll",)}
"""The answers each kind of question (``pending['label']``) takes."""


@dataclass(frozen=True)
class Submission:
    """A checked submission: ``kind`` is ``orders``, ``answer`` or ``standing``."""

    side: str
    kind: str
    wing: str = ""
    order: str = "move"
    actions: tuple[Action, ...] = ()
    answer: str = ""
    standing: str = ""
    challenge: tuple[str, ...] = ()


def question(s: CofState) -> tuple[str, tuple[str, ...], str]:
    """The text, answers and default of the question waiting (``s.pending``)."""
    if s.pending.get("label") == "challenge":
        return challenge_question(s)
    if s.pending.get("label") == "initiative":
        return initiative_question(s)
    return trump_question(s)


def _problem(
    n: int, raw: str, code: str, message: str, legal: tuple[str, ...] = ()
) -> OrdersProblem:
    return OrdersProblem(n, raw, code, message, legal)


def parse(s: CofState, side: str, text: str) -> Submission:
    """Read and check a submission; :class:`OrdersError` lists every problem by line."""
    sub = read(side, text)
    return sub if sub.kind == "standing" else _check(s, sub)


def read(side: str, text: str) -> Submission:
    """Read a submission's lines, unchecked (:func:`parse` checks it against the state)."""
    problems: list[OrdersProblem] = []
    actions: list[Action] = []
    standing: list[str] = []
    wing = answer = ""
    order = "move"
    challenge: tuple[str, ...] = ()
    decided = False
    for n, raw in enumerate(text.splitlines(), 1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        words = body.split()
        verb = words[0].lower()
        if verb in HEADER:
            continue
        if verb == "standing":
            try:
                parse_policy(body[len("standing") :].strip(), n)
            except OrdersError as e:
                problems += e.problems
            standing.append(body[len("standing") :].strip())
            continue
        decided = True
        if verb in VERBS:
            if len(words) < 2:
                problems.append(_problem(n, raw, "missing-unit", f"{verb} names a unit first"))
            else:
                actions.append(Action(n, raw, verb, words[1], tuple(words[2:])))
        elif verb == "wing" and len(words) == 2:
            wing = words[1]
        elif verb == "order" and len(words) == 2 and words[1].lower() in ORDERS:
            order = words[1].lower()
        elif verb == "answer" and len(words) == 2:
            answer = words[1].lower()
        elif verb == "challenge" and not challenge:
            challenge = tuple(words[1:]) or ("",)
        elif verb == "pass" and len(words) == 1:
            pass
        else:
            problems.append(_problem(n, raw, "unknown-order", f"{body!r} is not an order", WORDS))
    if problems:
        raise OrdersError(problems)
    if not decided:
        if standing:
            return Submission(side, "standing", standing="\n".join(standing) + "\n")
        raise OrdersError([_problem(0, "", "empty", "no orders: write pass to do nothing")])
    return Submission(
        side,
        "orders",
        wing,
        order,
        tuple(actions),
        answer,
        "\n".join(standing) + "\n" if standing else "",
        challenge,
    )


def planned(s: CofState, side: str, text: str) -> Submission:
    """:func:`parse` for orders already tried line by line on a copy of ``s``
    (:func:`engine.cof.autoplay.plan`, a playout): read and checked against the state, not
    carried out on a copy again."""
    return _check(s, read(side, text), dry=False)


def _check(s: CofState, sub: Submission, *, dry: bool = True) -> Submission:
    if s.result:
        raise OrdersError([_problem(0, "", "over", "the battle is over")])
    if s.pending:
        p = s.pending
        if sub.side != p["side"]:
            raise OrdersError([_problem(0, "", "not-your-turn", f"{p['side']} must answer first")])
        answers = ANSWERS[p.get("label", "trump")]
        if sub.answer not in answers:
            legal = tuple(f"answer {x}" for x in answers)
            raise OrdersError([_problem(0, "", "answer-needed", "answer the question", legal)])
        return Submission(sub.side, "answer", answer=sub.answer, standing=sub.standing)
    a = s.active
    if sub.side != a.get("side"):
        raise OrdersError(
            [_problem(0, "", "not-your-turn", f"it is {a.get('side')}'s Orders Phase, not yours")]
        )
    if sub.answer:
        raise OrdersError([_problem(0, "", "no-question", "there is no question to answer")])
    if sub.challenge:
        return _check_challenge(s, sub)
    wing = a["wing"] or sub.wing
    choices = tuple(a.get("choices", ()))
    if not a["wing"] and wing not in choices:
        raise OrdersError(
            [_problem(0, "", "wing-needed", "name the wing your marker activates",
                      tuple(f"wing {c}" for c in choices))]
        )  # fmt: skip
    if a["wing"] and sub.wing and sub.wing != a["wing"]:
        raise OrdersError(
            [_problem(0, "", "wrong-wing", f"the marker drawn activates wing {a['wing']}",
                      (f"wing {a['wing']}",))]
        )  # fmt: skip
    out = Submission(sub.side, "orders", wing, sub.order, sub.actions, "", sub.standing)
    if a["how"] == "initiative" and wing == MOMENTUM and out.actions:
        first = out.actions[0]
        msg = "the Momentum marker names its wing first: send the orders in the next mail"
        raise OrdersError([_problem(first.line, first.quote, "momentum-first", msg)])
    momentum = a["how"] == "momentum"
    if wing in ("pool", MOMENTUM) or (wing == "none" and not momentum) or not dry:
        return out
    ph = Phase(clone(s), sub.side, "" if wing == "none" else wing, sub.order, momentum=momentum)
    if wing == "none":  # the Momentum marker's own leaders may still move (leadmove.py)
        found = [
            _dry(ph, x)
            if _momentum_line(ph, x)
            else _problem(x.line, x.quote, "no-wing", "wing none: no unit acts; only a leader "
                          "who moves on the Momentum marker may (rulebook §5.46, §10.14)")
            for x in in_order(out.actions)
        ]  # fmt: skip
        if any(found):
            raise OrdersError([p for p in found if p is not None])
        return out
    problems = [p for p in (_dry(ph, x) for x in in_order(out.actions)) if p is not None]
    if problems:
        raise OrdersError(problems)
    attacks = [x for x in out.actions if x.verb == "attack"]
    problem = plan_problem(ph, plan_of(out.actions)) if attacks else None
    if problem is not None:
        first = attacks[0]
        raise OrdersError([_problem(first.line, first.quote, "bad-attack", problem)])
    return out


def _check_challenge(s: CofState, sub: Submission) -> Submission:
    """A heroic challenge in place of the marker's Orders Phase (cof.md §10.2 #2)."""
    problem = challenge_problem(s, sub.side, sub.challenge)
    if problem is None and (sub.actions or sub.wing):
        problem = "a challenge replaces the Orders Phase: no wing and no other order with it"
    if problem is not None:
        raise OrdersError([_problem(0, "", "bad-challenge", problem)])
    return Submission(sub.side, "challenge", standing=sub.standing, challenge=sub.challenge)


def in_order(actions: tuple[Action, ...]) -> list[Action]:
    """The order lines as they are carried out: rally attempts first (cof.md §5.5)."""
    return [x for x in actions if x.verb == "rally"] + [x for x in actions if x.verb != "rally"]


def _dry(ph: Phase, x: Action) -> OrdersProblem | None:
    msg = do_order(ph, x)
    if msg is None:
        return None
    legal = tuple(sorted(u.id for u in ph.units()))
    return _problem(x.line, x.quote, f"bad-{x.verb}", msg, legal)


def do_order(ph: Phase, x: Action) -> str | None:
    """Carry out one order line in ``ph`` (a dry phase only moves, :class:`Phase`); the
    problem if it may not be."""
    if x.verb == "move":
        return ph.move(x)
    if x.verb == "fire":
        return ph.fire(x)
    if x.verb == "fire-and-run":
        return fire_and_run(ph, x)
    if x.verb == "recover":
        return regroup.recover(ph, x)
    if x.verb == "rally":
        return regroup.rally(ph, x)
    if x.verb == "mode":
        return set_mode(ph.s, ph.side, ph.wing, (x.who, *x.args))
    if x.verb == "attack":
        return None if _attack(x) else "attack UNIT... on ENEMY...: units of yours, then 'on'"
    if x.verb == "advance":
        return advance_line(ph, x)
    return _shock(ph, x)


def _attack(x: Action) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``attack A B on X Y`` as (attackers, defenders), or ``None`` if malformed."""
    words = [x.who, *x.args]
    low = [w.lower() for w in words]
    if low.count("on") != 1:
        return None
    k = low.index("on")
    if k == 0 or k == len(words) - 1:
        return None
    return tuple(words[:k]), tuple(words[k + 1 :])


def plan_of(actions: tuple[Action, ...]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The target plan the ``attack`` lines write (cof.md §8.3)."""
    return [a for a in (_attack(x) for x in actions if x.verb == "attack") if a is not None]


def _shock(ph: Phase, x: Action) -> str | None:
    u = ph.find(x.who)
    if not isinstance(u, Unit) or u.wing != ph.wing:
        return f"no unit {x.who!r} in wing {ph.wing}"
    target = ""
    if x.args:
        try:
            target = str(GHex.parse(x.args[0]))
        except MapNotationError:
            return f"{x.args[0]!r} is not a hex"
    ph.shock.append((u.id, target))
    return None


def carry_out(ctx: Ctx, sub: Submission) -> None:
    """Apply a checked submission to ``ctx.s`` (a copy), rolling as the rules ask."""
    s = ctx.s
    if sub.standing:
        merged = parse_policy(s.sides[sub.side].standing).merged(parse_policy(sub.standing))
        s.sides[sub.side].standing = merged.text()
        ctx.log("standing", f"{sub.side} changes standing orders", {"side": sub.side})
    if sub.kind == "standing":
        return
    if sub.kind == "answer":
        _answer(ctx, sub.answer)
        return
    a = s.active
    if sub.kind == "challenge":
        _challenge(ctx, sub)
        return
    side, wing, how = a["side"], sub.wing, a["how"]
    if how == "initiative":
        if wing == "pool":
            ctx.log("initiative", f"{side} puts every marker in the pool", {"side": side})
            s.active = {}
            next_activation(ctx)
            return
        if wing == MOMENTUM:
            use_momentum(ctx, side)
            return
        marker = f"{side}:{wing}"
        s.pool.remove(marker)
        s.used.append(marker)
    if wing == "none" or (how == "momentum" and not momentum_roll(ctx, side, wing)):
        if wing == "none":
            ctx.log("activation", f"{side} activates no wing", {"side": side})
        if how == "momentum":
            _momentum_leaders(ctx, side, sub.actions)
        finish_activation(ctx)
        return
    ctx.log("activation", f"{s.sides[side].name}: wing {wing} takes its Orders Phase",
            {"side": side, "wing": wing, "how": how, "order": sub.order})  # fmt: skip
    restore(ctx, side, "momentum" if how == "momentum" else f"wing:{wing}")
    ph = Phase(s, side, wing, sub.order, ctx, hooks=REACTIONS, momentum=how == "momentum")
    orders_phase(ph, sub.actions)
    finish_activation(ctx)


def _momentum_line(ph: Phase, x: Action) -> bool:
    """A ``move`` of a leader who moves on the Momentum marker (:mod:`engine.cof.leadmove`)."""
    who = ph.find(x.who)
    return x.verb == "move" and isinstance(who, Leader) and momentum_leader(who)


def _momentum_leaders(ctx: Ctx, side: str, actions: tuple[Action, ...]) -> None:
    """No wing acts on the Momentum marker (``wing none``, or a failed attempt): its own
    leaders' moves are carried out all the same (rulebook §5.46, §10.14), and a captured
    Standard comes back to an overall commander who may move (§9.33)."""
    restore(ctx, side, "momentum")
    ph = Phase(ctx.s, side, "", "move", ctx, hooks=REACTIONS, momentum=True)
    for x in in_order(actions):
        if not _momentum_line(ph, x):
            continue
        msg = do_order(ph, x)
        if msg is not None:
            ctx.log("not-done", f"line {x.line} not carried out: {msg}", {"line": x.line})
        update_standards(ctx)


def orders_phase(ph: Phase, actions: tuple[Action, ...]) -> None:
    """The activated wing's Orders Phase (cof.md §3 C): the Movement & Missile Segment, the
    Shock Segment, then units shocked in column revert (§6.3)."""
    assert ph.ctx is not None
    movement_segment(ph, actions)
    since = len(ph.ctx.events)
    shock_segment(ph, plan_of(actions))
    revert_shocked_columns(ph.ctx, since)


def movement_segment(ph: Phase, actions: tuple[Action, ...]) -> None:
    """The Movement & Missile Segment (cof.md §3 C1) of a real phase: the Withdraw order,
    then every line in the order written (rally attempts first)."""
    ctx = ph.ctx
    assert ctx is not None
    if ph.order == "withdraw":
        regroup.withdraw(ph)
        separate(ph.s)  # (the enemies it left are no longer Engaged, rulebook §9.26)
    for x in in_order(actions):
        msg = do_order(ph, x)
        if msg is not None:
            ctx.log("not-done", f"line {x.line} not carried out: {msg}", {"line": x.line})
        separate(ph.s)
        update_standards(ctx)


def _challenge(ctx: Ctx, sub: Submission) -> None:
    """A hero's challenge with the marker in use; the challenged side's question, or the
    duel at once by its standing order (cof.md §10.2-§10.4)."""
    s = ctx.s
    a = s.active
    marker = f"{a['side']}:{'momentum' if a['how'] == 'momentum' else a['wing']}"
    asked = challenge(ctx, sub.side, sub.challenge, marker)
    if asked is None:
        finish_activation(ctx)
        return
    s.step += 1
    target = s.leader(asked["target"])
    s.pending = {"id": f"challenge-{s.turn}-{len(s.used)}", "side": target.side,
                 "label": "challenge", "step": s.step, "active": dict(a), **asked}  # fmt: skip
    s.active = {}


def _answer(ctx: Ctx, answer: str) -> None:
    s = ctx.s
    if s.pending.get("label") == "initiative":
        answer_initiative(ctx)
        return
    if s.pending.get("label") != "challenge":
        answer_trump(ctx, answer)
        return
    p, s.pending = s.pending, {}
    answer_challenge(ctx, p, answer == "accept")
    s.active = p["active"]
    finish_activation(ctx)
