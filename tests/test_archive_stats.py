"""Dice fairness (issue 18): a biased stream is flagged, a fair one of the same size is not.

The fair stream is the real committed stream (``engine.dice.roll_faces`` under a
fixed key); the biased one comes from a seeded ``random.Random`` that favours
one face. Both are deterministic, so the verdicts are too.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.core.capabilities import DICE_LUCK, find
from engine.dice import roll_faces
from engine.randomness import ScriptedDice
from engine.systems import get_system
from pbem.archive.plots import faces_png, luck_png
from pbem.archive.stats import ALPHA, Tally, report, report_lines
from pbem.cli import main as pbem_main

N = 1200
CC = get_system("cca").dice["cc-battle"]


def _fair_faces(n: int = N) -> list[str]:
    key = bytes(range(32))
    return list(roll_faces(key, "fair-game", 1, b"\x00" * 32, die=CC, counters=range(1, n + 1)))


def _biased_faces(n: int = N) -> list[str]:
    rng = random.Random(18)
    # Swords come up 25% of the time instead of 16.7%.
    return rng.choices(CC.faces, weights=[15, 15, 15, 15, 15, 25], k=n)


def _tally(faces: list[str]) -> Tally:
    t = Tally()
    for f in faces:
        t.add_roll("cc-battle", CC.faces, f)
    return t


def test_a_biased_stream_is_flagged_and_a_fair_one_of_the_same_size_is_not() -> None:
    biased = report("biased", _tally(_biased_faces()))
    fair = report("fair", _tally(_fair_faces()))
    assert biased.dice == fair.dice == N
    assert biased.flagged and biased.faces[0].p_value < ALPHA
    assert not fair.flagged and fair.faces[0].p_value > 0.01
    assert "FLAGGED" in "\n".join(report_lines(biased))
    assert "FLAGGED" not in "\n".join(report_lines(fair))


def test_luck_flags_dice_that_hit_too_often_and_finds_the_extreme_run() -> None:
    rng = random.Random(5)
    lucky, fair = Tally(), Tally()
    for _ in range(400):  # three dice, one face in six hits
        fair.add_throw([rng.choice(CC.faces) for _ in range(3)], {"R"}, 6)
        lucky.add_throw(rng.choices(["R", "G"], weights=[1, 2], k=3), {"R"}, 6)
    assert report("lucky", lucky).luck.flagged
    assert not report("fair", fair).luck.flagged
    streak = Tally()
    for i in range(30):  # misses all game but a lucky stretch at throws 11-15
        streak.add_throw(["R", "R"] if 10 <= i < 15 else ["G", "B"], {"R"}, 6)
    run = report("streak", streak).luck.run
    assert run is not None and (run.first, run.last) == (11, 15) and run.hits == 10


def test_too_few_dice_are_never_flagged() -> None:
    rep = report("short", _tally(["S"] * 12))
    assert not rep.faces[0].trusted and not rep.flagged
    assert "too few dice to judge" in report_lines(rep)[1]


def test_plots_are_png() -> None:
    rep = report("fair", _tally(_fair_faces(120)))
    assert faces_png(rep.faces, "fair").startswith(b"\x89PNG")
    assert luck_png({"north": rep.luck}, "fair").startswith(b"\x89PNG")


def _record(path: Path, faces: list[str]) -> Path:
    rolls = [{"counter": i, "purpose": "test", "die": "cc-battle", "face": f}
             for i, f in enumerate(faces, 1)]  # fmt: skip
    path.write_text(json.dumps({
        "format": "pbem-audit", "version": 2, "game_id": path.stem, "system": "cca",
        "system_version": "1", "epochs": [{"epoch": 1, "side": "north", "rolls": rolls}],
    }), encoding="utf-8")  # fmt: skip
    return path


def test_pbem_audit_stats_flags_a_biased_record_and_passes_a_fair_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pbem_main(["audit", "stats", str(_record(tmp_path / "fair.json", _fair_faces()))]) == 0
    out = capsys.readouterr().out
    assert "game fair: 1200 dice" in out and "FLAGGED" not in out
    biased = _record(tmp_path / "biased.json", _biased_faces())
    assert pbem_main(["audit", "stats", str(biased)]) == 1
    out = capsys.readouterr().out
    assert "FLAGGED: game biased" in out and "chi-squared" in out


def test_pbem_audit_stats_says_why_a_file_is_not_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    assert pbem_main(["audit", "stats", str(bad)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cca_battle_dice_name_their_hit_faces() -> None:
    """§10.6: medium infantry in close combat hits heavy infantry on R and on swords."""
    system = get_system("cca")
    luck = find(system, DICE_LUCK)
    assert luck is not None
    from test_cases import build_position, load_case

    case = load_case(Path(__file__).parent / "cases" / "s10-6-mi-hits-heavy-on-red-and-swords.toml")
    state = system.new_game(system.load_position(build_position(case)), None, ScriptedDice([]))
    text = f"game {state.game_id}\nturn {state.turn}\n{case['orders']}"
    dice = ScriptedDice(["R", "S", "F", "G"])
    res = system.resolve(state, system.parse_orders(state, "south", text), dice)
    (throw,) = luck.throws([e.to_dict() for e in res.events])
    assert throw.side == "south" and throw.faces == ("R", "S", "F", "G")
    assert throw.hit_faces == {"R", "S"}


def test_toy_dice_hit_on_four_or_more() -> None:
    luck = find(get_system("toy"), DICE_LUCK)
    assert luck is not None
    (throw,) = luck.throws([{"kind": "play", "text": "north plays 3 and rolls 5",
                             "data": {"side": "north"}, "dice": ["5"]}])  # fmt: skip
    assert throw.side == "north" and throw.hit_faces == {"4", "5", "6"}
