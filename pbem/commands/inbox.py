"""``pbem inbox``: what the referee received and what became of it.

- ``pbem inbox list [--status S]`` — one line per stored mail, newest first:
  id, status, received time, sender, outcome (``--status set-aside`` lists the
  mails set aside: over the mail budget, too slow to read, or interrupted
  ``limits.max_attempts`` times).
- ``pbem inbox show ID`` — the row and the first header lines (never the
  whole raw mail).
- ``pbem inbox retry ID`` — put a set-aside or failed mail back in the queue
  (after raising a limit, say); the daemon processes it at its next sweep.
"""

from __future__ import annotations

import argparse

from sqlmodel import col, select

from pbem.commands._shared import add_config_argument, err, out
from pbem.commands.game import EX_USAGE, with_store
from pbem.config import Config
from pbem.mailin.budget import scan
from pbem.store import InboxMessage, InboxStatus, Store, read_session

_SHOW_HEADER_LINES = 20
_SHOW_LINE = 160


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``inbox`` command group."""
    parser = sub.add_parser("inbox", help="list received mail, show one, retry one set aside")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    lst = verbs.add_parser("list", help="list received mail, newest first")
    add_config_argument(lst)
    lst.add_argument("--status", choices=InboxStatus.ALL, help="only mail with this status")
    lst.add_argument("--limit", type=int, default=50, help="at most this many lines (50)")
    lst.set_defaults(func=_list)
    show = verbs.add_parser("show", help="show one received mail")
    add_config_argument(show)
    show.add_argument("id", type=int)
    show.set_defaults(func=_show)
    retry = verbs.add_parser("retry", help="queue a set-aside or failed mail again")
    add_config_argument(retry)
    retry.add_argument("id", type=int)
    retry.set_defaults(func=_retry)


def _line(row: InboxMessage) -> str:
    sender = scan(row.raw[:65536]).sender or "?"
    outcome = row.outcome.replace("\n", " ")[:100]
    return (
        f"#{row.id:<6} {row.status:<9} {row.received_at:%Y-%m-%d %H:%M:%S} {sender:<32} {outcome}"
    )


@with_store
def _list(args: argparse.Namespace, config: Config, store: Store) -> int:
    with read_session(store) as session:
        query = select(InboxMessage).order_by(col(InboxMessage.id).desc())
        if args.status:
            query = query.where(col(InboxMessage.status) == args.status)
        rows = session.exec(query.limit(max(args.limit, 1))).all()
    if not rows:
        out("no mail" + (f" with status {args.status}" if args.status else ""))
    for row in rows:
        out(_line(row))
    return 0


@with_store
def _show(args: argparse.Namespace, config: Config, store: Store) -> int:
    with read_session(store) as session:
        row = session.get(InboxMessage, args.id)
    if row is None:
        err(f"no inbox mail #{args.id}")
        return EX_USAGE
    counted = scan(row.raw)
    out(f"inbox      #{row.id} from {row.source}, {len(row.raw)} bytes")
    out(f"received   {row.received_at:%Y-%m-%d %H:%M:%S} UTC")
    out(f"status     {row.status} (attempts {row.attempts})")
    out(f"outcome    {row.outcome}")
    out(f"game       {row.game_id or '-'}")
    out(
        f"counted    {counted.headers} header fields, {counted.header_bytes} header "
        f"bytes, {counted.addresses} addresses; sender {counted.sender or '?'}"
    )
    head = row.raw[:16384].decode("utf-8", "replace").split("\n")[:_SHOW_HEADER_LINES]
    for text in head:
        if not text.strip():
            break
        printable = "".join(ch if ch.isprintable() else "?" for ch in text.rstrip("\r"))
        out(f"  | {printable[:_SHOW_LINE]}")
    return 0


@with_store
def _retry(args: argparse.Namespace, config: Config, store: Store) -> int:
    with store.transaction() as session:
        row = session.get(InboxMessage, args.id)
        if row is None:
            err(f"no inbox mail #{args.id}")
            return EX_USAGE
        if row.status not in (InboxStatus.SET_ASIDE, InboxStatus.FAILED):
            err(f"inbox mail #{args.id} is {row.status}; only set-aside or failed mail is retried")
            return EX_USAGE
        row.status = InboxStatus.PENDING
        row.attempts = 0
        row.outcome = f"queued again by the operator (was: {row.outcome[:500]})"
        row.processed_at = None
        session.add(row)
    out(f"inbox mail #{args.id} is pending again; the daemon processes it at its next sweep")
    return 0
