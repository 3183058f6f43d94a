"""MIME mail written straight to bytes: what the referee sends, without the header registry.

``email.message.EmailMessage`` parses every header it is given into a header
object and folds it again when the message is written, and its generator
splits every body into lines: for a turn mail (a PNG and an SVG in base64,
an HTML part in quoted-printable) that was most of the CPU a turn cost.
:class:`Mime` keeps headers as text and bodies as encoded bytes, and writes
the **same bytes** the standard library writes with ``email.policy.SMTP``
for the mails pbem builds (``tests/test_mailviews_mime.py`` compares them
with the standard library's, byte for byte):

- a header is written as is when it is short printable ASCII of a kind the
  standard library would write unchanged; any other (non-ASCII, long,
  an address) goes through the standard library's own folding, cached;
- a text part takes the standard library's transfer encoding choice (7bit,
  8bit, quoted-printable or base64: :func:`text_encoding`), binary parts are
  base64 in 76-character lines;
- an attachment added to the top-level mail carries ``MIME-Version`` as
  ``EmailMessage.add_attachment`` gives it.

Only the operations the pipeline needs exist: build, read/set/delete a
top-level header, add an attachment, write bytes.
"""

from __future__ import annotations

import base64
import binascii
import email
import re
from collections.abc import Iterator
from email import quoprimime
from email.message import EmailMessage
from email.policy import SMTP, Policy, default
from functools import lru_cache

__all__ = [
    "Mime",
    "OutgoingMail",
    "bytes_part",
    "header_line",
    "multipart",
    "text_encoding",
    "text_part",
]

MAX_LINE = 78
"""The SMTP policy's line length: headers fold past it, text past it is encoded."""

_PRINTABLE = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*\Z")
_MSG_ID = re.compile(r"<[\x21-\x3b\x3d\x3f-\x7e]+@[\x21-\x3b\x3d\x3f-\x7e]+>\Z")
_TOKEN = re.compile(r"[A-Za-z0-9!#$%&'*+\-.^_`{|}~/]+\Z")
_PARAM = re.compile(r"[\x20\x21\x23-\x5b\x5d-\x7e]*\Z")
_VERBATIM = frozenset(
    {"subject", "auto-submitted", "in-reply-to", "references", "content-id", "x-pbem-game"}
)
"""Unstructured headers: the standard library writes a short printable value unchanged."""


def header_line(name: str, value: str) -> bytes:
    """``Name: value`` as the SMTP policy writes it (folded, CRLF-terminated)."""
    key = name.lower()
    line = f"{name}: {value}"
    if len(line) <= MAX_LINE and "=?" not in value and _PRINTABLE.match(value):
        if key in _VERBATIM or key.startswith("x-"):
            return (line + "\r\n").encode("ascii")
        if key in ("message-id",) and _MSG_ID.match(value):
            return (line + "\r\n").encode("ascii")
        if key == "content-transfer-encoding" and _TOKEN.match(value):
            return (line + "\r\n").encode("ascii")
        if key == "mime-version" and value == "1.0":
            return (line + "\r\n").encode("ascii")
    return _folded(name, value)


@lru_cache(maxsize=512)
def _folded(name: str, value: str) -> bytes:
    """The standard library's folding of one header (addresses, dates, long or non-ASCII)."""
    return SMTP.fold_binary(name, SMTP.header_factory(name, value))


def _param_header(name: str, value: str, params: tuple[tuple[str, str], ...]) -> bytes:
    """``Content-Type``/``Content-Disposition`` with quoted parameters, folded as the SMTP
    policy folds them (one parameter per line once the line is full)."""
    if not (_TOKEN.match(value) and all(_TOKEN.match(k) and _PARAM.match(v) for k, v in params)):
        text = "; ".join([value, *(f'{k}="{v}"' for k, v in params)])
        return _folded(name, text)
    lines = [f"{name}: {value}"]
    for key, val in params:
        lines[-1] += ";"
        item = f'{key}="{val}"'
        if len(lines[-1]) + len(item) + 1 < MAX_LINE:
            lines[-1] += " " + item
        elif len(item) + 2 <= MAX_LINE:
            lines.append(" " + item)
        else:  # a parameter longer than a line: the standard library splits it (RFC 2231)
            text = "; ".join([value, *(f'{k}="{v}"' for k, v in params)])
            return _folded(name, text)
    return ("\r\n".join(lines) + "\r\n").encode("ascii")


def text_encoding(text: str, charset: str = "utf-8") -> tuple[str, bytes]:
    """The transfer encoding ``EmailMessage.set_content`` picks for ``text``, and the body.

    Lines within 78 octets stay as they are (``7bit`` if ASCII, else
    ``8bit``); otherwise quoted-printable or base64, whichever the first ten
    lines say is shorter. The body has LF line ends.
    """
    lines = text.encode(charset).splitlines()
    if max((len(x) for x in lines), default=0) <= MAX_LINE:
        body = b"\n".join(lines) + b"\n"
        return ("7bit" if body.isascii() else "8bit"), body
    sniff = b"\n".join(lines[:10]) + b"\n"
    sniff_qp = quoprimime.body_encode(sniff.decode("latin-1"), MAX_LINE)
    if len(sniff_qp) > len(binascii.b2a_base64(sniff)):
        return "base64", base64.encodebytes(b"\n".join(lines) + b"\n")
    if len(lines) <= 10:
        return "quoted-printable", sniff_qp.encode("ascii")
    whole = (b"\n".join(lines) + b"\n").decode("latin-1")
    return "quoted-printable", quoprimime.body_encode(whole, MAX_LINE).encode("ascii")


class Mime:
    """One MIME entity: headers as (name, value) text, then a body or parts.

    ``body`` is the encoded body with LF line ends; ``parts`` and ``boundary``
    make a multipart. Headers given as ready ``bytes`` lines are written as they are.
    """

    def __init__(
        self,
        headers: list[tuple[str, str | bytes]],
        body: bytes = b"",
        parts: list[Mime] | None = None,
        boundary: str = "",
    ) -> None:
        self.headers = headers
        self.body = body
        self.parts = parts if parts is not None else []
        self.boundary = boundary

    # --- the EmailMessage calls the pipeline makes on a composed mail ---------------

    def get(self, name: str, failobj: str | None = None) -> str | None:
        """The first header called ``name`` (any case), as text, or ``failobj``."""
        key = name.lower()
        for n, v in self.headers:
            if n.lower() == key:
                return v if isinstance(v, str) else _value_of(v)
        return failobj

    def __getitem__(self, name: str) -> str | None:
        return self.get(name)

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __setitem__(self, name: str, value: str) -> None:
        self.headers.append((name, value))

    def __delitem__(self, name: str) -> None:
        key = name.lower()
        self.headers = [(n, v) for n, v in self.headers if n.lower() != key]

    def add_attachment(
        self,
        data: str | bytes,
        *,
        maintype: str = "",
        subtype: str,
        charset: str = "utf-8",
        filename: str,
    ) -> None:
        """Attach ``data`` (text, or bytes as ``maintype/subtype``) to this multipart/mixed mail."""
        if isinstance(data, str):
            part = text_part(data, subtype, charset=charset, filename=filename)
        else:
            part = bytes_part(data, maintype, subtype, filename=filename)
        part.headers.append(("MIME-Version", "1.0"))
        self.parts.append(part)

    # --- writing ----------------------------------------------------------------------

    def as_bytes(self, policy: Policy | None = None) -> bytes:
        """The entity as ``EmailMessage.as_bytes(policy=email.policy.SMTP)`` writes it.

        Raises ``ValueError`` for another ``policy``: this writer knows SMTP's only.
        """
        if policy is not None and policy is not SMTP:
            raise ValueError("a Mime is written with the SMTP policy only")
        return b"".join(self._chunks())

    def _chunks(self) -> Iterator[bytes]:
        for name, value in self.headers:
            yield value if isinstance(value, bytes) else header_line(name, value)
        yield b"\r\n"
        if not self.parts:
            yield self.body.replace(b"\n", b"\r\n")
            return
        dash = f"--{self.boundary}".encode("ascii")
        for i, part in enumerate(self.parts):
            yield (b"\r\n" if i else b"") + dash + b"\r\n"
            yield from part._chunks()
        yield b"\r\n" + dash + b"--\r\n"

    def message(self) -> EmailMessage:
        """The mail parsed back by the standard library (tests, and callers that read it).

        Read with LF line ends, as a mail program hands a mail to its reader.
        """
        raw = self.as_bytes().replace(b"\r\n", b"\n")
        parsed = email.message_from_bytes(raw, policy=default)
        assert isinstance(parsed, EmailMessage)
        return parsed


def _value_of(line: bytes) -> str:
    """The unfolded value of a written header line."""
    text = line.decode("ascii", "replace").split(":", 1)[1]
    return " ".join(text.split())


def text_part(
    text: str,
    subtype: str,
    *,
    charset: str = "utf-8",
    filename: str | None = None,
    disposition: str | None = None,
) -> Mime:
    """A text part as ``set_content(text, subtype=..., charset=...)`` makes it."""
    cte, body = text_encoding(text, charset)
    headers: list[tuple[str, str | bytes]] = [
        ("Content-Type", _param_header("Content-Type", f"text/{subtype}", (("charset", charset),))),
        ("Content-Transfer-Encoding", cte),
    ]
    _disposition(headers, disposition, filename)
    return Mime(headers, body)


def bytes_part(
    data: bytes,
    maintype: str,
    subtype: str,
    *,
    filename: str | None = None,
    disposition: str | None = None,
    cid: str | None = None,
) -> Mime:
    """A binary part in base64, as ``set_content(data, maintype, subtype, ...)`` makes it."""
    headers: list[tuple[str, str | bytes]] = [
        ("Content-Type", f"{maintype}/{subtype}"),
        ("Content-Transfer-Encoding", "base64"),
    ]
    _disposition(headers, disposition, filename)
    if cid is not None:
        headers.append(("Content-ID", cid))
    return Mime(headers, base64.encodebytes(data))


def _disposition(
    headers: list[tuple[str, str | bytes]], disposition: str | None, filename: str | None
) -> None:
    if filename is None and disposition is None:
        return
    kind = disposition or "attachment"
    params = (("filename", filename),) if filename is not None else ()
    headers.append(("Content-Disposition", _param_header("Content-Disposition", kind, params)))


def multipart(
    subtype: str,
    boundary: str,
    parts: list[Mime],
    *,
    headers: list[tuple[str, str | bytes]] | None = None,
    params: tuple[tuple[str, str], ...] = (),
) -> Mime:
    """A ``multipart/subtype`` entity: ``headers`` first, then its ``Content-Type``."""
    ctype = _param_header("Content-Type", f"multipart/{subtype}", (("boundary", boundary), *params))
    return Mime([*(headers or []), ("Content-Type", ctype)], parts=parts, boundary=boundary)


OutgoingMail = EmailMessage | Mime
"""What the outbox queues: a standard library message or a :class:`Mime` built by pbem."""
