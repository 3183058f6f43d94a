"""A tiny IMAP4rev1 server on loopback, for testing the IMAP poller.

Only what the poller uses: CAPABILITY, LOGIN, SELECT, (UID) SEARCH UNSEEN,
(UID) FETCH BODY.PEEK[] / BODY[] / RFC822, (UID) STORE +FLAGS, NOOP, LOGOUT.
It runs its own asyncio loop in a thread, so blocking imaplib code can talk
to it from the test. ``commands`` records every command received, in order.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import threading
from dataclasses import dataclass, field
from types import TracebackType


@dataclass
class StoredMail:
    """One message in the test mailbox."""

    uid: int
    raw: bytes
    flags: set[str] = field(default_factory=set)


class ImapTestServer:
    """Serve one mailbox (``INBOX``) to a client that logs in as ``user``."""

    def __init__(self, user: str = "game", password: str = "s3cret") -> None:
        self.user = user
        self.password = password
        self.mails: list[StoredMail] = []
        self.commands: list[str] = []
        self.port = 0
        self._lock = threading.Lock()
        self._next_uid = 1
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    # -- test-facing API -----------------------------------------------------

    def add(self, raw: bytes, *, seen: bool = False) -> int:
        """Put a message in the mailbox; return its UID."""
        with self._lock:
            uid = self._next_uid
            self._next_uid += 1
            self.mails.append(StoredMail(uid, raw, {"\\Seen"} if seen else set()))
            return uid

    def is_seen(self, uid: int) -> bool:
        """Say whether message ``uid`` carries ``\\Seen``."""
        with self._lock:
            return any(m.uid == uid and "\\Seen" in m.flags for m in self.mails)

    def __enter__(self) -> ImapTestServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("IMAP test server did not start")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
        self._thread.join(10)

    # -- server --------------------------------------------------------------

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._server = loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            for task in asyncio.all_tasks(loop):
                task.cancel()
            loop.run_until_complete(asyncio.sleep(0))
            loop.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        def send(line: bytes) -> None:
            writer.write(line + b"\r\n")

        send(b"* OK [CAPABILITY IMAP4rev1] pbem test IMAP ready")
        authed = selected = False
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                text = line.decode("utf-8", "replace").rstrip("\r\n")
                self.commands.append(text)
                tag, _, rest = text.partition(" ")
                verb, _, args = rest.partition(" ")
                verb = verb.upper()
                uid_mode = False
                if verb == "UID":
                    uid_mode = True
                    verb, _, args = args.partition(" ")
                    verb = verb.upper()
                if verb == "CAPABILITY":
                    send(b"* CAPABILITY IMAP4rev1")
                    send(f"{tag} OK CAPABILITY done".encode())
                elif verb == "NOOP":
                    send(f"{tag} OK NOOP done".encode())
                elif verb == "LOGOUT":
                    send(b"* BYE logging out")
                    send(f"{tag} OK LOGOUT done".encode())
                    await writer.drain()
                    break
                elif verb == "LOGIN":
                    user, password = shlex.split(args)[:2]
                    authed = user == self.user and password == self.password
                    send(f"{tag} {'OK' if authed else 'NO'} LOGIN".encode())
                elif not authed:
                    send(f"{tag} BAD log in first".encode())
                elif verb in ("SELECT", "EXAMINE"):
                    selected = shlex.split(args)[0].upper() == "INBOX"
                    if selected:
                        with self._lock:
                            count = len(self.mails)
                        send(f"* {count} EXISTS".encode())
                        send(b"* OK [UIDVALIDITY 7] UIDs valid")
                        send(f"{tag} OK [READ-WRITE] SELECT done".encode())
                    else:
                        send(f"{tag} NO no such mailbox".encode())
                elif not selected:
                    send(f"{tag} BAD select a mailbox first".encode())
                elif verb == "SEARCH":
                    send(self._search(args, uid_mode))
                    send(f"{tag} OK SEARCH done".encode())
                elif verb == "FETCH":
                    for chunk in self._fetch(args, uid_mode):
                        writer.write(chunk)
                    send(f"{tag} OK FETCH done".encode())
                elif verb == "STORE":
                    for out in self._store(args, uid_mode):
                        send(out)
                    send(f"{tag} OK STORE done".encode())
                else:
                    send(f"{tag} BAD unknown command {verb}".encode())
                await writer.drain()
        finally:
            writer.close()

    def _pick(self, spec: str, uid_mode: bool) -> list[tuple[int, StoredMail]]:
        wanted = {int(x) for x in spec.split(",")}
        with self._lock:
            numbered = list(enumerate(self.mails, start=1))
        return [(n, m) for n, m in numbered if (m.uid if uid_mode else n) in wanted]

    def _search(self, args: str, uid_mode: bool) -> bytes:
        if args.strip().upper() not in ("UNSEEN", "CHARSET UTF-8 UNSEEN"):
            return b"* SEARCH"
        with self._lock:
            numbered = list(enumerate(self.mails, start=1))
        hits = [str(m.uid if uid_mode else n) for n, m in numbered if "\\Seen" not in m.flags]
        return ("* SEARCH " + " ".join(hits)).rstrip().encode()

    def _fetch(self, args: str, uid_mode: bool) -> list[bytes]:
        spec, _, items = args.partition(" ")
        items = items.upper()
        peek = "PEEK" in items
        out = []
        for n, mail in self._pick(spec, uid_mode):
            if not peek:
                # Real servers set \Seen when the body is fetched without PEEK.
                with self._lock:
                    mail.flags.add("\\Seen")
            name = "RFC822" if "RFC822" in items else "BODY[]"
            head = f"* {n} FETCH (UID {mail.uid} {name} {{{len(mail.raw)}}}\r\n".encode()
            out.append(head + mail.raw + b")\r\n")
        return out

    def _store(self, args: str, uid_mode: bool) -> list[bytes]:
        match = re.match(r"(\S+)\s+([+-]?)FLAGS(?:\.SILENT)?\s+\((.*)\)", args, re.IGNORECASE)
        if not match:
            return []
        spec, sign, flags = match.groups()
        out = []
        for n, mail in self._pick(spec, uid_mode):
            with self._lock:
                if sign == "+":
                    mail.flags.update(flags.split())
                elif sign == "-":
                    mail.flags.difference_update(flags.split())
                else:
                    mail.flags = set(flags.split())
                shown = " ".join(sorted(mail.flags))
            out.append(f"* {n} FETCH (UID {mail.uid} FLAGS ({shown}))".encode())
        return out
