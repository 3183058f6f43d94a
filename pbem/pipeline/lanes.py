"""The lane of an inbox row: which mails several workers must apply in order, one at a time.

A worker claims a lane (:class:`pbem.store.locks.LaneClaims`) before it
processes the lane's pending rows, oldest first; another worker skips the
lane meanwhile. The lane is read from the raw header block only (no MIME
parsing, so it costs microseconds and a hostile mail cannot stall it), with
the same precedence as the pipeline's routing
(:func:`pbem.pipeline.inbound.game_candidates`):

- ``game:<id>`` for the game the plus-address, the ``[game]`` subject tag
  or our own Message-IDs in ``In-Reply-To``/``References`` name;
- else ``from:<address>`` (the mail names no game: the pipeline routes it by
  its text's ``game`` line or the sender's only game), so one sender's mails
  keep their order;
- else ``""`` (no usable sender either: the worker gives the row a lane of
  its own).

Whatever the lane, the game a mail changes is also locked for the
transaction (:func:`pbem.store.locks.lock_row` in ``load_game``): a lane
orders mails, the row lock keeps two workers out of one game.
"""

from __future__ import annotations

import re

from pbem.mailin.budget import scan
from pbem.pipeline.inbound import _OUR_ID, _TAG

__all__ = ["lane_of"]

_HEAD_LIMIT = 64 * 1024
_THREAD = (b"in-reply-to", b"references")
_RECIPIENTS = (b"to", b"cc", b"delivered-to", b"x-original-to")


def _fields(raw: bytes) -> dict[bytes, list[str]]:
    """Return the unfolded header fields the lane needs (lower-case names)."""
    end = min((i for i in (raw.find(b"\n\n"), raw.find(b"\n\r\n")) if i >= 0), default=len(raw))
    head = raw[: min(end, _HEAD_LIMIT)]
    wanted = {b"subject", *_THREAD, *_RECIPIENTS}
    out: dict[bytes, list[str]] = {}
    current: list[str] | None = None
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t"):
            if current is not None:
                current[-1] += " " + line.strip().decode("latin-1")
            continue
        name, colon, value = line.partition(b":")
        key = name.strip().lower()
        if not colon or key not in wanted:
            current = None
            continue
        current = out.setdefault(key, [])
        current.append(value.strip().decode("latin-1"))
    return out


def lane_of(raw: bytes, envelope_to: str, address: str, domain: str) -> str:
    """Return the lane of a mail (see the module docstring)."""
    fields = _fields(raw)
    local, _, our_domain = address.lower().partition("@")
    plus = re.compile(
        rf"(?<![\w.+-]){re.escape(local)}\+([a-z0-9][a-z0-9-]{{0,62}})@{re.escape(our_domain)}\b"
    )
    rcpts = envelope_to.lower() + " " + " ".join(v for k in _RECIPIENTS for v in fields.get(k, []))
    found = plus.search(rcpts)
    if found:
        return f"game:{found.group(1)}"
    for subject in fields.get(b"subject", []):
        tags = _TAG.findall(subject.lower())
        if tags:
            return f"game:{tags[0]}"
    for name in _THREAD:
        for value in fields.get(name, []):
            for gid, dom in _OUR_ID.findall(value):
                if dom.lower() == domain.lower() and gid not in ("operator", "unknown"):
                    return f"game:{gid}"
    sender = scan(raw).sender
    return f"from:{sender}" if sender else ""
