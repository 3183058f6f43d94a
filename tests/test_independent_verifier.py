"""Issue 11: a verifier written from docs/audit.md alone agrees with the referee.

``tests/independent_verifier/verify.py`` imports nothing from pbem or engine
and was written by reading only docs/audit.md: it re-derives the players'
nonce share, the dice, the shuffles, every drawn card and the referee's
signed end of the ``GAME_AUDIT.json`` a finished demo game mails its players,
and refuses the record once a die, a shuffle, a draw, the length or the dice
faces are altered. If this test fails after a change of the record, the
document no longer says how to check it.
"""

from __future__ import annotations

import copy
import email
import email.policy
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from audit_kit import finished_demo, imports_only_the_standard_library, record

from pbem.demo import check_system

VERIFY = Path(__file__).resolve().parent / "independent_verifier" / "verify.py"

pytestmark = [
    pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed"),
    pytest.mark.skipif(check_system() is not None, reason="engine not ready"),
]


def verdict(tmp_path: Path, record: dict[str, Any], name: str) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-I", str(VERIFY), str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    return proc.stdout.strip() + proc.stderr.strip()


@pytest.fixture(scope="module")
def mailed_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The GAME_AUDIT.json attached to a finished demo game's last mail."""
    result, _ = finished_demo(tmp_path_factory.mktemp("demo"))
    for path in sorted(result.mails_dir.glob("*.eml"), reverse=True):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        for part in msg.iter_attachments():
            if part.get_filename() == "GAME_AUDIT.json":
                data = part.get_content()
                text = data.decode("utf-8") if isinstance(data, bytes) else data
                record: dict[str, Any] = json.loads(text)
                return record
    raise AssertionError("no end mail attached GAME_AUDIT.json")


def test_it_imports_neither_pbem_nor_engine() -> None:
    assert imports_only_the_standard_library(VERIFY)


def test_the_mailed_record_of_a_demo_game_verifies(
    tmp_path: Path, mailed_record: dict[str, Any]
) -> None:
    out = verdict(tmp_path, mailed_record, "GAME_AUDIT.json")
    assert out.startswith(f"OK {mailed_record['game_id']}: "), out
    assert mailed_record["deck"]["revealed"] is True
    draws = [m for m in mailed_record["cards"]["moves"] if m["move"] == "draw"]
    assert f"{len(draws)} draws" in out and draws


def _rolled(rec: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in rec["epochs"] if e["rolls"])


def change_a_die(rec: dict[str, Any]) -> None:
    roll = _rolled(rec)["rolls"][0]
    roll["face"] = "F" if roll["face"] != "F" else "S"


def change_the_order(rec: dict[str, Any]) -> None:
    order = rec["shuffles"][0]["order"]
    order[0], order[1] = order[1], order[0]


def change_a_draw(rec: dict[str, Any]) -> None:
    draw = next(m for m in rec["cards"]["moves"] if m["move"] == "draw")
    draw["card"] = "LT" if draw["card"] != "LT" else "MT"


def drop_a_draw(rec: dict[str, Any]) -> None:
    moves = rec["cards"]["moves"]
    moves.remove(next(m for m in moves if m["move"] == "draw"))


def give_a_draw_to_the_other_side(rec: dict[str, Any]) -> None:
    draw = next(m for m in rec["cards"]["moves"] if m["move"] == "draw")
    draw["side"] = "south" if draw["side"] == "north" else "north"


def truncate_the_epochs(rec: dict[str, Any]) -> None:
    del rec["epochs"][-1]


def foreign_die_faces(rec: dict[str, Any]) -> None:
    rec["die_faces"]["cc-battle2"] = ["S"] * 6
    for roll in _rolled(rec)["rolls"]:
        roll["die"] = "cc-battle2"


def change_a_nonce(rec: dict[str, Any]) -> None:
    join = rec["joins"][0]
    nonce = join["statement"].rsplit(" ", 1)[1].strip()
    join["statement"] = join["statement"].replace(nonce, "0" * 64)


@pytest.mark.parametrize(
    "alter",
    [
        change_a_die,
        change_the_order,
        change_a_draw,
        drop_a_draw,
        give_a_draw_to_the_other_side,
        truncate_the_epochs,
        foreign_die_faces,
        change_a_nonce,
    ],
)
def test_an_altered_record_is_refused(
    tmp_path: Path, mailed_record: dict[str, Any], alter: Callable[[dict[str, Any]], None]
) -> None:
    rec = copy.deepcopy(mailed_record)
    alter(rec)
    out = verdict(tmp_path, rec, "altered.json")
    assert out.startswith("BAD "), out


@pytest.mark.parametrize("game_over", [True, False])
def test_it_reads_a_record_of_a_game_over_or_in_progress(tmp_path: Path, game_over: bool) -> None:
    out = verdict(tmp_path, record(game_over=game_over), "kit.json")
    assert out.startswith("OK club-2026-007: 5 epochs, 32 rolls, 2 shuffles, 15 draws"), out


def test_a_record_with_rule_options_verifies_and_a_changed_option_is_refused(
    tmp_path: Path,
) -> None:
    # docs/audit.md: the referee's end signs the game's rule options (e.g. turnover).
    rec = record(game_over=True, options={"turnover": True})
    assert verdict(tmp_path, rec, "options.json").startswith("OK club-2026-007: "), rec
    rec["options"] = {"turnover": False}
    assert verdict(tmp_path, rec, "changed.json").startswith("BAD "), rec
    del rec["options"]
    assert verdict(tmp_path, rec, "dropped.json").startswith("BAD "), rec


def test_dice_rolled_without_the_players_nonces_are_refused(tmp_path: Path) -> None:
    # The referee's seed alone (protocol v1), the nonces shown for form's sake.
    out = verdict(tmp_path, record(game_over=True, mixed=False), "seed-only.json")
    assert out.startswith("BAD Bad: epoch 1, roll 1: "), out
