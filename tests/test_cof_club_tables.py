"""A club's own Chariots of Fire charts end to end (issue 16, docs/tables.md): ``pbem game create
--tables FILE`` starts the game on the club's one-file set, and its SHA-256 names the charts in
the start mail and the audit record, as for the other systems (tests/test_club_tables.py).
The file changes one placeholder value to the club's own; no placeholder is asserted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_club_tables import club_game, started_on

from engine.cof.tables import bundled_texts, combined_text, load_cof_text
from engine.systems import get_system
from pbem.store import Store

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
    cfg, create = club_game(tmp_path, db_url, "cof-000-teaching")
    text = club_charts()
    charts = load_cof_text(text)
    assert charts.types["BI"].tq == 6
    sha = charts.sha256
    (tmp_path / "club.toml").write_text(text)
    state = SYS.from_json(started_on(tmp_path, cfg, create, store, capsys, sha=sha))
    assert state.charts.types["BI"].tq == 6 and state.charts.sha256 == sha
