"""``pbem player rotate-key EMAIL PUBKEYFILE``: replace a player's key (old one kept, revoked)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pbem.clock import SystemClock
from pbem.commands._shared import add_config_argument
from pbem.commands.game import EX_CONFIG, EX_USAGE, open_store
from pbem.pipeline.admin import rotate_key
from pbem.pipeline.games import GameError
from pbem.sshsig import SshPublicKey, SshSigError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pbem player``."""
    parser = sub.add_parser("player", help="manage players (keys)")
    add_config_argument(parser)
    players = parser.add_subparsers(dest="player_command", required=True)
    rotate = players.add_parser("rotate-key", help="give a player a new public key")
    rotate.add_argument("email")
    rotate.add_argument("pubkey", type=Path, help="the new key's .pub file")
    rotate.set_defaults(func=_rotate)


def _rotate(args: argparse.Namespace) -> int:
    try:
        key = SshPublicKey.parse(args.pubkey.read_text(encoding="utf-8"))
    except (OSError, SshSigError) as exc:
        sys.stderr.write(f"pbem player: cannot read {args.pubkey}: {exc}\n")
        return EX_USAGE
    if not key.is_ed25519:
        sys.stderr.write("pbem player: only Ed25519 keys are accepted\n")
        return EX_USAGE
    opened = open_store(args)
    if opened is None:
        return EX_CONFIG
    _, store = opened
    try:
        fp = rotate_key(store, SystemClock(), args.email, key)
    except GameError as exc:
        sys.stderr.write(f"pbem player: {exc}\n")
        return EX_USAGE
    finally:
        store.dispose()
    sys.stdout.write(
        f"{args.email}: current key is now {fp}; orders signed with the old "
        "key are refused from now on\n"
    )
    return 0
