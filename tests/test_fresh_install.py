"""A fresh install: ``delivery = "maildir"``, ``pbem doctor --migrate``, a game, its first mail.

Issue 14's blocker: doctor made the outgoing Maildir as a bare directory, the
sender's ``mailbox.Maildir(create=True)`` then found it existing without its
``tmp``/``new``/``cur`` folders, and every delivery failed and was retried
for ever. Also here: doctor and the daemon say in one line what they checked
and what to fix, and the scheduler stays quiet at INFO.
"""

from __future__ import annotations

import asyncio
import logging
import mailbox
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from mail_lint import lint_raw_or_raise

from pbem import sshsig
from pbem.cli import main
from pbem.clock import FakeClock, SystemClock
from pbem.config import ConfigError, config_from_dict, load_config
from pbem.daemon import Daemon, StartError
from pbem.demo import check_system
from pbem.outbox import OutboxSender
from pbem.store import OutboxStatus, Store


def _pub(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.pub"
    path.write_text(sshsig.public_key_of(sshsig.generate_private_key(), name).openssh() + "\n")
    return path


def _install(tmp_path: Path, port: int) -> Path:
    key = tmp_path / "server_ed25519"
    sshsig.write_private_key(key, sshsig.generate_private_key(), "pbem-server")
    path = tmp_path / "pbem.toml"
    path.write_text(
        'delivery = "maildir"\n'
        f'data_dir = "{tmp_path / "data"}"\n'
        f"[listener]\nport = {port}\n"
        '[mail]\naddress = "pbem@game.test"\noperator = "op@game.test"\n'
        f'[keys]\nserver_key = "{key}"\n'
    )
    return path


@pytest.mark.skipif(check_system() is not None, reason="engine not ready")
def test_fresh_install_with_maildir_delivery_delivers_its_first_mail(
    tmp_path: Path, free_port: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _install(tmp_path, free_port())
    assert main(["doctor", "--config", str(cfg), "--migrate"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("doctor: checked config, database, listener")
    assert out.splitlines()[-1].endswith("all ok")
    config = load_config(cfg)
    assert config.maildir_mode
    for folder in ("tmp", "new", "cur"):
        assert (config.maildir_path / folder).is_dir(), folder
    north, south = _pub(tmp_path, "ann"), _pub(tmp_path, "bob")
    args = ["game", "--config", str(cfg), "create", "001", "--id", "first"]
    args += ["--north", f"Ann:ann@x.test:{north}", "--south", f"Bob:bob@y.test:{south}"]
    assert main(args) == 0
    store = Store(config.database_url)
    try:
        report = asyncio.run(OutboxSender(config, store, SystemClock()).flush())
    finally:
        store.dispose()
    assert report.sent == 2 and report.deferred == 0 and report.failed == 0
    box = mailbox.Maildir(config.maildir_path, create=False)
    delivered = sorted(str(m["X-Pbem-Envelope-To"]) for m in box)
    assert delivered == ["ann@x.test", "bob@y.test"]
    for path in sorted((config.maildir_path / "new").iterdir()):
        raw = path.read_bytes()
        lint_raw_or_raise(raw.split(b"\r\n", 1)[1], path.name)  # less the envelope line


def test_a_maildir_made_as_a_bare_directory_still_receives_mail(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock
) -> None:
    from test_outbox_sender import _config, _queue, _rows

    config = _config(tmp_path, db_url)
    config.maildir_path.mkdir(parents=True)  # what the old doctor left behind
    _queue(store, clock)
    report = asyncio.run(OutboxSender(config, store, clock).flush())
    assert report.sent == 1
    assert [r.status for r in _rows(store)] == [OutboxStatus.SENT]
    assert len(list((config.maildir_path / "new").iterdir())) == 1


def test_delivery_key_is_checked(tmp_path: Path) -> None:
    assert config_from_dict({"delivery": "maildir", "smarthost": {"host": "mx.test"}}).maildir_mode
    assert not config_from_dict({"smarthost": {"host": "mx.test"}}).maildir_mode
    with pytest.raises(ConfigError, match=r"needs smarthost\.host"):
        config_from_dict({"delivery": "smtp"})
    with pytest.raises(ConfigError, match="expected 'auto', 'maildir' or 'smtp'"):
        config_from_dict({"delivery": "pigeon"})


def test_doctor_summary_names_what_to_fix(
    tmp_path: Path, free_port: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _install(tmp_path, free_port())
    (tmp_path / "server_ed25519").unlink()
    assert main(["doctor", "--config", str(cfg), "--migrate"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("doctor: checked config, database, listener, smarthost, imap")
    assert "1 to fix: server key (start pbem serve once" in last


def test_daemon_says_in_one_line_where_mail_goes_and_why_it_cannot_listen(
    tmp_path: Path, db_url: str, store: Store, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        config = config_from_dict(
            {
                "data_dir": str(tmp_path / "data"),
                "database": {"url": db_url},
                "listener": {"port": port},
                "mail": {"address": "pbem@game.test"},
            }
        )
        daemon = Daemon(config, clock=clock, store=store, extensions=())
        with pytest.raises(StartError) as failed:
            asyncio.run(daemon.start())
    message = str(failed.value)
    assert "\n" not in message
    assert f"cannot listen on 127.0.0.1:{port}" in message and "fix: " in message
    assert "listener.port" in message
    line = Daemon(config, clock=clock, store=store, extensions=()).describe()
    assert f"listening for SMTP on 127.0.0.1:{port} (mail to @game.test)" in line
    assert "outgoing mail to the Maildir" in line and "IMAP off" in line


def test_the_scheduler_is_quiet_at_info(
    tmp_path: Path, free_port: Callable[[], int], capsys: pytest.CaptureFixture[str]
) -> None:
    main(["doctor", "--config", str(_install(tmp_path, free_port()))])
    capsys.readouterr()
    assert logging.getLogger("apscheduler").getEffectiveLevel() >= logging.WARNING
    logging.getLogger("apscheduler").setLevel(logging.NOTSET)
