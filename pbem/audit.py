"""The audit record of a game's dice and shuffles (docs/audit.md, format v1).

:func:`build_record` turns the epochs' logs into the JSON-ready dict players
and auditors receive; :func:`parse_record` and :func:`load_record` read one
back, refusing anything malformed with :class:`AuditFormatError`;
:func:`check_record` recomputes every roll and shuffle with :mod:`engine.dice`
and raises :class:`AuditMismatch` at the first discrepancy. ``verify_dice.py``
does the same independently (it imports nothing from pbem); the wording of
the two is kept alike so a user sees the same message from either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.dice import (
    STANDARD_DICE,
    EpochLog,
    HashChain,
    RollRecord,
    ShuffleRecord,
    roll_faces,
    shuffle_order,
)
from engine.randomness import Die

__all__ = [
    "AUDIT_FORMAT",
    "AUDIT_VERSION",
    "AuditFormatError",
    "AuditMismatch",
    "AuditRecord",
    "AuditSummary",
    "AuditUnreadable",
    "build_record",
    "check_record",
    "load_record",
    "parse_record",
]

AUDIT_FORMAT = "pbem-audit"
AUDIT_VERSION = 1


class AuditFormatError(ValueError):
    """The record cannot be read: not JSON, wrong format or version, a field missing."""


class AuditUnreadable(AuditFormatError):
    """The file cannot be read or is not JSON at all."""


class AuditMismatch(ValueError):
    """The record reads but does not verify: a key, a roll or a shuffle is wrong."""


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """A parsed audit record. Unrevealed shuffles have an empty ``order``."""

    game_id: str
    dice_commitment: bytes
    deck_commitment: bytes
    deck_revealed: bool
    deck_keys: tuple[bytes, ...]
    dice: Mapping[str, Die]
    epochs: tuple[EpochLog, ...]
    shuffles: tuple[ShuffleRecord, ...]
    tables_sha256: str | None = None


@dataclass(frozen=True, slots=True)
class AuditSummary:
    """What a successful check covered."""

    game_id: str
    epochs: int
    rolls: int
    shuffles: int
    deck_revealed: bool

    def describe(self) -> str:
        """Return the one-line OK report (same wording as ``verify_dice.py``)."""
        if self.deck_revealed:
            deck = f"{self.shuffles} shuffles recomputed"
        else:
            deck = f"deck not revealed yet (game in progress), {self.shuffles} shuffles not checked"
        return (
            f"OK {self.game_id}: {self.epochs} epochs chained, "
            f"{self.rolls} rolls recomputed; {deck}"
        )


def build_record(
    game_id: str,
    *,
    dice_commitment: bytes,
    deck_commitment: bytes,
    epochs: Sequence[EpochLog],
    deck_keys: Sequence[bytes] | None = None,
    dice: Mapping[str, Die] = STANDARD_DICE,
    tables_sha256: str | None = None,
) -> dict[str, Any]:
    """Build the JSON-ready audit record from every finished epoch's log, in order.

    ``epochs`` may start with the setup epoch 0 (no key: it contributes only
    shuffles); after it they must run 1, 2, ... with their keys, as revealed.
    Pass ``deck_keys`` (``[d_1 .. d_K]``, e.g. ``deck_chain.keys(K)``) only once
    the game is over: then shuffle orders are included; before, they are left
    out, since they are the hidden deck. ``dice`` must name every die rolled.
    ``tables_sha256`` names the rules tables file the game is played with.
    """
    out_epochs: list[dict[str, Any]] = []
    shuffles: list[dict[str, Any]] = []
    revealed = deck_keys is not None
    for log in epochs:
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
            if roll.die not in dice:
                raise ValueError(f"epoch {log.epoch}: die {roll.die!r} is not in the dice table")
        out_epochs.append(
            {
                "epoch": log.epoch,
                "key": log.key.hex(),
                "orders_hash": log.orders_hash.hex(),
                "rolls": [
                    {"counter": r.counter, "purpose": r.purpose, "die": r.die, "face": r.face}
                    for r in log.rolls
                ],
            }
        )
    deck: dict[str, Any] = {"commitment": deck_commitment.hex(), "revealed": revealed}
    if deck_keys is not None:
        deck["keys"] = [k.hex() for k in deck_keys]
    record: dict[str, Any] = {
        "format": AUDIT_FORMAT,
        "version": AUDIT_VERSION,
        "game_id": game_id,
        "dice": {"commitment": dice_commitment.hex()},
        "deck": deck,
        "die_faces": {name: list(die.faces) for name, die in sorted(dice.items())},
        "epochs": out_epochs,
        "shuffles": shuffles,
    }
    if tables_sha256:
        record["tables_sha256"] = tables_sha256
    return record


# --- Reading -------------------------------------------------------------------


def _field(obj: object, name: str, kind: type, where: str) -> Any:
    if not isinstance(obj, dict):
        raise AuditFormatError(f"{where}: not a JSON object")
    if name not in obj:
        raise AuditFormatError(f"{where}: '{name}' is missing")
    value = obj[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise AuditFormatError(f"{where}: '{name}' has the wrong type ({value!r})")
    return value


def _hex32(text: object, what: str) -> bytes:
    if isinstance(text, str) and len(text) == 64 and text == text.lower():
        try:
            return bytes.fromhex(text)
        except ValueError:
            pass
    raise AuditFormatError(f"{what} is not 64 lowercase hex digits")


def _parse_dice(data: object) -> dict[str, Die]:
    table = _field(data, "die_faces", dict, "record")
    dice: dict[str, Die] = {}
    for name, faces in table.items():
        if not isinstance(faces, list) or not faces or not all(isinstance(f, str) for f in faces):
            raise AuditFormatError(f"die_faces: '{name}' is not a list of faces")
        dice[name] = Die(name, tuple(faces))
    return dice


def _parse_epoch(i: int, ep: object) -> EpochLog:
    e = _field(ep, "epoch", int, f"epochs[{i}]")
    where = f"epoch {e}"
    key = _hex32(_field(ep, "key", str, where), f"{where}: 'key'")
    orders_hash = _hex32(_field(ep, "orders_hash", str, where), f"{where}: 'orders_hash'")
    rolls = []
    for j, roll in enumerate(_field(ep, "rolls", list, where)):
        at = f"{where}, rolls[{j}]"
        rolls.append(
            RollRecord(
                epoch=e,
                counter=_field(roll, "counter", int, at),
                purpose=_field(roll, "purpose", str, at),
                die=_field(roll, "die", str, at),
                face=_field(roll, "face", str, at),
            )
        )
    return EpochLog(e, key, orders_hash, tuple(rolls), ())


def _parse_shuffle(i: int, sh: object, revealed: bool) -> ShuffleRecord:
    k = _field(sh, "shuffle", int, f"shuffles[{i}]")
    where = f"shuffle {k}"
    order: tuple[int, ...] = ()
    if revealed:
        raw = _field(sh, "order", list, where)
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in raw):
            raise AuditFormatError(f"{where}: 'order' is not a list of integers")
        order = tuple(raw)
    elif isinstance(sh, dict) and "order" in sh:
        raise AuditMismatch(f"{where}: order shown before the deck is revealed")
    return ShuffleRecord(
        shuffle=k,
        epoch=_field(sh, "epoch", int, where),
        purpose=_field(sh, "purpose", str, where),
        n=_field(sh, "n", int, where),
        order=order,
    )


def parse_record(data: object) -> AuditRecord:
    """Read a decoded JSON record; raise :class:`AuditFormatError` if malformed."""
    if not isinstance(data, dict):
        raise AuditFormatError("record: not a JSON object")
    if data.get("format") != AUDIT_FORMAT:
        raise AuditFormatError(f"record: format is {data.get('format')!r}, not {AUDIT_FORMAT!r}")
    if data.get("version") != AUDIT_VERSION:
        raise AuditFormatError(
            f"record: version {data.get('version')!r}, this pbem reads {AUDIT_VERSION}"
        )
    game_id = _field(data, "game_id", str, "record")
    dice = _field(data, "dice", dict, "record")
    deck = _field(data, "deck", dict, "record")
    revealed = _field(deck, "revealed", bool, "deck")
    keys: tuple[bytes, ...] = ()
    if revealed:
        keys = tuple(
            _hex32(k, f"deck key {i + 1}") for i, k in enumerate(_field(deck, "keys", list, "deck"))
        )
    tables = data.get("tables_sha256")
    if tables is not None and not (
        isinstance(tables, str)
        and len(tables) == 64
        and all(c in "0123456789abcdef" for c in tables)
    ):
        raise AuditFormatError("record: 'tables_sha256' must be 64 lower-case hex digits")
    return AuditRecord(
        game_id=game_id,
        tables_sha256=tables,
        dice_commitment=_hex32(_field(dice, "commitment", str, "dice"), "dice: 'commitment'"),
        deck_commitment=_hex32(_field(deck, "commitment", str, "deck"), "deck: 'commitment'"),
        deck_revealed=revealed,
        deck_keys=keys,
        dice=_parse_dice(data),
        epochs=tuple(
            _parse_epoch(i, ep) for i, ep in enumerate(_field(data, "epochs", list, "record"))
        ),
        shuffles=tuple(
            _parse_shuffle(i, sh, revealed)
            for i, sh in enumerate(_field(data, "shuffles", list, "record"))
        ),
    )


def load_record(path: Path) -> AuditRecord:
    """Read and parse an audit record file (UTF-8 JSON)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise AuditUnreadable(f"cannot read {path}: {err}") from err
    return parse_record(data)


# --- Checking --------------------------------------------------------------------


def _check_dice_table(dice: Mapping[str, Die]) -> None:
    for name, die in dice.items():
        fixed = STANDARD_DICE.get(name)
        if fixed is not None and fixed.faces != die.faces:
            raise AuditMismatch(
                f"die_faces: '{name}' is listed as {list(die.faces)}, "
                f"the protocol fixes {list(fixed.faces)}"
            )


def _check_epochs(record: AuditRecord) -> int:
    prev = record.dice_commitment
    n_rolls = 0
    for i, log in enumerate(record.epochs):
        e = log.epoch
        if e != i + 1:
            raise AuditMismatch(f"epochs[{i}]: epoch {e} where epoch {i + 1} was expected")
        assert log.key is not None  # parse_record always sets it
        if not HashChain.verify_key(prev, log.key):
            what = "the dice commitment" if e == 1 else f"epoch {e - 1}'s key"
            raise AuditMismatch(f"epoch {e}: key does not hash to {what} (dice chain broken)")
        prev = log.key
        for j, roll in enumerate(log.rolls):
            if roll.counter != j + 1:
                raise AuditMismatch(
                    f"epoch {e}, rolls[{j}]: roll {roll.counter} where roll {j + 1} was expected"
                )
            die = record.dice.get(roll.die)
            if die is None:
                raise AuditMismatch(
                    f"epoch {e}, roll {roll.counter} ({roll.purpose}): unknown die '{roll.die}'"
                )
            (expected,) = roll_faces(
                log.key,
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
    return n_rolls


def _check_shuffles(record: AuditRecord) -> None:
    last = 0
    for i, sh in enumerate(record.shuffles):
        if sh.shuffle != i + 1:
            raise AuditMismatch(
                f"shuffles[{i}]: shuffle {sh.shuffle} where shuffle {i + 1} was expected"
            )
        if sh.epoch < last or sh.epoch > len(record.epochs):
            raise AuditMismatch(f"shuffle {sh.shuffle}: epoch {sh.epoch} is out of order")
        last = sh.epoch
        if sh.n < 0:
            raise AuditMismatch(f"shuffle {sh.shuffle}: a negative number of items")
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
        expected = shuffle_order(keys[sh.shuffle - 1], record.game_id, sh.shuffle, sh.n)
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


def check_record(record: AuditRecord) -> AuditSummary:
    """Recompute every roll and (if revealed) every shuffle; raise at the first mismatch."""
    _check_dice_table(record.dice)
    n_rolls = _check_epochs(record)
    _check_shuffles(record)
    return AuditSummary(
        game_id=record.game_id,
        epochs=len(record.epochs),
        rolls=n_rolls,
        shuffles=len(record.shuffles),
        deck_revealed=record.deck_revealed,
    )
