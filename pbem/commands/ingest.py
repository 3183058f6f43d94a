"""``pbem ingest``: store one message from stdin in the inbox (for an MTA pipe).

Exit codes follow sysexits, which MTAs understand: 0 stored (or already
stored), 65 (EX_DATAERR) the input is not a mail message or is too big (the
MTA bounces it), 75 (EX_TEMPFAIL) the store or config is unavailable (the MTA
keeps the message and retries). A running ``pbem serve`` picks the message up
at its next inbox sweep.
"""

from __future__ import annotations

import argparse
import logging
import sys

from pbem.clock import SystemClock
from pbem.commands._shared import add_config_argument
from pbem.config import ConfigError, load_config
from pbem.mailin.accept import UnreadableMessage, check_readable, store_message
from pbem.store import InboxSource, Store, head_revision, schema_revision

log = logging.getLogger(__name__)

EX_OK = 0
EX_DATAERR = 65
EX_TEMPFAIL = 75


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``ingest`` command."""
    parser = sub.add_parser(
        "ingest",
        help="store one message read from stdin (MTA pipe / .forward)",
        description="Read one RFC 5322 message on stdin and commit it to the inbox.",
    )
    add_config_argument(parser)
    parser.add_argument("--sender", default="", help="envelope sender (Postfix: ${sender})")
    parser.add_argument(
        "--recipient",
        action="append",
        default=[],
        help="envelope recipient (Postfix: ${recipient}); repeatable",
    )
    parser.set_defaults(func=run)


def _fail(code: int, message: str) -> int:
    sys.stderr.write(f"pbem ingest: {message}\n")
    return code


def run(args: argparse.Namespace) -> int:
    """Read stdin, store it; return a sysexits code."""
    try:
        raw = sys.stdin.buffer.read()
    except OSError as exc:
        return _fail(EX_TEMPFAIL, f"cannot read stdin: {exc}")
    try:
        check_readable(raw)
    except UnreadableMessage as exc:
        return _fail(EX_DATAERR, f"not a mail message: {exc}")
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return _fail(EX_TEMPFAIL, f"configuration: {exc}")
    if len(raw) > config.limits.max_message_size:
        return _fail(EX_DATAERR, f"message too big ({len(raw)} bytes)")
    try:
        store = Store(config.database_url, busy_timeout_ms=config.database.busy_timeout_ms)
    except Exception as exc:
        return _fail(EX_TEMPFAIL, f"cannot open the store: {type(exc).__name__}: {exc}")
    try:
        if schema_revision(store.engine) != head_revision():
            return _fail(EX_TEMPFAIL, "database not migrated (run pbem doctor)")
        accepted = store_message(
            store,
            raw,
            source=InboxSource.INGEST,
            clock=SystemClock(),
            envelope_from=args.sender,
            envelope_to=args.recipient,
        )
    except Exception as exc:
        log.debug("ingest failed", exc_info=True)
        return _fail(EX_TEMPFAIL, f"cannot store the message: {type(exc).__name__}: {exc}")
    finally:
        store.dispose()
    state = "already stored" if accepted.duplicate else "stored"
    sys.stdout.write(f"{state} as inbox #{accepted.inbox_id}\n")
    return EX_OK
