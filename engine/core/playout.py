"""Fast playouts: a game driven by actions, not mails, for search (bots, autopilot).

The mail path (:mod:`engine.core.api`) reads orders as text, checks a whole
submission, and rolls the committed, audited dice. A search plays thousands
of games where none of that is needed: a :class:`Playout` applies actions
directly, lists the legal ones, and is fed a cheap random stream
(:class:`FastRandomness`). It follows the same rules: given the same actions
and the same dice, a playout reaches the same states as the mail path
(``tests/test_playout.py`` plays random games both ways and compares every
state). Real games never roll with :class:`FastRandomness`.

Find a system's playout with :func:`playout_for`::

    po = playout_for(get_system("cca"))
    ps = po.start(system.new_game(position, None, dealing_rng))   # a mail-path state
    rng = FastRandomness(b"seed")
    while not po.is_over(ps):
        side = po.to_act(ps)                       # who acts (orders or an answer)
        acts = po.legal_actions(ps, rng, limit=8)  # candidates for ``side``
        ps = po.apply(ps, acts[0], rng)            # a new state; ``ps`` is unchanged
    po.result(ps)                                  # "north", "south", "draw"

The API (stable; the bot builds on it):

- ``start(state)`` / ``game_state(ps)``: from a mail-path state (any state:
  a new game, a game waiting for an answer) to the playout's own state and
  back. ``game_state(start(s))`` equals ``s``.
- ``to_act(ps)``: the side that must act (orders or an answer), None once over.
  ``question(ps)``: the pending :class:`~engine.core.api.Question` (None when
  the side acting gives orders). ``is_over(ps)``, ``result(ps)`` (the
  winner's side or ``"draw"``, None while playing), ``turn(ps)``.
- ``legal_actions(ps, rng, limit)``: actions for ``to_act(ps)``. For a
  question, every legal answer (``limit`` ignored). For orders, the space is
  too large to list (a card, which units, where each moves, what each
  attacks), so it is a sample: up to ``limit`` distinct legal orders, drawn
  from ``rng``, at least one per playable card while ``limit`` allows.
  Every action returned is legal (the mail path accepts its text).
- ``random_action(ps, rng)``: one legal action, cheaper than ``legal_actions``
  (what a random rollout plays).
- ``apply(ps, action, rng)``: the state after ``action``, dice drawn from
  ``rng``; ``ps`` is never changed (states are values: keep as many as a
  tree needs). An action is hashable and compares by what it orders, so the
  same orders drawn twice are one action.
- ``text(ps, action)``: the action as a mail would write it (the body of a
  submission ``parse_orders`` accepts), so a bot's choice can be mailed.
- ``rollout(ps, rng, max_epochs)``: random actions until the game ends or
  ``max_epochs`` actions were applied; the final state. The C&C playouts
  (:mod:`engine.cc.playout`) also offer ``play_turn(ps, rng, dice=None)``: a
  whole random turn with every question in it answered on the spot (no
  pause, no replay), returning the state and the actions taken; ``rollout``
  is made of them.
- ``determinize(ps, side, rng)``: a state ``side`` cannot tell from ``ps``:
  what ``side`` does not see (the other hands, the deck order) dealt again
  at random from the cards ``side`` cannot see, same counts; everything
  ``side`` sees unchanged. Information-set search samples with it, so it
  never reads the hidden cards of ``ps``.

:class:`Action` is the generic action: the acting side, ``kind`` (``orders``
or ``answer``) and ``payload`` (the system's accepted submission, hashable).

:class:`TextPlayout` is the playout of any system with an autoplayer
(:data:`engine.core.capabilities.AUTOPLAY`): orders drawn by the autoplayer,
checked and resolved by the mail path. It is correct for every system, and
slow; a system offers a faster one as its ``playout`` capability.
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from engine.core.api import GameSystem, OrdersError, Question
from engine.core.canonical import canonical_json
from engine.randomness import Die

__all__ = [
    "Action",
    "FastRandomness",
    "Playout",
    "TextPlayout",
    "playout_for",
    "redeal",
    "redeal_json",
    "redeal_start",
]

ActionKind = Literal["orders", "answer"]


@dataclass(frozen=True)
class Action:
    """One action of a playout: ``side`` gives orders or answers a question.

    ``payload`` is what the system resolves (its parsed submission); actions
    compare and hash by side, kind and payload. ``text`` is the body a mail
    would carry (may be empty when the system prints it on demand: use
    :meth:`Playout.text`).
    """

    side: str
    kind: ActionKind
    payload: Any
    text: str = field(default="", compare=False)


_STRUCT = struct.Struct("<16I")


class FastRandomness:
    """A fast deterministic stream for simulations only (never a real game's dice).

    BLAKE2b in counter mode, 64 bytes a call cut into sixteen 32-bit draws; a
    draw in ``range(n)`` is ``(x * n) >> 32`` (bias below ``n / 2**32``,
    irrelevant to a simulation). Implements :class:`engine.randomness.Randomness`
    plus :meth:`below`; ``purpose`` is ignored. The same seed gives the same
    stream; :meth:`fork` derives an independent stream.
    """

    __slots__ = ("_count", "_key", "_pool")

    def __init__(self, seed: bytes | str | int = b"") -> None:
        if isinstance(seed, int):
            seed = seed.to_bytes(16, "big", signed=True)
        elif isinstance(seed, str):
            seed = seed.encode()
        self._key = hashlib.blake2b(seed, digest_size=32, person=b"pbem-playout").digest()
        self._count = 0
        self._pool: list[int] = []

    def _refill(self) -> None:
        self._count += 1
        block = hashlib.blake2b(self._count.to_bytes(8, "big"), key=self._key).digest()
        self._pool = list(_STRUCT.unpack(block))

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (0 when ``n`` is 0 or 1)."""
        if n <= 1:
            return 0
        pool = self._pool
        if not pool:
            self._refill()
            pool = self._pool
        return (pool.pop() * n) >> 32

    def roll(self, die: Die, count: int, purpose: str = "") -> tuple[str, ...]:
        """``count`` faces of ``die``."""
        faces = die.faces
        n = len(faces)
        return tuple(faces[self.below(n)] for _ in range(count))

    def permutation(self, n: int, purpose: str = "") -> tuple[int, ...]:
        """A uniform ordering of ``range(n)`` (Fisher-Yates)."""
        a = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]
        return tuple(a)

    def fork(self, label: str | bytes) -> FastRandomness:
        """An independent stream derived from this one's key and ``label``."""
        raw = label.encode() if isinstance(label, str) else label
        return FastRandomness(self._key + b"|" + raw)

    def seed_bytes(self) -> bytes:
        """Sixteen bytes drawn from the stream (to seed a routine that takes bytes)."""
        return b"".join(self.below(1 << 32).to_bytes(4, "big") for _ in range(4))


@runtime_checkable
class Playout(Protocol):
    """A system's fast play by actions (see the module docstring)."""

    sides: tuple[str, ...]

    def start(self, state: Any) -> Any: ...
    def game_state(self, ps: Any) -> Any: ...
    def to_act(self, ps: Any) -> str | None: ...
    def question(self, ps: Any) -> Question | None: ...
    def is_over(self, ps: Any) -> bool: ...
    def result(self, ps: Any) -> str | None: ...
    def turn(self, ps: Any) -> int: ...
    def legal_actions(self, ps: Any, rng: FastRandomness, limit: int = 8) -> list[Action]: ...
    def random_action(self, ps: Any, rng: FastRandomness) -> Action: ...
    def apply(self, ps: Any, action: Action, rng: Any) -> Any: ...
    def text(self, ps: Any, action: Action) -> str: ...
    def rollout(self, ps: Any, rng: FastRandomness, max_epochs: int = 2000) -> Any: ...
    def determinize(self, ps: Any, side: str, rng: FastRandomness) -> Any: ...


def redeal(
    hands: dict[str, list[str]], deck: list[str], side: str, rng: FastRandomness
) -> tuple[dict[str, list[str]], list[str]]:
    """Deal the cards ``side`` cannot see (the other hands and the deck) again at random.

    Returns new hands (``side``'s own unchanged) and a new deck, with the same
    counts. The pool is sorted before it is shuffled, so the result depends
    on which cards are hidden, never on where they were.
    """
    others = [k for k in hands if k != side]
    pool = sorted([*deck, *(c for k in others for c in hands[k])])
    order = rng.permutation(len(pool))
    pool = [pool[i] for i in order]
    out = {k: list(v) for k, v in hands.items()}
    for k in others:
        n = len(hands[k])
        out[k], pool = pool[:n], pool[n:]
    return out, pool


def redeal_json(text: str, side: str, rng: FastRandomness) -> str:
    """:func:`redeal` on a state's JSON (``sides.<s>.hand`` lists and a ``deck`` list).

    A turn waiting for an answer keeps the state it started from
    (``pending.start``, replayed when the answer comes): its deck and the
    other hands are dealt the same way, so the replay draws the new cards.
    Between the start and the pause only the card played has moved (from the
    acting side's hand to the discard pile, in view of both). A JSON without
    hands and a deck is returned unchanged (nothing is hidden).
    """
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("deck"), list):
        return text
    deck = data["deck"]
    top = data.get("hands")
    sides = data.get("sides")
    if isinstance(top, dict):  # hands kept apart from the sides (the toy)
        hands = {k: list(v) for k, v in top.items()}
    elif isinstance(sides, dict):
        hands = {k: list(v.get("hand") or []) for k, v in sides.items() if isinstance(v, dict)}
    else:
        return text
    new_hands, new_deck = redeal(hands, deck, side, rng)
    for k, v in new_hands.items():
        if isinstance(top, dict):
            top[k] = v
        elif isinstance(sides, dict):
            sides[k]["hand"] = v
    data["deck"] = new_deck
    pending = data.get("pending")
    if isinstance(pending, dict) and isinstance(pending.get("start"), str) and pending["start"]:
        dealt = (new_hands, new_deck)
        pending["start"] = redeal_start(pending["start"], side, (hands, deck), dealt)
    return json.dumps(data)


Deal = tuple[dict[str, list[str]], list[str]]
"""Hands by side and a deck (as :func:`redeal` takes and returns them)."""


def redeal_start(start_text: str, side: str, before: Deal, after: Deal) -> str:
    """A waiting turn's start (``pending.start``, canonical JSON) dealt as :func:`redeal` dealt
    the state waiting in it (``before`` -> ``after``; see :func:`redeal_json`); unchanged
    unless it has the same deck."""
    hands, deck = before
    new_hands, new_deck = after
    start = json.loads(start_text)
    if start.get("deck") != deck:
        return start_text
    for k, v in start["sides"].items():
        if k == side:
            continue
        old, now = list(v.get("hand") or []), hands.get(k, [])
        i = next((i for i, (a, b) in enumerate(zip(old, now, strict=False)) if a != b), len(now))
        if old[:i] + old[i + 1 :] == now and len(old) == len(now) + 1:
            v["hand"] = [*new_hands[k][:i], old[i], *new_hands[k][i:]]
        elif old == now:
            v["hand"] = new_hands[k]
    start["deck"] = new_deck
    return canonical_json(start)


class TextPlayout:
    """The playout of any system with an autoplayer: correct, and as slow as the mail path.

    A state is the system's own state. Orders come from the system's
    autoplayer (seeded from the playout's stream) and are checked and
    resolved by the mail path; answers are the question's legal answers.
    ``determinize`` needs a state JSON with a ``deck`` list and the hands
    (``sides.<side>.hand``, or ``hands.<side>``: the C&C family, the toy);
    otherwise it returns the state unchanged (a system with nothing hidden).
    """

    def __init__(self, system: GameSystem) -> None:
        auto: Any = system.capability("autoplay")  # engine.core.capabilities.AUTOPLAY
        if auto is None or not callable(getattr(auto, "orders", None)):
            raise ValueError(f"system {system.name!r} has no autoplayer: no playout")
        self.system = system
        self.sides = system.sides
        self._auto = auto

    def start(self, state: Any) -> Any:
        return state

    def game_state(self, ps: Any) -> Any:
        return ps

    def to_act(self, ps: Any) -> str | None:
        p = self.system.prompt(ps)
        return None if p.kind == "over" else p.side

    def question(self, ps: Any) -> Question | None:
        return self.system.prompt(ps).question

    def is_over(self, ps: Any) -> bool:
        return self.system.prompt(ps).kind == "over"

    def result(self, ps: Any) -> str | None:
        return self.system.prompt(ps).result

    def turn(self, ps: Any) -> int:
        return self.system.prompt(ps).turn

    def _answers(self, ps: Any, q: Question) -> list[Action]:
        out: list[Action] = []
        for ans in q.answers or (q.default,):
            text = f"answer {ans}\n"
            try:
                sub = self.system.parse_orders(ps, q.side, text)
            except OrdersError:
                continue
            out.append(Action(q.side, "answer", _frozen(sub), text))
        return out

    def _orders(self, ps: Any, side: str, rng: FastRandomness) -> Action:
        text = self._auto.orders(ps, rng.seed_bytes(), "playout")
        sub = self.system.parse_orders(ps, side, text)
        return Action(side, "orders", _frozen(sub), text)

    def legal_actions(self, ps: Any, rng: FastRandomness, limit: int = 8) -> list[Action]:
        p = self.system.prompt(ps)
        if p.kind == "over" or p.side is None:
            return []
        if p.question is not None:
            return self._answers(ps, p.question)
        seen: dict[Action, None] = {}
        for _ in range(max(1, limit) * 2):
            seen.setdefault(self._orders(ps, p.side, rng))
            if len(seen) >= limit:
                break
        return list(seen)

    def random_action(self, ps: Any, rng: FastRandomness) -> Action:
        p = self.system.prompt(ps)
        if p.side is None:
            raise ValueError("the game is over: nobody acts")
        if p.question is not None:
            acts = self._answers(ps, p.question)
            return acts[rng.below(len(acts))]
        return self._orders(ps, p.side, rng)

    def apply(self, ps: Any, action: Action, rng: Any) -> Any:
        sub = action.payload
        if isinstance(sub, _Frozen):
            sub = sub.value
        return self.system.resolve(ps, sub, rng).state

    def text(self, ps: Any, action: Action) -> str:
        return action.text

    def rollout(self, ps: Any, rng: FastRandomness, max_epochs: int = 2000) -> Any:
        for _ in range(max_epochs):
            if self.is_over(ps):
                break
            ps = self.apply(ps, self.random_action(ps, rng), rng)
        return ps

    def determinize(self, ps: Any, side: str, rng: FastRandomness) -> Any:
        return self.system.from_json(redeal_json(self.system.to_json(ps), side, rng))


@dataclass(frozen=True)
class _Frozen:
    """A submission that is not hashable (a dict), compared by its canonical JSON."""

    key: str
    value: Any = field(compare=False)


def _frozen(sub: Any) -> Any:
    try:
        hash(sub)
    except TypeError:
        return _Frozen(json.dumps(sub, sort_keys=True, default=str), sub)
    return sub


def playout_for(system: GameSystem) -> Playout:
    """The system's ``playout`` capability, else a :class:`TextPlayout` over its autoplayer.

    Raises ``ValueError`` for a system with neither.
    """
    provider = system.capability("playout")
    if provider is not None:
        if not isinstance(provider, Playout):
            raise TypeError(f"system {system.name!r}: its playout lacks the Playout methods")
        return provider
    return TextPlayout(system)
