"""What the bot needs of a game system, behind one small interface (:class:`Playout`).

The search (:mod:`engine.bot.search`) never touches a :class:`GameSystem`
directly: it asks a :class:`Playout` who acts, what they may do, what an
action leads to and how good a position looks. :func:`engine.bot.fast.playout_for` gives
the adapter for a system: :class:`TextPlayout` drives any registered system
through its public interface (orders as text, the ``autoplay`` capability for
random legal orders), so the bot plays every system from day one; a faster
adapter can replace it without changing the bot.

Actions are opaque hashable values (:data:`Action`); :meth:`Playout.mail_text`
writes one as the text a player would mail (headers included), so what the
bot chooses is exactly what it sends. :class:`TextPlayout`'s actions are
those texts already.

Hidden information: :meth:`Playout.view` is the system's own ``masked``
state; :meth:`Playout.sample` deals the cards that side cannot see (the
other hands, their square charts, the deck) again at random from the same
pool, keeping every pile's size, so a sampled state is one the side could
be in given everything it saw. Nothing else of the real state is read.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from engine.bot.evaluate import evaluate_view
from engine.bot.rng import SimRng
from engine.core.api import GameSystem, OrdersError
from engine.core.capabilities import AUTOPLAY, find

__all__ = [
    "Action",
    "Playout",
    "TextPlayout",
    "Turn",
    "deal_unseen",
    "describe_text",
    "random_rollout",
    "template_head",
]

Action = Hashable
"""An action of a :class:`Playout` (orders or an answer): compared and hashed by what it does."""

TurnKind = Literal["orders", "question", "over"]


@dataclass(frozen=True)
class Turn:
    """Who acts in a state: ``kind``, the acting ``side``, the ``result`` once over."""

    kind: TurnKind
    side: str | None
    result: str | None = None


class Playout(Protocol):
    """The bot's view of a game system (see the module docstring)."""

    @property
    def sides(self) -> tuple[str, ...]: ...

    def turn(self, state: Any) -> Turn:
        """Who must act now."""
        ...

    def view(self, state: Any, side: str) -> Any:
        """``state`` with what ``side`` cannot see replaced by a function of public facts."""
        ...

    def key(self, state: Any) -> str:
        """A canonical text of ``state`` (seeds a decision; equal views give equal keys)."""
        ...

    def sample(self, view: Any, side: str, rng: SimRng) -> Any:
        """A full state consistent with ``view`` (unseen cards dealt again at random)."""
        ...

    def actions(self, state: Any, side: str, rng: SimRng, width: int) -> tuple[Action, ...]:
        """Up to ``width`` distinct legal actions of ``side``."""
        ...

    def random_action(self, state: Any, side: str, rng: SimRng) -> Action:
        """One random legal action (the playout policy)."""
        ...

    def apply(self, state: Any, side: str, action: Action, rng: SimRng) -> Any:
        """The state after ``side`` plays ``action`` with dice from ``rng``."""
        ...

    def rollout(self, state: Any, rng: SimRng, horizon: int) -> Any:
        """The state after ``horizon`` random decisions (:func:`random_rollout`'s state)."""
        ...

    def evaluate(self, state: Any, side: str) -> float:
        """How good ``state`` looks for ``side``: 1 won, 0 lost, else an estimate."""
        ...

    def describe(self, state: Any, side: str, action: Action) -> str:
        """A few words saying what ``action`` does (for the bot's explanation)."""
        ...

    def mail_text(self, state: Any, side: str, action: Action) -> str:
        """``action`` as the text a player would mail (headers included)."""
        ...


def random_rollout(game: Playout, state: Any, rng: SimRng, horizon: int) -> Any:
    """Random legal actions (:meth:`Playout.random_action`) for ``horizon`` decisions, or
    until the game ends; the state reached."""
    for _ in range(horizon):
        turn = game.turn(state)
        if turn.kind == "over" or turn.side is None:
            break
        state = game.apply(state, turn.side, game.random_action(state, turn.side, rng), rng)
    return state


def deal_unseen(data: dict[str, Any], side: str, rng: SimRng) -> dict[str, Any]:
    """Deal the cards ``side`` cannot see again at random, in a state's JSON.

    Understands the shapes pbem's systems use: ``sides.<s>.hand`` with an
    optional ``sides.<s>.squares`` ``[[unit, card], ...]`` (the C&C family) or
    ``hands.<s>`` (the toy), and a ``deck`` list. Other shapes are returned
    unchanged (a system without hidden cards).
    """
    deck = data.get("deck")
    if not isinstance(deck, list):
        return data
    slots: list[tuple[list[Any], int]] = []  # (list holding a hidden card, index)
    others = [s for s in _sides_of(data) if s != side]
    for s in others:
        holder = data["sides"][s] if isinstance(data.get("sides"), dict) else {}
        hand = holder.get("hand") if isinstance(holder, dict) else None
        if hand is None and isinstance(data.get("hands"), dict):
            hand = data["hands"].get(s)
        if isinstance(hand, list):
            slots += [(hand, i) for i in range(len(hand))]
        squares = holder.get("squares") if isinstance(holder, dict) else None
        if isinstance(squares, list):
            slots += [(sq, 1) for sq in squares if isinstance(sq, list) and len(sq) == 2]
    slots += [(deck, i) for i in range(len(deck))]
    pool = [holder[i] for holder, i in slots]
    order = rng.permutation(len(pool), "deal the unseen cards")
    for (holder, i), j in zip(slots, order, strict=True):
        holder[i] = pool[j]
    return data


def _sides_of(data: dict[str, Any]) -> list[str]:
    for key in ("sides", "hands"):
        if isinstance(data.get(key), dict):
            return sorted(data[key])
    return []


class TextPlayout:
    """Any :class:`GameSystem` through its public interface (orders as text)."""

    def __init__(self, system: GameSystem) -> None:
        auto = find(system, AUTOPLAY)
        if auto is None:
            raise ValueError(f"system {system.name!r} offers no autoplay: the bot cannot play it")
        self.system = system
        self.auto = auto
        self.sides: tuple[str, ...] = tuple(system.sides)

    def turn(self, state: Any) -> Turn:
        p = self.system.prompt(state)
        if p.kind == "over":
            return Turn("over", None, p.result)
        side = p.question.side if p.question is not None else p.side
        return Turn(p.kind, side)

    def view(self, state: Any, side: str) -> Any:
        return self.system.masked(state, side)

    def key(self, state: Any) -> str:
        return self.system.to_json(state)

    def sample(self, view: Any, side: str, rng: SimRng) -> Any:
        data = json.loads(self.system.to_json(view))
        if not isinstance(data, dict):
            return self.system.from_json(self.system.to_json(view))
        return self.system.from_json(json.dumps(deal_unseen(data, side, rng)))

    def actions(self, state: Any, side: str, rng: SimRng, width: int) -> tuple[str, ...]:
        p = self.system.prompt(state)
        if p.question is not None:
            answers = list(dict.fromkeys((*p.question.answers, p.question.default)))
            texts = [self._answer(state, side, a) for a in answers]
            return tuple(t for t in texts if self._legal(state, side, t))[: max(width, 1)]
        found: dict[str, None] = {}
        for attempt in range(width * 2):
            text = self.auto.orders(state, _seed(rng), f"bot-candidate-{attempt}")
            found.setdefault(text, None)
            if len(found) >= width:
                break
        return tuple(found)

    def random_action(self, state: Any, side: str, rng: SimRng) -> str:
        return self.auto.orders(state, _seed(rng), "bot-playout")

    def apply(self, state: Any, side: str, action: Action, rng: SimRng) -> Any:
        sub = self.system.parse_orders(state, side, str(action))
        return self.system.resolve(state, sub, rng).state

    def rollout(self, state: Any, rng: SimRng, horizon: int) -> Any:
        return random_rollout(self, state, rng, horizon)

    def evaluate(self, state: Any, side: str) -> float:
        return evaluate_view(self.system.public_view(state), side, self.turn(state).result)

    def describe(self, state: Any, side: str, action: Action) -> str:
        return describe_text(self.system, str(action))

    def mail_text(self, state: Any, side: str, action: Action) -> str:
        return str(action)

    def _answer(self, state: Any, side: str, answer: str) -> str:
        head = template_head(self.system, state, side)
        return "\n".join([*head, f"answer {answer}"]) + "\n"

    def _legal(self, state: Any, side: str, text: str) -> bool:
        try:
            self.system.parse_orders(state, side, text)
        except OrdersError:
            return False
        return True


def template_head(system: GameSystem, state: Any, side: str) -> list[str]:
    """The header lines (``game``, ``turn``, ``side``...) of ``side``'s orders template."""
    lines = system.orders_template(state, side).splitlines()
    return [ln for ln in lines if ln.split(None, 1)[:1] and ln.split()[0].lower() in _HEAD]


_HEAD = {"game", "turn", "side", "question:", "state:"}


def describe_text(system: GameSystem, text: str) -> str:
    """``plays Order Three Units Left: 3 units ordered, 1 attack``, from an orders text."""
    lines = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    words = [ln.split(None, 1) for ln in lines if ln]
    first = {w[0].lower(): (w[1] if len(w) > 1 else "") for w in reversed(words)}
    if "answer" in first:
        return f"answers {first['answer']}"
    parts: list[str] = []
    ordered = sum(
        len([r for r in w[1].split(",") if r.strip()])
        for w in words
        if w[0].lower() == "order" and len(w) > 1
    )
    if ordered:
        parts.append(f"{ordered} unit{'s' if ordered != 1 else ''} ordered")
    for verb, noun in (("move", "move"), ("attack", "attack"), ("fire", "fire")):
        n = sum(1 for w in words if w[0].lower() == verb)
        if n:
            parts.append(f"{n} {noun}{'s' if n != 1 and noun != 'fire' else ''}")
    card = first.get("card")
    head = f"plays {system.card_name(card)}" if card else "acts"
    return head + (": " + ", ".join(parts) if parts else "")


def _seed(rng: SimRng) -> bytes:
    return rng.next64().to_bytes(8, "big")
