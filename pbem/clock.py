"""Tell the time through an injectable clock.

Everything in :mod:`pbem` that needs "now" takes a :class:`Clock`; nothing
calls ``datetime.now()`` directly, so deadlines, retries and back-off run
instantly in tests with :class:`FakeClock`. Every clock returns an *aware*
UTC datetime.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """A source of the current time."""

    def now(self) -> datetime:
        """Return the current time as an aware UTC datetime."""
        ...


class SystemClock:
    """The real wall clock (what ``pbem serve`` uses)."""

    def now(self) -> datetime:
        """Return the wall-clock time in UTC."""
        return datetime.now(UTC)

    def __repr__(self) -> str:
        return "SystemClock()"


class FakeClock:
    """A clock that moves only when told to (for tests).

    Thread-safe: the daemon reads it from worker threads while a test
    advances it.
    """

    def __init__(self, start: datetime | None = None) -> None:
        if start is None:
            start = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
        if start.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        self._now = start.astimezone(UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        """Return the fake current time."""
        with self._lock:
            return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move the clock forward by ``delta`` and return the new time."""
        if delta < timedelta(0):
            raise ValueError("time does not run backwards")
        with self._lock:
            self._now += delta
            return self._now

    def set(self, when: datetime) -> None:
        """Jump to ``when`` (aware, not earlier than now)."""
        if when.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        with self._lock:
            if when < self._now:
                raise ValueError("time does not run backwards")
            self._now = when.astimezone(UTC)

    def __repr__(self) -> str:
        return f"FakeClock({self._now.isoformat()})"
