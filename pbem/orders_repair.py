"""Why a player's own signature fails on the orders in his mail: what his mail program changed.

When the signature in a mail is the player's (right key, right namespace)
but matches none of the accepted forms of the text (:func:`verify_orders`),
the text changed between ``ssh-keygen -Y sign`` and the referee. Mail
programs do that in a few known ways; :func:`explain_bad_signature` tries
to undo each one on the orders text and says which one makes the signature
match, with the line:

- a long line wrapped in two (the wrapped part starts the next line);
- a quoted-printable soft break (``=`` at a line's end) or an ``=3D`` left in
  the text by a client that did not decode it.

A repair is only used to explain: the orders are still refused, since the
text in the mail is not what was signed. When no repair matches, the reply
names the likely causes (long lines, trailing spaces, line ends) instead.
Either way it says how to send the signed file untouched: as an attachment.
The search is bounded (at most a few hundred signature checks).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from pbem import sshsig
from pbem.orders_text import SignedOrders, canonicalize
from pbem.sshsig import SshPublicKey, SshSignature

__all__ = ["ATTACH_ADVICE", "Repair", "explain_bad_signature", "find_repair"]

WRAP_WIDTH = 60
"""A line at least this long, followed by a word that would overflow it, may have been wrapped."""
MAX_WRAP_POINTS = 10
MAX_JOINED = 3
MAX_LINES = 200

ATTACH_ADVICE = (
    "To send the signed text untouched, attach the file you signed and its signature "
    "(for example orders.txt and orders.txt.sig, exactly as ssh-keygen wrote them: any "
    "name works when the signature is the same name plus .sig) instead of pasting them "
    "into the mail; or turn off line wrapping in your mail program and paste again."
)


@dataclass(frozen=True)
class Repair:
    """What the mail program changed: a sentence naming the line(s)."""

    what: str
    lines: tuple[int, ...]


def _forms(text: str) -> Iterator[bytes]:
    data = text.encode("utf-8", "surrogatepass")
    yield data
    yield data[:-1]
    yield data.replace(b"\n", b"\r\n")


def _matches(text: str, signature: SshSignature, key: SshPublicKey) -> bool:
    for data in _forms(canonicalize(text)):
        try:
            sshsig.verify(data, signature, (key,), namespace=signature.namespace)
        except sshsig.SshSigError:
            continue
        return True
    return False


def _wrap_points(lines: list[str]) -> list[int]:
    points = []
    for i in range(len(lines) - 1):
        here, nxt = lines[i], lines[i + 1]
        if here.strip() and nxt.strip() and len(here) + 1 + len(nxt.split()[0]) > WRAP_WIDTH:
            points.append(i)
    return points[:MAX_WRAP_POINTS]


def _join(lines: list[str], points: tuple[int, ...], sep: str) -> str:
    out: list[str] = []
    for i, line in enumerate(lines):
        if out and i - 1 in points:
            out[-1] = out[-1] + sep + line.lstrip()
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _quote(line: str) -> str:
    line = line.strip()
    return f"'{line[:40]}...'" if len(line) > 43 else f"'{line}'"


def _wrapped(lines: list[str], signature: SshSignature, key: SshPublicKey) -> Repair | None:
    points = _wrap_points(lines)
    tried: list[tuple[int, ...]] = []
    for size in range(1, min(MAX_JOINED, len(points)) + 1):
        tried += list(combinations(points, size))
    if len(points) > MAX_JOINED:
        tried.append(tuple(points))
    for chosen in tried:
        for sep in (" ", ""):
            if _matches(_join(lines, chosen, sep), signature, key):
                numbers = tuple(i + 2 for i in chosen)
                said = "; ".join(
                    f"line {i + 2} ({_quote(lines[i + 1])}) is the end of line {i + 1}"
                    for i in chosen
                )
                return Repair(
                    f"your mail program wrapped a long line: {said} of the text you signed",
                    numbers,
                )
    return None


def _soft_breaks(lines: list[str], signature: SshSignature, key: SshPublicKey) -> Repair | None:
    ends = tuple(i for i, line in enumerate(lines[:-1]) if line.endswith("="))
    if ends and _matches(
        _join([ln[:-1] if i in ends else ln for i, ln in enumerate(lines)], ends, ""),
        signature,
        key,
    ):
        numbers = tuple(i + 1 for i in ends)
        where = ", ".join(str(n) for n in numbers)
        return Repair(
            f"line {where} ends in '=': a quoted-printable soft line break that your "
            "mail program left in the text instead of joining the line with the next",
            numbers,
        )
    text = "\n".join(lines) + "\n"
    if "=3D" in text.upper() and _matches(
        text.replace("=3D", "=").replace("=3d", "="), signature, key
    ):
        numbers = tuple(i + 1 for i, ln in enumerate(lines) if "=3D" in ln.upper())
        where = ", ".join(str(n) for n in numbers)
        return Repair(
            f"line {where} holds '=3D', the quoted-printable code for '=', which your mail "
            "program did not decode",
            numbers,
        )
    return None


def find_repair(found: SignedOrders, key: SshPublicKey) -> Repair | None:
    """Return the change that, undone, makes ``key``'s signature match (None if none found)."""
    try:
        signature = SshSignature.from_armor(found.signature)
    except sshsig.SshSigError:
        return None
    lines = found.text.rstrip("\n").split("\n")[:MAX_LINES]
    # Inline orders may start with lines the signature never covered (a greeting).
    for start in range(min(3, len(lines))):
        rest = lines[start:]
        found_repair = _soft_breaks(rest, signature, key) or _wrapped(rest, signature, key)
        if found_repair is not None:
            if start == 0:
                return found_repair
            shifted = tuple(n + start for n in found_repair.lines)
            what = found_repair.what
            for old, new in sorted(zip(found_repair.lines, shifted, strict=True), reverse=True):
                what = what.replace(f"line {old}", f"line {new}")
            return Repair(what, shifted)
    return None


def explain_bad_signature(found: SignedOrders, key: SshPublicKey) -> str:
    """Say what changed after signing (line, cause) and how to send the signed file instead."""
    repair = find_repair(found, key)
    if repair is not None:
        return (
            f"your key signed these orders, but the text changed after signing: {repair.what} "
            f"(line numbers count the orders text above the signature). {ATTACH_ADVICE}"
        )
    lines = found.text.rstrip("\n").split("\n")
    long = [str(i) for i, line in enumerate(lines, 1) if len(line) > 72]
    hints = []
    if long:
        hints.append(
            f"line {', '.join(long[:5])} {'is' if len(long) == 1 else 'are'} longer than "
            "72 characters, which many mail programs wrap"
        )
    hints.append(
        "a space at the end of a line of the signed file, removed or turned into a "
        "line break by the mail program"
    )
    hints.append("a line edited, added or removed after signing")
    place = "the attached file" if found.source == "attachments" else "the text in your mail"
    return (
        f"your key signed these orders, but {place} is not exactly what was signed "
        f"(it changed after signing). Likely: {'; or '.join(hints)}. {ATTACH_ADVICE}"
    )
