"""Check an audit record: every signature, every roll and (once revealed) every shuffle
recomputed with :mod:`engine.dice`, every hand re-derived from the card log
(:mod:`pbem.audit_cards`); :class:`~pbem.audit_schema.AuditMismatch` at the first
discrepancy, worded as ``verify_dice.py`` words it.
"""

from __future__ import annotations

import hashlib
import re

from engine.dice import (
    HashChain,
    deck_stream_key,
    dice_stream_key,
    join_message,
    roll_faces,
    shuffle_order,
)
from pbem import sshsig
from pbem.audit_autopilot import check_autopilot
from pbem.audit_cards import cards_digest, check_cards
from pbem.audit_model import END_NAMESPACE, AuditEpoch, AuditRecord, AuditSummary, end_statement
from pbem.audit_outcome import check_outcome, outcome_digest
from pbem.audit_schema import AuditMismatch
from pbem.audit_seats import SeatKeys, check_replacements, replacements_digest
from pbem.orders_text import canonicalize
from pbem.sshsig import SshPublicKey, SshSigError

_HEX64 = re.compile(r"[0-9a-f]{64}")


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
        outcome=len(record.outcome),
        outcome_sha256=outcome_digest([o.entry() for o in record.outcome]),
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
    check_outcome(
        record.outcome,
        game_id=record.game_id,
        keys=keys,
        epochs=len(record.epochs),
        why_not=_why_not,
        statement_lines=statement_lines,
    )
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
