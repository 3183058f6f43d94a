"""Every registered game system goes through every command (issue 12: one core, many systems).

For each system ``pbem systems`` lists, with its first bundled scenario and
orders from its own autoplayer: ``pbem demo`` (by mail over loopback SMTP),
``pbem check``, ``pbem play``, ``pbem engine resolve`` (twice, chained through
the written position), ``pbem engine legal``, ``pbem audit`` on the demo's
record, the board rendered (``pbem scenario show --png``) and ``pbem scenario
validate``. A new system that plugs in through the registry is tested here
without a line of this file changing.
"""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.core.capabilities import AUTOPLAY, TABLES, find
from engine.systems import get_system, system_names
from pbem.cli import main
from pbem.commands.play import _nonces
from pbem.enginecli import DiceSource, load, seed_bytes
from pbem.scenarios import list_scenarios

SYSTEMS = system_names()


def _scenario(name: str) -> Path:
    found = [s.path for s in list_scenarios() if s.system == name and s.path is not None]
    assert found, f"system {name!r} has no bundled scenario"
    return found[0]


def _orders(name: str, dice_seed: str | None = None, play: bool = False) -> tuple[str, str]:
    """The scenario's text and legal orders for the side to act, from the autoplayer.

    The deck is dealt as the command will deal it: shuffled from ``dice_seed``
    (``--seed``), else in catalogue order; ``play``: with the sides' nonces that
    ``pbem play --seed`` derives from the seed (they enter the shuffle).
    """
    system = get_system(name)
    text = _scenario(name).read_text(encoding="utf-8")
    if dice_seed is None:
        state = system.new_game(system.load_position(text))
    else:
        seed = seed_bytes(dice_seed)
        nonces = _nonces([], system.sides, seed) if play else None
        _, state = load(name, text, DiceSource("game", seed=seed, nonces=nonces))
    player = find(system, AUTOPLAY)
    assert player is not None, f"system {name!r} offers no autoplayer"
    return text, player.orders(state, b"every-system")


def test_the_bundled_systems_are_registered(capsys: pytest.CaptureFixture[str]) -> None:
    assert {"cca", "toy"} <= set(SYSTEMS)
    assert main(["systems"]) == 0
    out = capsys.readouterr().out
    assert "cca" in out and "Commands & Colors: Ancients" in out
    assert "toy" in out and "example system" in out


@pytest.mark.parametrize("name", SYSTEMS)
def test_systems_json_lists_version_sides_dice(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["systems", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    system = get_system(name)
    assert rows[name]["version"] == system.version
    assert rows[name]["sides"] == list(system.sides)
    assert set(rows[name]["dice"]) == set(system.dice)


@pytest.mark.parametrize("name", SYSTEMS)
def test_scenario_validate_and_show(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _scenario(name)
    assert main(["scenario", "validate", str(path)]) == 0
    png = tmp_path / "board.png"
    assert main(["scenario", "show", str(path), "--png", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    capsys.readouterr()
    assert main(["scenario", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(s.id in listed for s in list_scenarios() if s.system == name)


@pytest.mark.parametrize("name", SYSTEMS)
def test_scenario_validate_reports_a_broken_file_by_line(name: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(_scenario(name).read_text(encoding="utf-8") + "\n[oops\n")
    assert main(["scenario", "validate", str(broken)]) == 1


@pytest.mark.parametrize("name", SYSTEMS)
def test_engine_resolve_twice_chained_and_legal(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, orders = _orders(name, "01")
    pos, out = tmp_path / "p.toml", tmp_path / "after.toml"
    pos.write_text(text)
    (tmp_path / "o.txt").write_text(orders)
    assert main(["engine", "legal", "--position", str(pos), "--json"]) == 0
    legal = json.loads(capsys.readouterr().out)
    assert legal["side"] in get_system(name).sides and legal["cards"]
    args = ["engine", "resolve", "--position", str(pos), "--orders", str(tmp_path / "o.txt")]
    assert main([*args, "--seed", "01", "--json", "--write-position", str(out)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["system"] == name and first["events"]
    # The written position is the next call's input: the game goes on from there.
    assert out.read_text() == first["position"]
    system = get_system(name)
    after = system.new_game(system.load_position(out.read_text()))
    assert system.prompt(after).turn >= 1
    player = find(system, AUTOPLAY)
    assert player is not None
    if system.prompt(after).kind != "over":
        (tmp_path / "o2.txt").write_text(player.orders(after, b"second"))
        second = ["engine", "resolve", "--position", str(out), "--orders", str(tmp_path / "o2.txt")]
        assert main([*second, "--seed", "02", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["events"]


@pytest.mark.parametrize("name", SYSTEMS)
def test_engine_resolve_on_the_systems_own_tables_file(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--tables FILE: a system with tables plays on the file and names it; one without
    refuses it plainly (docs/tables.md)."""
    text, orders = _orders(name, "01")
    (tmp_path / "p.toml").write_text(text)
    (tmp_path / "o.txt").write_text(orders)
    provider = find(get_system(name), TABLES)
    tables = tmp_path / "tables.toml"
    tables.write_text(provider.default_text() if provider else 'schema = "pbem-tables/1"\n')
    args = ["engine", "resolve", "--position", str(tmp_path / "p.toml")]
    args += ["--orders", str(tmp_path / "o.txt"), "--seed", "01", "--tables", str(tables)]
    if provider is None:
        assert main(args) == 1
        assert "reads no rules tables" in capsys.readouterr().err
        return
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tables_sha256"] == provider.load(tables.read_text()).sha256


@pytest.mark.parametrize("name", SYSTEMS)
def test_engine_resolve_with_given_dice_faces(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, orders = _orders(name)
    (tmp_path / "p.toml").write_text(text)
    (tmp_path / "o.txt").write_text(orders)
    faces = [f for d in get_system(name).dice.values() for f in d.faces] * 12
    code = main(
        ["engine", "resolve", "--position", str(tmp_path / "p.toml"), "--orders",
         str(tmp_path / "o.txt"), "--dice", ",".join(faces), "--json"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["dice"]["source"] == "scripted"


@pytest.mark.parametrize("name", SYSTEMS)
def test_check_accepts_the_autoplayers_orders_and_refuses_nonsense(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, orders = _orders(name)
    (tmp_path / "p.toml").write_text(text)
    (tmp_path / "o.txt").write_text(orders)
    assert main(["check", str(tmp_path / "o.txt"), "--position", str(tmp_path / "p.toml")]) == 0
    assert "OK: the referee would accept these orders" in capsys.readouterr().out
    head = "".join(ln + "\n" for ln in orders.splitlines() if ln.split()[:1] == ["game"])
    (tmp_path / "bad.txt").write_text(head + "fly to the moon\n")
    assert main(["check", str(tmp_path / "bad.txt"), "--position", str(tmp_path / "p.toml")]) == 1
    assert "NOT ACCEPTED" in capsys.readouterr().out


@pytest.mark.parametrize("name", SYSTEMS)
def test_play_a_turn_hot_seat(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, orders = _orders(name, "01", play=True)
    monkeypatch.setattr("sys.stdin", io.StringIO(orders + "end\nquit\n"))
    assert main(["play", str(_scenario(name)), "--seed", "01", "--no-board"]) == 0
    out = capsys.readouterr().out
    assert "refused" not in out
    assert "dice seed" in out


@pytest.mark.parametrize("name", SYSTEMS)
def test_demo_by_mail_then_audit_verify(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pbem.demo import check_system, demo_config, run_demo
    from pbem.pipeline import load_server_key
    from pbem.pipeline.admin import audit_record
    from pbem.store import Store

    assert check_system(name) is None
    result = asyncio.run(
        run_demo(tmp_path / "demo", seed=5, scenario=str(_scenario(name)), max_epochs=4,
                 timeout=40)
    )  # fmt: skip
    assert result.epochs >= 4 or result.finished, result.message
    assert result.mails_from_players >= 4
    assert result.audit.startswith("OK"), result.audit
    config = demo_config(tmp_path / "demo", 0)
    store = Store(config.database_url)
    key = load_server_key(config.server_key_path)
    assert key is not None
    try:
        record = audit_record(store, result.game_id, key)
    finally:
        store.dispose()
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(record))
    assert main(["audit", str(path)]) == 0
    assert capsys.readouterr().out.startswith("OK")
    for die in get_system(name).dice.values():
        assert record["die_faces"][die.name] == list(die.faces)
    root = Path(__file__).resolve().parent.parent
    for verifier in (root / "verify_dice.py", root / "tests/independent_verifier/verify.py"):
        proc = subprocess.run(
            [sys.executable, "-I", str(verifier), str(path)],
            capture_output=True, text=True, check=False, timeout=120,
        )  # fmt: skip
        assert proc.stdout.startswith(f"OK {record['game_id']}"), (verifier.name, proc.stdout,
                                                                   proc.stderr)  # fmt: skip


@pytest.mark.parametrize("name", SYSTEMS)
def test_scenario_balance_plays_whole_games(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = next(s for s in list_scenarios() if s.system == name)
    assert main(["scenario", "balance", scenario.id, "--games", "2", "--max-turns", "60"]) == 0
    row = capsys.readouterr().out.splitlines()[-1].split()
    assert row[0] == scenario.id and row[1] == "2"
    assert sum(int(n) for n in row[2:6]) == 2  # each side's wins, draws, unfinished


def test_scenario_balance_of_one_system(capsys: pytest.CaptureFixture[str]) -> None:
    """`pbem scenario balance --system ccn` plays every Napoleonics battle and no other."""
    ids = sorted(s.id for s in list_scenarios() if s.system == "ccn")
    argv = ["scenario", "balance", "--system", "ccn", "--games", "1", "--max-turns", "40"]
    assert main(argv) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert sorted(r[0] for r in rows) == ids
    assert all(sum(int(n) for n in r[2:6]) == 1 for r in rows)
    assert main(["scenario", "balance", "--system", "nosuch", "--games", "1"]) == 1
    assert "no scenario of system 'nosuch'" in capsys.readouterr().err


def test_scenario_balance_counts_a_game_the_autoplayer_cannot_go_on_with(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game stuck on an engine gap is counted unfinished and named with its seed; the run
    goes on with the next game."""
    from engine.ccn.autoplay import AutoPlayer

    def stuck(self: AutoPlayer, start: object, seed: bytes, max_turns: int) -> object:
        raise RuntimeError("no acceptable orders for north")

    monkeypatch.setattr(AutoPlayer, "play_game", stuck)
    assert main(["scenario", "balance", "ccn-001-rolica", "--games", "2"]) == 0
    got = capsys.readouterr()
    assert got.out.splitlines()[-1].split()[2:6] == ["0", "0", "0", "2"]
    assert (
        "ccn-001-rolica: stopped, counted unfinished: game 1 (seed 'balance|ccn-001-rolica|1')"
        in got.err
    )


def test_scenario_balance_of_every_system_skips_one_without_an_autoplayer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no scenario named, a system that cannot play random games is skipped with a note
    and the others are played; named, its scenario is still an error."""
    import pbem.commands.scenario as command

    real = command.find

    def no_toy_autoplay(system: Any, capability: Any) -> Any:
        return None if system.name == "toy" and capability == AUTOPLAY else real(system, capability)

    every = list_scenarios()
    rolica = next(s for s in every if s.id == "ccn-001-rolica")
    toy = next(s for s in every if s.system == "toy")
    monkeypatch.setattr(command, "find", no_toy_autoplay)
    monkeypatch.setattr(command, "list_scenarios", lambda: [rolica, toy])
    assert main(["scenario", "balance", "--games", "1", "--max-turns", "30"]) == 0
    got = capsys.readouterr()
    assert "skipping the toy scenarios: the system offers no autoplayer yet" in got.err
    assert [line.split()[0] for line in got.out.splitlines()[1:]] == ["ccn-001-rolica"]
    assert main(["scenario", "balance", toy.id, "--games", "1"]) == 1
