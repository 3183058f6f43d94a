"""The inbox worker: pending rows in order, one bad message never blocks the queue."""

from __future__ import annotations

from sqlalchemy.exc import OperationalError
from sqlmodel import select

from pbem.clock import FakeClock
from pbem.mailin.accept import body_hash, store_message
from pbem.mailin.worker import InboxWorker
from pbem.store import InboxMessage, InboxStatus, Store


def _raw(n: int) -> bytes:
    return (
        f"From: a@b.test\r\nSubject: {n}\r\nMessage-ID: <w{n}@b.test>\r\n\r\nbody {n}\r\n".encode()
    )


def _statuses(store: Store) -> list[tuple[str, str]]:
    with store.transaction() as session:
        rows = session.exec(select(InboxMessage).order_by(InboxMessage.id)).all()
        return [(r.status, r.outcome) for r in rows]


class Scripted:
    """Processes rows by a script: 'ok', 'refuse', 'crash', 'forget', 'db-down'."""

    def __init__(self, store: Store, script: dict[int, str]) -> None:
        self.store = store
        self.script = script
        self.calls: list[int] = []

    def process(self, inbox_id: int) -> None:
        self.calls.append(inbox_id)
        action = self.script.get(inbox_id, "ok")
        if action == "crash":
            raise ValueError("parser exploded")
        if action == "db-down":
            raise OperationalError("SELECT 1", {}, Exception("database is locked"))
        if action == "forget":
            return
        with self.store.transaction() as session:
            row = session.get(InboxMessage, inbox_id)
            assert row is not None
            row.status = InboxStatus.PROCESSED if action == "ok" else InboxStatus.REFUSED
            row.outcome = action
            session.add(row)


def test_rows_are_processed_in_order_and_failures_are_marked(
    store: Store, clock: FakeClock
) -> None:
    ids = [store_message(store, _raw(n), source="smtp", clock=clock).inbox_id for n in range(4)]
    processor = Scripted(store, {ids[1]: "crash", ids[2]: "forget", ids[3]: "refuse"})
    flushed: list[bool] = []
    worker = InboxWorker(store, processor, clock, on_processed=lambda: flushed.append(True))
    assert worker.process_pending() == 4
    assert processor.calls == ids
    statuses = _statuses(store)
    assert statuses[0] == ("processed", "ok")
    assert statuses[1][0] == "failed" and "parser exploded" in statuses[1][1]
    assert statuses[2] == ("failed", "processor did not mark the message")
    assert statuses[3] == ("refused", "refuse")
    assert flushed == [True]
    assert worker.process_pending() == 0  # nothing left pending


def test_database_error_leaves_the_row_pending_for_a_retry(store: Store, clock: FakeClock) -> None:
    first = store_message(store, _raw(1), source="smtp", clock=clock).inbox_id
    second = store_message(store, _raw(2), source="smtp", clock=clock).inbox_id
    processor = Scripted(store, {first: "db-down"})
    worker = InboxWorker(store, processor, clock)
    worker.process_pending()
    assert processor.calls == [first]  # stops: the next rows wait too, in order
    assert [s for s, _ in _statuses(store)] == ["pending", "pending"]
    processor.script.clear()
    worker.process_pending()
    assert processor.calls == [first, first, second]
    assert [s for s, _ in _statuses(store)] == ["processed", "processed"]


def test_same_content_by_another_route_is_a_duplicate(store: Store, clock: FakeClock) -> None:
    raw = _raw(1)
    relayed = b"Received: from mx.club.test by pbem\r\nDelivered-To: pbem@game.test\r\n" + raw
    no_id = raw.replace(b"Message-ID: <w1@b.test>\r\n", b"")
    assert body_hash(raw) == body_hash(relayed) == body_hash(no_id.replace(b"\r\n", b"\n"))
    a = store_message(store, raw, source="smtp", clock=clock)
    b = store_message(store, relayed, source="imap", clock=clock)
    c = store_message(store, no_id, source="ingest", clock=clock)
    assert not a.duplicate and b.duplicate and c.duplicate
    assert a.inbox_id == b.inbox_id == c.inbox_id
    other = store_message(store, _raw(2), source="smtp", clock=clock)
    assert not other.duplicate


def test_two_mails_with_the_same_text_in_the_same_second_are_both_kept(
    store: Store, clock: FakeClock
) -> None:
    # Same sender, text and one-second Date; only the Message-ID differs (a second
    # 'help'). Before, the content hash alone made the second one a duplicate.
    first = _raw(1)
    second = first.replace(b"Message-ID: <w1@b.test>", b"Message-ID: <w1-again@b.test>")
    assert body_hash(first) == body_hash(second)
    a = store_message(store, first, source="smtp", clock=clock)
    b = store_message(store, second, source="smtp", clock=clock)
    assert not a.duplicate and not b.duplicate and a.inbox_id != b.inbox_id
    # The same message again (same Message-ID and content) is still one row.
    assert store_message(store, second, source="imap", clock=clock).duplicate


def test_a_failing_deadline_hook_never_blames_the_mail(store: Store, clock: FakeClock) -> None:
    first = store_message(store, _raw(1), source="smtp", clock=clock).inbox_id

    def judge(_inbox_id: int) -> None:
        raise RuntimeError("a bug in a deadline handler")

    processor = Scripted(store, {})
    InboxWorker(store, processor, clock, before_row=judge).process_pending()
    assert processor.calls == [first]
    assert _statuses(store)[0][0] == "processed"


class Claiming(Scripted):
    """Takes rows as the worker's claim returns them; stores one more mail at the first."""

    def __init__(self, store: Store, clock: FakeClock) -> None:
        super().__init__(store, {})
        self.clock = clock

    def process_claimed(self, row: InboxMessage) -> bool:
        assert row.id is not None
        if not self.calls:  # a player's next mail arrives while the round is under way
            store_message(self.store, _raw(99), source="smtp", clock=self.clock)
        self.process(row.id)
        return True


def test_a_round_takes_the_mail_pending_when_it_began_then_lets_the_outbox_send(
    store: Store, clock: FakeClock
) -> None:
    ids = [store_message(store, _raw(n), source="smtp", clock=clock).inbox_id for n in range(2)]
    processor = Claiming(store, clock)
    rounds: list[int] = []
    worker = InboxWorker(
        store, processor, clock, on_processed=lambda: rounds.append(len(processor.calls))
    )
    assert worker.process_pending() == 2  # the mail stored meanwhile waits for the next round
    assert processor.calls == ids and rounds == [2]
    assert worker.process_pending() == 1
    assert rounds == [2, 3]
    assert [s for s, _ in _statuses(store)] == [InboxStatus.PROCESSED] * 3
