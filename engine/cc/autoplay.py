"""Random legal play shared by the C&C systems: answers, accepted texts, whole games.

A system gives a :class:`RandomRules`: how to write random orders for a side (using its own
look-ups) and its standing-order vocabulary. :func:`random_submission` returns orders or an
answer the engine accepts (refused lines are dropped until it does); :func:`play_random_game`
drives a whole battle with the committed dice stream (:class:`engine.dice.EpochDice`) or any
:class:`Randomness`. Choices come from a ``Randomness`` (:mod:`engine.core.choices`), never
from ``random``: the same seed gives the same game, byte for byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from engine.core.api import Event, GameSystem, OrdersError, Question
from engine.core.choices import below, choice_stream
from engine.dice import EpochDice, HashChain, hash_orders
from engine.randomness import Randomness

__all__ = [
    "AutoplayError",
    "DiceFactory",
    "RandomRules",
    "Step",
    "accepted",
    "chance",
    "choice_stream",
    "header",
    "pick",
    "play_random_game",
    "random_answer",
    "random_submission",
    "shuffled",
]

T = TypeVar("T")
_TRIES = 12


class RandomRules(Protocol):
    """A system's part of random play."""

    @property
    def sides(self) -> tuple[str, ...]: ...
    @property
    def policy_values(self) -> Mapping[str, tuple[str, ...]]: ...
    @property
    def not_drawn(self) -> Collection[str]:
        """Standing-order keys never drawn (added after a system's random games were fixed)."""
        ...

    def orders(self, system: GameSystem, state: Any, side: str, rng: Randomness) -> str:
        """Random orders for ``side`` that ``system.parse_orders`` accepts."""
        ...


class AutoplayError(RuntimeError):
    """No text the engine accepts could be found (an engine or autoplay bug)."""


@dataclass(frozen=True)
class Step:
    """One resolved epoch of a random game: who acted, what they sent, what happened."""

    epoch: int
    side: str
    kind: str  # "orders" or "question"
    text: str
    events: tuple[Event, ...] = field(default=())


# --- choices ------------------------------------------------------------------


def pick(rng: Randomness, items: Sequence[T], purpose: str) -> T:
    """One of ``items``, uniformly."""
    return items[below(rng, len(items), purpose)]


def chance(rng: Randomness, percent: int, purpose: str) -> bool:
    """True ``percent`` times in 100."""
    return below(rng, 100, purpose) < percent


def shuffled(rng: Randomness, items: Sequence[T], purpose: str) -> list[T]:
    """``items`` in a random order."""
    if len(items) <= 1:
        return list(items)
    return [items[i] for i in rng.permutation(len(items), purpose)]


def header(state: Any, side: str) -> list[str]:
    """The header lines of a submission."""
    return [f"game {state.game_id}", f"turn {state.turn}", f"side {side}"]


# --- answers ------------------------------------------------------------------


def random_answer(question: Question, rng: Randomness) -> str:
    """Pick one of the question's legal answers (the default a little more often)."""
    if not question.answers:
        return question.default
    if chance(rng, 20, "answer: take the default"):
        return question.default
    return pick(rng, question.answers, f"answer {question.id}")


def accepted(
    system: GameSystem, state: Any, side: str, lines: list[str]
) -> tuple[str | None, OrdersError | None]:
    """Drop refused lines until the engine accepts the text (or give up)."""
    err: OrdersError | None = None
    card_line = next((i for i, x in enumerate(lines, 1) if x.startswith("card ")), 0)
    for _ in range(_TRIES):
        text = "\n".join(lines) + "\n"
        try:
            system.parse_orders(state, side, text)
            return text, None
        except OrdersError as e:
            err = e
            bad = {p.line for p in e.problems if p.line > 0}
            if not bad or card_line in bad:
                return None, err
            lines = [x for i, x in enumerate(lines, 1) if i not in bad]
    return None, err


def random_submission(
    rules: RandomRules, system: GameSystem, state: Any, rng: Randomness
) -> tuple[str, str]:
    """Return ``(side, text)``: random legal orders, or an answer to the pending question."""
    p = system.prompt(state)
    if p.kind == "over" or p.side is None:
        raise AutoplayError("the battle is over: nobody acts")
    if p.kind == "question" and p.question is not None:
        q = p.question
        for ans in (random_answer(q, rng), q.default):
            text = "\n".join([*header(state, q.side), f"answer {ans}"]) + "\n"
            try:
                system.parse_orders(state, q.side, text)
                return q.side, text
            except OrdersError:
                continue
        raise AutoplayError(f"no acceptable answer to {q.id}: {q.answers}")
    return p.side, rules.orders(system, state, p.side, rng)


def _random_standing(rules: RandomRules, rng: Randomness, side: str) -> list[str]:
    """A few random standing orders, so random games reach every decision path."""
    out = []
    for key, values in rules.policy_values.items():
        if key in rules.not_drawn:
            continue
        if chance(rng, 50, f"{side} changes standing {key}?"):
            out.append(f"standing {key}: {pick(rng, values, f'{side} standing {key}')}")
    return out


# --- whole games --------------------------------------------------------------

DiceFactory = Callable[[int, str], Randomness]
"""``(epoch, submitted text) -> Randomness`` for that epoch's dice."""


def play_random_game(
    rules: RandomRules,
    system: GameSystem,
    state: Any,
    seed_bytes: bytes,
    max_turns: int = 200,
    *,
    dice: DiceFactory | None = None,
    random_standing: bool = True,
    on_step: Callable[[Any, Step], None] | None = None,
) -> tuple[Any, list[Step]]:
    """Play random legal turns from ``state`` until the battle ends or ``max_turns`` pass.

    ``state`` may be a loaded scenario (it is started with ``new_game``, the
    deck shuffled from the seed's deck chain). Without ``dice``, every epoch
    uses :class:`EpochDice` on a dice chain built from ``seed_bytes``, as the
    referee does. ``on_step(state, step)`` is called after every epoch (tests
    check invariants there). Returns the final state and the steps taken.
    """
    seed = hashlib.sha256(b"pbem-random-game|" + seed_bytes).digest()
    choices = choice_stream(seed)
    game_id = str(getattr(state, "game_id", "game")) or "game"
    epochs = max(16, max_turns * 12)
    dice_chain: HashChain | None = None
    deck_chain = HashChain(hashlib.sha256(b"deck|" + seed).digest(), 512)
    if dice is None:
        dice_chain = HashChain(hashlib.sha256(b"dice|" + seed).digest(), epochs)
    setup = EpochDice(game_id, 0, None, hashlib.sha256(b"").digest(), deck=deck_chain)
    state = system.new_game(state, None, setup)
    shuffles = setup.shuffles_done
    steps: list[Step] = []
    pending_standing = {
        s: _random_standing(rules, choices, s) if random_standing else [] for s in rules.sides
    }
    epoch = 0
    while True:
        p = system.prompt(state)
        if p.kind == "over" or state.turn > max_turns or epoch >= epochs:
            break
        side, text = random_submission(rules, system, state, choices)
        if p.kind == "orders" and pending_standing.get(side):
            with_standing = text + "\n".join(pending_standing[side]) + "\n"
            try:
                system.parse_orders(state, side, with_standing)
                text = with_standing
            except OrdersError:
                pass
            pending_standing[side] = []
        sub = system.parse_orders(state, side, text)
        epoch += 1
        rng: Randomness
        if dice is not None:
            rng = dice(epoch, text)
        else:
            assert dice_chain is not None
            rng = EpochDice(
                game_id,
                epoch,
                dice_chain.key(epoch),
                hash_orders(text.encode()),
                deck=deck_chain,
                shuffles_before=shuffles,
            )
        res = system.resolve(state, sub, rng)
        if isinstance(rng, EpochDice):
            shuffles = rng.shuffles_done
        state = res.state
        step = Step(epoch, side, p.kind, text, tuple(res.events))
        steps.append(step)
        if on_step is not None:
            on_step(state, step)
    return state, steps
