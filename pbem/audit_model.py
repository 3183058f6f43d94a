"""The audit record's data (docs/audit.md, format v3): its constants, each audited game
system's fixed tables, the parsed record's parts and the text the referee signs at its end.

Built by :mod:`pbem.audit_build`, read by :mod:`pbem.audit_read`, checked by
:mod:`pbem.audit_check`; :mod:`pbem.audit` is the one entry point the rest of pbem uses.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.api import CardMove
from engine.dice import EpochLog, ShuffleRecord
from engine.randomness import Die
from engine.systems import BUILT_IN
from pbem.audit_autopilot import Autopilot
from pbem.audit_cards import CardLog
from pbem.audit_outcome import OutcomeStatement
from pbem.audit_seats import Replacement
from pbem.sshsig import SshPublicKey

AUDIT_FORMAT = "pbem-audit"
AUDIT_VERSION = 3
"""The record's format version (3: the card log; 2 had none)."""
DICE_PROTOCOL = 2
"""The dice protocol (docs/audit.md §3) the records of this version audit."""
END_NAMESPACE = "pbem-audit"
"""SSHSIG namespace of the referee's signature over a record's end."""


@dataclass(frozen=True, slots=True)
class SystemTables:
    """What a game system may roll and shuffle: its dice, its deck, its sides."""

    dice: Mapping[str, Die]
    deck: Mapping[str, int]
    sides: tuple[str, ...]

    @property
    def deck_size(self) -> int:
        """How many cards the deck holds."""
        return sum(self.deck.values())


AUDITED = (("cca", "1"), ("ccn", "1"), ("cof", "1"), ("toy", "1"))
"""The game systems (name, version) whose records pbem audits; verify_dice.py knows the same."""


def system_tables(name: str, version: str) -> SystemTables | None:
    """Return the fixed tables of an audited game system (None: not one pbem audits).

    They come from the built-in system itself (never from a record or a
    system registered at run time): its dice, its deck and its seats.
    """
    if (name, version) not in AUDITED or name not in BUILT_IN:
        return None
    module, _, attr = BUILT_IN[name].partition(":")
    system = getattr(importlib.import_module(module), attr)  # never a run-time stand-in
    if system.version != version:
        return None
    deck: dict[str, int] = {}
    for card in getattr(system, "deck_contents", ()):
        deck[card] = deck.get(card, 0) + 1
    return SystemTables(dict(system.dice), deck, tuple(system.sides))


@dataclass(frozen=True, slots=True)
class SignedText:
    """A signed text: the canonical ``text``, its armored ``signature`` and, when the
    player signed other bytes (an attachment with CRLF, say), the exact ``signed`` text."""

    text: str
    signature: str
    signed: str | None = None

    def to_dict(self) -> dict[str, str]:
        """The record's form."""
        out = {"text": self.text, "signature": self.signature}
        if self.signed is not None and self.signed != self.text:
            out["signed"] = self.signed
        return out


@dataclass(frozen=True, slots=True)
class Join:
    """A player's signed join statement and the nonce it carries."""

    side: str
    key: SshPublicKey
    statement: str
    signature: str


@dataclass(frozen=True, slots=True)
class AuditEpoch:
    """One epoch: its dice log, the side that acted, its signed orders (None: a default)
    and the cards the engine moved in it."""

    log: EpochLog
    side: str
    orders: SignedText | None
    cards: tuple[CardMove, ...] = ()
    autopilot: Autopilot | None = None


@dataclass(frozen=True, slots=True)
class End:
    """The referee's signed end of the record."""

    epochs: int
    final_key: str
    shuffles: int
    cards: int
    signature: str


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """A parsed audit record. Unrevealed shuffles have an empty ``order``."""

    game_id: str
    system: str
    tables: SystemTables
    referee_key: SshPublicKey
    dice_commitment: bytes
    deck_commitment: bytes
    deck_revealed: bool
    deck_keys: tuple[bytes, ...]
    joins: tuple[Join, ...]
    epochs: tuple[AuditEpoch, ...]
    shuffles: tuple[ShuffleRecord, ...]
    cards: CardLog
    tables_sha256: str
    end: End
    replacements: tuple[Replacement, ...] = ()
    options: str = ""  # the game's rule options as canonical JSON ("" when none)
    outcome: tuple[OutcomeStatement, ...] = ()


@dataclass(frozen=True, slots=True)
class AuditSummary:
    """What a successful check covered."""

    game_id: str
    joins: int
    epochs: int
    rolls: int
    orders: int
    shuffles: int
    draws: int
    deck_revealed: bool
    referee: str

    def describe(self) -> str:
        """Return the one-line OK report (same wording as ``verify_dice.py``)."""
        if self.deck_revealed:
            deck = f"{self.shuffles} shuffles recomputed, {self.draws} draws re-derived"
        else:
            deck = (
                f"deck not revealed yet (game in progress), {self.shuffles} shuffles and "
                f"{self.draws} draws not checked"
            )
        return (
            f"OK {self.game_id}: {self.joins} joins, {self.epochs} epochs chained, "
            f"{self.rolls} rolls recomputed, {self.orders} signed orders; {deck}; "
            f"end signed by {self.referee}"
        )


def end_statement(
    game_id: str,
    epochs: int,
    final_key: str,
    shuffles: int,
    revealed: bool,
    *,
    tables: str,
    cards: int,
    cards_sha256: str,
    replacements: int = 0,
    replacements_sha256: str = "",
    options: str = "",
    outcome: int = 0,
    outcome_sha256: str = "",
) -> str:
    """The text the referee signs over a record's end (docs/audit.md, section 5).

    The ``replacements`` line is there only when the record has seat changes,
    the ``options`` line (the canonical JSON of :func:`options_text`) only when
    the game was created with rule options, the ``outcome`` line only when it has
    resign or draw statements (:mod:`pbem.audit_outcome`), so a record without
    any signs exactly the text it always did.
    """
    seats = f"replacements {replacements} {replacements_sha256}\n" if replacements else ""
    rules = f"options {options}\n" if options else ""
    rules += f"outcome {outcome} {outcome_sha256}\n" if outcome else ""
    return (
        f"pbem-audit {AUDIT_VERSION}\ngame {game_id}\nepochs {epochs}\nfinal-key {final_key}\n"
        f"shuffles {shuffles}\ndeck {'revealed' if revealed else 'hidden'}\n"
        f"tables {tables}\ncards {cards} {cards_sha256}\n{seats}{rules}"
    )


def options_text(options: Mapping[str, Any]) -> str:
    """A game's rule options (``pbem game create --option``) as the one line of canonical
    JSON the record's end signs: keys sorted, no spaces ("" when there are none)."""
    if not options:
        return ""
    return json.dumps(dict(options), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
