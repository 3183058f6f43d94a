"""Terrain (cca.md §17), movement limits (§7) and unit specials (§3), with forced dice."""

from __future__ import annotations

import pytest
from test_cca_helpers import kinds, play, position, unit

from engine.core.api import OrdersError


def test_s17_forest_stops_movement() -> None:
    st = position(north=["A9 LI"], south=["E3 LI"], terrain={"forest": ["E4"]})
    with pytest.raises(OrdersError):
        play(st, "south", "card 3C\norder E3\nmove E3 > E4 > E5\n")
    res = play(st, "south", "card 3C\norder E3\nmove E3 > E4\n")
    assert unit(res.state, "E4") == ("south", "LI", 4)


def test_s17_medium_foot_entering_forest_may_not_battle() -> None:
    st = position(north=["E6 MI"], south=["E4 MI"], terrain={"forest": ["E5"]})
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E4\nmove E4 to E5\nattack E5 at E6\n")
    assert err.value.code == "cannot-battle"


def test_s17_forest_caps_close_combat_at_two_and_fire_into_it_at_one() -> None:
    st = position(
        north=["E5 HI", "G6 MI"], south=["E4 HI", "G4 LB"], terrain={"forest": ["E5", "G6"]}
    )
    res = play(
        st, "south", "card 3C\norder E4, G4\nattack E4 at E5\nfire G4 at G6\n", "GG" + "GG" + "G"
    )
    battle = next(e for e in res.events if e.kind == "battle")
    fire = next(e for e in res.events if e.kind == "fire")
    assert (len(battle.dice), len(fire.dice)) == (2, 1)


def test_s17_hill_uphill_cap_two_and_downhill_foot_three() -> None:
    st = position(north=["E5 HI"], south=["E4 HI"], terrain={"hill": ["E5"]})
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "GG" + "GGG")
    assert [len(e.dice) for e in res.events if e.kind in ("battle", "battle-back")] == [2, 3]


def test_s17_hill_blocks_sight_but_not_between_two_hills() -> None:
    st = position(north=["E7 MI"], south=["E3 LB"], terrain={"hill": ["E5"]})
    with pytest.raises(OrdersError):
        play(st, "south", "card 3C\norder E3\nfire E3 at E5\n")  # an empty hill: no target
    st = position(north=["E6 MI"], south=["D4 LB"], terrain={"hill": ["D4", "E5", "E6"]})
    res = play(st, "south", "card 3L\norder D4\nfire D4 at E6\n", "GG")
    assert "fire" in kinds(res.events)


def test_s17_river_is_impassable_and_retreat_into_it_is_blocked() -> None:
    st = position(north=["E6 MI"], south=["E4 LB", "E3 MI"], terrain={"river": ["E7", "F7"]})
    with pytest.raises(OrdersError):
        play(st, "south", "card 3C\norder E3\nmove E3 > E4\n")  # occupied anyway
    res = play(st, "south", "card 3C\norder E4\nfire E4 at E6\n", "FG")
    assert unit(res.state, "E6") == ("north", "MI", 3)


def test_s17_3_no_advance_out_of_a_ford_entered_this_turn() -> None:
    st = position(
        north=["E6 LI"],
        south=["E4 HI"],
        terrain={"fordable-river": ["E5"]},
        standing="evade: never",
    )
    res = play(st, "south", "card 3C\norder E4\nmove E4 to E5\nattack E5 at E6 advance\n", "FF")
    assert unit(res.state, "E5") == ("south", "HI", 4)
    assert "advance" not in kinds(res.events)


def test_s17_camp_minus_one_out_and_foot_ignores_a_sword() -> None:
    st = position(north=["E5 HI"], south=["E4 HI"], terrain={"camp": ["E4", "E5"]})
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "SSGG" + "GGGG")
    battle = next(e for e in res.events if e.kind == "battle")
    assert len(battle.dice) == 4
    assert unit(res.state, "E5") == ("north", "HI", 3)


def test_s3_1_auxilia_moving_two_may_not_battle() -> None:
    st = position(north=["E7 MI"], south=["E4 AUX"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E4\nmove E4 > E5 > E6\nattack E6 at E7\n")
    assert err.value.code == "cannot-battle"


def test_s3_5_war_machine_may_not_fire_after_moving() -> None:
    st = position(north=["E8 MI"], south=["E3 HWM"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E3\nmove E3 to E4\nfire E4 at E8\n")
    assert err.value.code == "cannot-battle"
    res = play(st, "south", "card 3C\norder E3\nfire E3 at E8\n", "RG")
    assert unit(res.state, "E8") == ("north", "MI", 4)


def test_s3_2_warriors_moving_two_must_attack() -> None:
    st = position(north=["E7 MI"], south=["E4 WAR"])
    with pytest.raises(OrdersError) as err:
        play(st, "south", "card 3C\norder E4\nmove E4 > E5 > E6\n")
    assert err.value.code == "warriors-must-attack"


def test_s10_7_elephant_ignores_a_red_and_a_flag_against_cavalry() -> None:
    st = position(north=["E5 ELE"], south=["E4 HC"])
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "RRFS" + "GGGG")
    assert unit(res.state, "E5") == ("north", "ELE", 1)


def test_s3_4_cavalry_retreats_an_extra_hex_per_flag_from_camels() -> None:
    st = position(north=["E6 CAM"], south=["E5 MC"], north_hand=["3C"])
    r1 = play(st, "south", "card 3L\n")
    r2 = play(
        r1.state,
        "north",
        "card 3C\norder E6\nattack E6 at E5\n",
        "FGG",
    )
    mc = next(u for u in r2.state.units if u.type == "MC")
    assert mc.hex is not None and mc.hex.row == 1  # 3 + 1 hexes, stopped by the baseline


def test_s14_4_war_machine_evades_and_is_removed_without_a_banner() -> None:
    st = position(north=["E5 HWM"], south=["E4 HI"], standing="evade: always")
    res = play(st, "south", "card 3C\norder E4\nattack E4 at E5\n", "GGGGG")
    assert "crew-fled" in kinds(res.events)
    assert res.state.sides["south"].banners == ()


def test_s16_4_lone_leader_evades_toward_its_side() -> None:
    st = position(north=["A9 LI"], north_leaders=["E6 Hanno"], south=["E5 MI"])
    res = play(st, "south", "card 3C\norder E5\nattack E5 at E6\n", "GGGG")
    hanno = res.state.leader("Hanno")
    assert hanno.hex is not None and hanno.hex.row > 6


def test_s16_5_leader_escapes_through_enemy_units() -> None:
    st = position(north=["A9 LI"], north_leaders=["E6 Hanno"], south=["E5 MI", "E7 MI", "F7 MI"])
    res = play(st, "south", "card 3C\norder E5\nattack E5 at E6\n", "GGGG" + "GGGG")
    assert "leader-escape" in kinds(res.events)
    assert res.state.leader("Hanno").hex is not None
