"""Position format v2 (docs/position-format.md): chained ``pbem engine resolve`` calls.

The position written after one ``resolve`` is the exact input of the next:
standing orders of both sides, turn counts, the last card, markers and a
pending question survive the file, so a game played call by call ends in the
state the API reaches playing the same turns in one process.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_engine_cli import ORDERS, POSITION  # the same small battle as the CLI tests

from engine.cca.autoplay import play_random_game
from engine.cca.position import load_position, write_position
from engine.core.api import PositionError
from engine.randomness import ScriptedDice
from engine.systems import get_system
from pbem.cli import main

SYS = get_system("cca")
ROOT = Path(__file__).resolve().parent.parent


TURN1 = ORDERS
TURN2 = "game t-one\nturn 2\ncard 2C\norder F5\nattack F5 at F4\n"
DICE1 = ["G"] * 4  # the MI's attack: no hit, no flag, so the HI may battle back
DICE2 = ["G"] * 5  # the HI battles back: no hit
DICE3 = ["B"] + ["G"] * 8  # north's HI attacks: 1 hit; the MI battles back with 4 dice


def _cli(*args: str) -> int:
    return main(["engine", "resolve", *args])


def test_three_chained_resolve_calls_reproduce_the_api_game(tmp_path: Path) -> None:
    (tmp_path / "p0.toml").write_text(POSITION)
    (tmp_path / "t1.txt").write_text(TURN1)
    (tmp_path / "t2.txt").write_text(TURN2)
    (tmp_path / "north.txt").write_text("battle-back: ask\n")
    (tmp_path / "a.txt").write_text("battle-back\n")
    # 1: south's orders, with north's standing orders (the other side's): the turn
    #    pauses on north's battle-back question, and the file keeps the pause.
    assert (
        _cli(
            "--position",
            str(tmp_path / "p0.toml"),
            "--orders",
            str(tmp_path / "t1.txt"),
            "--standing",
            f"north={tmp_path / 'north.txt'}",
            "--dice",
            ",".join(DICE1),
            "--write-position",
            str(tmp_path / "p1.toml"),
        )
        == 0
    )
    p1 = (tmp_path / "p1.toml").read_text()
    assert p1.startswith('format = "pbem-position/2"') and "[pending]" in p1
    # 2: north's answer alone (no orders): the paused turn goes on.
    assert (
        _cli(
            "--position",
            str(tmp_path / "p1.toml"),
            "--answers",
            str(tmp_path / "a.txt"),
            "--dice",
            ",".join(DICE2),
            "--write-position",
            str(tmp_path / "p2.toml"),
        )
        == 0
    )
    # 3: north's turn.
    assert (
        _cli(
            "--position",
            str(tmp_path / "p2.toml"),
            "--orders",
            str(tmp_path / "t2.txt"),
            "--dice",
            ",".join(DICE3),
            "--write-position",
            str(tmp_path / "p3.toml"),
        )
        == 0
    )

    st = SYS.new_game(SYS.load_position(POSITION), None, ScriptedDice([]))
    steps = [
        ("north", "game t-one\nturn 1\nside north\nstanding battle-back: ask\n", []),
        ("south", TURN1, DICE1),
        ("north", "game t-one\nturn 1\nanswer battle-back\n", DICE2),
        ("north", TURN2, DICE3),
    ]
    for side, text, dice in steps:
        st = SYS.resolve(st, SYS.parse_orders(st, side, text), ScriptedDice(dice)).state
    assert st.turn == 3 and st.sides["north"].turns == 1
    assert st.last_card == {"side": "north", "code": "2C", "section": None}
    chained = SYS.new_game(
        SYS.load_position((tmp_path / "p3.toml").read_text()), None, ScriptedDice([])
    )
    assert SYS.to_json(chained) == SYS.to_json(st)


def test_without_orders_a_position_waiting_for_orders_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p0.toml").write_text(POSITION)
    assert _cli("--position", str(tmp_path / "p0.toml"), "--dice", "G") == 2
    assert "give --orders" in capsys.readouterr().err


@pytest.mark.parametrize("scenario", ["001-akragas", "015-zama"])
def test_every_position_of_a_random_game_reads_back_exactly(scenario: str) -> None:
    """Mid-turn questions, eliminated units, banners and markers all survive the file."""
    [path] = (ROOT / "scenarios" / "cca").glob(f"{scenario}*.toml")
    seen = {"states": 0, "pending": 0}

    def check(state: object, _step: object) -> None:
        back = load_position(write_position(state))  # type: ignore[arg-type]
        assert SYS.to_json(back) == SYS.to_json(state)
        seen["states"] += 1
        seen["pending"] += state.pending is not None  # type: ignore[attr-defined]

    play_random_game(SYS, SYS.load_position(path.read_text()), b"\x00", 40, on_step=check)
    assert seen["states"] > 10 and seen["pending"] > 0


def test_a_hand_edited_position_with_two_units_of_one_id_is_refused() -> None:
    text = write_position(SYS.new_game(SYS.load_position(POSITION), None, ScriptedDice([])))
    text = text.replace("id=N2", "id=N1")
    with pytest.raises(PositionError, match=r"line \d+: two units have the id N1"):
        load_position(text)
