"""A club's own Chariots of Fire charts end to end (issue 16, docs/tables.md): ``pbem game create
--tables FILE`` starts the game on the club's one-file set, and its SHA-256 names the charts in
the start mail and the audit record, as for the other systems (tests/test_club_tables.py).
The file changes one placeholder value to the club's own; no placeholder is asserted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pipeline_kit import body_of
from sqlmodel import select
from test_club_tables import _join, _pub

from engine.cof.tables import bundled_texts, combined_text, load_cof_text
from engine.systems import get_system
from pbem.cli import main
from pbem.store import Game, GameStatus, OutboxMessage, Store

SYS = get_system("cof")
TYPICAL = '"placeholder: cof.md Appendix A (typical counter value; scenarios print their own)"'


def club_charts() -> str:
    """The bundled one-file set with the club's own typical TQ for barbarian infantry."""
    lines = combined_text(bundled_texts()).splitlines()
    head = lines.index("[types.BI]")
    end = next(i for i in range(head + 1, len(lines)) if lines[i].startswith("["))
    at = next(i for i in range(head + 1, end) if lines[i].startswith("tq = "))
    given = next(i for i in range(head + 1, end) if lines[i].startswith("sources = {"))
    lines[at] = "tq = 6"
    lines[given] = lines[given].replace(f"tq = {TYPICAL}", 'tq = "club: our counters"', 1)
    return "\n".join(lines) + "\n"


def test_game_create_with_a_club_chart_file_names_it_in_the_start_mail_and_the_audit(
    tmp_path: Path, db_url: str, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        f'data_dir = "{tmp_path / "data"}"\n[database]\nurl = "{db_url}"\n'
        '[mail]\naddress = "pbem@game.test"\n'
    )
    text = club_charts()
    charts = load_cof_text(text)
    assert charts.types["BI"].tq == 6
    sha = charts.sha256
    (tmp_path / "club.toml").write_text(text)
    north, south = _pub(tmp_path, "ann"), _pub(tmp_path, "bob")
    create = ["game", "--config", str(cfg), "create", "cof-000-teaching", "--id", "club-1"]
    create += ["--north", f"Ann:ann@x.test:{north}", "--south", f"Bob:bob@y.test:{south}"]
    assert main([*create, "--tables", str(tmp_path / "club.toml")]) == 0, capsys.readouterr().err
    assert f"rules tables {sha}" in capsys.readouterr().out
    assert _join(tmp_path, cfg, capsys, side="north", key="ann") == 0
    assert _join(tmp_path, cfg, capsys, side="south", key="bob") == 0
    capsys.readouterr()
    with store.transaction() as s:
        game = s.get(Game, "club-1")
        assert game is not None and game.status == GameStatus.ACTIVE
        state = SYS.from_json(game.state_json)
        assert state.charts.types["BI"].tq == 6 and state.charts.sha256 == sha
        starts = [m for m in s.exec(select(OutboxMessage)).all() if m.kind == "start"]
        bodies = [body_of(r).replace("\r\n", "\n") for r in starts]
        assert len(bodies) == 2 and all(f"Rules tables (SHA-256):\n  {sha}" in b for b in bodies)
    out_file = tmp_path / "club-1.json"
    assert main(["audit", "club-1", "--out", str(out_file), "--config", str(cfg)]) == 0
    assert json.loads(out_file.read_text())["tables_sha256"] == sha
