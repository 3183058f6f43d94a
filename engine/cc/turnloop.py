"""Resolving a C&C turn with pauses for questions (shared by the C&C systems).

A turn runs as one deterministic procedure on a system's working copy. When a decision needs
a question, the state keeps the turn's start, the orders, the answers and the dice so far (a
:class:`~engine.cc.pending.Pending`); the answer replays the turn from its start
(:mod:`engine.core.replay`) and goes on with fresh dice. Standing orders sent with orders
apply from that turn on; sent with an answer, after the turn (never to its replay). A system
gives the pieces that differ as a :class:`TurnRules`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from engine.cc.decide import Decider
from engine.cc.orders import Submission
from engine.cc.pending import Pending
from engine.cc.policy import Policy
from engine.cc.roster import GameOver
from engine.core.api import CardMove, Event, Question, Resolution
from engine.core.canonical import canonical_json, load_json
from engine.core.replay import AnswerBook, NeedDecision, ReplayRandomness
from engine.randomness import Randomness

__all__ = [
    "LiveAnswers",
    "StandingPolicies",
    "StandingRules",
    "TurnRules",
    "TurnWork",
    "resolve_turn",
]


class TurnWork(Protocol):
    """What the loop needs of a system's working copy.

    A working copy that moves cards also keeps ``cards``, a list of
    :class:`~engine.core.api.CardMove` (the audit record's card log): the
    resolution that completes a turn reports them all, the replayed part
    included; a resolution that pauses for a question reports none.
    """

    events: list[Event]

    def log(self, kind: str, text: str, **data: Any) -> None: ...
    def freeze(self) -> Any: ...


class TurnRules(Protocol):
    """A system's part of the loop."""

    def policies(self, state: Any) -> Mapping[str, Policy]:
        """Each side's standing orders in force."""
        ...

    def with_standing(self, state: Any, side: str, lines: tuple[str, ...]) -> Any:
        """``state`` with ``lines`` merged into ``side``'s standing orders."""
        ...

    def begin(self, start: Any, rng: Randomness, decider: Decider) -> TurnWork:
        """A working copy of ``start`` for one turn."""
        ...

    def play(self, w: Any, side: str, orders: str) -> Any:
        """Play the turn ``orders`` on ``w``; return the state after it (next side to move)."""
        ...

    def to_dict(self, state: Any) -> dict[str, Any]: ...
    def from_dict(self, d: Any) -> Any: ...


class StandingPolicies:
    """Each side's standing orders over the defaults, parsed once per text (a system's own
    ``parse_policy`` and ``DEFAULT_STANDING``): a :class:`Policy` is a value, so the one
    parsed for a text serves every turn that has it."""

    def __init__(self, parse: Callable[[str], Policy], default: str) -> None:
        self._parse = parse
        self._default = default
        self._cache: dict[str, Policy] = {}

    def __call__(self, state: Any) -> dict[str, Policy]:
        out = {}
        for side, v in state.sides.items():
            text = v.standing
            pol = self._cache.get(text)
            if pol is None:
                pol = self._parse(self._default).merged(self._parse(text))
                if len(self._cache) < 256:
                    self._cache[text] = pol
            out[side] = pol
        return out


_STANDING: dict[tuple[Callable[[str], Policy], str], StandingPolicies] = {}
"""One :class:`StandingPolicies` per system (its parser and defaults)."""


class StandingRules:
    """The standing-order half of a :class:`TurnRules`, from a system's parser and defaults."""

    def __init__(self, parse: Callable[[str], Policy], defaults: str) -> None:
        self._parse = parse
        self._defaults = defaults
        found = _STANDING.get((parse, defaults))
        if found is None:
            found = _STANDING[parse, defaults] = StandingPolicies(parse, defaults)
        self._policies = found

    def policies(self, state: Any) -> dict[str, Policy]:
        """Each side's standing orders over the defaults (each text parsed once)."""
        return self._policies(state)

    def with_standing(self, state: Any, side: str, lines: tuple[str, ...]) -> Any:
        """``state`` with ``lines`` merged into ``side``'s standing orders."""
        if not lines:
            return state
        pol = self._parse(state.sides[side].standing or self._defaults)
        pol = pol.merged(self._parse("\n".join(lines)))
        return state.with_side(side, standing=pol.text())


class LiveAnswers(AnswerBook):
    """A playout's answers, each given the moment its question arises (a bot's imagined game,
    never a real one), with the dice the turn goes on with: ``answer(question)`` returns
    both. Up to ``budget`` questions are answered so; the next one pauses the turn as the
    mail path does (the answers given, every die rolled), and the state is the one mailing
    the orders, then those answers with those dice, reaches, without the pauses and replays.
    """

    def __init__(self, answer: Callable[[Question], tuple[str, Randomness]], budget: int) -> None:
        super().__init__(())
        self._answer = answer
        self._budget = budget
        self.given: list[str] = []
        self.dice: ReplayRandomness | None = None  # the turn's dice (set by the loop)

    def next_answer(self, question: Question) -> str:
        if len(self.given) >= self._budget or self.dice is None:
            raise NeedDecision(question)
        ans, self.dice.live = self._answer(question)
        self.given.append(ans)
        return ans


def resolve_turn(
    rules: TurnRules,
    state: Any,
    submission: Submission,
    rng: Randomness,
    answers: AnswerBook | None = None,
) -> Resolution:
    """Resolve an accepted submission (orders, or an answer to the pending question).

    ``answers`` (a playout's; never a real game's) answers every question of the
    turn the moment it arises, so the turn never pauses: mailing those answers
    one by one, with dice from the same stream, reaches the same state.
    """
    if answers is not None and submission.card is not None and state.pending is None:
        start = rules.with_standing(state, state.to_move, submission.standing)
        return _run(rules, start, state.to_move, submission.notation(), (), (), rng, 0, answers)
    if state.pending is not None:
        p = state.pending
        assert submission.answer is not None
        start = rules.from_dict(load_json(p.start))
        res = _run(
            rules, start, p.side, p.orders, (*p.answers, submission.answer), p.dice, rng, p.reported
        )
        # Standing orders sent with an answer apply after this turn, never to its replay.
        later = dict(p.later)
        if submission.standing:
            who = p.question.side
            later[who] = rules.with_standing(state, who, submission.standing).sides[who].standing
        new = res.state
        if new.pending is not None:
            new = replace(new, pending=replace(new.pending, later=later))
        else:
            for who, text in sorted(later.items()):
                new = new.with_side(who, standing=text)
        return Resolution(new, res.events, res.cards)
    if submission.card is None:  # standing orders only, from either side
        who = submission.side or state.to_move
        return Resolution(rules.with_standing(state, who, submission.standing), ())
    start = rules.with_standing(state, state.to_move, submission.standing)
    return _run(rules, start, state.to_move, submission.notation(), (), (), rng, 0)


def _run(  # noqa: PLR0917
    rules: TurnRules,
    start: Any,
    side: str,
    orders: str,
    answers: tuple[str, ...],
    dice: tuple[object, ...],
    rng: Randomness,
    reported: int,
    book: AnswerBook | None = None,
) -> Resolution:
    rr = ReplayRandomness([dict(d) for d in dice], rng)  # type: ignore[call-overload]
    live = book if isinstance(book, LiveAnswers) else None
    if live is not None:  # it switches the dice at each answer, and a pause records them
        live.dice = rr
    decider = Decider(rules.policies(start), book or AnswerBook(answers))
    w = rules.begin(start, rng if book is not None and live is None else rr, decider)
    try:
        final = rules.play(w, side, orders)
    except GameOver as over:
        w.log(
            "victory",
            "the battle is a draw" if over.result == "draw" else f"{over.result} wins the battle",
            result=over.result,
        )
        final = replace(w.freeze(), result=over.result, pending=None)
    except NeedDecision as nd:
        q = nd.question
        done = len(w.events)  # the replay will not repeat the question event itself
        # The public record names who must decide, not what: a First Strike question
        # would tell the opponent which card that side holds.
        w.log("question", f"waiting for a decision from {q.side}", side=q.side)
        pending = Pending(
            side=side,
            orders=orders,
            answers=answers if live is None else (*answers, *live.given),
            dice=tuple(rr.record),
            reported=done,
            question=q,
            start=canonical_json(rules.to_dict(start)),
        )
        return Resolution(replace(w.freeze(), pending=pending), tuple(w.events[reported:]))
    cards: tuple[CardMove, ...] = tuple(getattr(w, "cards", ()))
    return Resolution(replace(final, pending=None), tuple(w.events[reported:]), cards)
