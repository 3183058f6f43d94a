"""``pbem doctor``: every check passes on a good install and says what to fix otherwise."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from pbem import sshsig
from pbem.cli import main
from pbem.commands.doctor import run_checks
from pbem.config import load_config


class _Sink:
    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        return "250 OK"


def _write_config(tmp_path: Path, db_url: str, port: int, **extra: str) -> Path:
    key = tmp_path / "server_ed25519"
    if not key.exists():
        sshsig.write_private_key(key, sshsig.generate_private_key(), "pbem-test")
    lines = [
        f'data_dir = "{tmp_path / "data"}"',
        f'[database]\nurl = "{db_url}"',
        f"[listener]\nport = {port}",
        '[mail]\naddress = "pbem@game.test"',
        f'[keys]\nserver_key = "{key}"',
    ]
    lines += [f"{section}\n{body}" for section, body in extra.items()]
    path = tmp_path / "pbem.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _doctor(config: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["doctor", "--config", str(config), *args])
    return code, capsys.readouterr().out


def test_healthy_install_in_maildir_mode_passes(
    tmp_path: Path, db_url: str, free_port: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _doctor(_write_config(tmp_path, db_url, free_port()), capsys)
    assert code == 0, out
    assert "FAIL" not in out
    assert "Maildir mode" in out
    assert "schema at" in out


def test_unmigrated_database_fails_until_migrated(
    tmp_path: Path, free_port: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    config = _write_config(tmp_path, url, free_port())
    code, out = _doctor(config, capsys)
    assert code == 1
    assert "FAIL database" in out and "pbem doctor --migrate" in out
    code, out = _doctor(config, capsys, "--migrate")
    assert code == 0, out


def test_port_in_use_missing_key_and_dead_smarthost_are_reported(
    tmp_path: Path, db_url: str, free_port: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        dead = free_port()
        config = _write_config(
            tmp_path,
            db_url,
            port,
            **{"[smarthost]": f'host = "127.0.0.1"\nport = {dead}\nsecurity = "none"'},
        )
        (tmp_path / "server_ed25519").unlink()
        code, out = _doctor(config, capsys)
    assert code == 1
    assert "FAIL listener" in out and "in use" in out
    assert "FAIL smarthost" in out and "fix:" in out
    assert "FAIL server key" in out and "ssh-keygen -t ed25519" in out


def test_world_readable_key_fails(
    tmp_path: Path, db_url: str, free_port: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write_config(tmp_path, db_url, free_port())
    (tmp_path / "server_ed25519").chmod(0o644)
    code, out = _doctor(config, capsys)
    assert code == 1
    assert "chmod 600" in out
    (tmp_path / "server_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nx\n")
    (tmp_path / "server_ed25519").chmod(0o600)
    code, out = _doctor(config, capsys)
    assert code == 1
    assert "FAIL server key" in out and "not an OpenSSH private key" in out


def test_reachable_smarthost_passes(
    tmp_path: Path, db_url: str, free_port: Callable[[], int]
) -> None:
    port = free_port()
    controller = Controller(_Sink(), hostname="127.0.0.1", port=port, server_hostname="sink.test")
    controller.start()
    try:
        config = load_config(
            _write_config(
                tmp_path,
                db_url,
                free_port(),
                **{"[smarthost]": f'host = "127.0.0.1"\nport = {port}\nsecurity = "none"'},
            )
        )
        results = {c.name: c for c in run_checks(config)}
    finally:
        with contextlib.suppress(Exception):
            controller.stop()
    assert results["smarthost"].ok, results["smarthost"].detail
    assert "EHLO accepted" in results["smarthost"].detail


def test_bad_config_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text('[smarthost]\npassword = "in the clear"\n')
    code, out = _doctor(path, capsys)
    assert code == 1
    assert "password_file or password_env" in out


def test_example_config_documents_every_key_and_loads(tmp_path: Path) -> None:
    import dataclasses
    import re

    from pbem.config import Config

    example = Path(__file__).resolve().parent.parent / "deploy" / "pbem.example.toml"
    # Keys set or shown commented out, per section ("" is the top level).
    documented: dict[str, set[str]] = {"": set()}
    section = ""
    for line in example.read_text().splitlines():
        if header := re.match(r"^\[(\w+)\]", line):
            section = header.group(1)
            documented[section] = set()
        elif key := re.match(r"^#?\s?(\w+) = ", line):
            documented[section].add(key.group(1))
    for top in dataclasses.fields(Config):
        if top.name == "source":
            continue
        default = getattr(Config(), top.name)
        if dataclasses.is_dataclass(default):
            assert top.name in documented, f"[{top.name}] missing from pbem.example.toml"
            for sub in dataclasses.fields(default):
                names = {"password_file", "password_env"} if sub.name == "password" else {sub.name}
                missing = names - documented[top.name]
                assert not missing, f"{top.name}.{missing} missing from the example"
        else:
            assert top.name in documented[""], f"{top.name} missing from pbem.example.toml"
    config = load_config(example)
    assert config.data_dir == Path("/var/lib/pbem")
    assert config.maildir_mode
    assert config.mail_domain == "pbem.example.org"
    assert config.database_url == "sqlite:////var/lib/pbem/pbem.sqlite3"


def test_secrets_come_from_files_or_environment_and_never_print(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pbem.config import ConfigError, config_from_dict

    (tmp_path / "pw").write_text("hunter2\n")
    config = config_from_dict(
        {
            "smarthost": {"host": "smtp.test", "password_file": "pw"},
            "imap": {"password_env": "PBEM_TEST_IMAP_PW"},
        },
        base=tmp_path,
    )
    secret = config.smarthost.password.read()
    assert secret is not None and secret.reveal() == "hunter2"
    assert "hunter2" not in repr(secret) and "hunter2" not in str(secret)
    assert "hunter2" not in repr(config)
    with pytest.raises(ConfigError):
        config.imap.password.read()
    monkeypatch.setenv("PBEM_TEST_IMAP_PW", "s3")
    imap_secret = config.imap.password.read()
    assert imap_secret is not None and imap_secret.reveal() == "s3"
    assert config.smarthost.timeout.total_seconds() == 60
    with pytest.raises(ConfigError, match="duration"):
        config_from_dict({"outbox": {"give_up_after": "soon"}})
    with pytest.raises(ConfigError, match="unknown key"):
        config_from_dict({"listner": {}})
