"""Signed orders in mail: the canonical text, finding it in a message, verifying it.

The canonical form (design.md §4) is what a player signs and what the
referee reads. :func:`canonicalize` makes it:

1. every U+FEFF (byte-order mark) is removed;
2. the text is normalised to Unicode NFC;
3. CRLF and lone CR become LF;
4. trailing white space (anything :meth:`str.isspace` accepts: space, tab,
   no-break space, ...) is stripped from each line;
5. blank lines at the start and the end are dropped;
6. the text ends in exactly one LF (an empty text stays empty).

Orders travel either inline in the text/plain body (orders text, then the
armored ``-----BEGIN SSH SIGNATURE-----`` block; quoted ``>`` lines and
everything after the block are ignored) or as two attachments,
``orders.txt`` and ``orders.txt.sig``. :func:`extract_orders` finds them and
:func:`verify_orders` checks the signature; inline, the orders are the lines
right above the block that the signature covers (unsigned lines above them,
such as a greeting, are dropped and counted). Every failure is an
:class:`~pbem.sshsig.SshSigError` (a ``ValueError``) with a stable ``code``,
so the pipeline catches one class and a mail template switches on the code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Literal

from pbem import sshsig
from pbem.sshsig import SshPublicKey, SshSigError, SshSignature

SIGNATURE_BEGIN = "-----BEGIN SSH SIGNATURE-----"
SIGNATURE_END = "-----END SSH SIGNATURE-----"
ORDERS_ATTACHMENT = "orders.txt"
SIGNATURE_ATTACHMENT = "orders.txt.sig"

_LINE_END = re.compile(r"\r\n|\r|\n")

Source = Literal["inline", "attachments"]


class OrdersMailError(SshSigError):
    """The message does not hold signed orders in a form pbem can read."""

    code = "orders-mail-error"


class NoSignatureError(OrdersMailError):
    """No ``-----BEGIN SSH SIGNATURE-----`` block (unquoted) in the text part."""

    code = "no-signature"


class TwoSignaturesError(OrdersMailError):
    """More than one signature block: pbem cannot tell which orders count."""

    code = "two-signatures"


class MissingAttachmentError(OrdersMailError):
    """Only one of ``orders.txt`` and ``orders.txt.sig`` is attached."""

    code = "missing-attachment"


class DuplicateAttachmentError(OrdersMailError):
    """``orders.txt`` or ``orders.txt.sig`` is attached more than once."""

    code = "duplicate-attachment"


class HtmlOnlyError(OrdersMailError):
    """The message has an HTML part but no text/plain part to read orders from."""

    code = "html-only"


class NoOrdersError(OrdersMailError):
    """The signature block is there, but no orders text precedes it."""

    code = "no-orders"


class BadEncodingError(OrdersMailError):
    """The text cannot be decoded (unknown charset, or bytes not in it)."""

    code = "bad-encoding"


def canonicalize(text: str) -> str:
    """Return the canonical form of an orders text (rules in the module docstring).

    Idempotent: ``canonicalize(canonicalize(t)) == canonicalize(t)``.
    """
    # The BOM goes first: removing it later could let its neighbours compose.
    text = unicodedata.normalize("NFC", text.replace("\ufeff", ""))
    lines = [line.rstrip() for line in _LINE_END.split(text)]
    start, stop = 0, len(lines)
    while start < stop and not lines[start]:
        start += 1
    while stop > start and not lines[stop - 1]:
        stop -= 1
    return "".join(line + "\n" for line in lines[start:stop])


_SURROGATE = re.compile("[\ud800-\udfff]")
_ASCII_NAMES = frozenset({"us-ascii", "ascii", "ansi_x3.4-1968"})


def decode_text(data: bytes, charset: str | None = None, *, file: bool = False) -> str:
    """Decode bytes by their declared charset, else UTF-8; raise :class:`BadEncodingError`.

    A mail body is decoded with its declared charset first (clients
    re-encode what the player pasted), falling back to UTF-8 for bodies
    mislabelled ``us-ascii``. A ``file`` (``orders.txt``) is meant to be
    UTF-8, so UTF-8 goes first and the declared charset is the fallback.
    """
    declared = None if charset is None or charset.lower() in _ASCII_NAMES else charset
    order = ["utf-8", declared] if file else [declared, "utf-8"]
    unknown = False
    for name in order:
        if name is None:
            continue
        try:
            text = data.decode(name)
        except UnicodeDecodeError:
            continue
        except (LookupError, ValueError):  # ValueError: a NUL in the name ("embedded null")
            unknown = True
            continue
        if _SURROGATE.search(text):
            # UTF-7 (of the codecs a mail may name) decodes "+2AI-" to a lone
            # surrogate, which no UTF-8 text can hold: not a decoding either.
            continue
        return text
    if unknown:
        raise BadEncodingError(f"unknown charset {declared!r}", charset=declared or "")
    raise BadEncodingError(
        "the text is not valid UTF-8" + (f" nor {declared}" if declared else ""),
        charset=declared or "",
    )


def canonical_bytes(data: bytes) -> bytes:
    """Return the canonical form of a UTF-8 file's bytes, as UTF-8 bytes."""
    return canonicalize(decode_text(data, file=True)).encode("utf-8")


@dataclass(frozen=True)
class SignedOrders:
    """Orders found in a message, not yet verified.

    ``text`` is canonical; ``signature`` is the armored block alone;
    ``raw`` holds the exact bytes of the signed attachment (None when
    inline); ``signature_line`` is the body line (from 1) where the inline
    block begins, 0 for attachments; ``filename`` names the signed
    attachment. ``alternates`` are other readings of the same body that the
    signature may cover: the body as sent when it was ``format=flowed``
    (a line of the signed file ending in a space reads as a soft break), and
    the orders lines as sent, trailing white space kept. ``trailing`` holds
    the unquoted, non-blank lines after the block (a sign-off, a footer):
    never read as orders, and quoted back to the player as ignored.
    """

    text: str
    signature: str
    source: Source
    raw: bytes | None = None
    signature_line: int = 0
    filename: str = ""
    alternates: tuple[bytes, ...] = ()
    trailing: tuple[str, ...] = ()


@dataclass(frozen=True)
class VerifiedOrders:
    """Orders whose signature checked out.

    ``text`` is the canonical orders text the signature covers;
    ``signed_bytes`` are the exact bytes it covers (hash these for replay
    detection and the dice stream); ``form`` says whether they are the
    canonical text or the raw attachment; ``unsigned_lines`` counts the
    non-blank lines above the inline orders that the signature did not
    cover and that were therefore ignored; ``namespace`` is the one the
    signature was checked against.
    """

    text: str
    signer: SshPublicKey
    signature: SshSignature
    signed_bytes: bytes
    form: Literal["canonical", "raw"]
    unsigned_lines: int = 0
    namespace: str = sshsig.DEFAULT_NAMESPACE

    def ignored(self, found: SignedOrders) -> tuple[str, ...]:
        """The unsigned lines of ``found`` (above the signed text, then after the block)."""
        above = [line for line in canonicalize(found.text).split("\n") if line.strip()]
        return (*above[: self.unsigned_lines], *found.trailing)


def parse_message(raw: bytes) -> EmailMessage:
    """Parse a raw RFC 5322 message with ``email.policy.default``."""
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)  # policy.default always builds these
    return message


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _unflow(text: str, delsp: bool) -> str:
    """Undo ``format=flowed`` (RFC 3676): join soft-broken lines, unstuff spaces."""
    out: list[str] = []
    pending: str | None = None
    pending_depth = 0
    for line in _LINE_END.split(text):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        if pending is not None and depth != pending_depth:
            out.append(">" * pending_depth + pending)
            pending = None
        joined = content if pending is None else pending + content
        if content.endswith(" ") and content != "-- ":
            pending, pending_depth = (joined[:-1] if delsp else joined), depth
        else:
            out.append(">" * depth + joined)
            pending = None
    if pending is not None:
        out.append(">" * pending_depth + pending)
    return "\n".join(out)


def _attribution_lines(lines: list[str]) -> set[int]:
    """Find "On <date>, <someone> wrote:" lines: unquoted, ending in ':', before a quote."""
    found: set[int] = set()
    next_quoted = False  # is the next non-blank line (scanning upwards) quoted?
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if not line.strip():
            continue
        if next_quoted and not _is_quoted(line) and line.rstrip().endswith(":"):
            found.add(index)
        next_quoted = _is_quoted(line)
    return found


def _blocks(lines: list[str]) -> list[tuple[int, int | None]]:
    """List the unquoted signature blocks as (BEGIN line, END line or None) indexes."""
    blocks: list[tuple[int, int | None]] = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == SIGNATURE_BEGIN and not _is_quoted(lines[index]):
            end = next(
                (j for j in range(index + 1, len(lines)) if lines[j].strip() == SIGNATURE_END),
                None,
            )
            blocks.append((index, end))
            index = len(lines) if end is None else end + 1
        else:
            index += 1
    return blocks


def _is_server_signature(block: str) -> bool:
    """Tell a ``pbem-mail`` block (the referee's, from an unquoted reply) from orders."""
    try:
        return SshSignature.from_armor(block).namespace == sshsig.MAIL_NAMESPACE
    except SshSigError:
        return False


def extract_from_body(body: str) -> SignedOrders:
    """Find the orders text and signature block in a text/plain body.

    The orders are the unquoted lines before the block, less a mail client's
    attribution line ("... wrote:") in front of a quote; quoted lines and
    everything after the block are ignored. A ``pbem-mail`` block (the
    referee's own signature, pasted back unquoted by clients that reply
    above the original without ``>``) is not an orders block and is skipped.
    """
    lines = _LINE_END.split(body)
    blocks: list[tuple[int, int]] = []
    server: set[int] = set()
    for begin, end in _blocks(lines):
        if end is None:
            raise sshsig.BadArmorError(
                f"the signature block from line {begin + 1} has no {SIGNATURE_END} line",
                line=str(begin + 1),
            )
        if _is_server_signature("\n".join(lines[begin : end + 1])):
            server.update(range(begin, end + 1))
        else:
            blocks.append((begin, end))
    if not blocks:
        if server or any(SIGNATURE_BEGIN in line for line in lines):
            raise NoSignatureError(
                "the only signature block is quoted or is the referee's own; "
                "put your orders and their signature above the quote, unquoted"
            )
        raise NoSignatureError(
            f"no {SIGNATURE_BEGIN} block: sign your orders (see docs/signing.md) and paste "
            "the orders, then the whole signature block, into the message"
        )
    if len(blocks) > 1:
        where = ", ".join(str(begin + 1) for begin, _ in blocks)
        raise TwoSignaturesError(
            f"{len(blocks)} signature blocks (lines {where}); send one set of orders per message",
            lines=where,
        )
    begin, end = blocks[0]
    skip = _attribution_lines(lines[:begin]) | server
    kept = [line for i, line in enumerate(lines[:begin]) if i not in skip and not _is_quoted(line)]
    text = canonicalize("\n".join(kept))
    if not text:
        raise NoOrdersError("the signature block has no orders text above it")
    block = "\n".join(line.strip() for line in lines[begin : end + 1]) + "\n"
    after = lines[end + 1 :]
    skip_after = {i - end - 1 for i in _attribution_lines(lines) | server if i > end}
    trailing = tuple(
        line.strip()
        for i, line in enumerate(after)
        if line.strip() and not _is_quoted(line) and i not in skip_after
    )
    # The lines as sent, trailing spaces kept (blank lines at either end dropped).
    while kept and not kept[0].strip():
        kept.pop(0)
    while kept and not kept[-1].strip():
        kept.pop()
    as_sent = "\n".join(kept) + "\n"
    alternates = (as_sent.encode("utf-8", "surrogatepass"),) if as_sent != text else ()
    return SignedOrders(
        text, block, "inline", None, begin + 1, alternates=alternates, trailing=trailing
    )


def _signature_block(text: str, name: str = SIGNATURE_ATTACHMENT) -> str:
    """Cut the armored block out of a ``.sig`` file's text."""
    start = text.find(SIGNATURE_BEGIN)
    if start < 0:
        raise sshsig.BadArmorError(f"{name} holds no {SIGNATURE_BEGIN} line")
    if text.find(SIGNATURE_BEGIN, start + 1) >= 0:
        raise TwoSignaturesError(f"{name} holds more than one signature block")
    stop = text.find(SIGNATURE_END, start)
    if stop < 0:
        raise sshsig.BadArmorError(f"{name} has no {SIGNATURE_END} line")
    block = text[start : stop + len(SIGNATURE_END)]
    return "\n".join(line.strip() for line in _LINE_END.split(block)) + "\n"


def _filename(part: EmailMessage) -> str:
    name = part.get_filename() or ""
    return re.split(r"[\\/]", name)[-1].strip().lower()


def _part_bytes(part: EmailMessage) -> bytes:
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def _sig_text(part: EmailMessage, name: str) -> str:
    try:
        return _part_bytes(part).decode("ascii")
    except UnicodeDecodeError:
        raise sshsig.BadArmorError(f"{name} is not an ASCII text file") from None


def _from_attachments(message: EmailMessage) -> SignedOrders | None:
    """Find one attached pair ``X`` + ``X.sig`` (any name; ``orders.txt`` is the usual one).

    A ``.sig`` holding the referee's own ``pbem-mail`` signature (a forwarded
    turn mail's ``pbem.txt.sig``) is not orders and is skipped; other
    attachments (a picture, the board) are ignored.
    """
    parts: dict[str, list[EmailMessage]] = {}
    for part in message.walk():
        if isinstance(part, EmailMessage) and not part.is_multipart():
            name = _filename(part)
            if name:
                parts.setdefault(name, []).append(part)
    pairs: list[tuple[str, str]] = []
    for sig_name, sig_parts in parts.items():
        if not sig_name.endswith(".sig") or len(sig_name) <= len(".sig"):
            continue
        data = _part_bytes(sig_parts[0])
        if len(sig_parts) == 1 and data.isascii() and _is_server_signature(data.decode("ascii")):
            continue
        pairs.append((sig_name[: -len(".sig")], sig_name))
    if not pairs:
        if ORDERS_ATTACHMENT in parts:
            raise MissingAttachmentError(
                f"{ORDERS_ATTACHMENT} is attached but {SIGNATURE_ATTACHMENT} is not; attach both",
                name=SIGNATURE_ATTACHMENT,
            )
        return None
    if len(pairs) > 1:
        names = ", ".join(sorted(sig for _, sig in pairs))
        raise TwoSignaturesError(
            f"{len(pairs)} signature files are attached ({names}); "
            "send one signed file and its .sig per message",
            lines=names,
        )
    file_name, sig_name = pairs[0]
    for name in (file_name, sig_name):
        if len(parts.get(name, ())) > 1:
            raise DuplicateAttachmentError(
                f"{name} is attached {len(parts[name])} times", name=name
            )
    if file_name not in parts:
        raise MissingAttachmentError(
            f"{sig_name} is attached but {file_name} is not; attach the file you signed "
            "and its .sig",
            name=file_name,
        )
    orders = parts[file_name][0]
    raw = _part_bytes(orders)
    text = canonicalize(decode_text(raw, orders.get_content_charset(), file=True))
    if not text:
        raise NoOrdersError(f"{file_name} is empty")
    block = _signature_block(_sig_text(parts[sig_name][0], sig_name), sig_name)
    return SignedOrders(text, block, "attachments", raw, 0, file_name)


def body_text(message: EmailMessage) -> str:
    """Return the decoded text/plain body, flowed lines joined.

    Raises :class:`HtmlOnlyError` when only HTML is there,
    :class:`NoSignatureError` when there is no text at all and
    :class:`BadEncodingError` when the charset does not decode it.
    """
    return _body(message, unflow=True)[0]


def _body(message: EmailMessage, *, unflow: bool) -> tuple[str, bool]:
    """Return (the body text, whether it was ``format=flowed``); see :func:`body_text`."""
    part = message.get_body(preferencelist=("plain",))
    if not isinstance(part, EmailMessage):
        if message.get_body(preferencelist=("html",)) is not None:
            raise HtmlOnlyError(
                "the message has only an HTML part; send orders as plain text "
                "(or attach the signed file and its .sig)"
            )
        raise NoSignatureError("the message has no text part")
    text = decode_text(_part_bytes(part), part.get_content_charset())
    flowed = str(part.get_param("format", "")).lower() == "flowed"
    if flowed and unflow:
        delsp = str(part.get_param("delsp", "")).lower() == "yes"
        text = _unflow(text, delsp)
    return text, flowed


def extract_orders(message: EmailMessage) -> SignedOrders:
    """Find the signed orders in a message parsed with ``email.policy.default``.

    Attachments win: if either ``orders.txt`` or ``orders.txt.sig`` is
    attached, both must be, and the body is not read. Otherwise the orders
    are read inline from the text/plain body.
    """
    attached = _from_attachments(message)
    if attached is not None:
        return attached
    text, flowed = _body(message, unflow=True)
    found = extract_from_body(text)
    if not flowed:
        return found
    # A signed file with a space at a line's end reads, in a flowed body, as a
    # soft break: the body as sent (lines not joined) is another reading.
    try:
        sent = extract_from_body(_body(message, unflow=False)[0])
    except SshSigError:
        return found
    extra = tuple(x for x in (sent.text.encode("utf-8"), *sent.alternates) if x)
    return replace(found, alternates=found.alternates + extra)


MAX_UNSIGNED_LINES = 100  # bounds the work a forged mail can cause: 3 checks per line
MAX_SEARCHED_CHARS = 64 * 1024
MAX_ALTERNATES = 4


def _candidates(text: str, raw: bytes | None) -> list[tuple[bytes, Literal["canonical", "raw"]]]:
    """List the byte strings the signature may cover for ``text``, best first.

    Every candidate canonicalises to ``text``, so accepting any of them
    accepts the same orders: the canonical text, without its final LF or
    with CRLF line ends (files a player signed before an editor, a paste or
    a mail client changed only those); an attachment's exact bytes, and
    those bytes with their line ends made LF or CRLF (MIME sends text with
    CRLF line ends, and some clients convert them).
    """
    try:
        canonical = text.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates: not text anyone could have signed
        raise BadEncodingError("the orders hold characters that are not valid Unicode") from exc
    out: list[tuple[bytes, Literal["canonical", "raw"]]] = [(canonical, "canonical")]
    if raw is not None:
        lf = raw.replace(b"\r\n", b"\n")
        out += [(raw, "raw"), (lf, "raw"), (lf.replace(b"\n", b"\r\n"), "raw")]
    out.append((canonical[:-1], "canonical"))
    out.append((canonical.replace(b"\n", b"\r\n"), "canonical"))
    unique: dict[bytes, Literal["canonical", "raw"]] = {}
    for data, form in out:
        unique.setdefault(data, form)
    return list(unique.items())


def _texts(found: SignedOrders) -> list[tuple[str, int]]:
    """List (orders text, non-blank lines dropped above it), longest first.

    Inline, a greeting or a wrapped "... wrote:" line above the orders is
    not covered by the signature; dropping whole lines from the top finds
    the text that is. Attachments are taken whole, and so are texts too
    long to be orders (the search would let a forged mail cost seconds).
    """
    text = canonicalize(found.text)
    if found.source != "inline" or len(text) > MAX_SEARCHED_CHARS:
        return [(text, 0)]
    # A suffix of a canonical text that starts on a non-blank line is canonical.
    lines = [line + "\n" for line in text.split("\n")[:-1]]  # LF only: canonical line ends
    out: list[tuple[str, int]] = []
    offset = dropped = 0
    for line in lines[: MAX_UNSIGNED_LINES + 1]:
        if line != "\n":
            out.append((text[offset:], dropped))
            dropped += 1
        offset += len(line)
    return out


def verify_orders(
    found: SignedOrders,
    keys: SshPublicKey | Iterable[SshPublicKey],
    *,
    namespace: str = sshsig.DEFAULT_NAMESPACE,
) -> VerifiedOrders:
    """Verify that one of ``keys`` signed ``found`` (canonical text or exact attachment).

    The orders are what the signature covers: inline, that may be fewer
    lines than ``found.text`` (``VerifiedOrders.unsigned_lines`` says how
    many were dropped from the top; a reply should tell the player).

    Raises the :class:`~pbem.sshsig.SshSigError` of the first check that
    fails: ``wrong-namespace`` and ``wrong-key`` do not depend on the text,
    ``bad-signature`` means no accepted form of the text matches.
    """
    expected = (keys,) if isinstance(keys, SshPublicKey) else tuple(keys)
    signature = SshSignature.from_armor(found.signature)
    failure: sshsig.BadSignatureError | None = None
    tries = [(text, dropped, _candidates(text, found.raw)) for text, dropped in _texts(found)]
    for alternate in found.alternates[:MAX_ALTERNATES]:
        try:
            text = canonicalize(alternate.decode("utf-8"))
        except UnicodeDecodeError:
            continue
        if text:
            forms: list[tuple[bytes, Literal["canonical", "raw"]]] = [
                (alternate, "raw"),
                *_candidates(text, None),
            ]
            tries.append((text, 0, forms))
    for text, dropped, candidates in tries:
        for data, form in candidates:
            try:
                sig = sshsig.verify(data, signature, expected, namespace=namespace)
            except sshsig.BadSignatureError as exc:
                failure = failure or exc
                continue
            return VerifiedOrders(text, sig.public_key, sig, data, form, dropped, namespace)
    assert failure is not None
    raise failure
