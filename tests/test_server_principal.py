"""One principal for the server key everywhere: the configured mail address (issue 11).

The game-start mail publishes the server's ``allowed_signers`` line; ``pbem
server-key`` prints the line for the operator to publish; docs/signing.md
verifies with ``-I`` and the same address. All three must name the same
principal, or ``ssh-keygen -Y verify -I <address>`` finds no key.
"""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest
from pipeline_kit import NORTH, SOUTH
from sqlmodel import select

from engine.toy import SYSTEM
from pbem import sshsig
from pbem.cli import main
from pbem.clock import FakeClock
from pbem.config import config_from_dict
from pbem.pipeline.admin import create_and_start
from pbem.pipeline.games import NewSeat
from pbem.pipeline.settings import GameSettings
from pbem.pipeline.systems import register_system
from pbem.server_key import ServerKey
from pbem.store import OutboxMessage, Store


def test_game_mail_and_server_key_command_publish_the_same_principal(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # An address whose local part is not "pbem": the old mails said pbem@<domain>.
    toml = tmp_path / "pbem.toml"
    toml.write_text(
        f'data_dir = "{tmp_path / "data"}"\n'
        f'[database]\nurl = "{db_url}"\n'
        '[mail]\naddress = "referee@club.test"\noperator = "op@club.test"\n'
    )
    config = config_from_dict(
        {
            "data_dir": str(tmp_path / "data"),
            "database": {"url": db_url},
            "mail": {"address": "referee@club.test", "operator": "op@club.test"},
        },
        base=tmp_path,
    )
    assert main(["server-key", "--config", str(toml)]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed.startswith('referee@club.test namespaces="pbem-mail" ssh-ed25519 ')
    key = ServerKey.load(config.server_key_path)
    register_system(SYSTEM)
    store = Store(db_url)
    try:
        seats = [
            NewSeat("north", "Ann", NORTH, sshsig.public_key_of(sshsig.generate_private_key())),
            NewSeat("south", "Bob", SOUTH, sshsig.public_key_of(sshsig.generate_private_key())),
        ]
        create_and_start(
            store,
            config,
            FakeClock(),
            game_id="race-9",
            system_name="toy",
            scenario_id="toy-race",
            scenario_text='first = "north"\n',
            seats=seats,
            settings=GameSettings(),
            server_key=key,
        )
        with store.transaction() as s:
            rows = list(s.exec(select(OutboxMessage)).all())
    finally:
        store.dispose()
    assert rows
    for row in rows:
        msg = email.message_from_bytes(row.raw, policy=email.policy.default)
        text = ""
        for part in msg.walk():
            if part.get_filename() == "allowed_signers":
                text = part.get_content()
                text = text.decode() if isinstance(text, bytes) else text
        body = msg.get_body(preferencelist=("plain",))
        assert body is not None
        assert printed in " ".join(str(body.get_content()).split()) or text.strip() == printed
        if text:
            assert text.strip() == printed
    assert "pbem@club.test" not in b"".join(r.raw for r in rows).decode("utf-8", "replace")
