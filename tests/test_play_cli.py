"""``pbem play``: a hot-seat game read from stdin (docs/engine-cli.md)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pbem.cli import main

POSITION = """\
format = "pbem-position/1"
system = "cca"
[meta]
id = "t-play"
name = "Play test"
year = "0"
[sides.north]
army = "N"
command = 3
banners = 1
units = ["F5 HI blocks=1", "A9 LI"]
[sides.south]
army = "S"
command = 3
banners = 1
first = true
units = ["F4 MI", "A1 LI"]
[cards]
deck = ["3L", "3C", "3R", "LT"]
hands = { north = ["2L", "2C", "MT"], south = ["2C", "2L", "HT"] }
discard = []
[state]
to_move = "south"
turn = 1
"""


def _play(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    path: Path,
    stdin: str,
    *extra: str,
) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["play", str(path), *extra])
    return code, capsys.readouterr().out


def test_scripted_bundled_game_two_turns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The docs' example: two turns of Akragas typed on stdin, then quit."""
    script = "card LN\norder D3\nmove D3 to D4\nend\ncard LT\norder E7\nmove E7 to E6\n\n\nquit\n"
    code, out = _play(monkeypatch, capsys, Path("001"), script, "--seed", "01")
    assert code == 0
    assert "south LB moves D3 > D4" in out
    assert "north LB moves E7 > E6" in out
    assert "Turn 3: south plays a card" in out
    assert " 1 " in out or "A    B" in out  # the board was drawn


def test_refused_orders_are_explained_and_retyped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pos = tmp_path / "p.toml"
    pos.write_text(POSITION)
    script = "card 3C\norder F4\nend\ncard 2C\norder F4\nattack F4 at F5\nend\n"
    code, out = _play(monkeypatch, capsys, pos, script, "--seed", "00", "--no-board")
    assert code == 0
    assert "refused:" in out and "line 1: 'card 3C'" in out
    assert "south MI F4 attacks north HI F5" in out


def test_a_game_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """§4.1: one banner wins; with seed 02 the first attack destroys the 1-block HI."""
    pos = tmp_path / "p.toml"
    pos.write_text(POSITION)
    script = "card 2C\norder F4\nattack F4 at F5\nend\n"
    code, out = _play(monkeypatch, capsys, pos, script, "--seed", "02", "--no-board")
    assert code == 0
    assert out.rstrip().endswith("The battle is over: south wins.")


def test_question_at_the_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """§14: the defender is asked whether to evade and answers on the next line."""
    pos = tmp_path / "p.toml"
    pos.write_text(POSITION.replace('"F5 HI blocks=1"', '"F5 LI"'))
    script = "card 2C\norder F4\nattack F4 at F5\nend\nevade\nquit\n"
    code, out = _play(monkeypatch, capsys, pos, script, "--seed", "03", "--no-board")
    assert code == 0
    assert "north, a question:" in out and "answers:" in out
    assert "evade" in out.split("north, a question:")[1]


def test_unknown_scenario_is_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "no-such-battle"]) == 2


def test_hot_seat_mixes_a_nonce_per_side_into_the_deal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11: hot-seat games join on the players' behalf: the seed and the printed
    nonces replay a game, and another nonce deals other hands."""
    nonces = ["--nonce", "north=" + "aa" * 32, "--nonce", "south=" + "55" * 32]
    code, first = _play(monkeypatch, capsys, Path("001"), "quit\n", "--seed", "01", *nonces)
    assert code == 0
    assert f"nonces north={'aa' * 32} south={'55' * 32}" in first
    code, again = _play(monkeypatch, capsys, Path("001"), "quit\n", "--seed", "01", *nonces)
    hand = next(line for line in first.splitlines() if line.startswith("south hand"))
    assert hand in again
    other = ["--nonce", "north=" + "ab" * 32, "--nonce", "south=" + "55" * 32]
    code, changed = _play(monkeypatch, capsys, Path("001"), "quit\n", "--seed", "01", *other)
    assert hand not in changed
    code, random = _play(monkeypatch, capsys, Path("001"), "quit\n")
    code, again = _play(monkeypatch, capsys, Path("001"), "quit\n")
    assert "nonces north=" in random and random.splitlines()[1] != again.splitlines()[1]
    code, _ = _play(monkeypatch, capsys, Path("001"), "quit\n", "--nonce", "west=00")
    assert code == 2


def test_the_screen_is_passed_and_only_the_side_to_acts_hand_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hot seat: between the two sides the screen is cleared and waits for Enter."""
    pos = tmp_path / "p.toml"
    pos.write_text(POSITION)
    script = "card 3C\norder F4\nend\ncard 2C\norder F4\nend\n\ncard 2L\nend\nquit\n"
    code, out = _play(
        monkeypatch, capsys, pos, script, "--seed", "00", "--no-board", "--pass-screen"
    )
    assert code == 0
    before, after = out.split("Pass the screen to north. north, press Enter", 1)
    assert "south hand: 2C (" in before and "north hand:" not in before
    assert "north hand: 2L (" in after and "south hand:" not in after
    assert "\n" * 30 in before  # the south hand scrolled away before the handover


def test_the_terminal_prompt_edits_lines_and_keeps_history() -> None:
    """prompt-toolkit at the prompt: Backspace edits the line, Up recalls the last one."""
    pytest.importorskip(
        "prompt_toolkit", reason="a venv made before the dependency: ./scripts/setup"
    )
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from pbem.commands.play import Terminal, prompt_session

    with create_pipe_input() as keys:
        term = Terminal(io.StringIO(), session=prompt_session(input=keys, output=DummyOutput()))
        assert term.interactive
        keys.send_text("card 2X\x7fC\r")
        assert term.read("south> ") == "card 2C"
        keys.send_text("\x1b[A\r")  # Up arrow, Enter
        assert term.read("south> ") == "card 2C"
        keys.close()
        assert term.read("south> ") is None  # end of input: the game ends quietly


def test_hot_seat_against_the_bot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--vs bot``: the bot answers for its side with one line of explanation, to the end."""
    position = Path(__file__).resolve().parent.parent / "scenarios" / "toy" / "race.toml"
    script = "".join(f"card {c}\nend\n" for c in "123456789" * 6) + "answer allow\n" * 30
    code, out = _play(
        monkeypatch, capsys, position, script, "--seed", "02", "--vs", "bot:1", "--no-board"
    )
    assert code == 0
    assert "you play north; bot:1 plays south" in out
    assert "bot:1: south plays card" in out
    assert "% win estimate" in out or "the only choice" in out


def test_the_bot_level_is_checked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "001", "--vs", "bot:7"]) == 2
    assert "unknown bot level" in capsys.readouterr().err
