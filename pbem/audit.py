"""The audit record of a game's dice, shuffles and cards (docs/audit.md, format v3).

:func:`build_record` turns the epochs' logs, the players' signed joins and
orders into the JSON-ready dict players and auditors receive, its end signed
by the referee; :func:`parse_record` and :func:`load_record` read one back
strictly (exact fields, exact JSON types), refusing anything malformed with
:class:`AuditFormatError`; :func:`check_record` checks every signature,
recomputes every roll and shuffle with :mod:`engine.dice`, re-derives every
hand from the card log (:mod:`pbem.audit_cards`) and raises
:class:`AuditMismatch` at the first discrepancy. ``verify_dice.py`` does the
same independently (it imports nothing from pbem); both give the same verdict
on every record, and the wording is kept alike.

The dice, their faces and the deck a record may use are fixed per game
system (:func:`system_tables`, from the engine's own registry), never taken
from the record.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core.api import CardMove, CardPiles
from engine.dice import (
    EpochLog,
    HashChain,
    RollRecord,
    ShuffleRecord,
    deck_stream_key,
    dice_stream_key,
    join_message,
    roll_faces,
    shuffle_order,
)
from engine.randomness import Die
from engine.systems import BUILT_IN
from pbem import sshsig
from pbem.audit_autopilot import AUTOPILOT_FIELD, Autopilot, check_autopilot, parse_autopilot
from pbem.audit_cards import CardLog, cards_digest, cards_record, check_cards, parse_cards
from pbem.audit_schema import (
    AuditFormatError,
    AuditMismatch,
    AuditUnreadable,
    field_of,
    fields_of,
    hex32,
)
from pbem.audit_seats import (
    REPLACEMENT_FIELDS,
    Replacement,
    SeatKeys,
    check_replacements,
    parse_replacements,
    replacements_digest,
)
from pbem.orders_text import canonicalize
from pbem.server_key import ServerKey
from pbem.sshsig import SshPublicKey, SshSigError

__all__ = [
    "AUDIT_FORMAT",
    "AUDIT_VERSION",
    "DICE_PROTOCOL",
    "END_NAMESPACE",
    "AuditEpoch",
    "AuditFormatError",
    "AuditMismatch",
    "AuditRecord",
    "AuditSummary",
    "AuditUnreadable",
    "SignedText",
    "SystemTables",
    "build_record",
    "check_record",
    "end_statement",
    "load_json",
    "load_record",
    "parse_record",
    "statement_lines",
    "system_tables",
]

AUDIT_FORMAT = "pbem-audit"
AUDIT_VERSION = 3
"""The record's format version (3: the card log; 2 had none)."""
DICE_PROTOCOL = 2
"""The dice protocol (docs/audit.md §3) the records of this version audit."""
END_NAMESPACE = "pbem-audit"
"""SSHSIG namespace of the referee's signature over a record's end."""

_HEX64 = re.compile(r"[0-9a-f]{64}")
_TOP = {"format", "version", "game_id", "system", "system_version", "referee_key", "dice",
        "deck", "joins", "die_faces", "epochs", "shuffles", "cards", "end"}  # fmt: skip
_TOP_OPTIONAL = {"tables_sha256", "replacements", "options"}
_fields = fields_of
_field = field_of
_hex32 = hex32


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
) -> str:
    """The text the referee signs over a record's end (docs/audit.md, section 5).

    The ``replacements`` line is there only when the record has seat changes,
    the ``options`` line (the canonical JSON of :func:`options_text`) only when
    the game was created with rule options, so a record without any signs
    exactly the text it always did.
    """
    seats = f"replacements {replacements} {replacements_sha256}\n" if replacements else ""
    rules = f"options {options}\n" if options else ""
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


def _parse_options(value: object) -> str:
    """The record's ``options`` (a non-empty JSON object) as :func:`options_text`."""
    if not isinstance(value, dict) or not value:
        raise AuditFormatError("record: 'options' is not a non-empty JSON object")
    return options_text(value)


def build_record(
    game_id: str,
    *,
    system: str,
    system_version: str,
    dice_commitment: bytes,
    deck_commitment: bytes,
    joins: Sequence[Mapping[str, str]],
    epochs: Sequence[AuditEpoch],
    server_key: ServerKey,
    deck_keys: Sequence[bytes] | None = None,
    tables_sha256: str | None = None,
    cards_setup: CardPiles | None = None,
    replacements: Sequence[Mapping[str, Any]] = (),
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Build the JSON-ready audit record from every finished epoch, in order.

    ``epochs`` may start with the setup epoch 0 (no key: it contributes only
    shuffles); after it they must run 1, 2, ... with their keys, as revealed.
    ``joins``: each side's ``side``, ``key`` (OpenSSH line), ``statement`` and
    ``signature``. Pass ``deck_keys`` (``[d_1 .. d_K]``) only once the game is
    over: then shuffle orders, the drawn cards and ``cards_setup`` (the piles
    before the deal) are included; before, they are left out, since they are
    the hidden deck. ``replacements``: each seat change's ``side``, ``key``,
    ``from_epoch``, ``statement`` and ``signature`` (docs/audit.md), in the
    order they happened. The end is signed with ``server_key``.
    """
    tables = system_tables(system, system_version)
    if tables is None:
        raise ValueError(f"game system {system!r} version {system_version!r} is not audited")
    out_epochs: list[dict[str, Any]] = []
    shuffles: list[dict[str, Any]] = []
    revealed = deck_keys is not None
    final = ""
    card_moves = [(item.log.epoch, item.cards) for item in epochs]
    cards, card_log = cards_record(cards_setup, card_moves, revealed=revealed)
    for item in epochs:
        log = item.log
        for sh in log.shuffles:
            entry: dict[str, Any] = {
                "shuffle": sh.shuffle,
                "epoch": sh.epoch,
                "purpose": sh.purpose,
                "n": sh.n,
            }
            if revealed:
                entry["order"] = list(sh.order)
            shuffles.append(entry)
        if log.epoch == 0:
            if log.rolls:
                raise ValueError("epoch 0 (setup) cannot have rolls")
            continue
        if log.key is None:
            raise ValueError(f"epoch {log.epoch} has no key to reveal")
        for roll in log.rolls:
            if roll.die not in tables.dice:
                raise ValueError(f"epoch {log.epoch}: die {roll.die!r} is not one {system} rolls")
        final = log.key.hex()
        out_epochs.append(
            {
                "epoch": log.epoch,
                "key": final,
                "orders_hash": log.orders_hash.hex(),
                "side": item.side,
                "orders": None if item.orders is None else item.orders.to_dict(),
                "rolls": [
                    {"counter": r.counter, "purpose": r.purpose, "die": r.die, "face": r.face}
                    for r in log.rolls
                ],
            }
        )
        if item.autopilot is not None:
            out_epochs[-1][AUTOPILOT_FIELD] = item.autopilot.to_dict()
    deck: dict[str, Any] = {"commitment": deck_commitment.hex(), "revealed": revealed}
    if deck_keys is not None:
        deck["keys"] = [k.hex() for k in deck_keys]
    statement = end_statement(
        game_id,
        len(out_epochs),
        final,
        len(shuffles),
        revealed,
        tables=tables_sha256 or "",
        cards=len(card_log.moves),
        cards_sha256=cards_digest(card_log),
        replacements=len(replacements),
        replacements_sha256=replacements_digest(replacements),
        options=options_text(options or {}),
    )
    record: dict[str, Any] = {
        "format": AUDIT_FORMAT,
        "version": AUDIT_VERSION,
        "game_id": game_id,
        "system": system,
        "system_version": system_version,
        "referee_key": server_key.public_key.openssh(),
        "dice": {"commitment": dice_commitment.hex()},
        "deck": deck,
        "joins": [dict(j) for j in joins],
        "die_faces": {name: list(die.faces) for name, die in sorted(tables.dice.items())},
        "epochs": out_epochs,
        "shuffles": shuffles,
        "cards": cards,
        "end": {
            "epochs": len(out_epochs),
            "final_key": final,
            "shuffles": len(shuffles),
            "cards": len(card_log.moves),
            "signature": server_key.sign(statement.encode("utf-8"), END_NAMESPACE),
        },
    }
    if tables_sha256:
        record["tables_sha256"] = tables_sha256
    if options:
        record["options"] = dict(sorted(options.items()))
    if replacements:
        record["replacements"] = [
            {name: r[name] for name in REPLACEMENT_FIELDS} for r in replacements
        ]
    return record


# --- Reading (strict: exact fields, exact JSON types) ------------------------------


def _key(text: object, what: str) -> SshPublicKey:
    try:
        key = SshPublicKey.parse(str(text))
    except SshSigError as exc:
        raise AuditFormatError(f"{what}: {exc}") from None
    if not isinstance(text, str) or not key.is_ed25519:
        raise AuditFormatError(f"{what}: not an ssh-ed25519 key line")
    return key


def _parse_header(data: object) -> tuple[dict[str, Any], str, SystemTables]:
    if not isinstance(data, dict):
        raise AuditFormatError("record: not a JSON object")
    if data.get("format") != AUDIT_FORMAT:
        raise AuditFormatError(f"record: format is {data.get('format')!r}, not {AUDIT_FORMAT!r}")
    version = data.get("version")
    if type(version) is not int or version != AUDIT_VERSION:
        raise AuditFormatError(f"record: version {version!r}, this pbem reads {AUDIT_VERSION}")
    rec = _fields(data, "record", _TOP, _TOP_OPTIONAL)
    if "tables_sha256" in rec:
        _hex32(_field(rec, "tables_sha256", str, "record"), "record: 'tables_sha256'")
    _field(rec, "game_id", str, "record")
    system = _field(rec, "system", str, "record")
    version = _field(rec, "system_version", str, "record")
    tables = system_tables(system, version)
    if tables is None:
        raise AuditMismatch(
            f"record: game system {system!r} version {version!r} is not one this verifier knows"
        )
    table = _field(rec, "die_faces", dict, "record")
    fixed = {name: list(die.faces) for name, die in sorted(tables.dice.items())}
    if table != fixed:
        raise AuditMismatch(
            f"die_faces: {json.dumps(table, ensure_ascii=False)} is not what the protocol "
            f"fixes for {system}: {json.dumps(fixed)}"
        )
    return rec, system, tables


def _parse_join(i: int, obj: object) -> Join:
    where = f"joins[{i}]"
    join = _fields(obj, where, {"side", "key", "statement", "signature"})
    return Join(
        side=_field(join, "side", str, where),
        key=_key(_field(join, "key", str, where), f"{where}: 'key'"),
        statement=_field(join, "statement", str, where),
        signature=_field(join, "signature", str, where),
    )


def _parse_orders(e: int, obj: object) -> SignedText | None:
    if obj is None:
        return None
    where = f"epoch {e}: 'orders'"
    orders = _fields(obj, where, {"text", "signature"}, {"signed"})
    return SignedText(
        _field(orders, "text", str, where),
        _field(orders, "signature", str, where),
        _field(orders, "signed", str, where) if "signed" in orders else None,
    )


def _parse_epoch(i: int, obj: object) -> AuditEpoch:
    required = {"epoch", "key", "orders_hash", "side", "orders", "rolls"}
    ep = _fields(obj, f"epochs[{i}]", required, {AUTOPILOT_FIELD})
    e = _field(ep, "epoch", int, f"epochs[{i}]")
    where = f"epoch {e}"
    key = _hex32(_field(ep, "key", str, where), f"{where}: 'key'")
    orders_hash = _hex32(_field(ep, "orders_hash", str, where), f"{where}: 'orders_hash'")
    side = _field(ep, "side", str, where)
    orders = _parse_orders(e, ep["orders"])
    rolls = []
    for j, obj_roll in enumerate(_field(ep, "rolls", list, where)):
        at = f"{where}, rolls[{j}]"
        roll = _fields(obj_roll, at, {"counter", "purpose", "die", "face"})
        rolls.append(
            RollRecord(
                epoch=e,
                counter=_field(roll, "counter", int, at),
                purpose=_field(roll, "purpose", str, at),
                die=_field(roll, "die", str, at),
                face=_field(roll, "face", str, at),
            )
        )
    log = EpochLog(e, key, orders_hash, tuple(rolls), ())
    return AuditEpoch(log, side, orders, autopilot=parse_autopilot(e, ep))


def _parse_shuffle(i: int, obj: object, revealed: bool) -> ShuffleRecord:
    sh = _fields(obj, f"shuffles[{i}]", {"shuffle", "epoch", "purpose", "n"}, {"order"})
    k = _field(sh, "shuffle", int, f"shuffles[{i}]")
    where = f"shuffle {k}"
    order: tuple[int, ...] = ()
    if revealed:
        if "order" not in sh:
            raise AuditFormatError(f"shuffles[{i}]: 'order' is missing")
        raw = _field(sh, "order", list, where)
        if not all(type(x) is int for x in raw):
            raise AuditFormatError(f"{where}: 'order' is not a list of integers")
        order = tuple(raw)
    elif "order" in sh:
        raise AuditMismatch(f"{where}: order shown before the deck is revealed")
    return ShuffleRecord(
        shuffle=k,
        epoch=_field(sh, "epoch", int, where),
        purpose=_field(sh, "purpose", str, where),
        n=_field(sh, "n", int, where),
        order=order,
    )


def parse_record(data: object) -> AuditRecord:
    """Read a decoded JSON record strictly; raise :class:`AuditFormatError` if malformed.

    A record naming a system pbem does not audit, or dice other than that
    system's, raises :class:`AuditMismatch`.
    """
    rec, system, tables = _parse_header(data)
    dice = _fields(_field(rec, "dice", dict, "record"), "dice", {"commitment"})
    deck = _fields(
        _field(rec, "deck", dict, "record"), "deck", {"commitment", "revealed"}, {"keys"}
    )
    revealed = _field(deck, "revealed", bool, "deck")
    if "keys" in deck and not revealed:
        raise AuditMismatch("deck: keys shown before the deck is revealed")
    keys: tuple[bytes, ...] = ()
    if revealed:
        keys = tuple(
            _hex32(k, f"deck key {i + 1}") for i, k in enumerate(_field(deck, "keys", list, "deck"))
        )
    end = _fields(
        _field(rec, "end", dict, "record"),
        "end",
        {"epochs", "final_key", "shuffles", "cards", "signature"},
    )
    return AuditRecord(
        game_id=rec["game_id"],
        system=system,
        tables=tables,
        referee_key=_key(_field(rec, "referee_key", str, "record"), "record: 'referee_key'"),
        dice_commitment=_hex32(_field(dice, "commitment", str, "dice"), "dice: 'commitment'"),
        deck_commitment=_hex32(_field(deck, "commitment", str, "deck"), "deck: 'commitment'"),
        deck_revealed=revealed,
        deck_keys=keys,
        joins=tuple(_parse_join(i, j) for i, j in enumerate(_field(rec, "joins", list, "record"))),
        epochs=tuple(
            _parse_epoch(i, ep) for i, ep in enumerate(_field(rec, "epochs", list, "record"))
        ),
        shuffles=tuple(
            _parse_shuffle(i, sh, revealed)
            for i, sh in enumerate(_field(rec, "shuffles", list, "record"))
        ),
        cards=parse_cards(_field(rec, "cards", dict, "record"), revealed, tables.sides),
        tables_sha256=rec.get("tables_sha256", ""),
        replacements=parse_replacements(_field(rec, "replacements", list, "record"), _key)
        if "replacements" in rec
        else (),
        options=_parse_options(rec["options"]) if "options" in rec else "",
        end=End(
            epochs=_field(end, "epochs", int, "end"),
            final_key=_field(end, "final_key", str, "end"),
            shuffles=_field(end, "shuffles", int, "end"),
            cards=_field(end, "cards", int, "end"),
            signature=_field(end, "signature", str, "end"),
        ),
    )


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise ValueError(f"the field {name!r} appears twice in one object")
        out[name] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: str) -> Any:
    """Parse strict JSON: no field twice in an object, no NaN or Infinity."""
    return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)


def load_record(path: Path) -> AuditRecord:
    """Read and parse an audit record file (UTF-8 JSON)."""
    try:
        data = load_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise AuditUnreadable(f"cannot read {path}: {err}") from err
    return parse_record(data)


# --- Checking --------------------------------------------------------------------


def _why_not(message: bytes, armor: str, key: SshPublicKey, namespace: str) -> str:
    """Return "" when ``key`` signed ``message`` in ``namespace``, else what is wrong."""
    try:
        sshsig.verify(message, armor, key, namespace=namespace)
    except SshSigError as exc:
        return str(exc)
    return ""


STATEMENT_WORDS = ("game", "command", "side", "token", "nonce")


def statement_lines(statement: str) -> dict[str, str] | None:
    """Return a join statement's lines by word (docs/audit.md §2: ``word: value``).

    A line's first word, lower-cased and without one trailing ``:``, is its
    word (``nonce: …`` and the older ``nonce …`` read the same); the rest,
    stripped, its value. Lines starting with another word are not read;
    None when a word is given twice.
    """
    lines: dict[str, str] = {}
    for raw in statement.split("\n"):
        word, _, rest = raw.strip().partition(" ")
        word = word.lower().removesuffix(":")
        if word in STATEMENT_WORDS:
            if word in lines:
                return None
            lines[word] = rest.strip()
    return lines


def _check_joins(record: AuditRecord) -> tuple[bytes, dict[str, SshPublicKey]]:
    nonces: dict[str, bytes] = {}
    keys: dict[str, SshPublicKey] = {}
    for i, join in enumerate(record.joins):
        side = join.side
        if side not in record.tables.sides or side in nonces:
            raise AuditMismatch(f"joins[{i}]: side {side!r} is unknown or joined twice")
        why = _why_not(join.statement.encode("utf-8"), join.signature, join.key, "pbem-orders")
        if why:
            raise AuditMismatch(f"join of {side}: {why}")
        lines = statement_lines(join.statement)
        if lines is None:
            raise AuditMismatch(f"join of {side}: a line is given twice")
        if lines.get("game") != record.game_id or lines.get("command") != "join":
            raise AuditMismatch(
                f"join of {side}: the statement does not join game {record.game_id}"
            )
        if lines.get("side") != side:
            raise AuditMismatch(f"join of {side}: the statement names side {lines.get('side')!r}")
        nonce = lines.get("nonce", "")
        if not _HEX64.fullmatch(nonce) or bytes.fromhex(nonce) in nonces.values():
            raise AuditMismatch(f"join of {side}: no valid nonce (64 lowercase hex digits)")
        nonces[side] = bytes.fromhex(nonce)
        keys[side] = join.key
    missing = [s for s in record.tables.sides if s not in nonces]
    if missing:
        raise AuditMismatch(f"joins: no signed join for {', '.join(missing)}")
    return join_message(record.game_id, nonces), keys


def _check_orders(item: AuditEpoch, keys: SeatKeys) -> int:
    orders, e = item.orders, item.log.epoch
    check_autopilot(e, item.autopilot, item.log.orders_hash, orders is not None)
    if orders is None:
        return 0
    signed = orders.text if orders.signed is None else orders.signed
    digest = hashlib.sha256(orders.text.encode("utf-8")).digest()
    if digest != item.log.orders_hash or canonicalize(signed) != orders.text:
        raise AuditMismatch(f"epoch {e}: the signed orders do not hash to the epoch's orders hash")
    why = _why_not(signed.encode("utf-8"), orders.signature, keys.at(item.side, e), "pbem-orders")
    if why:
        raise AuditMismatch(f"epoch {e}: orders of {item.side}: {why}")
    return 1


def _check_epochs(record: AuditRecord, join: bytes, keys: SeatKeys) -> tuple[int, int]:
    prev = record.dice_commitment
    n_rolls = n_orders = 0
    for i, item in enumerate(record.epochs):
        log = item.log
        e = log.epoch
        if e != i + 1:
            raise AuditMismatch(f"epochs[{i}]: epoch {e} where epoch {i + 1} was expected")
        assert log.key is not None  # parse_record always sets it
        if not HashChain.verify_key(prev, log.key):
            what = "the dice commitment" if e == 1 else f"epoch {e - 1}'s key"
            raise AuditMismatch(f"epoch {e}: key does not hash to {what} (dice chain broken)")
        prev = log.key
        if item.side not in keys:
            raise AuditMismatch(f"epoch {e}: side {item.side!r} has not joined the game")
        n_orders += _check_orders(item, keys)
        mixed = dice_stream_key(log.key, join)
        for j, roll in enumerate(log.rolls):
            if roll.counter != j + 1:
                raise AuditMismatch(
                    f"epoch {e}, rolls[{j}]: roll {roll.counter} where roll {j + 1} was expected"
                )
            die = record.tables.dice.get(roll.die)
            if die is None:
                raise AuditMismatch(
                    f"epoch {e}, roll {roll.counter} ({roll.purpose}): unknown die '{roll.die}'"
                )
            (expected,) = roll_faces(
                mixed,
                record.game_id,
                e,
                log.orders_hash,
                die=die,
                counters=range(roll.counter, roll.counter + 1),
            )
            if roll.face != expected:
                raise AuditMismatch(
                    f"epoch {e}, roll {roll.counter} ({roll.purpose}): "
                    f"log says {roll.face}, recomputed {expected}"
                )
            n_rolls += 1
    return n_rolls, n_orders


def _check_shuffles(record: AuditRecord, join: bytes) -> None:
    last = 0
    size = record.tables.deck_size
    for i, sh in enumerate(record.shuffles):
        if sh.shuffle != i + 1:
            raise AuditMismatch(
                f"shuffles[{i}]: shuffle {sh.shuffle} where shuffle {i + 1} was expected"
            )
        if sh.n < 0 or sh.n > size:
            raise AuditMismatch(
                f"shuffle {sh.shuffle}: {sh.n} items, and the deck holds {size} cards"
            )
        if sh.epoch < last or sh.epoch > len(record.epochs):
            raise AuditMismatch(f"shuffle {sh.shuffle}: epoch {sh.epoch} is out of order")
        last = sh.epoch
    if not record.deck_revealed:
        return
    keys = record.deck_keys
    if len(keys) < len(record.shuffles):
        raise AuditMismatch(f"deck: {len(keys)} keys revealed for {len(record.shuffles)} shuffles")
    prev = record.deck_commitment
    for i, key in enumerate(keys):
        if not HashChain.verify_key(prev, key):
            what = "the deck commitment" if i == 0 else f"deck key {i}"
            raise AuditMismatch(f"deck key {i + 1}: does not hash to {what} (deck chain broken)")
        prev = key
    for sh in record.shuffles:
        key = deck_stream_key(keys[sh.shuffle - 1], join)
        expected = shuffle_order(key, record.game_id, sh.shuffle, sh.n)
        if sh.order != expected:
            pos = next(
                (p for p in range(sh.n) if p >= len(sh.order) or sh.order[p] != expected[p]),
                sh.n,
            )
            got = sh.order[pos] if pos < len(sh.order) else "nothing"
            want = expected[pos] if pos < sh.n else "nothing"
            raise AuditMismatch(
                f"shuffle {sh.shuffle} (epoch {sh.epoch}, {sh.purpose}): position {pos} holds "
                f"{got} in the log, recomputed {want}"
            )


def _check_end(record: AuditRecord) -> None:
    end = record.end
    epochs, shuffles = len(record.epochs), len(record.shuffles)
    cards = len(record.cards.moves)
    if (end.epochs, end.shuffles, end.cards) != (epochs, shuffles, cards):
        raise AuditMismatch(
            f"end: the referee signed {end.epochs} epochs, {end.shuffles} shuffles and "
            f"{end.cards} card moves, the record holds {epochs}, {shuffles} and {cards} "
            "(cut off or padded)"
        )
    last = record.epochs[-1].log.key if record.epochs else None
    if end.final_key != (last.hex() if last is not None else ""):
        raise AuditMismatch("end: the final key signed is not the last epoch's key")
    text = end_statement(
        record.game_id,
        epochs,
        end.final_key,
        shuffles,
        record.deck_revealed,
        tables=record.tables_sha256,
        cards=cards,
        cards_sha256=cards_digest(record.cards),
        replacements=len(record.replacements),
        replacements_sha256=replacements_digest([r.entry() for r in record.replacements]),
        options=record.options,
    )
    why = _why_not(text.encode("utf-8"), end.signature, record.referee_key, END_NAMESPACE)
    if why:
        raise AuditMismatch(f"end: the referee's signature: {why}")


def check_record(record: AuditRecord) -> AuditSummary:
    """Check every signature, recompute every roll and (if revealed) every shuffle."""
    join, joined = _check_joins(record)
    keys = check_replacements(
        record.replacements,
        game_id=record.game_id,
        joined=joined,
        epochs=len(record.epochs),
        why_not=_why_not,
        statement_lines=statement_lines,
    )
    n_rolls, n_orders = _check_epochs(record, join, keys)
    _check_shuffles(record, join)
    draws = check_cards(
        record.cards,
        shuffles=record.shuffles,
        epochs=len(record.epochs),
        deck=record.tables.deck,
        sides=record.tables.sides,
        system=record.system,
    )
    _check_end(record)
    return AuditSummary(
        game_id=record.game_id,
        joins=len(keys),
        epochs=len(record.epochs),
        rolls=n_rolls,
        orders=n_orders,
        shuffles=len(record.shuffles),
        draws=draws,
        deck_revealed=record.deck_revealed,
        referee=record.referee_key.fingerprint(),
    )
