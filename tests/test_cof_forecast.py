"""``pbem check`` odds for Chariots of Fire (the ``forecast`` capability, cof.md §7.6, §8.4-§8.8).

Every number asserted is computed by hand on the test's own chart file (:func:`fixture_text`:
the bundled one-file charts with the Shock CRT, the Clash of Arms columns, the missile
results and the missile-vs-armor modifiers replaced), never on a placeholder value; the
rulebook's own values used are named (the moving bow's +1, §7.17; a wing commander's 1,
§4.21; the pre-shock and defender checks, §8.14).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from cof_kit import skirmish

from engine.cof.forecast import CofForecast
from engine.cof.position import write_position
from engine.cof.state import CofState, from_scenario
from engine.cof.system import SYSTEM
from engine.cof.tables import bundled_texts, combined_text
from engine.core.capabilities import FORECAST, TABLES, find
from pbem.cli import main

HEAD = "game cof-test-skirmish\nturn 1\nside north\n"


def _cell(block: str, make: Callable[[int, str], object]) -> str:
    """A chart row's cells rewritten: ``make(its roll, the cell's name)``."""
    found = re.search(r"^dr = (-?\d+)$", block, re.M)
    assert found is not None
    dr = int(found[1])
    return re.sub(
        r"^(c\d+|b\d|s\d|j\d|pass_thru) = [^\n]*$",
        lambda m: f"{m[1]} = {make(dr, m[1])}",
        block,
        flags=re.M,
    )


def fixture_text() -> str:
    """The charts of these tests: CRT cell (column c, modified roll r) = ``1 (c // 4)`` below
    5 and ``0 (c // 4 + 1)`` from 5; every shock allowed at column 4, no superiority;
    missiles 2 hits on a modified roll up to 1, 1 hit up to 5, none above; no armor DRM."""
    text = combined_text(bundled_texts())
    parts = re.split(r"(?m)^(?=\[)", text)
    return "".join(_fixture_part(p) for p in parts)


def _fixture_part(p: str) -> str:
    if p.startswith("[shock_results."):
        return _cell(p, lambda r, c: f'"{int(r < 5)} ({int(c[1:]) // 4 + int(r >= 5)})"')
    if p.startswith("[missile_results."):
        return _cell(p, lambda r, c: 2 if r <= 1 else 1 if r <= 5 else 0)
    if p.startswith("[shock_clash."):
        p = re.sub(r"(?m)^column = [1-9]\d*$", "column = 4", p)
        return re.sub(r'(?m)^superiority = "(AS|DS)"$', 'superiority = "none"', p)
    if p.startswith("[missile_armor."):
        return re.sub(r"(?m)^(armored|partial|unarmored) = -?\d+$", r"\1 = 0", p)
    return p


def _start() -> CofState:
    provider = find(SYSTEM, TABLES)
    assert provider is not None
    s = SYSTEM.new_game(from_scenario(skirmish()))
    out: CofState = provider.with_tables(s, provider.load(fixture_text()))
    return out


def _forecast(s: CofState, orders: str) -> CofForecast:
    fc = find(SYSTEM, FORECAST)
    assert fc is not None
    got = fc.forecast(s, "north", SYSTEM.parse_orders(s, "north", HEAD + orders))
    assert isinstance(got, CofForecast)
    return got


def test_a_volley_gives_its_range_modifier_and_the_chance_of_each_hit_count() -> None:
    """§7.6, §7.17: the LI's bow moved (+1): rolls 0 -> 2 hits, 1-4 -> 1, 5-9 -> none."""
    s = _start()
    s.unit("H4").hits = 4  # TQ 5: any hit routs it (§9.2)
    fc = _forecast(s, "wing 2\nmove E5 0804 0805\nfire E5 0807\n")
    (f,) = fc.fires
    assert (f.unit, f.weapon, f.target, f.range, f.drm) == ("E5", "B", "0807", 2, 1)
    assert f.hits_by_roll == (2, 1, 1, 1, 1, 0, 0, 0, 0, 0)
    assert dict(f.hits) == {0: Fraction(1, 2), 1: Fraction(2, 5), 2: Fraction(1, 10)}
    assert f.p_rout == Fraction(1, 2)
    text = fc.text()
    assert "E5 (B) at 0807 (H4): range 2, DRM +1" in text
    assert "hits by roll: 0: 2, 1-4: 1, 5-9: 0" in text
    assert "0 50.0%, 1 40.0%, 2 10.0%; the target routs 50.0%" in text


def _one_on_one(s: CofState) -> None:
    """H3 (SI, TQ 6) alone in 0707 with its wing commander; H4 and its leader out of the way."""
    s.unit("H4").hex = "1309"
    s.leader("hattusili").hex = "0707"


def test_a_shock_gives_its_column_modifier_results_by_roll_and_the_chance_of_rout() -> None:
    """§8.6-§8.8: E4 (SI) moves next to H3 and must shock: column 4, no shift, the
    Hittite wing commander's -1 (§4.21). Modified roll below 5 (rolls 0-5): 1 (1); from 5
    (rolls 6-9): 0 (2). H3 has 3 hits: its pre-shock check (§8.14, the excess over TQ 6)
    routs it at once on a 9 (no shock then), and 1 or 2 check hits plus the shock's reach 6."""
    s = _start()
    _one_on_one(s)
    s.unit("H3").hits = 3
    fc = _forecast(s, "wing 2\nmove E4 0704 0705 0706\n")
    (k,) = fc.shocks
    assert (k.attackers, k.defenders, k.defender_units) == (("E4",), ("0707",), ("H3",))
    assert (k.attacker_type, k.defender_type, k.base, k.column) == ("SI", "SI", 4, 4)
    assert (k.superiority, k.drm) == ("none", -1)
    assert k.results == ((1, 1),) * 6 + ((0, 2),) * 4
    assert k.checks == ()
    assert k.p_no_shock == Fraction(1, 10)
    # routs: a 9 on the check (1/10); else check 2 and shock 1 (1/10 * 6/10), or check 1-2
    # and shock 2 (2/10 * 4/10)
    assert k.p_defender_routs == Fraction(1, 10) + Fraction(6, 100) + Fraction(8, 100)
    assert dict(k.attacker_hits) == {0: Fraction(9, 10) * Fraction(4, 10),
                                     1: Fraction(9, 10) * Fraction(6, 10)}  # fmt: skip
    text = fc.text()
    assert "clash of arms column 4; no superiority; leaders and heroes DRM -1" in text
    assert "0-5: 1 (1), 6-9: 0 (2)" in text
    assert "the defender routs 24.0%" in text


def test_a_unit_that_may_shock_shows_the_chance_its_pre_shock_check_fails() -> None:
    """§8.2, §8.14: E4 (TQ 7) next to H3 all the phase, ordered to shock, fails its check
    on an 8 or 9 (1 hit, no shock)."""
    s = _start()
    _one_on_one(s)
    e4 = s.unit("E4")
    e4.hex, e4.facing = "0706", "SE"
    fc = _forecast(s, "wing 2\nshock E4\n")
    (k,) = fc.shocks
    assert k.checks == (("E4", Fraction(1, 5)),)
    assert k.p_no_shock == Fraction(1, 5)
    assert "E4 must pass a pre-shock TQ check: fails 20.0%" in fc.text()


def test_the_forecast_says_when_the_charts_are_placeholders() -> None:
    s = SYSTEM.new_game(from_scenario(skirmish()))
    fc = _forecast(s, "wing 2\nmove E4 0704 0705 0706\n")
    n = len(s.charts.placeholders())
    assert n and f"charts holding {n} placeholder values" in fc.text().replace("\n  ", " ")


def test_pbem_check_prints_the_cof_odds_for_a_position_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = _start()
    _one_on_one(s)
    pos, orders = tmp_path / "p.toml", tmp_path / "orders.txt"
    pos.write_text(write_position(s))
    orders.write_text(HEAD + "wing 2\nmove E4 0704 0705 0706\n")
    assert main(["check", str(orders), "--position", str(pos)]) == 0
    out = capsys.readouterr().out
    assert "OK: the referee would accept these orders" in out
    assert "E4 (SI) on H3 in 0707 (SI)" in out and "0-5: 1 (1), 6-9: 0 (2)" in out
    assert main(["check", str(orders), "--position", str(pos), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (shock,) = [b for b in data["battles"] if b["kind"] == "shock"]
    assert shock["column"] == 4 and shock["results_by_roll"][9] == [0, 2]


def test_the_odds_play_the_players_own_attack_lines() -> None:
    """§8.3 (rulebook §8.12): E4 and E6 may both shock H3; ordered to, pbem's plan sends
    both, but the player's ``attack E4 on H3`` sends E4 alone: the odds are of that
    shock (column 4, as in the test above), not of pbem's plan."""
    s = _start()
    _one_on_one(s)
    e4, e6 = s.unit("E4"), s.unit("E6")
    e4.hex, e4.facing = "0706", "SE"
    e6.hex, e6.facing = "0807", "W"
    (pbem,) = _forecast(s, "wing 2\nshock E4\nshock E6\n").shocks
    assert pbem.attackers == ("E4", "E6")
    (own,) = _forecast(s, "wing 2\nshock E4\nshock E6\nattack E4 on H3\n").shocks
    assert (own.attackers, own.defenders, own.column) == (("E4",), ("0707",), 4)
    assert own.results == ((1, 1),) * 6 + ((0, 2),) * 4


def _hittite_stack(s: CofState) -> None:
    """H2 and H5 made a Hittite CH-2 with runners in 0507 (H5: RI, TQ 4, 3 hits), E5's
    bow 2 hexes away."""
    ch, ri = s.unit("H2"), s.unit("H5")
    ch.type, ch.tq, ri.type, ri.tq, ri.hits = "CH2", 6, "RI", 4, 3
    ch.stacked_with, ri.stacked_with, ri.hex, ri.facing = "H5", "H2", ch.hex, ch.facing
    e5 = s.unit("E5")
    e5.hex, e5.facing = "0505", "SE"


def test_the_odds_of_fire_at_a_chariot_with_runners_are_of_the_counter_named() -> None:
    """Rulebook §7.13: the firer picks the counter of a CH-2 + RI stack his fire hits. The
    runners (one hit from routing) rout on any hit, rolls 0-5; the chariot (no hits) never;
    without a word the firer's standing order (``fire-at-stack: weaker``) picks the runners."""
    s = _start()
    _hittite_stack(s)
    (runners,) = _forecast(s, "wing 2\nfire E5 0507 runners\n").fires
    assert (runners.target_units, runners.p_rout) == (("H5",), Fraction(3, 5))
    (chariot,) = _forecast(s, "wing 2\nfire E5 0507 chariot\n").fires
    assert (chariot.target_units, chariot.p_rout) == (("H2",), 0)
    assert chariot.hits_by_roll == runners.hits_by_roll
    (default,) = _forecast(s, "wing 2\nfire E5 0507\n").fires
    assert default.target_units == ("H5",)
