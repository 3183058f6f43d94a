"""``pbem demo``: scripted players play C&C Ancients (Akragas) by signed mail over loopback SMTP."""

from __future__ import annotations

import asyncio
import copy
import email
import email.policy
import json
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
from audit_kit import finished_demo
from mail_lint import lint_raw_or_raise

from pbem.cli import main as pbem_main
from pbem.demo import check_system, run_demo

VERIFIER = Path(__file__).resolve().parent.parent / "verify_dice.py"

pytestmark = pytest.mark.skipif(check_system() is not None, reason="engine not ready")


def test_demo_reduced_plays_turns_by_mail(tmp_path: Path) -> None:
    result = asyncio.run(run_demo(tmp_path, seed=3, max_epochs=6, timeout=40))
    assert result.epochs >= 6 or result.finished, result.message
    assert result.mails_from_players >= 6
    assert result.mails_to_players >= 2 + 6  # start mails, then at least a mail per epoch
    saved = sorted(result.mails_dir.glob("*.eml"))
    assert len(saved) == result.mails_to_players
    for path in saved:  # every mail a client treats as mail (issue 14)
        lint_raw_or_raise(path.read_bytes(), path.name)
    assert result.audit.startswith("OK"), result.audit
    _turn_mails_draw_the_turn_from_each_players_side(saved)


def _turn_mails_draw_the_turn_from_each_players_side(saved: list[Path]) -> None:
    """Issue 14: each player's board is seen from his edge, with last turn's moves drawn."""
    seen: dict[str, int] = {"north": 0, "south": 0}
    arrows = 0
    for path in saved:
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        text_part = msg.get_body(("plain",))
        text = "" if text_part is None else text_part.get_content()
        if "Flanks as" not in " ".join(text.split()):
            continue
        header = next(line.split() for line in text.splitlines() if line.startswith("    A ")
                      or line.startswith("    M "))  # fmt: skip
        side = "north" if "Flanks as North sees them." in " ".join(text.split()) else "south"
        assert header[0] == ("M" if side == "north" else "A"), path.name
        seen[side] += 1
        svgs = [p for p in msg.iter_attachments() if p.get_content_type() == "image/svg+xml"]
        if "Moved last turn:" in text:
            assert svgs
            svg = svgs[0].get_content()
            svg = svg.decode() if isinstance(svg, bytes) else svg
            moves = svg[svg.index('<g class="moves">') : svg.index('<g class="battles">')]
            assert "<polyline" in moves, path.name
            arrows += 1
    assert seen["north"] and seen["south"], seen
    assert arrows, "no turn mail drew a move"


@pytest.mark.slow
def test_demo_complete_game(tmp_path: Path) -> None:
    result = asyncio.run(run_demo(tmp_path, seed=7, timeout=120))
    assert result.finished, result.message
    assert result.winner in ("north", "south")
    assert "shuffles recomputed" in result.audit and result.audit.startswith("OK")
    for path in sorted(result.mails_dir.glob("*.eml")):  # the end mails too (issue 14)
        lint_raw_or_raise(path.read_bytes(), path.name)


def test_demo_game_audits_and_refuses_altered_dice_or_deck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11: a finished demo game re-verifies under protocol v2 (format 3); a changed
    die, shuffle or drawn card does not, with either verifier."""
    result, record = finished_demo(tmp_path)
    assert result.audit.startswith("OK") and "shuffles recomputed" in result.audit, result.audit
    assert [j["side"] for j in record["joins"]] == ["north", "south"]
    assert all(e["orders"] is not None for e in record["epochs"])
    honest = tmp_path / "honest.json"
    honest.write_text(json.dumps(record), encoding="utf-8")
    assert pbem_main(["audit", str(honest)]) == 0
    assert capsys.readouterr().out.startswith(f"OK {result.game_id}: 2 joins")

    rolled = next(e for e in record["epochs"] if e["rolls"])
    die = copy.deepcopy(record)
    roll = next(e for e in die["epochs"] if e["rolls"])["rolls"][0]
    roll["face"] = "F" if roll["face"] != "F" else "S"
    deck = copy.deepcopy(record)
    order = deck["shuffles"][0]["order"]
    order[0], order[1] = order[1], order[0]
    drawn = copy.deepcopy(record)
    at, draw = next((i, m) for i, m in enumerate(drawn["cards"]["moves"]) if m["move"] == "draw")
    honest, draw["card"] = draw["card"], "LT" if draw["card"] != "LT" else "MT"
    for name, bad, said in (
        ("dice", die, f"FAIL epoch {rolled['epoch']}, roll 1 "),
        ("deck", deck, "FAIL shuffle 1 (epoch 0, shuffle the command deck): position 0 holds"),
        (
            "draw",
            drawn,
            f"FAIL cards.moves[{at}]: {draw['side']} draws {draw['card']} at position 0 of "
            f"shuffle 1, recomputed {honest}",
        ),
    ):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(bad), encoding="utf-8")
        assert pbem_main(["audit", str(path)]) == 1
        assert capsys.readouterr().out.startswith(said)
        standalone = subprocess.run(
            [sys.executable, "-I", str(VERIFIER), str(path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert standalone.returncode == 1 and standalone.stdout.startswith(said)
