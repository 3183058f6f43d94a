"""A club's own C&C Napoleonics tables (docs/tables.md): one file, carried by the game's state.

The five bundled files joined are one ``pbem-tables/1`` file (the ``tables`` capability's
``default_text``); a club edits it (the artillery chart's placeholders first), gives it with
``--tables FILE``, and the game it starts plays on it: the rules read the state's tables, the
SHA-256 of the file names them. A broken file is refused with ``FILE:LINE: message``. Every
test changes a value to a club's own and asserts that value, never a placeholder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ccn_kit import position

from engine.ccn.state import State
from engine.ccn.tables import bundled_tables, load_ccn_text
from engine.core.capabilities import TABLES, find
from engine.randomness import ScriptedDice
from engine.systems import get_system
from pbem.cli import main
from pbem.tablefile import tables_sha256

SYS = get_system("ccn")


def club(row: str, field: str, value: str) -> str:
    """The bundled one-file set with ``[row] field = value``, its provenance a club's."""
    lines = bundled_tables().text.splitlines()
    head = lines.index(f"[{row}]")
    end = next((i for i in range(head + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    at = next(i for i in range(head + 1, end) if lines[i].startswith(f"{field} = "))
    lines[at] = f"{field} = {value}"
    mine = f'{field} = "club: our reading of the chart"'
    given = next((i for i in range(head + 1, end) if lines[i].startswith("sources = {")), None)
    if given is None:
        lines.insert(head + 2, f"sources = {{ {mine} }}")
    else:
        lines[given] = lines[given][:-2] + f", {mine} }}"
    return "\n".join(lines) + "\n"


def _on(state: State, text: str) -> State:
    provider = find(SYS, TABLES)
    assert provider is not None
    return provider.with_tables(state, provider.load(text))  # type: ignore[no-any-return]


def _fire_dice(state: State) -> int:
    """South's foot artillery in F2 fires at F5 (3 hexes): the dice it rolls (§4.5, §12)."""
    sub = SYS.parse_orders(state, "south", "card probe_centre\norder F2\nfire F2 at F5\n")
    res = SYS.resolve(state, sub, ScriptedDice(["CAV"] * 20))
    (fire,) = [e for e in res.events if e.kind == "fire"]
    return int(fire.data["dice"])


def test_a_clubs_artillery_chart_replaces_the_placeholder() -> None:
    """§4.5: the chart is not public; a club's value for 2-3 block foot artillery at range 3
    is the one rolled."""
    s = position("S F2 GB FA 3", "N F5 FR LN 4", "N A8 FR LN 4")
    text = club("dice.FA_2_3", "range3", "5")
    assert _fire_dice(_on(s, text)) == 5
    assert load_ccn_text(text).artillery["FA_2_3"].range3 == 5


def test_the_state_carries_the_club_tables_through_json_and_position_files() -> None:
    text = club("dice.FA_2_3", "range3", "5")
    s = _on(position("S F2 GB FA 3", "N F5 FR LN 4", "N A8 FR LN 4"), text)
    sha = load_ccn_text(text).sha256
    assert s.tables_sha256 == sha != bundled_tables().sha256
    assert tables_sha256(SYS, s) == sha  # what the start mail and the audit record name
    back = SYS.from_json(SYS.to_json(s))
    assert back == s and back.tables.artillery["FA_2_3"].range3 == 5
    written = SYS.write_position(s)
    assert "[tables]" in written
    again = SYS.load_position(written)
    assert again.tables_sha256 == sha and _fire_dice(again) == 5
    plain = json.loads(SYS.to_json(position("S F2 GB FA 3", "N F5 FR LN 4")))
    assert "tables" not in plain and plain["tables_sha256"] == bundled_tables().sha256


def test_a_state_naming_tables_it_does_not_carry_is_refused() -> None:
    data = json.loads(SYS.to_json(position("S F2 GB FA 3", "N F5 FR LN 4")))
    data["tables_sha256"] = "ab" * 32
    with pytest.raises(ValueError, match="without carrying them"):
        SYS.from_json(json.dumps(data))


def test_a_clubs_unit_row_changes_the_melee_dice() -> None:
    """§4.2: a unit's melee dice are its blocks plus its type's bonus (here the club's +2)."""
    s = position("S F4 FR LN 4", "N F5 GB LN 4", "N A8 GB LN 4")
    s = _on(s, club("units.LN", "melee_bonus", "2"))
    sub = SYS.parse_orders(s, "south", "card attack_centre\norder F4\nattack F4 at F5\n")
    res = SYS.resolve(s, sub, ScriptedDice(["ART"] * 30))
    attack = next(e for e in res.events if e.kind == "battle")
    assert attack.data["dice"] == 4 + 2 + 1  # blocks, the club's bonus, French line vs infantry


def test_the_command_cards_stay_the_bundled_ones() -> None:
    """The deck is fixed (the audit checks every card against it): a club may not change it."""
    text = club("cards.probe_centre", "copies", "9")
    with pytest.raises(ValueError, match=r"cards\.probe_centre"):
        load_ccn_text(text)


def test_a_broken_file_is_refused_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = SYS.new_game(position("S F2 GB FA 3", "N F5 FR LN 4", "N A8 FR LN 4"))
    (tmp_path / "p.toml").write_text(SYS.write_position(s))
    (tmp_path / "o.txt").write_text("card probe_centre\norder F2\nfire F2 at F5\n")
    bad = club("dice.FA_2_3", "range3", '"five"')
    (tmp_path / "club.toml").write_text(bad)
    args = ["engine", "resolve", "--position", str(tmp_path / "p.toml")]
    args += ["--orders", str(tmp_path / "o.txt"), "--tables", str(tmp_path / "club.toml")]
    assert main([*args, "--dice", "CAV"]) == 1
    err = capsys.readouterr().err
    line = bad.splitlines().index('range3 = "five"') + 1
    assert f"club.toml:{line}: dice.FA_2_3.range3 must be a whole number" in err
    unknown = club("units.LN", "chart", '"ZZ"')
    (tmp_path / "club.toml").write_text(unknown)
    assert main([*args, "--dice", "CAV"]) == 1
    line = unknown.splitlines().index('chart = "ZZ"') + 1
    assert f"club.toml:{line}:" in capsys.readouterr().err


def test_engine_resolve_plays_on_the_club_file_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = SYS.new_game(position("S F2 GB FA 3", "N F5 FR LN 4", "N A8 FR LN 4"))
    (tmp_path / "p.toml").write_text(SYS.write_position(s))
    (tmp_path / "o.txt").write_text("card probe_centre\norder F2\nfire F2 at F5\n")
    text = club("dice.FA_2_3", "range3", "5")
    (tmp_path / "club.toml").write_text(text)
    args = ["engine", "resolve", "--position", str(tmp_path / "p.toml"), "--json"]
    args += ["--orders", str(tmp_path / "o.txt"), "--tables", str(tmp_path / "club.toml")]
    args += ["--seed", "01", "--write-position", str(tmp_path / "p1.toml")]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tables_sha256"] == load_ccn_text(text).sha256
    fire = next(e for e in report["events"] if e["kind"] == "fire")
    assert fire["data"]["dice"] == 5
    assert SYS.load_position((tmp_path / "p1.toml").read_text()).tables_sha256 == (
        load_ccn_text(text).sha256
    )
