"""``pbem join-statement``: print a join statement with a fresh random nonce.

A player joins a game by mailing the referee a signed statement::

    game: <id>
    command: join
    side: <side>
    token: <invite token>      (only when the invitation gave one)
    nonce: <64 hex digits>

The nonce (32 bytes from the operating system's random source) enters every
die and every shuffle of the game (docs/audit.md), so the referee, which
committed to its dice before any nonce existed, cannot choose them. With
``-f KEY`` the statement is signed (namespace pbem-orders) and printed with
its signature block, ready to paste into the reply.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pbem import sshsig
from pbem.commands._shared import err, out
from pbem.pipeline.joins import join_statement
from pbem.sshsig import SshSigError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem join-statement``."""
    cmd = sub.add_parser(
        "join-statement",
        help="print a game's join statement with a fresh nonce (sign it and mail it)",
        description="Print the statement that joins GAME as SIDE, with a fresh random "
        "nonce; with -f, sign it with your key and print the signature block too.",
    )
    cmd.add_argument("game")
    cmd.add_argument("side")
    cmd.add_argument("--token", default="", help="the invite token from your invitation")
    cmd.add_argument("-f", dest="key", type=Path, default=None, help="sign with this private key")
    cmd.set_defaults(func=_statement)


def _statement(args: argparse.Namespace) -> int:
    text = join_statement(args.game, args.side, token=args.token)
    if args.key is None:
        out(text.rstrip("\n"))
        return 0
    path = Path(args.key).expanduser()
    try:
        key = sshsig.load_private_key(path.read_bytes())
    except (OSError, SshSigError) as exc:
        err(f"cannot read the private key {path}: {exc}")
        return 1
    out(text + sshsig.sign(text.encode("utf-8"), key).rstrip("\n"))
    return 0
