"""Chariots of Fire game state and position files (cof.md §2.3-§2.7; docs/position-format.md)."""

from __future__ import annotations

import json

import pytest
from cof_kit import skirmish

from engine.cof.position import load_position, write_position
from engine.cof.state import from_scenario, state_from_dict, state_to_dict
from engine.core.api import PositionError


def test_a_battle_is_set_up_from_its_scenario_with_the_seats_north_and_south() -> None:
    s = from_scenario(skirmish())
    assert s.sides["north"].name == "Egyptians" and s.sides["south"].name == "Hittites"
    assert s.unit("E2").type == "CH2" and s.unit("E2").side == "north"
    assert s.unit("H1").type == "CH3" and s.unit("H1").facing == "NW"
    assert s.sides["north"].wings == ["1", "2"]
    assert s.turn == 1 and s.initiative == "north" and not s.result
    assert s.terrain == {"0605": "rough", "1005": "woods"} and s.elevation == {"1005": 1}


def test_the_state_round_trips_through_plain_data_and_json() -> None:
    s = from_scenario(skirmish())
    d = state_to_dict(s)
    assert state_to_dict(state_from_dict(json.loads(json.dumps(d)))) == d


def test_a_written_position_reads_back_to_the_same_state() -> None:
    s = from_scenario(skirmish())
    s.unit("E4").hits = 3
    s.unit("H1").status, s.unit("H1").hex = "eliminated", ""
    s.pending = {"id": "trump-1-1", "side": "south", "answers": ["trump", "no"]}
    text = write_position(s)
    back = load_position(text)
    assert state_to_dict(back) == state_to_dict(s)
    assert write_position(back) == text


def test_a_position_with_two_units_in_one_hex_is_refused_with_its_line() -> None:
    text = write_position(from_scenario(skirmish())).replace('"0703"', '"0803"', 1)
    with pytest.raises(PositionError) as e:
        load_position(text)
    assert "share 0803" in e.value.message
    assert e.value.line == next(n for n, ln in enumerate(text.splitlines(), 1) if '"E5"' in ln)


def test_a_position_for_another_system_or_broken_toml_is_refused() -> None:
    with pytest.raises(PositionError):
        load_position('format = "pbem-position/2"\nsystem = "cca"\n')
    with pytest.raises(PositionError) as e:
        load_position('format = "pbem-position/2"\n[oops\n')
    assert e.value.line == 2
