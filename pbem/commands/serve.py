"""``pbem serve``: run the referee daemon in the foreground (systemd runs this).

``--workers N`` (PostgreSQL only) runs N worker processes on this host, each a
whole daemon sharing the store (docs/scaling.md): every worker listens on the
same port (``SO_REUSEPORT``), takes inbox rows lane by lane, fires deadlines
and sends the outbox; only worker 0 polls IMAP. This process supervises them:
SIGTERM stops them all, a worker that dies is started again.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import dataclasses
import logging
import os
import signal
import subprocess
import sys
import time
from types import FrameType

from sqlalchemy.engine import make_url

from pbem.commands._shared import add_config_argument
from pbem.config import Config, ConfigError, load_config
from pbem.daemon import Daemon, StartError
from pbem.store import migrate
from pbem.store.files import PRIVATE_UMASK, private_dir

log = logging.getLogger(__name__)

EX_CONFIG = 78
EX_UNAVAILABLE = 69
RESTART_DELAY = 1.0
"""Seconds before a worker that died is started again."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` command."""
    parser = sub.add_parser(
        "serve",
        help="run the referee daemon (mail in, turns, outbox, deadlines)",
        description="Migrate the database, then run the daemon until SIGTERM.",
    )
    add_config_argument(parser)
    parser.add_argument(
        "--no-migrate", action="store_true", help="do not upgrade the database schema at start"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes sharing the store (PostgreSQL only; default 1; docs/scaling.md)",
    )
    parser.add_argument("--worker-index", type=int, default=None, help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def workers_problem(config: Config, workers: int) -> str | None:
    """Say why ``workers`` processes cannot share this store (None: they can)."""
    if workers < 1:
        return f"--workers must be 1 or more, not {workers}"
    if workers > 1 and make_url(config.database_url).get_backend_name() != "postgresql":
        return (
            f"--workers {workers} needs PostgreSQL: SQLite is the embedded store for one "
            "worker. Set database.url to a postgresql+psycopg:// URL (docs/scaling.md) "
            "or run one worker"
        )
    return None


def run(args: argparse.Namespace) -> int:
    """Load the config, migrate, serve until stopped; return the exit code."""
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        sys.stderr.write(f"pbem serve: {exc}\n")
        return EX_CONFIG
    problem = workers_problem(config, args.workers)
    if problem is not None:
        sys.stderr.write(f"pbem serve: {problem}\n")
        return EX_CONFIG
    # Everything the daemon creates (database, Maildir, keys) is private, with
    # or without systemd's UMask=0077: the database holds the secret seeds.
    os.umask(PRIVATE_UMASK)
    private_dir(config.data_dir)
    if not args.no_migrate:
        migrate(config.database_url)
    if args.worker_index is not None:
        return _serve_worker(config, args.worker_index)
    if args.workers > 1:
        return _supervise(args, args.workers)
    return _serve(Daemon(config))


def _serve(daemon: Daemon) -> int:
    try:
        asyncio.run(daemon.serve_forever())
    except StartError as exc:
        sys.stderr.write(f"pbem serve: {exc}\n")
        return EX_UNAVAILABLE
    return 0


def _die_with_parent() -> None:
    """Ask Linux to SIGTERM this worker when its supervisor dies (best effort)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _serve_worker(config: Config, index: int) -> int:
    """Run worker ``index`` of ``pbem serve --workers N`` (the supervisor starts these)."""
    _die_with_parent()
    if index > 0 and config.imap.enabled:
        # One poller per host is enough; the others would only race for the same mail.
        config = dataclasses.replace(config, imap=dataclasses.replace(config.imap, enabled=False))
    log.info("worker %d starting (pid %d)", index, os.getpid())
    return _serve(Daemon(config, reuse_port=True))


def _supervise(args: argparse.Namespace, workers: int) -> int:
    """Start ``workers`` worker processes, restart those that die, stop them on SIGTERM."""
    stopping = False
    # The workers share the server key: make it once, before any of them could race to.
    from pbem.pipeline import load_server_key  # noqa: PLC0415

    load_server_key(load_config(args.config).server_key_path)

    def spawn(index: int) -> subprocess.Popen[bytes]:
        cmd = [sys.executable, "-m", "pbem", "serve", "--no-migrate", "--worker-index", str(index)]
        if args.config:
            cmd += ["--config", args.config]
        return subprocess.Popen(cmd)

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for proc in procs.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)

    procs = {i: spawn(i) for i in range(workers)}
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    log.info("pbem serve: %d workers started: %s", workers, [p.pid for p in procs.values()])
    code = 0
    while procs:
        pid, status = os.wait()
        index = next((i for i, p in procs.items() if p.pid == pid), None)
        if index is None:
            continue
        proc = procs.pop(index)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if stopping:
            continue
        if proc.returncode in (EX_CONFIG, EX_UNAVAILABLE):
            log.error("worker %d cannot start (exit %d): stopping", index, proc.returncode)
            code = proc.returncode
            on_signal(signal.SIGTERM, None)
            continue
        log.error("worker %d died (exit %s): starting it again", index, proc.returncode)
        time.sleep(RESTART_DELAY)
        procs[index] = spawn(index)
    return code
