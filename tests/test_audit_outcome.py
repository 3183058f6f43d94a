"""Resignations and draws in the audit record (docs/audit.md, "Resignations and draws").

Every signed statement that decided a game's outcome (``command resign``,
``command draw propose|accept|decline``, the bot's signed answers to a draw
offer too) is in the record, and all three verifiers (``pbem audit``'s
checker, ``verify_dice.py`` and the independent one) check its signature by
the seat's key, its game, and that it fits: an answer to an open offer from
the other side, nothing after the game ended. A statement tampered with,
attributed to the other seat, taken from another game or moved is reported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pipeline_kit import GAME, NORTH, command, mail, sign_text
from test_bot_mail import _bot_game, _set_pos, _verify

from pbem.audit import check_record, parse_record
from pbem.audit_schema import AuditMismatch
from pbem.pipeline.admin import audit_record
from pbem.store import GameStatus


def _drawn_game(store: Any, config: Any, clock: Any) -> tuple[dict[str, Any], Any]:
    """Ann (north) offers the bot (south) a draw twice: declined, then accepted."""
    kit, server_key = _bot_game(store, config, clock)
    status, outcome, _ = kit.send(mail(NORTH, command("draw propose"), key=kit.keys["north"]))
    assert (status, outcome) == ("processed", "draw declined")
    _set_pos(kit, 9, 1)  # far behind: the bot takes the draw
    status, outcome, _ = kit.send(mail(NORTH, command("draw offer"), key=kit.keys["north"]))
    assert (status, outcome) == ("processed", "draw agreed")
    assert kit.game().status == GameStatus.FINISHED
    return json.loads(json.dumps(audit_record(kit.store, GAME, server_key))), kit


def test_a_drawn_game_records_every_signed_draw_statement_and_every_verifier_checks_them(
    store: Any, config: Any, clock: Any, tmp_path: Path
) -> None:
    record, _ = _drawn_game(store, config, clock)
    said = [o["statement"].split("command ")[1].split("\n")[0] for o in record["outcome"]]
    assert [o["side"] for o in record["outcome"]] == ["north", "south", "north", "south"]
    # the bot's answers (south) are signed with the server's key, its seat's key
    assert said == ["draw propose", "draw decline", "draw offer", "draw accept"]
    summary = check_record(parse_record(record))
    said = _verify(tmp_path, record).splitlines()
    assert said[0] == summary.describe() and said[1].startswith("OK"), said


def test_a_resignation_is_in_the_record_and_checked(
    store: Any, config: Any, clock: Any, tmp_path: Path
) -> None:
    kit, server_key = _bot_game(store, config, clock)
    status, outcome, _ = kit.send(mail(NORTH, command("resign"), key=kit.keys["north"]))
    assert status == "processed" and outcome.startswith("north resigned"), outcome
    record = json.loads(json.dumps(audit_record(kit.store, GAME, server_key)))
    [resign] = record["outcome"]
    assert resign["side"] == "north" and "command resign\n" in resign["statement"]
    assert resign["epoch"] == len(record["epochs"])
    summary = check_record(parse_record(record))
    said = _verify(tmp_path, record).splitlines()
    assert said[0] == summary.describe() and said[1].startswith("OK"), said
    # An epoch after the resignation cannot be: the game ended there.
    record["outcome"][0]["epoch"] = 0
    if record["epochs"]:
        with pytest.raises(AuditMismatch, match=r"outcome\[0\].*ended there"):
            check_record(parse_record(record))


def _tamper(statement: str) -> str:
    return statement.replace("command draw accept", "command draw decline")


def _other_seat(record: dict[str, Any]) -> None:
    record["outcome"][0]["side"] = "south"  # Ann's offer passed off as the bot's


def _other_game(record: dict[str, Any], key: Any) -> None:
    text, signature = sign_text(command("draw propose", game="another-game"), key)
    record["outcome"][2]["statement"], record["outcome"][2]["signature"] = text, signature


CASES: dict[str, tuple[Callable[[dict[str, Any], Any], None], str]] = {
    "tampered": (
        lambda r, _: r["outcome"][3].update(statement=_tamper(r["outcome"][3]["statement"])),
        r"outcome\[3\] \(south, after epoch \d+\): .*signature",
    ),
    "other seat": (lambda r, _: _other_seat(r), r"outcome\[0\] \(south.*not the expected key"),
    "other game": (_other_game, r"outcome\[2\].*not a resign or draw command for game"),
    "answered before offered": (
        lambda r, _: r["outcome"].insert(0, r["outcome"].pop(1)),
        r"outcome\[0\].*no offer from the other side",
    ),
    "cut": (lambda r, _: r["outcome"].pop(0), r"outcome\[0\].*no offer from the other side"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_tampered_or_misplaced_draw_statement_is_reported_by_every_verifier(
    case: str, store: Any, config: Any, clock: Any, tmp_path: Path
) -> None:
    record, kit = _drawn_game(store, config, clock)
    change, reported = CASES[case]
    change(record, kit.keys["north"])
    with pytest.raises(AuditMismatch, match=reported):
        check_record(parse_record(record))
    said = _verify(tmp_path, record).splitlines()
    assert not said[0].startswith("OK") and "outcome" in said[0], said
    assert not said[1].startswith("OK") and "outcome statement" in said[1], said
