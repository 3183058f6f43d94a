"""``pbem engine resolve|legal|template`` (docs/engine-cli.md): report, dice, answers, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.cli import main

POSITION = """\
format = "pbem-position/1"
system = "cca"
[meta]
id = "t-one"
name = "Test"
year = "0"
[sides.north]
army = "N"
command = 3
banners = 3
units = ["F5 HI", "A9 LI", "C5 LI"]
[sides.south]
army = "S"
command = 3
banners = 3
first = true
units = ["F4 MI", "A1 LI", "C4 MI"]
[cards]
deck = ["3L", "3C", "3R", "LT"]
hands = { north = ["2L", "2C", "MT"], south = ["2C", "2L", "HT"] }
discard = []
[state]
to_move = "south"
turn = 1
"""

ORDERS = "game t-one\nturn 1\ncard 2C\norder F4\nattack F4 at F5\n"

RETREAT = "# north: the HI's retreat path (two are legal: §12.2.1, the owner chooses)\nF6\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "p.toml").write_text(POSITION)
    (tmp_path / "o.txt").write_text(ORDERS)
    (tmp_path / "r.txt").write_text(RETREAT)
    return tmp_path


def _resolve(files: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main(
        [
            "engine",
            "resolve",
            "--position",
            str(files / "p.toml"),
            "--orders",
            str(files / "o.txt"),
            *extra,
        ]
    )
    out = capsys.readouterr()
    return code, out.out, out.err


def test_resolve_json_with_scripted_dice(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """§10.6/§12: R, R, S hit heavy infantry, the flag pushes it 1 hex, the MI advances."""
    code, out, _ = _resolve(
        files, capsys, "--dice", "R,R,S,F", "--answers", str(files / "r.txt"), "--json"
    )
    assert code == 0
    rep = json.loads(out)
    assert rep["format"] == "pbem-engine-result/1"
    units = {u["hex"]: u for u in rep["state"]["units"]}
    assert units["F6"]["type"] == "HI" and units["F6"]["blocks"] == 1
    assert units["F5"]["type"] == "MI" and units["F5"]["side"] == "south"
    battle = [e for e in rep["events"] if e["kind"] == "battle"]
    assert battle[0]["dice"] == ["R", "R", "S", "F"]
    assert rep["dice"] == {**rep["dice"], "source": "scripted", "given": 4, "used": 4, "unused": 0}
    assert rep["state"]["hands"]["south"] == ["2L", "HT", "3L"]
    assert rep["state"]["banners"]["south"] == {"count": 0, "list": [], "needed": 3}
    assert rep["state"]["pending"] is None and rep["state"]["to_move"] == "north"
    assert rep["position"].startswith('format = "pbem-position/2"')


def test_too_few_dice_is_exit_2_with_a_clear_message(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _resolve(files, capsys, "--dice", "R,R", "--json")
    assert code == 2
    assert "not enough dice" in err and "needs 4" in err
    assert out == ""


def test_bad_die_face_is_exit_2(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _resolve(files, capsys, "--dice", "R,X")
    assert code == 2 and "'X' is not a face of the cca dice (cc-battle: G B R H F S)" in err


def test_no_dice_and_no_seed_is_exit_2(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _resolve(files, capsys)
    assert code == 2 and "--dice" in err and "--seed" in err


def test_unused_dice_are_reported(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _resolve(
        files, capsys, "--dice", "R,R,S,F,G,G", "--answers", str(files / "r.txt")
    )
    assert code == 0
    assert "2 of the 6 dice given were not used" in out
    assert "retreats F5 > F6" in out


def test_seeded_stream_is_repeatable(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = json.loads(_resolve(files, capsys, "--seed", "00ff", "--json")[1])
    b = json.loads(_resolve(files, capsys, "--seed", "00ff", "--json")[1])
    assert a == b
    assert a["dice"]["source"] == "seed" and len(a["dice"]["log"]) >= 4
    assert all(r["epoch"] == 1 for r in a["dice"]["log"])


def test_refused_orders_exit_1_with_line_and_code(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "o.txt").write_text("game t-one\nturn 1\ncard 3C\norder F4\n")
    code, out, _ = _resolve(files, capsys, "--dice", "R", "--json")
    assert code == 1
    rep = json.loads(out)
    assert rep["error"] == "orders"
    p = rep["problems"][0]
    assert p["line"] == 3 and p["quote"] == "card 3C" and "2C" in p["legal"]


def test_question_then_answers(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """§14: LI may evade; without an answer the turn waits, with --answers it goes on."""
    (files / "o.txt").write_text("game t-one\nturn 1\ncard 2L\norder C4\nattack C4 at C5\n")
    code, out, _ = _resolve(files, capsys, "--dice", "G,R,R,R", "--json")
    assert code == 0
    pend = json.loads(out)["state"]["pending"]
    assert pend["side"] == "north" and "evade" in pend["answers"]
    (files / "a.txt").write_text("# north evades\nevade\n# and chooses the path (§14.2)\nC6 > D7\n")
    code, out, _ = _resolve(
        files, capsys, "--dice", "G,R,R,R", "--answers", str(files / "a.txt"), "--json"
    )
    rep = json.loads(out)
    assert code == 0 and rep["state"]["pending"] is None
    assert [s["epoch"] for s in rep["submissions"]] == [1, 2, 3]
    assert any(e["kind"] == "evade" for e in rep["events"])
    li = [
        u
        for u in rep["state"]["units"]
        if u["type"] == "LI" and u["side"] == "north" and u["hex"] != "A9"
    ]
    assert li[0]["blocks"] == 3 and li[0]["hex"] == "D7"


def test_write_position_chains_turns(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_pos = files / "next.toml"
    code, _, _ = _resolve(
        files,
        capsys,
        "--dice",
        "R,R,S,F",
        "--answers",
        str(files / "r.txt"),
        "--write-position",
        str(out_pos),
    )
    assert code == 0
    code = main(["engine", "template", "--position", str(out_pos)])
    text = capsys.readouterr().out
    assert code == 0 and "side north" in text and "turn 2" in text


def test_legal_lists_cards_reach_and_targets(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["engine", "legal", "--position", str(files / "p.toml"), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["side"] == "south"
    assert {c["code"] for c in rep["cards"]} == {"2C", "2L", "HT"}
    f4 = next(u for u in rep["units"] if u.get("hex") == "F4")
    assert f4["attack"] == ["F5"] and f4["fire"] == []
    a1 = next(u for u in rep["units"] if u.get("hex") == "A1")
    assert "A3" in a1["reach"] and "A4" not in a1["reach"]
    assert main(["engine", "legal", "--position", str(files / "p.toml"), "--card", "LN"]) == 0
    assert "A1 LI" in capsys.readouterr().out


def test_template(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engine", "template", "--position", str(files / "p.toml")]) == 0
    text = capsys.readouterr().out
    assert text.startswith("game t-one\nturn 1\nside south\n")


def test_missing_file_is_exit_1(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "engine",
            "resolve",
            "--position",
            str(files / "nope.toml"),
            "--orders",
            str(files / "o.txt"),
            "--dice",
            "R",
        ]
    )
    assert code == 1 and "cannot read" in capsys.readouterr().err


def test_orders_without_a_header_resolve_on_a_position(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pbem engine` tests positions: the game/turn header is the referee's business."""
    (files / "o.txt").write_text(ORDERS.split("turn 1\n", 1)[1])
    code, out, err = _resolve(
        files, capsys, "--dice", "R,R,S,F", "--answers", str(files / "r.txt"), "--json"
    )
    assert code == 0, out + err
    hi = next(u for u in json.loads(out)["state"]["units"] if u["type"] == "HI")
    # R, R and S hit a heavy unit: 3 hits; the flag drives it back 1 hex.
    assert (hi["hex"], hi["blocks"]) == ("F6", 1)
