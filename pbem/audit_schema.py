"""Reading an audit record strictly: its errors and its typed field readers.

Shared by :mod:`pbem.audit` and :mod:`pbem.audit_cards`. Every object has
exactly the fields docs/audit.md shows; numbers are JSON integers (``true``
is not 1, ``1.0`` is not 1).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["AuditFormatError", "AuditMismatch", "AuditUnreadable", "field_of", "fields_of", "hex32"]

_HEX64 = re.compile(r"[0-9a-f]{64}")


class AuditFormatError(ValueError):
    """The record cannot be read: not JSON, wrong format or version, a field missing."""


class AuditUnreadable(AuditFormatError):
    """The file cannot be read or is not JSON at all."""


class AuditMismatch(ValueError):
    """The record reads but does not verify: a key, a roll, a shuffle or a signature is wrong."""


def fields_of(
    obj: object, where: str, required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> dict[str, Any]:
    """Return ``obj`` if it is an object with exactly the ``required`` (and ``optional``) fields."""
    if not isinstance(obj, dict):
        raise AuditFormatError(f"{where}: not a JSON object")
    for name in sorted(required - set(obj)):
        raise AuditFormatError(f"{where}: '{name}' is missing")
    for name in sorted(set(obj) - required - optional):
        raise AuditFormatError(f"{where}: unknown field '{name}'")
    return obj


def field_of(obj: dict[str, Any], name: str, kind: type, where: str) -> Any:
    """Return ``obj[name]`` if present and of JSON type ``kind`` (a bool is never an int)."""
    if name not in obj:
        raise AuditFormatError(f"{where}: '{name}' is missing")
    value = obj[name]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise AuditFormatError(f"{where}: '{name}' has the wrong type ({value!r})")
    return value


def hex32(text: object, what: str) -> bytes:
    """Return the 32 bytes written as 64 lowercase hex digits."""
    if not isinstance(text, str) or not _HEX64.fullmatch(text):
        raise AuditFormatError(f"{what} is not 64 lowercase hex digits")
    return bytes.fromhex(text)
