"""Read and write the SSH wire encoding (RFC 4251 §5) and ASCII armor.

Only what SSHSIG and OpenSSH key files need: ``uint32``, ``string`` (a
length-prefixed byte string) and raw bytes. The reader raises the error class
its caller names, so a truncated signature and a truncated key file report
different codes.
"""

from __future__ import annotations

import base64
import binascii
import struct

from pbem.sshsig.errors import BadArmorError, SshSigError

ARMOR_WIDTH = 70  # what ssh-keygen writes; any width is read


class WireReader:
    """Consume SSH wire values from a byte string, front to back."""

    def __init__(self, data: bytes, error: type[SshSigError], what: str) -> None:
        self._data = data
        self._pos = 0
        self._error = error
        self._what = what

    def _fail(self, message: str) -> SshSigError:
        return self._error(f"{self._what}: {message}")

    def raw(self, n: int) -> bytes:
        """Take exactly ``n`` bytes."""
        if n < 0 or self._pos + n > len(self._data):
            raise self._fail("truncated")
        out = self._data[self._pos : self._pos + n]
        self._pos += n
        return out

    def uint32(self) -> int:
        """Take a big-endian 32-bit unsigned integer."""
        value: int = struct.unpack(">I", self.raw(4))[0]
        return value

    def string(self) -> bytes:
        """Take a length-prefixed byte string."""
        return self.raw(self.uint32())

    def text(self) -> str:
        """Take a length-prefixed string that must be UTF-8."""
        value = self.string()
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise self._fail("a name is not UTF-8") from None

    def rest(self) -> bytes:
        """Take every byte that is left."""
        out = self._data[self._pos :]
        self._pos = len(self._data)
        return out

    def end(self) -> None:
        """Fail unless every byte was consumed (trailing junk is refused)."""
        if self._pos != len(self._data):
            raise self._fail(f"{len(self._data) - self._pos} unexpected trailing bytes")


class WireWriter:
    """Build a byte string of SSH wire values."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def raw(self, data: bytes) -> WireWriter:
        """Append bytes as they are."""
        self._parts.append(data)
        return self

    def uint32(self, value: int) -> WireWriter:
        """Append a big-endian 32-bit unsigned integer."""
        self._parts.append(struct.pack(">I", value))
        return self

    def string(self, data: bytes | str) -> WireWriter:
        """Append a length-prefixed string (``str`` is encoded as UTF-8)."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self._parts.append(struct.pack(">I", len(raw)))
        self._parts.append(raw)
        return self

    def getvalue(self) -> bytes:
        """Return everything appended so far."""
        return b"".join(self._parts)


def armor(label: str, blob: bytes) -> str:
    """Wrap ``blob`` in ``-----BEGIN <label>-----`` lines, base64 at 70 columns."""
    b64 = base64.b64encode(blob).decode("ascii")
    lines = [b64[i : i + ARMOR_WIDTH] for i in range(0, len(b64), ARMOR_WIDTH)]
    return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"]) + "\n"


def dearmor(label: str, text: str) -> bytes:
    """Decode the single ``label`` block in ``text``.

    Text before BEGIN and after END is ignored, and white space inside the
    block (re-wrapped lines, CRLF, indentation) is dropped before decoding,
    so a block a mail client re-flowed still reads. Raises
    :class:`BadArmorError` when BEGIN or END is missing or the base64 is bad.
    """
    begin, end = f"-----BEGIN {label}-----", f"-----END {label}-----"
    start = text.find(begin)
    if start < 0:
        raise BadArmorError(f"no {begin} line")
    stop = text.find(end, start)
    if stop < 0:
        raise BadArmorError(f"{begin} without {end}")
    body = "".join(text[start + len(begin) : stop].split())
    if not body:
        raise BadArmorError(f"the {label} block is empty")
    try:
        return base64.b64decode(body.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise BadArmorError(f"the {label} block is not valid base64") from None
