"""``pbem engine resolve / legal`` and ``pbem check`` on Chariots of Fire position files.

The system is registered for the test at run time (engine.systems.register_system); the
battle is the test kit's, written as a ``pbem-position/2`` file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cof_kit import skirmish

from engine.cof.position import write_position
from engine.cof.system import SYSTEM
from engine.core.capabilities import AUTOPLAY, TABLES, find
from engine.systems import register_system, unregister_system
from pbem.cli import main


@pytest.fixture(autouse=True)
def _cof() -> Iterator[None]:
    register_system(SYSTEM)
    yield
    unregister_system("cof")


def _files(tmp_path: Path) -> tuple[Path, Path]:
    start = SYSTEM.start(skirmish())
    player = find(SYSTEM, AUTOPLAY)
    assert player is not None
    pos, orders = tmp_path / "p.toml", tmp_path / "o.txt"
    pos.write_text(write_position(start))
    orders.write_text(player.orders(start, b"cli"))
    return pos, orders


def test_engine_resolve_twice_chained_on_the_position_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pos, orders = _files(tmp_path)
    out = tmp_path / "after.toml"
    args = ["engine", "resolve", "--position", str(pos), "--orders", str(orders), "--seed", "01"]
    assert main([*args, "--json", "--write-position", str(out)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["system"] == "cof" and first["events"]
    assert out.read_text() == first["position"]
    after = SYSTEM.new_game(SYSTEM.load_position(out.read_text()))
    player = find(SYSTEM, AUTOPLAY)
    assert player is not None
    (tmp_path / "o2.txt").write_text(player.orders(after, b"second"))
    again = ["engine", "resolve", "--position", str(out), "--orders", str(tmp_path / "o2.txt")]
    assert main([*again, "--seed", "02", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["events"]


def test_engine_resolve_with_given_d10_faces_and_a_club_chart_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pos, orders = _files(tmp_path)
    provider = find(SYSTEM, TABLES)
    assert provider is not None
    charts = tmp_path / "charts.toml"
    charts.write_text(provider.default_text())
    faces = ",".join(str(i % 10) for i in range(300))
    args = ["engine", "resolve", "--position", str(pos), "--orders", str(orders)]
    assert main([*args, "--dice", faces, "--tables", str(charts), "--json"]) == 0, (
        capsys.readouterr().err
    )
    report = json.loads(capsys.readouterr().out)
    assert report["dice"]["source"] == "scripted"
    assert report["tables_sha256"] == provider.load(charts.read_text()).sha256


def test_engine_legal_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pos, orders = _files(tmp_path)
    assert main(["engine", "legal", "--position", str(pos), "--json"]) == 0
    legal = json.loads(capsys.readouterr().out)
    assert legal["side"] == "north" and legal["cards"] and legal["units"]
    assert main(["check", str(orders), "--position", str(pos)]) == 0
    assert "OK: the referee would accept these orders" in capsys.readouterr().out
    (tmp_path / "bad.txt").write_text("game cof-test-skirmish\nturn 1\nwing 2\nmove E4 0101\n")
    assert main(["check", str(tmp_path / "bad.txt"), "--position", str(pos)]) == 1
    assert "NOT ACCEPTED" in capsys.readouterr().out
