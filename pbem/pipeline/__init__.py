"""The turn pipeline: inbox rows in, game moves, deadlines and outgoing mail out.

``setup_daemon(daemon)`` is the daemon's extension hook (:data:`pbem.daemon.EXTENSIONS`):
it registers :class:`~pbem.pipeline.processor.Processor` as the inbox
processor and installs the deadline scheduler (:mod:`pbem.deadlines`).
Modules: ``inbound`` (MIME, sender, routing), ``processor`` (one row, one
transaction), ``orders`` and ``commands`` (what players send), ``turns``
(resolve an epoch, start/end a game), ``timing`` (deadlines firing),
``mails``/``mailkinds`` (what players receive), ``games`` (loading and
creating games), ``settings`` (per-game options).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from pbem.pipeline.processor import Processor
from pbem.server_key import ServerKey

if TYPE_CHECKING:
    from pbem.daemon import Daemon

__all__ = ["Processor", "load_server_key", "setup_daemon"]

log = logging.getLogger(__name__)

DEADLINE_SWEEP_INTERVAL = timedelta(seconds=30)


def load_server_key(path: object) -> ServerKey | None:
    """Load (or create) the server's signing key; None (and a warning) if impossible."""
    from pathlib import Path  # noqa: PLC0415

    try:
        return ServerKey.load_or_create(Path(str(path)))
    except (OSError, ValueError):
        log.warning(
            "cannot load or create the server key %s: mail goes out unsigned", path, exc_info=True
        )
        return None


def setup_daemon(daemon: Daemon) -> None:
    """Register the processor and the deadline scheduler with ``daemon``."""
    from pbem.deadlines import DeadlineScheduler  # noqa: PLC0415
    from pbem.pipeline.lanes import lane_of  # noqa: PLC0415
    from pbem.pipeline.timing import configure, fire_deadline  # noqa: PLC0415

    key = load_server_key(daemon.config.server_key_path)
    configure(daemon.config, key)
    if daemon.processor is None:
        daemon.set_processor(Processor(daemon.config, daemon.store, daemon.clock, server_key=key))
    scheduler = DeadlineScheduler(
        daemon.config,
        daemon.store,
        daemon.clock,
        daemon.scheduler,
        fire=fire_deadline,
        interval=DEADLINE_SWEEP_INTERVAL,
        on_fired=daemon.outbox.request_flush,
    )
    daemon.deadlines = scheduler  # type: ignore[attr-defined]
    # Deadlines are judged by receipt time: before each mail, those due before it
    # was received; after mail, those that waited for it.
    daemon.judge = scheduler.judge_received
    address, domain = daemon.config.mail.address, daemon.config.mail_domain
    daemon.lane_of = lambda head, envelope_to: lane_of(head, envelope_to, address, domain)
    daemon.after_mail.append(scheduler.after_mail)
    scheduler.install()
