"""C&C Napoleonics flags and retreats (engine/ccn/rules/flags.py, retreat.py): rules cases,
each naming its ccn.md section."""

from __future__ import annotations

from ccn_rules_kit import Kit

from engine.ccn.rules.retreat import retreat_paths, take_flags


def test_ccn_15_1_one_flag_retreats_one_hex_toward_own_baseline() -> None:
    k = Kit()
    u = k.unit("south", "FR", "LN", 4, "E5")
    got = take_flags(k, u, 1, "north", set())
    assert got.left_hex and u.hex is not None and u.hex.row == 4


def test_ccn_15_1_militia_retreats_three_hexes_per_flag() -> None:
    k = Kit()
    u = k.unit("north", "GB", "MI", 4, "E5")
    take_flags(k, u, 1, "south", set())
    assert u.hex is not None and u.hex.row == 8


def test_ccn_15_1_every_distinct_path_is_offered() -> None:
    k = Kit()
    u = k.unit("south", "FR", "LN", 4, "E5")
    paths = {p.text() for p in retreat_paths(k, u, 2)}
    assert paths == {"D4 > D3", "D4 > E3", "E4 > E3", "E4 > F3"}
