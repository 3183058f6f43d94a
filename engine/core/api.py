"""Types every caller of a game system uses, whatever the game.

A game system (see :mod:`engine.systems`) is driven like this::

    system = get_system("cca")
    state = system.new_game(system.load_position(toml_text), options, rng)
    prompt = system.prompt(state)            # who must act, and how
    sub = system.parse_orders(state, side, mail_text)   # raises OrdersError
    res = system.resolve(state, sub, rng)    # Resolution(state, events)

``prompt.kind`` is ``"orders"`` (a side mails a turn's orders), ``"question"``
(a side answers ``prompt.question`` with one line of text, parsed by
``parse_orders`` like orders are) or ``"over"`` (``prompt.result`` is the
winner's side or ``"draw"``). Everything here is frozen and JSON-friendly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from engine.randomness import Die, Randomness

__all__ = [
    "CardMove",
    "CardPiles",
    "Event",
    "GameSystem",
    "OrdersError",
    "OrdersProblem",
    "PositionError",
    "Prompt",
    "Question",
    "Resolution",
]

PromptKind = Literal["orders", "question", "over"]


@dataclass(frozen=True)
class Question:
    """A decision the rules give one side in the middle of a turn.

    ``answers`` lists the legal answers as the player would write them;
    ``default`` is applied if the player does not answer in time. ``id`` is
    stable (the same turn asks the same question under the same id on every
    replay); ``step`` counts the questions of the turn from 1 and ``label``
    names the rule asking (``evade``, ``retreat``...), for mails and answers.
    """

    id: str
    side: str
    text: str
    answers: tuple[str, ...]
    default: str
    step: int = 0
    label: str = ""


@dataclass(frozen=True)
class Prompt:
    """Who must act now: orders from ``side``, an answer to ``question``, or nothing (over).

    ``text`` may be shown to everyone; ``question`` only to ``question.side``
    (a question can reveal a hidden card, e.g. First Strike).
    """

    kind: PromptKind
    side: str | None
    text: str
    question: Question | None = None
    result: str | None = None
    turn: int = 0


@dataclass(frozen=True)
class Event:
    """One thing that happened, for people (``text``) and for programs (``data``).

    ``dice`` holds the faces rolled for this event, in order (empty if none).
    """

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    dice: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        return {
            "kind": self.kind,
            "text": self.text,
            "data": dict(self.data),
            "dice": list(self.dice),
        }


CardMoveKind = Literal["draw", "discard", "return", "shuffle"]


@dataclass(frozen=True)
class CardMove:
    """One movement of a card, for the audit record's card log (docs/audit.md, section 5).

    ``draw``: ``side`` takes the top card of the deck (``card``) into its hand;
    ``discard``: ``card`` leaves ``side``'s hand for the discard pile (played,
    or discarded); ``return``: ``card`` leaves ``side``'s hand for the bottom
    of the deck; ``shuffle``: ``pile`` (``deck``: the deck's cards;
    ``discard``: the discard pile, the deck being empty; ``deck+discard``: the
    deck with the discard pile under it) becomes the new deck in the order of
    the next ``Randomness.permutation``: ``new[p] = pile[order[p]]``. This is
    secret while the game runs (the cards drawn): only the referee stores it.
    """

    kind: CardMoveKind
    side: str = ""
    card: str = ""
    pile: str = ""


@dataclass(frozen=True)
class CardPiles:
    """Where every card lies: the deck (top first), the discard pile (oldest first), the hands."""

    deck: tuple[str, ...]
    discard: tuple[str, ...]
    hands: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class Resolution:
    """The state after a submission, what happened (in order), and the card moves.

    ``cards`` lists every card the resolution moved, in order (empty for a
    system without cards). A system that resumes a paused turn by replaying
    it (C&C Ancients) reports the turn's moves when it completes.
    """

    state: Any
    events: tuple[Event, ...]
    cards: tuple[CardMove, ...] = ()


@dataclass(frozen=True)
class OrdersProblem:
    """One error in a submission: where, what, and what would be legal.

    ``line`` is 1-based in the submitted text (0 = the submission as a whole);
    ``quote`` is that line as written; ``code`` is stable (mail templates switch
    on it); ``legal`` lists legal alternatives (hexes, card codes, units...).
    """

    line: int
    quote: str
    code: str
    message: str
    legal: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = f"line {self.line}: {self.quote!r}: " if self.line else ""
        tail = f" (legal: {', '.join(self.legal)})" if self.legal else ""
        return f"{where}{self.message}{tail}"


class OrdersError(ValueError):
    """Orders that are not understood or not allowed; nothing was changed.

    ``problems`` holds every error found (at least one). The first problem's
    fields are mirrored as attributes for callers that only show one.
    """

    def __init__(self, problems: list[OrdersProblem] | tuple[OrdersProblem, ...]) -> None:
        self.problems: tuple[OrdersProblem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("OrdersError needs at least one problem")
        first = self.problems[0]
        self.line = first.line
        self.quote = first.quote
        self.code = first.code
        self.message = first.message
        self.legal = first.legal
        super().__init__("\n".join(str(p) for p in self.problems))


class PositionError(ValueError):
    """A position or scenario file that cannot be loaded; ``line`` is 1-based (0 unknown)."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line else message)


class GameSystem(Protocol):
    """What every game system offers (see the module docstring for the flow).

    Identity: ``name`` (the id games and files use, e.g. ``"cca"``),
    ``version`` (changes when the same inputs may give different results),
    ``title`` (for people). ``sides`` names the sides in seat order; ``dice``
    maps every die the system may roll (by :attr:`Die.name`) to its faces,
    which the audit record and the engine CLI's ``--dice`` use.

    Optional capabilities (odds forecast, autoplayer, scenario checker,
    picture model, rules help) are found with
    :func:`engine.core.capabilities.find`, which asks :meth:`capability`.
    """

    name: str
    version: str
    title: str
    sides: tuple[str, ...]
    dice: Mapping[str, Die]

    def load_position(self, text: str) -> Any:
        """Parse a scenario or position file (raises :class:`PositionError` with a line)."""
        ...

    def write_position(self, state: Any) -> str:
        """Print ``state`` as a position file that :meth:`load_position` reads back."""
        ...

    def new_game(
        self, position: Any, options: Mapping[str, Any] | None = None, rng: Randomness | None = None
    ) -> Any:
        """The initial state: options applied, deck shuffled with ``rng``, hands dealt."""
        ...

    def prompt(self, state: Any) -> Prompt:
        """Who must act now, and how."""
        ...

    def parse_orders(self, state: Any, side: str, text: str) -> Any:
        """Check a whole submission; raise :class:`OrdersError` listing every problem by line."""
        ...

    def resolve(self, state: Any, submission: Any, rng: Randomness) -> Resolution:
        """Apply an accepted submission; a pending :class:`Question` shows in the next prompt."""
        ...

    def legal_actions(self, state: Any, side: str, card: str | None = None) -> dict[str, Any]:
        """What ``side`` may do now: ``cards`` (code, name...), ``units`` (options per piece)."""
        ...

    def player_view(self, state: Any, side: str) -> dict[str, Any]:
        """What ``side`` may see (its own hand included)."""
        ...

    def public_view(self, state: Any) -> dict[str, Any]:
        """What anyone may see."""
        ...

    def masked(self, state: Any, side: str) -> Any:
        """``state`` with what ``side`` cannot see replaced by a function of public facts."""
        ...

    def summary(self, state: Any) -> str:
        """One line for mail subjects and listings (turn, score, who acts)."""
        ...

    def to_json(self, state: Any) -> str:
        """Canonical JSON of the whole state (secrets included: store only)."""
        ...

    def from_json(self, text: str) -> Any:
        """Inverse of :meth:`to_json`."""
        ...

    def legal_hints(self, state: Any, side: str) -> dict[str, Any]:
        """Playable cards (``cards``: code, name) and the like, for mails and templates."""
        ...

    def orders_template(self, state: Any, side: str) -> str:
        """An orders template ready to fill in."""
        ...

    def parse_standing_orders(self, text: str) -> Any:
        """Parse standing orders (raises :class:`OrdersError`)."""
        ...

    def card_name(self, code: str) -> str:
        """The full name of a card code (the code itself if the system has no cards)."""
        ...

    def capability(self, name: str) -> object | None:
        """The provider of an optional capability, or None (see :mod:`engine.core.capabilities`)."""
        ...
