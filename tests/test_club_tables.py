"""A club's own rules tables (docs/tables.md): copied into the game's state, read by the rules.

``pbem engine resolve --tables FILE`` and ``pbem game create --tables FILE``
check the file against the system's schema (every problem as FILE:LINE),
refuse a file for another system, and start the game on it: the state carries
the tables (its JSON and the positions it writes), the rules read every value
from there, and the SHA-256 of the file names them in the report, the start
mail and the audit record. Each test builds its own table fixture from the
bundled file with a club's value (never asserting a placeholder).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from pipeline_kit import body_of
from sqlmodel import select
from test_engine_cli import ORDERS, POSITION  # a small battle: south MI F4 attacks north HI F5

from engine.cca.tables import BUNDLED, SAME_AS_BUNDLED, load_cca_tables
from engine.core.capabilities import TABLES, find
from engine.randomness import ScriptedDice
from engine.systems import get_system
from pbem import sshsig
from pbem.cli import main
from pbem.demo import check_system
from pbem.store import Game, GameStatus, OutboxMessage, Store

SYS = get_system("cca")


def club(**changes: tuple[str, str]) -> str:
    """The bundled file with ``row=(field, value)`` changed (row ``units.MI``, written
    ``units__MI``), each change's provenance a club's."""
    lines = BUNDLED.text.splitlines()
    for row, (field, value) in changes.items():
        head = lines.index(f"[{row.replace('__', '.')}]")
        at = next(i for i in range(head + 1, len(lines)) if lines[i].startswith(f"{field} = "))
        lines[at] = f"{field} = {value}"
        mine = f'{field} = "club: our house rule"'
        end = next((i for i in range(head + 1, len(lines)) if lines[i].startswith("[")), len(lines))
        given = next((i for i in range(head + 1, end) if lines[i].startswith("sources = {")), None)
        if given is None:
            lines.insert(head + 2, f"sources = {{ {mine} }}")
        else:
            lines[given] = lines[given][:-2] + f", {mine} }}"
    return "\n".join(lines) + "\n"


def _attack(tables_text: str | None, dice: list[str]) -> tuple[object, list[str]]:
    provider = find(SYS, TABLES)
    assert provider is not None
    pos = SYS.load_position(POSITION)
    if tables_text is not None:
        pos = provider.with_tables(pos, provider.load(tables_text))
    st = SYS.new_game(pos, None, ScriptedDice([]))
    res = SYS.resolve(st, SYS.parse_orders(st, "south", ORDERS), ScriptedDice(dice))
    return res.state, [e.text for e in res.events]


def test_a_club_unit_row_changes_the_dice_its_units_roll() -> None:
    """cca.md §10.1: a unit rolls its type's close-combat dice (here the club's 2 for MI)."""
    _, bundled = _attack(None, ["G"] * 20)
    state, events = _attack(club(units__MI=("melee", "2")), ["G"] * 20)
    assert any("south MI F4 rolls 4 dice" in t for t in bundled)
    assert any("south MI F4 rolls 2 dice" in t for t in events)
    assert state.tables_sha256 == load_cca_tables(club(units__MI=("melee", "2"))).sha256  # type: ignore[attr-defined]


def test_the_state_carries_its_tables_through_json_and_position_files() -> None:
    text = club(units__MI=("melee", "2"))
    state, _ = _attack(text, ["G"] * 20)
    back = SYS.from_json(SYS.to_json(state))
    assert back.tables.units["MI"].melee == 2 and back == state
    written = SYS.write_position(state)
    assert "[tables]" in written
    again = SYS.load_position(written)
    assert again.tables.sha256 == state.tables_sha256  # type: ignore[attr-defined]
    assert SYS.to_json(again) == SYS.to_json(state)
    # The bundled tables are named, not copied, in a position file.
    plain, _ = _attack(None, ["G"] * 20)
    assert "[tables]" not in SYS.write_position(plain)
    assert f'tables_sha256 = "{BUNDLED.sha256}"' in SYS.write_position(plain)


def test_a_position_naming_tables_it_does_not_carry_is_refused_with_its_line() -> None:
    state, _ = _attack(club(units__MI=("melee", "2")), ["G"] * 20)
    text = SYS.write_position(state)
    text = text[: text.index("\n[tables]")] + "\n"
    with pytest.raises(ValueError, match=r"line \d+: the position was played with the tables"):
        SYS.load_position(text)


def test_terrain_cards_and_leader_checks_come_from_the_state_tables() -> None:
    """cca.md §17 (forest caps close combat at 2), §18.1 (the deck), §16.1 (leader checks)."""
    t = load_cca_tables(
        club(
            terrain__forest=("melee_cap", "1"),
            cards__LT=("count", "0"),
            leader_checks__attached=("dice", "3"),
        )
    )
    assert t.terrain["forest"].melee_cap == 1
    assert len(t.deck) == len(BUNDLED.deck) - BUNDLED.cards["LT"].count and "LT" not in t.deck
    assert t.leader_checks["attached"].dice == 3
    provider = find(SYS, TABLES)
    assert provider is not None
    pos = provider.with_tables(
        SYS.load_position(POSITION.replace('deck = ["3L", "3C", "3R", "LT"]', 'deck = "random"')),
        t.data,
    )
    assert "LT" not in pos.deck and len(pos.deck) == len(t.deck) - 6


def test_engine_resolve_with_a_club_file_and_the_chained_call_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.toml").write_text(POSITION)
    (tmp_path / "o.txt").write_text(ORDERS)
    (tmp_path / "club.toml").write_text(club(units__MI=("melee", "2")))
    args = [
        "engine",
        "resolve",
        "--position",
        str(tmp_path / "p.toml"),
        "--orders",
        str(tmp_path / "o.txt"),
    ]
    assert (
        main(
            [
                *args,
                "--tables",
                str(tmp_path / "club.toml"),
                "--dice",
                "G,G,G,G,G,G,G,G,G,G",
                "--json",
                "--write-position",
                str(tmp_path / "p1.toml"),
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    sha = load_cca_tables(club(units__MI=("melee", "2"))).sha256
    assert report["tables_sha256"] == sha
    assert any("rolls 2 dice" in e["text"] for e in report["events"])
    p1 = (tmp_path / "p1.toml").read_text()
    assert SYS.load_position(p1).tables_sha256 == sha


def test_a_bad_tables_file_is_refused_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.toml").write_text(POSITION)
    (tmp_path / "o.txt").write_text(ORDERS)
    bad = club(units__MI=("melee", '"two"')).replace('system = "cca"', 'system = "ccn"')
    (tmp_path / "club.toml").write_text(bad)
    code = main(
        [
            "engine",
            "resolve",
            "--position",
            str(tmp_path / "p.toml"),
            "--orders",
            str(tmp_path / "o.txt"),
            "--tables",
            str(tmp_path / "club.toml"),
            "--dice",
            "G",
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    line = bad.splitlines().index('system = "ccn"') + 1
    assert f"club.toml:{line}: system must be \"cca\" (this file is for 'ccn')" in err
    melee = next(i for i, ln in enumerate(bad.splitlines(), 1) if ln == 'melee = "two"')
    assert f"club.toml:{melee}: units.MI.melee must be a whole number" in err


def club_game(tmp_path: Path, db_url: str, scenario: str) -> tuple[Path, list[str]]:
    """A server's config on ``db_url`` and the ``game create`` words of game ``club-1`` of
    ``scenario`` for Ann (north) and Bob (south), their keys made (join with :func:`_join`)."""
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        f'data_dir = "{tmp_path / "data"}"\n[database]\nurl = "{db_url}"\n'
        '[mail]\naddress = "pbem@game.test"\n'
    )
    north, south = _pub(tmp_path, "ann"), _pub(tmp_path, "bob")
    create = ["game", "--config", str(cfg), "create", scenario, "--id", "club-1"]
    create += ["--north", f"Ann:ann@x.test:{north}", "--south", f"Bob:bob@y.test:{south}"]
    return cfg, create


def started_on(
    tmp_path: Path,
    cfg: Path,
    create: list[str],
    store: Store,
    capsys: pytest.CaptureFixture[str],
    *,
    sha: str,
) -> str:
    """Create :func:`club_game`'s game on ``tmp_path/club.toml``, both players join; assert
    the tables' ``sha`` is named at creation, in both start mails and in the audit record;
    return the started game's state JSON."""
    assert main([*create, "--tables", str(tmp_path / "club.toml")]) == 0
    assert f"rules tables {sha}" in capsys.readouterr().out
    assert _join(tmp_path, cfg, capsys, side="north", key="ann") == 0
    assert _join(tmp_path, cfg, capsys, side="south", key="bob") == 0
    capsys.readouterr()
    with store.transaction() as s:
        game = s.get(Game, "club-1")
        assert game is not None and game.status == GameStatus.ACTIVE
        state_json = game.state_json
        starts = [m for m in s.exec(select(OutboxMessage)).all() if m.kind == "start"]
        bodies = [body_of(r).replace("\r\n", "\n") for r in starts]
        assert len(bodies) == 2 and all(f"Rules tables (SHA-256):\n  {sha}" in b for b in bodies)
    out_file = tmp_path / "club-1.json"
    assert main(["audit", "club-1", "--out", str(out_file), "--config", str(cfg)]) == 0
    assert json.loads(out_file.read_text())["tables_sha256"] == sha
    return state_json


def _pub(tmp_path: Path, name: str) -> Path:
    sshsig.write_private_key(tmp_path / name, sshsig.generate_private_key(), name)
    return tmp_path / f"{name}.pub"


def _join(
    tmp_path: Path, cfg: Path, capsys: pytest.CaptureFixture[str], *, side: str, key: str
) -> int:
    capsys.readouterr()
    game = "club-1"
    assert main(["join-statement", game, side, "-f", str(tmp_path / key)]) == 0
    signed = tmp_path / f"join-{side}.txt"
    signed.write_text(capsys.readouterr().out, encoding="utf-8")
    return main(["game", "--config", str(cfg), "join", game, str(signed)])


@pytest.mark.skipif(check_system() is not None, reason="engine not ready")
def test_game_create_with_a_club_file_plays_on_it_and_names_it(
    tmp_path: Path, db_url: str, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg, create = club_game(tmp_path, db_url, "001")
    text = club(units__HI=("melee", "5"))
    sha = load_cca_tables(text).sha256
    (tmp_path / "club.toml").write_text(text)
    (tmp_path / "other.toml").write_text(text.replace('system = "cca"', 'system = "ccn"'))
    assert main([*create, "--tables", str(tmp_path / "other.toml")]) == 64
    line = text.splitlines().index('system = "cca"') + 1
    err = capsys.readouterr().err
    assert f"other.toml:{line}: system must be \"cca\" (this file is for 'ccn')" in err
    state_json = started_on(tmp_path, cfg, create, store, capsys, sha=sha)
    state = SYS.from_json(state_json)  # dealt at the joins: the club's tables kept
    assert state.tables.units["HI"].melee == 5 and state.tables_sha256 == sha


def test_a_stored_state_names_the_bundled_tables_and_carries_a_clubs() -> None:
    plain, _ = _attack(None, ["G"] * 20)
    data = json.loads(SYS.to_json(plain))
    assert data["tables_sha256"] == BUNDLED.sha256 and "tables" not in data  # small: named
    clubbed, _ = _attack(club(units__MI=("melee", "2")), ["G"] * 20)
    assert "units.MI" in json.loads(SYS.to_json(clubbed))["tables"]  # a club's: carried
    # Stored before the terrain, cards and leader checks moved into the file: same values.
    data["tables_sha256"] = next(iter(SAME_AS_BUNDLED))
    assert SYS.from_json(json.dumps(data)).tables == BUNDLED
    data["tables_sha256"] = "ab" * 32  # tables it neither carries nor ships: refused
    with pytest.raises(ValueError, match="names the rules tables abab"):
        SYS.from_json(json.dumps(data))


def test_play_hot_seat_on_a_club_file_and_a_system_without_tables_refuses_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "club.toml").write_text(club(units__MI=("melee", "2")))
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    args = ["play", "001", "--seed", "01", "--no-board", "--tables", str(tmp_path / "club.toml")]
    assert main(args) == 0
    assert "dice seed" in capsys.readouterr().out
    toy = Path(__file__).resolve().parent.parent / "scenarios" / "toy" / "race.toml"
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", str(toy), "--no-board", "--tables", str(tmp_path / "club.toml")]) == 2
    assert "the system 'toy' reads no rules tables" in capsys.readouterr().err


def test_a_paused_turn_on_a_clubs_tables_resumes_on_them() -> None:
    """A question mid-turn (cca.md §10.7, battle back): the answer replays the turn from its
    start on the game's own tables, through JSON and through a position file."""
    provider = find(SYS, TABLES)
    assert provider is not None
    text = club(units__HI=("battle_back", "2"))
    st = SYS.new_game(provider.with_tables(SYS.load_position(POSITION), provider.load(text)))
    ask = "game t-one\nturn 1\nside north\nstanding battle-back: ask\n"
    st = SYS.resolve(st, SYS.parse_orders(st, "north", ask), ScriptedDice([])).state
    st = SYS.resolve(st, SYS.parse_orders(st, "south", ORDERS), ScriptedDice(["G"] * 4)).state
    assert SYS.prompt(st).kind == "question"
    for paused in (SYS.from_json(SYS.to_json(st)), SYS.load_position(SYS.write_position(st))):
        answer = SYS.parse_orders(paused, "north", "game t-one\nturn 1\nanswer battle-back\n")
        res = SYS.resolve(paused, answer, ScriptedDice(["G"] * 6))
        assert any("battles back with 2 dice" in e.text for e in res.events)
        assert res.state.tables_sha256 == load_cca_tables(text).sha256
