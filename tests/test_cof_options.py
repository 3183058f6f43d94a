"""Chariots of Fire's rule options chosen at game creation (``pbem game create --option``):
the optional Chariot Turnover rule (rulebook §6.8) is played only in a game created with
``--option turnover=true``, and such a game says so in its start mail and records it in its
audit record, under the referee's signature (docs/audit.md)."""

from __future__ import annotations

import email
import email.policy
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from audit_kit import REFEREE
from cof_kit import skirmish
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel import select

from engine.cof.state import from_scenario
from engine.cof.system import SYSTEM
from pbem import sshsig
from pbem.audit import check_record, parse_record
from pbem.config import Config
from pbem.pipeline.admin import audit_record, create_and_start
from pbem.pipeline.games import NewSeat
from pbem.pipeline.joins import sign_joins
from pbem.pipeline.settings import GameSettings
from pbem.store import Store
from pbem.store.models import OutboxMessage


def _text(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    body = msg.get_body(("plain",))
    assert body is not None
    return " ".join(str(body.get_content()).split())


TEACHING = Path(__file__).resolve().parent.parent / "scenarios" / "cof" / "000-teaching.toml"


def test_the_turnover_option_is_a_game_option_and_every_prompt_names_it() -> None:
    plain = SYSTEM.new_game(from_scenario(skirmish()))
    on = SYSTEM.new_game(from_scenario(skirmish()), {"turnover": True})
    assert "turnover" in on.special_rules and "turnover" not in plain.special_rules
    assert "Chariot Turnover" in SYSTEM.prompt(on).text
    assert "Turnover" not in SYSTEM.prompt(plain).text
    off = SYSTEM.new_game(on, {"turnover": False})
    assert "turnover" not in off.special_rules
    with pytest.raises(ValueError, match="true or false"):
        SYSTEM.new_game(from_scenario(skirmish()), {"turnover": "yes"})
    with pytest.raises(ValueError, match="unknown option 'fog'"):
        SYSTEM.new_game(from_scenario(skirmish()), {"fog": True})
    back = SYSTEM.load_position(SYSTEM.write_position(on))
    assert "turnover" in back.special_rules


def test_a_game_created_with_turnover_says_so_in_its_start_mail_and_audit_record(
    store: Store, config: Config, clock: object
) -> None:
    keys = {"north": Ed25519PrivateKey.generate(), "south": Ed25519PrivateKey.generate()}
    seats = [
        NewSeat(side, side.title(), f"{side}@{side}.test", sshsig.public_key_of(keys[side]))
        for side in ("north", "south")
    ]
    create_and_start(
        store,
        config,
        clock,  # type: ignore[arg-type]
        game_id="cof-turnover",
        system_name="cof",
        scenario_id="cof-000-teaching",
        scenario_text=TEACHING.read_text(encoding="utf-8"),
        seats=seats,
        settings=GameSettings(turn_time=timedelta(hours=48)),
        engine_options={"turnover": True},
        joins=sign_joins("cof-turnover", keys),
    )
    with store.transaction() as s:
        raws = [m.raw for m in s.exec(select(OutboxMessage)).all() if m.kind == "start"]
    texts = [_text(raw) for raw in raws]
    assert len(texts) == 2
    assert all("Rule options (chosen when the game was created; in the audit record too):"
               " turnover=true" in t for t in texts)  # fmt: skip
    rec = audit_record(store, "cof-turnover", REFEREE)
    assert rec["options"] == {"turnover": True}
    check_record(parse_record(rec))
