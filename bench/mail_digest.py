"""Digest every mail a short, deterministic pipeline run queues: are two trees' mails the same?

Run in each tree (SQLite by default, or ``--db`` a PostgreSQL URL)::

    PYTHONPATH=<tree> python <tree>/bench/mail_digest.py [--games 2 --rounds 6] [--dump DIR]

Signed orders from scripted players (``tests/fault_kit.py``) go through the
inbox worker and the processor; the clock, the players' and server's keys,
the games' secret seeds, the players' ``Date`` headers and the standard
library's MIME boundaries are fixed, so a tree that composes the same mails
prints the same line per mail (id, kind, recipient, size, SHA-256) and the
same final digest.
"""

from __future__ import annotations

import argparse
import email.generator
import email.utils
import hashlib
import itertools
import secrets
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fault_kit  # noqa: E402
from sqlmodel import col, select  # noqa: E402

from pbem.clock import FakeClock  # noqa: E402
from pbem.config import load_config  # noqa: E402
from pbem.mailin.accept import store_message  # noqa: E402
from pbem.mailin.worker import InboxWorker  # noqa: E402
from pbem.pipeline import Processor, load_server_key  # noqa: E402
from pbem.store import OutboxMessage, Store, migrate  # noqa: E402


def _fix_randomness(clock: FakeClock) -> None:
    """Make every random or clock-dependent input of the run a fixed sequence."""
    seeds = itertools.count()
    keys = itertools.count()
    bounds = itertools.count()

    def token_bytes(n: int | None = 32) -> bytes:
        return hashlib.sha512(f"seed{next(seeds)}".encode()).digest()[: n or 32]

    def generate() -> Ed25519PrivateKey:
        seed = hashlib.sha256(f"key{next(keys)}".encode()).digest()
        return Ed25519PrivateKey.from_private_bytes(seed)

    def boundary(_cls: Any, _text: str | None = None) -> str:
        return f"==============={next(bounds):019d}=="

    secrets.token_bytes = token_bytes  # type: ignore[assignment]
    Ed25519PrivateKey.generate = staticmethod(generate)  # type: ignore[method-assign,assignment]
    email.generator.Generator._make_boundary = classmethod(boundary)  # type: ignore[method-assign,assignment]
    email.utils.formatdate = lambda *_a, **_k: "Thu, 26 Nov 2026 12:00:00 +0000"  # type: ignore[assignment]
    fault_kit.SystemClock = lambda: clock  # type: ignore[assignment,misc]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", default="", help="a PostgreSQL URL (default: SQLite in a temp dir)")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=6, help="orders mails per game")
    ap.add_argument("--dump", default="", help="also write each mail to DIR/<id>.eml")
    args = ap.parse_args()
    clock = FakeClock(datetime(2026, 11, 26, 12, 0, tzinfo=UTC))
    _fix_randomness(clock)
    work = Path(tempfile.mkdtemp(prefix="pbem-digest-"))
    cfg = fault_kit.write_config(work, sink_port=0, db_url=args.db)
    config = load_config(str(cfg))
    migrate(config.database_url)
    store = Store(config.database_url)
    games = fault_kit.create_games(store, cfg, args.games)
    key = load_server_key(config.server_key_path)
    worker = InboxWorker(store, Processor(config, store, clock, server_key=key), clock)
    for _ in range(args.rounds):
        for game in games:
            mail = fault_kit.orders_mail(store, game)
            if mail is None:
                continue
            clock.advance(timedelta(minutes=7))
            to = [config.mail.address]
            store_message(store, mail.raw, source="smtp", clock=clock, envelope_to=to)
            worker.process_pending()
    total = hashlib.sha256()
    with store.transaction() as s:
        rows = s.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))).all()
        for r in rows:
            digest = hashlib.sha256(r.raw).hexdigest()
            total.update(digest.encode())
            sys.stdout.write(f"{r.id} {r.kind} {r.recipient} {len(r.raw)} {digest[:16]}\n")
            if args.dump:
                (Path(args.dump) / f"{r.id}.eml").write_bytes(r.raw)
    sys.stdout.write(f"mails {len(rows)} digest {total.hexdigest()}\n")
    store.dispose()


if __name__ == "__main__":
    main()
