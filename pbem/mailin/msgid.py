"""The one check a Message-ID from incoming mail passes before the referee reuses it.

A reply copies the player's ``Message-ID`` into ``In-Reply-To`` and
``References`` (mail programs thread on them). The old check allowed ``=`` and
``?`` anywhere, so an RFC 2047 encoded word inside ``<...>``
(``<=?utf-8?q?x=0D=0AInjected:_1?=@evil.test>``) passed and decoded to a raw
CR/LF wherever the header was read back. :func:`clean_msg_id` accepts only
RFC 5322 ``msg-id`` syntax — ``"<" dot-atom-text "@" (dot-atom-text /
no-fold-literal) ">"`` — with nothing an RFC 2047 decoder would act on (no
``=?`` or ``?=``), at most 250 characters; anything else is dropped.
"""

from __future__ import annotations

import re

__all__ = ["clean_msg_id"]

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_DOT_ATOM = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_LITERAL = r"\[[\x21-\x5a\x5e-\x7e]*\]"
_MSG_ID = re.compile(rf"<{_DOT_ATOM}@(?:{_DOT_ATOM}|{_LITERAL})>")
MAX_LENGTH = 250


def clean_msg_id(value: object) -> str | None:
    """Return ``value`` (stripped) if it is one plain RFC 5322 msg-id, else None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) > MAX_LENGTH or "=?" in text or "?=" in text:
        return None
    return text if _MSG_ID.fullmatch(text) else None
