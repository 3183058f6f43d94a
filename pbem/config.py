"""Load the daemon's one TOML configuration file.

``load_config(path)`` returns a frozen :class:`Config`; every key has a
documented default (see ``deploy/pbem.example.toml``), so an empty file is a
valid configuration for a test or a laptop. Unknown keys are errors, so a typo
does not silently fall back to a default.

Durations are written as seconds (``90``) or with a unit (``"30s"``,
``"15m"``, ``"72h"``, ``"3d"``). Secrets (smarthost and IMAP passwords) are
never written in the file: name a file (``password_file``) or an environment
variable (``password_env``); :meth:`SecretSource.read` loads it when needed and
returns a :class:`Secret` whose ``repr`` is redacted, so it never reaches a log.

The file is found at the ``--config`` path, else ``$PBEM_CONFIG``, else
``/etc/pbem/pbem.toml``; if none exists the defaults apply (with the data
directory ``./pbem-data``). A file that does not set ``data_dir`` gets
``pbem-data`` next to the file.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

DEFAULT_CONFIG_PATH = Path("/etc/pbem/pbem.toml")
CONFIG_ENV = "PBEM_CONFIG"

Security = Literal["starttls", "tls", "none"]
Delivery = Literal["auto", "maildir", "smtp"]


class ConfigError(ValueError):
    """The configuration file is unreadable or holds a bad value."""


class Secret:
    """A password that refuses to be printed.

    ``str()`` and ``repr()`` give ``'***'``; call :meth:`reveal` at the one
    place the value is handed to a library.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """Return the secret value (never log it)."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    def __str__(self) -> str:
        return "***"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True)
class SecretSource:
    """Where a secret lives: a file (first line, stripped) or an environment variable."""

    file: Path | None = None
    env: str | None = None

    @property
    def configured(self) -> bool:
        """Say whether any source is named."""
        return self.file is not None or self.env is not None

    def read(self) -> Secret | None:
        """Load the secret; ``None`` when no source is configured.

        Raises:
            ConfigError: a source is named but missing or empty.
        """
        if self.file is not None:
            try:
                text = self.file.read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"cannot read secret file {self.file}: {exc.strerror}") from exc
            value = text.splitlines()[0].strip() if text.strip() else ""
            if not value:
                raise ConfigError(f"secret file {self.file} is empty")
            return Secret(value)
        if self.env is not None:
            env_value = os.environ.get(self.env)
            if not env_value:
                raise ConfigError(f"environment variable {self.env} is not set")
            return Secret(env_value)
        return None


@dataclass(frozen=True)
class DatabaseConfig:
    """Where the store lives. ``url`` empty means ``sqlite:///<data_dir>/pbem.sqlite3``."""

    url: str = ""
    busy_timeout_ms: int = 5000


@dataclass(frozen=True)
class ListenerConfig:
    """The loopback SMTP (or LMTP) listener the MTA relays game mail to."""

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8025
    lmtp: bool = False


@dataclass(frozen=True)
class MailConfig:
    """Addresses: the game address players write to, and the operator's."""

    address: str = "pbem@localhost"
    domain: str = ""  # empty: the domain part of ``address``
    operator: str = "postmaster@localhost"
    from_name: str = "pbem referee"


@dataclass(frozen=True)
class SmarthostConfig:
    """The relay outgoing mail is handed to; no host means Maildir mode."""

    host: str = ""
    port: int = 587
    security: Security = "starttls"
    username: str = ""
    password: SecretSource = field(default_factory=SecretSource)
    timeout: timedelta = timedelta(seconds=60)
    ca_file: Path | None = None  # CA bundle to verify the smarthost; None: system store


@dataclass(frozen=True)
class ImapConfig:
    """An IMAP mailbox polled for game mail (when the MTA cannot relay to us)."""

    enabled: bool = False
    host: str = ""
    port: int = 993
    security: Security = "tls"
    user: str = ""
    password: SecretSource = field(default_factory=SecretSource)
    mailbox: str = "INBOX"
    poll_interval: timedelta = timedelta(seconds=60)
    timeout: timedelta = timedelta(seconds=60)


@dataclass(frozen=True)
class OutboxConfig:
    """Retry schedule of the outbox sender.

    Attempt ``n`` (1-based) that fails temporarily is retried after
    ``min(retry_base * retry_factor**(n-1), retry_max)``; a row still unsent
    ``give_up_after`` its queuing is marked failed and the operator is told.
    """

    flush_interval: timedelta = timedelta(seconds=30)
    retry_base: timedelta = timedelta(minutes=1)
    retry_factor: float = 2.0
    retry_max: timedelta = timedelta(hours=1)
    give_up_after: timedelta = timedelta(days=3)


@dataclass(frozen=True)
class LimitsConfig:
    """Limits on what strangers can cost us."""

    max_message_size: int = 10 * 1024 * 1024
    unknown_sender_reply_interval: timedelta = timedelta(days=1)
    inbox_sweep_interval: timedelta = timedelta(seconds=15)
    # The per-message budget (pbem.mailin.budget): checked on the raw bytes
    # before any costly parsing; a mail over it is refused and set aside.
    max_headers: int = 300
    max_header_bytes: int = 128 * 1024
    max_addresses: int = 50
    max_parse_seconds: float = 5.0
    # Mail from an address that is no player's and not the operator's.
    stranger_max_message_size: int = 256 * 1024
    stranger_max_addresses: int = 10
    # A mail the worker began this many times without finishing is set aside.
    max_attempts: int = 3
    # Replies answering a mail (refusals, notes, help), per address and per hour;
    # stranger notes in total per hour (game mail is never limited).
    replies_per_sender_per_hour: int = 10
    stranger_replies_per_hour: int = 4


@dataclass(frozen=True)
class KeysConfig:
    """The server's own signing key (OpenSSH Ed25519 private key file)."""

    server_key: Path | None = None  # None: <data_dir>/server_ed25519


@dataclass(frozen=True)
class DeadlinesConfig:
    """Default time limits for a new game (a game's options may override)."""

    turn: timedelta = timedelta(hours=72)
    question: timedelta = timedelta(hours=24)
    reminder_before: timedelta = timedelta(hours=12)


@dataclass(frozen=True)
class Config:
    """The whole configuration; use the ``*_path``/``*_url`` properties for derived values."""

    data_dir: Path = Path("pbem-data")
    delivery: Delivery = "auto"  # auto: the smarthost if it has a host, else the Maildir
    maildir: Path | None = None  # None: <data_dir>/outbox-maildir
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    listener: ListenerConfig = field(default_factory=ListenerConfig)
    mail: MailConfig = field(default_factory=MailConfig)
    smarthost: SmarthostConfig = field(default_factory=SmarthostConfig)
    imap: ImapConfig = field(default_factory=ImapConfig)
    outbox: OutboxConfig = field(default_factory=OutboxConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    keys: KeysConfig = field(default_factory=KeysConfig)
    deadlines: DeadlinesConfig = field(default_factory=DeadlinesConfig)
    source: Path | None = None  # the file this was loaded from, if any

    @property
    def database_url(self) -> str:
        """Return the SQLAlchemy URL of the store."""
        if self.database.url:
            return self.database.url
        return f"sqlite:///{(self.data_dir / 'pbem.sqlite3').resolve()}"

    @property
    def server_principal(self) -> str:
        """The one principal the server key is published under: the configured mail address.

        Game mails, ``pbem server-key`` and docs/signing.md all use it, so the
        ``allowed_signers`` line a player saves matches ``-I`` in the docs.
        """
        return self.mail.address

    @property
    def mail_domain(self) -> str:
        """Return the game domain (used in Message-IDs and to accept recipients)."""
        return self.mail.domain or self.mail.address.rpartition("@")[2].lower()

    @property
    def maildir_path(self) -> Path:
        """Return the Maildir that receives outgoing mail when no smarthost is set."""
        return self.maildir if self.maildir is not None else self.data_dir / "outbox-maildir"

    @property
    def server_key_path(self) -> Path:
        """Return the server signing key file."""
        if self.keys.server_key is not None:
            return self.keys.server_key
        return self.data_dir / "server_ed25519"

    @property
    def maildir_mode(self) -> bool:
        """Say whether outgoing mail goes to the local Maildir (``delivery``, or no smarthost)."""
        if self.delivery == "auto":
            return not self.smarthost.host
        return self.delivery == "maildir"


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(value: object) -> timedelta:
    """Parse ``90``, ``"90s"``, ``"15m"``, ``"72h"``, ``"3d"`` or ``"1w"``."""
    if isinstance(value, bool):
        raise ConfigError(f"not a duration: {value!r}")
    if isinstance(value, int | float):
        return timedelta(seconds=value)
    if isinstance(value, str):
        match = _DURATION.match(value)
        if match:
            return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2)])
    raise ConfigError(f"not a duration: {value!r} (use seconds or e.g. '15m', '72h', '3d')")


def _convert(section: str, name: str, default: object, raw: object, base: Path) -> object:
    where = f"{section}.{name}" if section else name
    if isinstance(default, timedelta):
        try:
            return parse_duration(raw)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from exc
    if isinstance(default, bool):
        if not isinstance(raw, bool):
            raise ConfigError(f"{where}: expected true or false, got {raw!r}")
        return raw
    if isinstance(default, int) and not isinstance(default, bool):
        if not isinstance(raw, int) or isinstance(raw, bool):
            raise ConfigError(f"{where}: expected an integer, got {raw!r}")
        return raw
    if isinstance(default, float):
        if not isinstance(raw, int | float) or isinstance(raw, bool):
            raise ConfigError(f"{where}: expected a number, got {raw!r}")
        return float(raw)
    if isinstance(default, Path) or name in {"server_key", "maildir", "data_dir", "ca_file"}:
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: expected a path string, got {raw!r}")
        path = Path(raw).expanduser()
        return path if path.is_absolute() else base / path
    if name == "security":
        if raw not in ("starttls", "tls", "none"):
            raise ConfigError(f"{where}: expected 'starttls', 'tls' or 'none', got {raw!r}")
        return raw
    if not isinstance(raw, str):
        raise ConfigError(f"{where}: expected a string, got {raw!r}")
    return raw


def _build_section(cls: type[Any], section: str, table: object, base: Path) -> Any:
    if not isinstance(table, dict):
        raise ConfigError(f"[{section}] must be a table")
    known = {f.name: f for f in fields(cls)}
    defaults = cls()
    kwargs: dict[str, object] = {}
    password_file = table.get("password_file")
    password_env = table.get("password_env")
    for key, raw in table.items():
        if key in ("password_file", "password_env") and "password" in known:
            continue
        if key not in known or key == "password":
            hint = " (use password_file or password_env)" if key == "password" else ""
            raise ConfigError(f"unknown key {section}.{key}{hint}")
        kwargs[key] = _convert(section, key, getattr(defaults, key), raw, base)
    if "password" in known and (password_file is not None or password_env is not None):
        if password_file is not None and not isinstance(password_file, str):
            raise ConfigError(f"{section}.password_file: expected a path string")
        if password_env is not None and not isinstance(password_env, str):
            raise ConfigError(f"{section}.password_env: expected a variable name")
        secret_path = None
        if password_file:
            secret_path = Path(password_file).expanduser()
            if not secret_path.is_absolute():
                secret_path = base / secret_path
        kwargs["password"] = SecretSource(file=secret_path, env=password_env or None)
    return cls(**kwargs)


_SECTIONS: dict[str, type[Any]] = {
    "database": DatabaseConfig,
    "listener": ListenerConfig,
    "mail": MailConfig,
    "smarthost": SmarthostConfig,
    "imap": ImapConfig,
    "outbox": OutboxConfig,
    "limits": LimitsConfig,
    "keys": KeysConfig,
    "deadlines": DeadlinesConfig,
}


def config_from_dict(data: dict[str, Any], base: Path | None = None) -> Config:
    """Build a :class:`Config` from parsed TOML; relative paths resolve against ``base``."""
    base = base if base is not None else Path.cwd()
    kwargs: dict[str, object] = {}
    for key, value in data.items():
        if key in _SECTIONS:
            kwargs[key] = _build_section(_SECTIONS[key], key, value, base)
        elif key in ("data_dir", "maildir"):
            kwargs[key] = _convert("", key, Path(), value, base)
        elif key == "delivery":
            if value not in ("auto", "maildir", "smtp"):
                raise ConfigError(f"delivery: expected 'auto', 'maildir' or 'smtp', got {value!r}")
            kwargs[key] = value
        else:
            raise ConfigError(f"unknown key {key}")
    kwargs.setdefault("data_dir", base / "pbem-data")
    config = Config(**kwargs)  # type: ignore[arg-type]
    if config.delivery == "smtp" and not config.smarthost.host:
        raise ConfigError("delivery = 'smtp' needs smarthost.host")
    if "@" not in config.mail.address:
        raise ConfigError(f"mail.address: not an address: {config.mail.address!r}")
    return config


def resolve_config_path(path: str | Path | None) -> Path | None:
    """Return the file to load: ``path``, else ``$PBEM_CONFIG``, else the default if it exists."""
    if path is not None:
        return Path(path)
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    return DEFAULT_CONFIG_PATH if DEFAULT_CONFIG_PATH.exists() else None


def load_config(path: str | Path | None = None) -> Config:
    """Load the configuration (see the module docstring for where it is found).

    Relative paths in the file resolve against the file's directory.

    Raises:
        ConfigError: unreadable file, bad TOML, unknown key or bad value.
    """
    resolved = resolve_config_path(path)
    if resolved is None:
        return Config(data_dir=Path("pbem-data").resolve())
    try:
        with resolved.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read {resolved}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{resolved}: {exc}") from exc
    base = resolved.resolve().parent
    config = config_from_dict(data, base)
    return _with_source(config, resolved)


def _with_source(config: Config, source: Path) -> Config:
    return replace(config, source=source)
