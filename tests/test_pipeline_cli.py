"""The operator CLI: pbem game create|list|show|pause|resume, player rotate-key, audit GAME."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pipeline_kit import body_of
from sqlmodel import select

from engine.cca.tables import BUNDLED as TABLES
from pbem import sshsig
from pbem.cli import main
from pbem.demo import check_system
from pbem.store import Game, GameStatus, OutboxMessage, Store

pytestmark = pytest.mark.skipif(check_system() is not None, reason="engine not ready")


def _pub(tmp_path: Path, name: str) -> Path:
    """A fresh key pair: the private key at tmp_path/name, its public key at name.pub."""
    path = tmp_path / f"{name}.pub"
    sshsig.write_private_key(tmp_path / name, sshsig.generate_private_key(), name)
    return path


def _join(
    tmp_path: Path, cfg: Path, capsys: pytest.CaptureFixture[str], game: str, *, side: str, key: str
) -> int:
    """The player prints a signed join statement; the operator records it."""
    assert main(["join-statement", game, side, "-f", str(tmp_path / key)]) == 0
    signed = tmp_path / f"join-{side}.txt"
    signed.write_text(capsys.readouterr().out, encoding="utf-8")
    return main(["game", "--config", str(cfg), "join", game, str(signed)])


@pytest.fixture
def cfg(tmp_path: Path, db_url: str) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(
        f'data_dir = "{tmp_path / "data"}"\n[database]\nurl = "{db_url}"\n'
        '[mail]\naddress = "pbem@game.test"\n'
    )
    return path


def test_create_list_show_pause_resume_rotate_audit(
    tmp_path: Path, cfg: Path, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    north, south = _pub(tmp_path, "ann"), _pub(tmp_path, "bob")
    assert (
        main(
            [
                "game",
                "--config",
                str(cfg),
                "create",
                "001",
                "--id",
                "ak-1",
                "--north",
                f"Ann:ann@x.test:{north}",
                "--south",
                f"Bob:bob@y.test:{south}",
                "--deadline",
                "48h",
                "--reminder",
                "6h",
                "--tz",
                "north=Europe/Paris",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "created ak-1" in out and "dice commitment" in out
    assert "waiting for every player's signed join" in out
    with store.transaction() as s:
        game = s.get(Game, "ak-1")
        assert game is not None and game.status == GameStatus.SETUP
        invites = s.exec(select(OutboxMessage)).all()
        assert sorted(m.recipient for m in invites) == ["ann@x.test", "bob@y.test"]
    assert _join(tmp_path, cfg, capsys, "ak-1", side="north", key="ann") == 0
    assert "game setup" in capsys.readouterr().out
    assert (
        _join(tmp_path, cfg, capsys, "ak-1", side="south", key="ann") != 0
    )  # Ann's key, Bob's seat
    assert "must be signed with the key registered for you" in capsys.readouterr().err
    assert _join(tmp_path, cfg, capsys, "ak-1", side="south", key="bob") == 0
    assert "game active" in capsys.readouterr().out
    with store.transaction() as s:
        game = s.get(Game, "ak-1")
        assert game is not None and game.status == GameStatus.ACTIVE
        starts = [m for m in s.exec(select(OutboxMessage)).all() if m.kind == "start"]
        assert len(starts) == 2  # after the two invitations
        # Each start mail names the rules tables the game is played with (docs/tables.md).
        bodies = [body_of(r).replace("\r\n", "\n") for r in starts]
        assert all(f"Rules tables (SHA-256):\n  {TABLES.sha256}" in b for b in bodies)
    assert main(["game", "--config", str(cfg), "list"]) == 0
    assert "ak-1" in capsys.readouterr().out
    assert main(["game", "--config", str(cfg), "show", "ak-1"]) == 0
    shown = capsys.readouterr().out
    assert "ann@x.test" in shown and "Europe/Paris" in shown and "deadline" in shown
    assert "summary    banners: north 0/5 / south 0/5" in shown  # the system's one line
    assert main(["game", "--config", str(cfg), "pause", "ak-1"]) == 0
    assert main(["game", "--config", str(cfg), "pause", "ak-1"]) != 0  # already paused
    assert main(["game", "--config", str(cfg), "resume", "ak-1"]) == 0
    new = _pub(tmp_path, "ann2")
    assert main(["player", "--config", str(cfg), "rotate-key", "ann@x.test", str(new)]) == 0
    capsys.readouterr()
    out_file = tmp_path / "ak-1.json"
    assert main(["audit", "ak-1", "--out", str(out_file), "--config", str(cfg)]) == 0
    assert "OK ak-1" in capsys.readouterr().out
    record = json.loads(out_file.read_text())
    assert record["deck"]["revealed"] is False and "keys" not in record["deck"]
    # The rules tables the game is played with (docs/tables.md), by their SHA-256.
    assert record["tables_sha256"] == TABLES.sha256
    assert main(["audit", str(out_file)]) == 0  # the file check still works


def test_create_without_key_prints_an_invite_token(
    tmp_path: Path, cfg: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    south = _pub(tmp_path, "bob")
    assert (
        main(
            [
                "game",
                "--config",
                str(cfg),
                "create",
                "001",
                "--id",
                "ak-2",
                "--north",
                "Ann:ann@x.test",
                "--south",
                f"Bob:bob@y.test:{south}",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "invite token for north" in out and "mailed to ann@x.test" in out
    assert "invite token for south" not in out  # Bob's seat has his key


def test_create_seats_players_by_side_of_any_system(
    tmp_path: Path, cfg: Path, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    north, south = _pub(tmp_path, "ann"), _pub(tmp_path, "bob")
    base = ["game", "--config", str(cfg), "create", "toy-race", "--id", "race-1"]
    assert main([*base, "--seat", f"north=Ann:ann@x.test:{north}"]) != 0
    assert "no player for south" in capsys.readouterr().err
    assert main([*base, "--seat", f"east=Ann:ann@x.test:{north}"]) != 0
    assert "SIDE one of north, south" in capsys.readouterr().err
    seats = ["--seat", f"north=Ann:ann@x.test:{north}", "--seat", f"south=Bob:bob@y.test:{south}"]
    assert main([*base, *seats]) == 0
    assert "created race-1" in capsys.readouterr().out
    with store.transaction() as s:
        game = s.get(Game, "race-1")
        assert game is not None and game.system == "toy"


def test_create_a_game_against_the_bot(
    tmp_path: Path, cfg: Path, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--vs bot:N``: the bot takes the side nobody was given; only the player is mailed."""
    north = _pub(tmp_path, "ann")
    base = ["game", "--config", str(cfg), "create", "toy-race", "--id", "race-2"]
    assert main([*base, "--vs", "bot:9", "--seat", f"north=Ann:ann@x.test:{north}"]) != 0
    assert "unknown bot level" in capsys.readouterr().err
    assert main([*base, "--vs", "bot", "--missed-turn", "autopilot"]) != 0
    assert "--vs bot plays the one side no --seat names" in capsys.readouterr().err
    assert main([*base, "--vs", "bot:1", "--seat", f"north=Ann:ann@x.test:{north}"]) == 0
    out = capsys.readouterr().out
    assert "the bot (level 1) plays south" in out
    assert "waiting for every player's signed join" in out
    assert _join(tmp_path, cfg, capsys, "race-2", side="north", key="ann") == 0
    with store.transaction() as s:
        game = s.get(Game, "race-2")
        assert game is not None and game.status == GameStatus.ACTIVE
        assert json.loads(game.options_json)["settings"]["bots"] == {"south": 1}
        recipients = {m.recipient for m in s.exec(select(OutboxMessage)).all()}
    assert recipients == {"ann@x.test"}
    assert main(["game", "--config", str(cfg), "show", "race-2"]) == 0
    assert "bot:1 <bot-1@bot.invalid>" in capsys.readouterr().out
