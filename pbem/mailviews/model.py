"""What a mail is made from: frozen inputs the daemon fills in, one class per mail kind.

The daemon builds these from the store and the engine's views, then calls the
functions of :mod:`pbem.mailviews.compose`; each returns an
``email.message.EmailMessage`` ready to queue in the outbox. Inputs carry
only what the recipient may see: a :class:`Recipient` gets its own ``hand``
and nothing else hidden (design.md §2.3). The board is public and rendered
once per turn (:func:`pbem.render.render_board`), then shared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.render.bundle import RenderedBoard

__all__ = [
    "Card",
    "DiceReveal",
    "DieRoll",
    "Envelope",
    "GameEnd",
    "GameStart",
    "MissedTurn",
    "NarrativeEvent",
    "OrderError",
    "OrdersRejected",
    "Player",
    "Question",
    "QuestionMail",
    "Recipient",
    "Reminder",
    "Signer",
    "TurnMail",
]

Signer = Callable[[str], str]
"""The server's signer: text in, armored SSH signature (``-----BEGIN SSH SIGNATURE-----``) out."""


@dataclass(frozen=True)
class Recipient:
    """Who a mail goes to; ``tz`` is an IANA zone name such as ``Europe/Prague``."""

    name: str
    address: str
    tz: str
    side: str  # "north" | "south"


@dataclass(frozen=True)
class Envelope:
    """Headers every mail needs; one thread per game.

    ``message_id`` is deterministic and given by the caller (with angle
    brackets, ``<...>``). ``thread_root`` is the Message-ID of the game's first
    mail; ``in_reply_to`` the mail this one answers (defaults to the root).
    ``signer``, when given, signs the text part (attachment ``pbem.txt.sig``).
    """

    game_id: str
    scenario: str
    turn: int
    recipient: Recipient
    sender: str
    message_id: str
    thread_root: str | None = None
    in_reply_to: str | None = None
    signer: Signer | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Card:
    """A command card in the recipient's own hand."""

    code: str
    name: str
    text: str


@dataclass(frozen=True)
class DieRoll:
    """One die face and the rules event it served (``battle C4→D5, die 3 of 5``)."""

    face: str
    event: str


@dataclass(frozen=True)
class NarrativeEvent:
    """One line of the story of a turn: a move, a battle, a retreat, a loss, a banner."""

    kind: str
    text: str
    dice: tuple[DieRoll, ...] = ()
    hits: int | None = None
    """Hits the roll scored, when the system says (event data ``hits``)."""
    flags: int | None = None
    """Flags (retreats) the roll scored, when the system says (event data ``flags``)."""

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NarrativeEvent:
        """Read an event dict: ``{"kind", "text", "dice"}`` (dice optional).

        Dice are ``{"face", "event"}`` dicts, or plain faces as in the
        engine's ``Event.to_dict()``; a plain face is labelled ``die i of n``
        (the event's text says what was rolled for).
        """
        raw = list(d.get("dice", ()) or ())
        dice = tuple(
            DieRoll(str(x["face"]), str(x.get("event", "")))
            if isinstance(x, Mapping)
            else DieRoll(str(x), f"die {i} of {len(raw)}")
            for i, x in enumerate(raw, 1)
        )
        hits, flags = roll_score(d)
        return cls(str(d.get("kind", "event")), str(d["text"]), dice, hits, flags)


def roll_score(d: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """Return the (hits, flags) an engine event dict's ``data`` reports, None where absent."""
    data = d.get("data")
    if not isinstance(data, Mapping):
        return None, None
    out: list[int | None] = []
    for key in ("hits", "flags"):
        value = data.get(key)
        out.append(value if isinstance(value, int) and not isinstance(value, bool) else None)
    return out[0], out[1]


@dataclass(frozen=True)
class DiceReveal:
    """The dice key revealed for an epoch and the game's standing commitments (hex strings)."""

    epoch: int
    key: str
    dice_commitment: str
    deck_commitment: str
    orders: tuple[tuple[int, str, str], ...] = ()
    """``(epoch, side, SHA-256 hex)`` of the signed orders (or answer) each epoch of the
    turn resolved: a player checks them against what they signed (docs/audit.md)."""


@dataclass(frozen=True)
class Question:
    """A decision asked in the middle of a turn (design.md §6)."""

    text: str
    answers: tuple[str, ...]
    default: str
    deadline: datetime


@dataclass(frozen=True)
class OrderError:
    """One thing wrong with a submission; ``line_no`` is 1-based in the orders text."""

    code: str
    message: str
    line_no: int | None = None
    line: str | None = None
    legal: tuple[str, ...] = ()

    @classmethod
    def from_problem(cls, p: Any) -> OrderError:
        """Convert an engine ``OrdersProblem`` (``line`` 0 = the whole submission)."""
        return cls(
            code=str(p.code),
            message=str(p.message),
            line_no=int(getattr(p, "line", 0) or 0) or None,
            line=str(getattr(p, "quote", "") or "") or None,
            legal=tuple(str(x) for x in getattr(p, "legal", ())),
        )


@dataclass(frozen=True)
class Player:
    """A player as announced at game start."""

    name: str
    side: str
    army: str
    key_fingerprint: str


@dataclass(frozen=True)
class GameStart:
    """The first mail: players, scenario, keys, commitments, how to sign, first board."""

    env: Envelope
    players: tuple[Player, ...]
    first_side: str
    dice_commitment: str
    deck_commitment: str
    server_fingerprint: str
    server_allowed_signers: str
    board: RenderedBoard
    hand: tuple[Card, ...]
    deadline: datetime
    orders_template: str
    standing: str = ""
    """The recipient's standing orders (``key: value`` lines), shown with how to change them."""
    standing_help: tuple[str, ...] = ()
    """What some standing orders mean (the system's rules help, e.g. First Strike)."""
    tables_sha256: str = ""  # the rules tables file the game is played with (docs/tables.md)
    options: str = ""  # the rule options the game was created with (``k=v, ...``), if any


@dataclass(frozen=True)
class TurnMail:
    """A turn result to one player: the mover gets an orders template, the other waits."""

    env: Envelope
    to_move: str
    narrative: tuple[NarrativeEvent, ...]
    board: RenderedBoard
    hand: tuple[Card, ...]
    dice: DiceReveal
    deadline: datetime
    orders_template: str


@dataclass(frozen=True)
class QuestionMail:
    """A mid-turn question to the deciding player only."""

    env: Envelope
    question: Question
    narrative: tuple[NarrativeEvent, ...]
    board: RenderedBoard
    hand: tuple[Card, ...]
    orders_template: str = ""  # the engine's answer template; a generic example if empty


@dataclass(frozen=True)
class OrdersRejected:
    """A reply to a submission that was refused; the game did not move.

    ``due_from`` is the side the game waits for (None: the recipient, the
    usual case; "": nobody, e.g. the game is over) and ``due_what`` what it
    waits for ("orders" or "answer"), so the mail says what is still due
    and by when, and asks to resend only what is due from the recipient.
    """

    env: Envelope
    errors: tuple[OrderError, ...]
    received_subject: str
    deadline: datetime | None = None
    due_from: str | None = None
    due_what: str = "orders"


@dataclass(frozen=True)
class Reminder:
    """A reminder that orders (or an answer) are due."""

    env: Envelope
    deadline: datetime
    orders_template: str
    hand: tuple[Card, ...] = ()


@dataclass(frozen=True)
class MissedTurn:
    """A deadline passed: who missed it and what the referee did about it."""

    env: Envelope
    missed_side: str
    action: str
    next_deadline: datetime | None = None


@dataclass(frozen=True)
class GameEnd:
    """The last mail: result, every key revealed, audit summary, how to verify."""

    env: Envelope
    result: str
    winner: str | None
    narrative: tuple[NarrativeEvent, ...]
    board: RenderedBoard
    dice_seed: str
    deck_seed: str
    dice_commitment: str
    deck_commitment: str
    audit_summary: tuple[str, ...]
    audit_file: str = "GAME_AUDIT.json"
    audit_record: str = ""
    """The complete audit record (JSON text), attached as ``audit_file`` when given."""
    reason: str = ""
    """How it ended, plainly: "south resigned", "draw agreed", "the battle is won"."""
    score: str = ""
    """The final score in one sentence (banners each side holds, and how many win)."""
    fairness: tuple[str, ...] = ()
    """The dice-fairness report in lines (docs/archive.md), empty when none was made."""
    images: tuple[tuple[str, bytes], ...] = ()
    """PNG pictures attached (file name, bytes): the fairness plots."""
