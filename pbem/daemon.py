"""Run the referee: listener, IMAP poller, inbox worker, outbox sender, scheduler.

:class:`Daemon` wires the parts together on one asyncio loop::

    daemon = Daemon(config)          # or Daemon(config, clock=FakeClock(), store=store)
    await daemon.start()             # ... await daemon.stop()
    await daemon.serve_forever()     # start, wait for SIGTERM/SIGINT, stop

Extensions: at :meth:`Daemon.start` every module named in
:data:`EXTENSIONS` that exists is imported and its
``setup_daemon(daemon: Daemon) -> None`` is called. That is how the turn
pipeline plugs in without editing this file: it calls
``daemon.set_processor(processor)`` (an :class:`~pbem.mailin.InboxProcessor`)
and may add scheduler jobs (``daemon.scheduler.add_job(...)``: deadlines,
reminders). Without a processor, mail is stored and stays pending — nothing
is lost, and it is processed once a processor is registered.

Scheduler jobs added here: ``outbox-flush`` (every ``outbox.flush_interval``),
``inbox-sweep`` (every ``limits.inbox_sweep_interval``, finds mail that
``pbem ingest`` stored from another process) and ``imap-poll`` (every
``imap.poll_interval`` when IMAP is enabled). The scheduler only decides *when*
a job runs; jobs read the time from the injected clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import importlib
import logging
import signal
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from apscheduler.events import (
    EVENT_JOB_ERROR,
    EVENT_JOB_EXECUTED,
    EVENT_JOB_SUBMITTED,
    JobExecutionEvent,
    JobSubmissionEvent,
)
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from pbem.clock import Clock, SystemClock
from pbem.config import Config
from pbem.mailin.imap import poll_once
from pbem.mailin.smtp import InboxHandler, start_listener
from pbem.mailin.worker import InboxProcessor, InboxWorker, Lanes
from pbem.outbox import OutboxSender
from pbem.store import Store
from pbem.store.locks import LaneClaims, is_postgres
from pbem.store.notify import InboxListener

log = logging.getLogger(__name__)

EXTENSIONS: tuple[str, ...] = ("pbem.pipeline", "pbem.clubs.jobs")
"""Modules whose ``setup_daemon(daemon)`` runs at start, when they exist."""


class StartError(RuntimeError):
    """The daemon cannot start; the message says in one line what failed and what to fix."""


def listener_problem(config: Config, exc: OSError) -> str:
    """Say in one line why the listener cannot bind and what to change."""
    lst = config.listener
    where = f"{lst.host}:{lst.port}"
    if exc.errno == errno.EADDRINUSE:
        fix = "stop what holds the port (another pbem serve?) or set listener.port"
    elif exc.errno == errno.EACCES:
        fix = "use a port above 1024 in listener.port"
    else:
        fix = "set listener.host to a local address such as 127.0.0.1"
    return f"listener: cannot listen on {where}: {exc.strerror or exc}; fix: {fix}"


class Daemon:
    """The long-running referee process (see the module docstring)."""

    stop_grace: float = 3.0
    """Seconds :meth:`stop` waits for the work in hand (the worker's row, running jobs): a
    row is usually done well within it; a mail whose parse takes longer (a huge one) is
    left pending, its attempt counted, and the daemon still stops at once (well inside
    systemd's 30 s, deploy/pbem.service)."""

    def __init__(
        self,
        config: Config,
        *,
        clock: Clock | None = None,
        store: Store | None = None,
        extensions: tuple[str, ...] | None = None,
        reuse_port: bool = False,
    ) -> None:
        self.config = config
        self.reuse_port = reuse_port
        """Listen with ``SO_REUSEPORT`` (``pbem serve --workers N``: every worker listens)."""
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.store = store or Store(
            config.database_url, busy_timeout_ms=config.database.busy_timeout_ms
        )
        self._owns_store = store is None
        self.outbox = OutboxSender(config, self.store, self.clock)
        self.scheduler = AsyncIOScheduler(timezone=UTC)
        self.processor: InboxProcessor | None = None
        self.worker: InboxWorker | None = None
        self.listener: asyncio.Server | None = None
        self.extensions = EXTENSIONS if extensions is None else extensions
        self.before_row: Callable[[int], None] | None = None
        """Called (worker thread) before each inbox row."""
        self.judge: Callable[[datetime], None] | None = None
        """Called (worker thread) with a row's receipt time when a deadline was due before
        it: the deadlines judge what is due first."""
        self.after_mail: list[Callable[[], None]] = []
        """Called (worker thread) after each round that handled mail."""
        self.lane_of: Callable[[bytes, str], str] | None = None
        """A mail's lane from its raw head and envelope (set by the pipeline); on
        PostgreSQL the worker claims lanes so several workers share the inbox."""
        self.claims: LaneClaims | None = None
        self.inbox_listener: InboxListener | None = None
        """PostgreSQL: wakes the worker on ``NOTIFY`` of a new inbox row (pbem.store.notify)."""
        self._tasks: list[asyncio.Task[Any]] = []
        self._stopping: asyncio.Event | None = None
        self._started = False
        self._jobs_running = 0
        """Scheduler jobs submitted and not yet ended (their threads may hold the store)."""
        self._jobs_idle: asyncio.Event | None = None
        self.scheduler.add_listener(
            self._count_job, EVENT_JOB_SUBMITTED | EVENT_JOB_EXECUTED | EVENT_JOB_ERROR
        )

    def _count_job(self, event: JobSubmissionEvent | JobExecutionEvent) -> None:
        """Count the scheduler's jobs in hand (called in the event loop's thread)."""
        self._jobs_running += 1 if event.code == EVENT_JOB_SUBMITTED else -1
        if self._jobs_idle is not None:
            if self._jobs_running > 0:
                self._jobs_idle.clear()
            else:
                self._jobs_idle.set()

    def _after_mail(self) -> None:
        """After the worker handled mail: flush the outbox, run the extensions' hooks."""
        self.outbox.request_flush()
        for hook in self.after_mail:
            hook()

    def set_processor(self, processor: InboxProcessor) -> None:
        """Register the inbox processor (call before :meth:`start`, e.g. from an extension)."""
        if self._started:
            raise RuntimeError("set the processor before the daemon starts")
        self.processor = processor

    def on_new_mail(self, inbox_id: int) -> None:
        """Wake the worker for a newly stored message (any thread)."""
        if self.worker is not None:
            self.worker.notify(inbox_id)

    def _load_extensions(self) -> None:
        for name in self.extensions:
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name is not None and name.startswith(exc.name):
                    log.debug("extension %s not installed", name)
                    continue
                raise
            setup: Callable[[Daemon], None] | None = getattr(module, "setup_daemon", None)
            if setup is not None:
                setup(self)
                log.info("extension %s set up", name)

    async def start(self) -> None:
        """Start every part; return once they are running."""
        if self._started:
            raise RuntimeError("daemon already started")
        self._load_extensions()
        self._started = True
        self._stopping = asyncio.Event()
        self._jobs_idle = asyncio.Event()
        self._jobs_idle.set()
        self.outbox.bind_loop(asyncio.get_running_loop())
        cfg = self.config
        lanes = None
        if (
            self.processor is not None
            and self.lane_of is not None
            and is_postgres(self.store.engine)
        ):
            self.claims = LaneClaims(self.store.engine)
            lanes = Lanes(self.lane_of, self.claims)
        if self.processor is not None:
            self.worker = InboxWorker(
                self.store,
                self.processor,
                self.clock,
                on_processed=self._after_mail,
                max_attempts=cfg.limits.max_attempts,
                before_row=self.before_row,
                lanes=lanes,
                judge=self.judge,
            )
            self._tasks.append(asyncio.create_task(self.worker.run(), name="inbox-worker"))
            if is_postgres(self.store.engine):
                # Woken by PostgreSQL when any process stores mail (the sweep stays the fallback).
                self.inbox_listener = InboxListener(self.store.engine, self.worker.notify)
                self.inbox_listener.start()
        else:
            log.warning("no inbox processor registered: mail is stored and stays pending")
        if cfg.listener.enabled:
            handler = InboxHandler(
                self.store,
                self.clock,
                domain=cfg.mail_domain,
                max_message_size=cfg.limits.max_message_size,
                lmtp=cfg.listener.lmtp,
                on_new_mail=self.on_new_mail,
            )
            try:
                self.listener = await start_listener(
                    handler,
                    cfg.listener.host,
                    cfg.listener.port,
                    hostname=cfg.mail_domain,
                    reuse_port=self.reuse_port,
                )
            except OSError as exc:
                await self.stop()
                raise StartError(listener_problem(cfg, exc)) from exc
        self.scheduler.add_job(
            self.outbox.flush_logged,
            "interval",
            seconds=cfg.outbox.flush_interval.total_seconds(),
            id="outbox-flush",
            max_instances=1,
            coalesce=True,
        )
        if self.worker is not None:
            self.scheduler.add_job(
                self.worker.notify,
                "interval",
                seconds=cfg.limits.inbox_sweep_interval.total_seconds(),
                id="inbox-sweep",
                coalesce=True,
            )
        if cfg.imap.enabled:
            self.scheduler.add_job(
                self.poll_imap,
                "interval",
                seconds=cfg.imap.poll_interval.total_seconds(),
                id="imap-poll",
                max_instances=1,
                coalesce=True,
            )
            self._tasks.append(asyncio.create_task(self.poll_imap(), name="imap-first-poll"))
        self.scheduler.start()
        # Mail queued before a restart goes out now, not one interval later.
        self._tasks.append(
            asyncio.create_task(self.outbox.flush_logged(), name="outbox-first-flush")
        )
        log.info("pbem daemon started: %s", self.describe())

    def describe(self) -> str:
        """Say in one line where mail comes in and goes out (the start log line)."""
        cfg = self.config
        parts = []
        if cfg.listener.enabled:
            kind = "LMTP" if cfg.listener.lmtp else "SMTP"
            parts.append(
                f"listening for {kind} on {cfg.listener.host}:{cfg.listener.port} "
                f"(mail to @{cfg.mail_domain})"
            )
        else:
            parts.append("listener off")
        parts.append(f"IMAP {cfg.imap.user}@{cfg.imap.host}" if cfg.imap.enabled else "IMAP off")
        if self.outbox.maildir_mode:
            parts.append(f"outgoing mail to the Maildir {cfg.maildir_path / 'new'}")
        else:
            parts.append(f"outgoing mail to {cfg.smarthost.host}:{cfg.smarthost.port}")
        if self.processor is None:
            parts.append("no inbox processor: mail stays pending")
        return "; ".join(parts)

    async def poll_imap(self) -> None:
        """Poll the IMAP mailbox once, logging (not raising) failures."""
        try:
            await asyncio.to_thread(
                poll_once,
                self.config.imap,
                self.store,
                self.clock,
                max_message_size=self.config.limits.max_message_size,
                on_new_mail=self.on_new_mail,
            )
        except Exception:
            log.exception("imap: poll failed; will try again")

    def request_stop(self) -> None:
        """Ask :meth:`serve_forever` to stop (signal handlers call this)."""
        if self._stopping is not None:
            self._stopping.set()

    async def stop(self) -> None:
        """Stop accepting mail, finish the current step, release the store.

        The store is disposed of last, once no thread uses it: the worker ends
        the row in hand, the running scheduler jobs and start-up tasks end
        (each within :attr:`stop_grace` seconds, or the store is left to the
        process's exit rather than pulled from under a thread).
        """
        if self.listener is not None:
            self.listener.close()
            await self.listener.wait_closed()
            self.listener = None
        if self.worker is not None:
            self.worker.stop()
        if self.inbox_listener is not None:
            await asyncio.to_thread(self.inbox_listener.stop)
            self.inbox_listener = None
        if self.scheduler.running:
            self.scheduler.pause()  # no new job; those in hand end below
        settled = await self._work_in_hand_ended()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        if self.claims is not None:
            self.claims.close()
        if self._owns_store:
            if settled:
                self.store.dispose()
            else:
                log.warning(
                    "work still in hand after %.0f s: the store is released at exit",
                    self.stop_grace,
                )
        log.info("pbem daemon stopped")

    async def _work_in_hand_ended(self) -> bool:
        """Wait (up to :attr:`stop_grace`) for the worker's round, the start-up tasks and
        the running jobs to end; say whether they all did."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.stop_grace
        # The worker's last row may start a flush of the outbox: wait for that one too.
        while tasks := [
            *(t for t in self._tasks if not t.done()),
            *self.outbox.flushes_in_hand(),
        ]:
            _, pending = await asyncio.wait(tasks, timeout=max(deadline - loop.time(), 0.0))
            if pending:
                return False
        if self._jobs_idle is None:
            return True
        try:
            await asyncio.wait_for(self._jobs_idle.wait(), max(deadline - loop.time(), 0.0))
        except TimeoutError:
            return False
        return True

    async def serve_forever(self) -> None:
        """Start, run until SIGTERM or SIGINT, then stop gracefully."""
        await self.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.request_stop)
        try:
            assert self._stopping is not None
            await self._stopping.wait()
            log.info("stop requested")
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
            await self.stop()
