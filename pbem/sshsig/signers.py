"""The ``allowed_signers`` file of ``ssh-keygen -Y verify``: who may sign what.

Each line is ``<principals> [options] <keytype> <base64> [comment]``, where
principals is a comma-separated pattern list (``*``, ``?``, ``!negation``) and
the options are ``namespaces="a,b"``, ``valid-after=``/``valid-before=``
(``YYYYMMDD[HHMM[SS]][Z]``, local time unless ``Z``) and ``cert-authority``.
pbem verifies plain Ed25519 keys only, so ``cert-authority`` lines are kept
but never match a signature.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from pbem.sshsig.errors import AllowedSignersError, SshSigError
from pbem.sshsig.keys import SshPublicKey

_KEY_TYPE = re.compile(r"^(ssh-|ecdsa-|sk-)")
_TIMESTAMP = re.compile(r"^(\d{8})(\d{4})?(\d{2})?(Z)?$")


@lru_cache(maxsize=256)
def _wildcard(pattern: str) -> re.Pattern[str]:
    parts = ("." if c == "?" else ".*" if c == "*" else re.escape(c) for c in pattern)
    return re.compile("".join(parts), re.DOTALL)


def match_pattern_list(name: str, patterns: str) -> bool:
    """Match ``name`` against an OpenSSH pattern list such as ``*@club.example,!bob@*``.

    A matching negated pattern wins over any positive match, as in OpenSSH.
    """
    positive = False
    for raw in patterns.split(","):
        negated = raw.startswith("!")
        pattern = raw[1:] if negated else raw
        if _wildcard(pattern).fullmatch(name):
            if negated:
                return False
            positive = True
    return positive


def _split_fields(line: str) -> list[str]:
    """Split on white space outside double quotes (quotes are kept)."""
    fields: list[str] = []
    current: list[str] = []
    quoted = False
    for char in line:
        if char == '"':
            quoted = not quoted
        if char.isspace() and not quoted:
            if current:
                fields.append("".join(current))
                current = []
            continue
        current.append(char)
    if quoted:
        raise ValueError("unbalanced double quote")
    if current:
        fields.append("".join(current))
    return fields


def _split_options(text: str) -> list[str]:
    """Split an options field on commas outside double quotes."""
    options: list[str] = []
    current: list[str] = []
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char == "," and not quoted:
            options.append("".join(current))
            current = []
            continue
        current.append(char)
    options.append("".join(current))
    return options


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def parse_timestamp(text: str) -> datetime:
    """Read an OpenSSH timestamp ``YYYYMMDD[HHMM[SS]][Z]`` (local time unless ``Z``)."""
    match = _TIMESTAMP.match(text)
    if match is None or (match.group(3) and not match.group(2)):
        raise ValueError(f"bad timestamp {text!r} (want YYYYMMDD[HHMM[SS]][Z])")
    date, hhmm, ss, zulu = match.groups()
    naive = datetime.strptime(date + (hhmm or "0000") + (ss or "00"), "%Y%m%d%H%M%S")
    return naive.replace(tzinfo=UTC) if zulu else naive.astimezone()


@dataclass(frozen=True)
class AllowedSigner:
    """One line of an ``allowed_signers`` file."""

    principals: str
    key: SshPublicKey
    namespaces: str | None = None
    valid_after: datetime | None = None
    valid_before: datetime | None = None
    cert_authority: bool = False
    line_number: int = field(default=0, compare=False)

    @classmethod
    def parse(cls, line: str, line_number: int = 0) -> AllowedSigner:
        """Read one non-comment line; raise :class:`AllowedSignersError` with the line number."""
        where = str(line_number)
        try:
            fields = _split_fields(line)
        except ValueError as exc:
            raise AllowedSignersError(f"line {line_number}: {exc}", line=where) from None
        if len(fields) < 3:
            raise AllowedSignersError(
                f"line {line_number}: want '<principals> [options] <keytype> <key>'", line=where
            )
        principals = _unquote(fields[0])
        rest = fields[1:]
        options: dict[str, str] = {}
        if not _KEY_TYPE.match(rest[0]):
            for option in _split_options(rest[0]):
                name, _, value = option.partition("=")
                options[name.lower()] = _unquote(value)
            rest = rest[1:]
        if len(rest) < 2:
            raise AllowedSignersError(f"line {line_number}: no public key", line=where)
        try:
            key = SshPublicKey.parse(" ".join(rest))
        except SshSigError as exc:
            raise AllowedSignersError(f"line {line_number}: {exc.message}", line=where) from None
        known = {"namespaces", "valid-after", "valid-before", "cert-authority"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise AllowedSignersError(
                f"line {line_number}: unsupported option {unknown[0]!r}", line=where
            )
        try:
            after = options.get("valid-after")
            before = options.get("valid-before")
            return cls(
                principals=principals,
                key=key,
                namespaces=options.get("namespaces"),
                valid_after=parse_timestamp(after) if after else None,
                valid_before=parse_timestamp(before) if before else None,
                cert_authority="cert-authority" in options,
                line_number=line_number,
            )
        except ValueError as exc:
            raise AllowedSignersError(f"line {line_number}: {exc}", line=where) from None

    def matches_identity(self, identity: str) -> bool:
        """Tell whether ``identity`` (``-I``) is one of this line's principals."""
        return match_pattern_list(identity, self.principals)

    def allows_namespace(self, namespace: str) -> bool:
        """Tell whether the line lets its key sign in ``namespace`` (no option: any)."""
        return self.namespaces is None or match_pattern_list(namespace, self.namespaces)

    def valid_at(self, now: datetime) -> bool:
        """Tell whether ``now`` lies in the ``valid-after``/``valid-before`` window."""
        if self.valid_after is not None and now < self.valid_after:
            return False
        return self.valid_before is None or now <= self.valid_before

    def line(self) -> str:
        """Print the line back (timestamps in UTC with ``Z``)."""
        options: list[str] = []
        if self.cert_authority:
            options.append("cert-authority")
        if self.namespaces is not None:
            options.append(f'namespaces="{self.namespaces}"')
        for name, when in (("valid-after", self.valid_after), ("valid-before", self.valid_before)):
            if when is not None:
                options.append(f"{name}={when.astimezone(UTC):%Y%m%d%H%M%S}Z")
        principals = (
            f'"{self.principals}"'
            if any(c.isspace() for c in self.principals)
            else (self.principals)
        )
        return " ".join([principals, *([",".join(options)] if options else []), str(self.key)])


@dataclass(frozen=True)
class AllowedSigners:
    """A whole ``allowed_signers`` file, in order."""

    entries: tuple[AllowedSigner, ...]

    @classmethod
    def parse(cls, text: str) -> AllowedSigners:
        """Read the file's text; blank lines and ``#`` comments are skipped."""
        entries = []
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                entries.append(AllowedSigner.parse(stripped, number))
        return cls(tuple(entries))

    @classmethod
    def load(cls, path: Path) -> AllowedSigners:
        """Read an ``allowed_signers`` file."""
        return cls.parse(path.read_text(encoding="utf-8"))

    @classmethod
    def of(cls, entries: Iterable[AllowedSigner]) -> AllowedSigners:
        """Build from entries made in code."""
        return cls(tuple(entries))

    def for_identity(self, identity: str) -> tuple[AllowedSigner, ...]:
        """Return the plain-key lines whose principals match ``identity``."""
        return tuple(
            e for e in self.entries if not e.cert_authority and e.matches_identity(identity)
        )

    def principals_for(self, key: SshPublicKey) -> tuple[str, ...]:
        """Return the principal patterns of every line listing ``key`` (``find-principals``)."""
        return tuple(e.principals for e in self.entries if not e.cert_authority and e.key == key)
