"""C&C Napoleonics dice counts from the tables (engine/ccn/dice.py): rules cases, each
naming its ccn.md section. Every case uses only values the rulebook or a public page
gives (checked by :func:`_sourced`), never a placeholder of the bundled tables."""

from __future__ import annotations

import pytest

from engine.ccn.dice import FIRE, MELEE, battle_dice, fire_dice, melee_dice
from engine.ccn.dice import terrain_reduction as reduce
from engine.ccn.strength import Strength, half, retreat_hexes, start_blocks, type_flags
from engine.ccn.tables import bundled_texts, load_ccn_tables
from engine.core.tables import provenance_kind

T = load_ccn_tables(bundled_texts())


def _sourced(file: str, table: str, row: str, *fields: str) -> None:
    prov = T.files[file].provenance
    for field in fields:
        assert provenance_kind(prov[(table, row, field)]) != "placeholder", (row, field)


def _inf(nation: str, unit: str) -> None:
    _sourced("units.toml", "units", unit, "range", "range_after_move", "fire_bonus", "melee_bonus")
    _sourced("units.toml", "units", unit, "move_and_battle")
    key = f"{nation}_{unit}"
    if key in T.types:
        fields = ("fire_standing", "fire_moved", "melee", "melee_vs_infantry", "melee_moved")
        _sourced("nations.toml", "types", key, *fields, "rounding")


@pytest.mark.parametrize(
    "case",
    [
        ("§4.2 line infantry fires one die a block", "FR", "LN", 4, 0, 2, 4),
        ("§4.2 moved line infantry fires half, French round up", "FR", "LN", 3, 1, 2, 2),
        ("§4.2 example: 3-block French light infantry moved: ceil(3/2)+1", "FR", "LT", 3, 1, 2, 3),
        ("§4.2 light infantry +1 standing", "FR", "LT", 4, 0, 2, 5),
        ("§4.2 rifles reach 3 hexes", "GB", "RI", 3, 0, 3, 4),
        ("§4.2 line infantry does not reach 3 hexes", "FR", "LN", 4, 0, 3, 0),
        ("§12.1 no fire at an adjacent unit", "FR", "LN", 4, 0, 1, 0),
        ("§4.2 light infantry that moved 2 may not battle", "FR", "LT", 4, 2, 2, 0),
        ("§4.3 British line +1 standing fire", "GB", "LN", 4, 0, 2, 5),
        ("§4.3 British line moved fire unchanged", "GB", "LN", 4, 1, 2, 2),
        ("§4.3 Portuguese round down: 1 block moved rolls 0", "PT", "LN", 1, 1, 2, 0),
        ("§4.3 Portuguese round down: 3 blocks moved roll 1", "PT", "LN", 3, 1, 2, 1),
        ("§4.3 French militia moved fire rounds down", "FR", "MI", 3, 1, 2, 1),
        ("§4.3 Spanish line moved fire floor(B/2)-1", "ES", "LN", 4, 1, 2, 1),
        ("§4.3 Spanish light moved fire floor(B/2)", "ES", "LT", 5, 1, 2, 2),
        ("§4.2 cavalry never fires", "FR", "LC", 4, 0, 2, 0),
    ],
    ids=lambda case: case[0],
)
def test_infantry_fire_dice_follow_strength_and_nation(
    case: tuple[str, str, str, int, int, int, int],
) -> None:
    section, nation, unit, blocks, moved, hexes, dice = case
    _inf(nation, unit)
    assert fire_dice(T, Strength(nation, unit, blocks), moved, hexes) == dice, section


@pytest.mark.parametrize(
    "case",
    [
        ("§4.2 line infantry melees one die a block, moved or not", "GB", "LN", 3, 1, "cavalry", 3),
        ("§4.3 French line +1 melee die against infantry", "FR", "LN", 4, 0, "infantry", 5),
        ("§4.3 French line bonus not against cavalry", "FR", "LN", 4, 0, "cavalry", 4),
        ("§4.2 grenadiers B+1", "GB", "GR", 2, 0, "infantry", 3),
        ("§4.2 Old Guard B+2", "FR", "OG", 4, 1, "infantry", 6),
        ("§4.2 heavy cavalry B+1", "GB", "HC", 3, 2, "infantry", 4),
        ("§4.2 light cavalry B after 3 hexes", "FR", "LC", 2, 3, "artillery", 2),
        ("§4.3 Spanish line -1 melee after moving", "ES", "LN", 4, 1, "infantry", 3),
        ("§4.4 foot artillery melees 4 dice", "FR", "FA", 2, 0, "infantry", 4),
        ("§4.4 foot artillery with 1 block melees 3", "FR", "FA", 1, 0, "infantry", 3),
        ("§4.4 guard foot artillery +1 melee", "FR", "GFA", 2, 0, "infantry", 5),
        ("§4.4 horse artillery melees 3 after moving 1", "FR", "HA", 3, 1, "infantry", 3),
        ("§4.4 horse artillery with 1 block melees 2", "FR", "HA", 1, 0, "cavalry", 2),
        (
            "§4.4 horse artillery with 1 block may not move and battle",
            "FR",
            "HA",
            1,
            1,
            "cavalry",
            0,
        ),
        ("§4.4 foot artillery may not move and battle", "FR", "FA", 3, 1, "infantry", 0),
        ("§4.7 a leader never battles", "FR", "LDR", 1, 0, "infantry", 0),
    ],
    ids=lambda case: case[0],
)
def test_melee_dice_follow_strength_and_nation(
    case: tuple[str, str, str, int, int, str, int],
) -> None:
    section, nation, unit, blocks, moved, target, dice = case
    if T.units[unit].arm == "infantry":
        _inf(nation, unit)
    if T.units[unit].arm == "artillery":
        band = next(
            k
            for k, r in T.artillery.items()
            if r.chart == T.units[unit].chart and r.min_blocks <= blocks <= r.max_blocks
        )
        _sourced("artillery.toml", "dice", band, "range1")
    assert melee_dice(T, Strength(nation, unit, blocks), moved, target) == dice, section


def test_horse_artillery_with_3_blocks_rolls_1_die_at_range_3() -> None:
    # ccn.md §4.5 and the §22 combined-arms example.
    _sourced("artillery.toml", "dice", "HA_3", "range3")
    assert fire_dice(T, Strength("FR", "HA", 3), 0, 3) == 1
    # §4.4: after moving 1 hex it reaches 3 hexes, not 4 (whatever the chart says at 4).
    assert fire_dice(T, Strength("FR", "HA", 3), 1, 4) == 0


def test_half_rounds_up_or_down() -> None:
    # ccn.md §4.3.
    assert [half(b, "up") for b in range(1, 6)] == [1, 1, 2, 2, 3]
    assert [half(b, "down") for b in range(1, 6)] == [0, 1, 1, 2, 2]


@pytest.mark.parametrize(
    "case",
    [
        ("§23.1 infantry melee into woods", "infantry", MELEE, "clear", "woods", False, 1),
        ("§23.1 cavalry into woods", "cavalry", MELEE, "clear", "woods", False, 2),
        (
            "§23.9 into town from woods stack: cavalry 3+2",
            "cavalry",
            MELEE,
            "woods",
            "town",
            False,
            5,
        ),
        ("§23.9 infantry from woods into town: 2+0", "infantry", FIRE, "woods", "town", False, 2),
        ("§23.9 artillery from town into woods: 1+1", "artillery", FIRE, "town", "woods", False, 2),
        ("§23.2 hill to hill: infantry fire -1", "infantry", FIRE, "hill", "hill", False, 1),
        ("§23.2 hill to hill: infantry melee 0", "infantry", MELEE, "hill", "hill", False, 0),
        ("§23.2 hill to hill: cavalry 0", "cavalry", MELEE, "hill", "hill", False, 0),
        ("§23.1 cavalry up a hill -1", "cavalry", MELEE, "clear", "hill", False, 1),
        (
            "§23.5 fieldworks replace the hill of the target hex",
            "infantry",
            MELEE,
            "clear",
            "hill",
            True,
            1,
        ),
        ("§23.5 cavalry across fieldworks -2, not -3", "cavalry", MELEE, "clear", "hill", True, 2),
        (
            "§23.5 no protection across an unfortified side",
            "cavalry",
            MELEE,
            "clear",
            "hill",
            False,
            1,
        ),
        ("§23.1 ford: melee into -1, fire into 0", "infantry", FIRE, "clear", "ford", False, 0),
        ("§23.1 ford: infantry fire out of it -1", "infantry", FIRE, "ford", "clear", False, 1),
        ("§23.1 bridge and clear: no reduction", "artillery", MELEE, "bridge", "clear", False, 0),
    ],
    ids=lambda case: case[0],
)
def test_terrain_reductions_stack(
    case: tuple[str, str, str, str, str, bool, int],
) -> None:
    section, arm, kind, own, target, fortified, removed = case
    for hex_ in (own, target, "field_fortifications"):
        _sourced("terrain.toml", "terrain", hex_, "into_inf_melee", "into_cav", "from_cav")
    assert reduce(T, arm, kind, own, target, across_fortified=fortified) == removed, section


def test_dice_never_go_below_zero_and_a_square_rolls_one_die() -> None:
    # ccn.md §11 (order, floor at 0), §21.5-§21.6 (1 die, reduced by terrain).
    assert battle_dice(3, 1, 2) == 2
    assert battle_dice(2, 0, 5) == 0
    assert battle_dice(6, 2, 0, square=True) == 1
    assert battle_dice(6, 2, 1, square=True) == 0


def test_starting_strength_comes_from_the_scenario_then_the_nation() -> None:
    # ccn.md §4.6: a scenario's number wins; else the nation's row (British light 5 blocks).
    _sourced("nations.toml", "types", "GB_LT", "blocks")
    assert start_blocks(T, "GB", "LT") == 5
    assert start_blocks(T, "GB", "LT", scenario=3) == 3


def test_flags_ignored_by_type_and_nation() -> None:
    # ccn.md §15.2: grenadiers 1, Old Guard 2, British Guard Grenadiers 2, line 0.
    _sourced("nations.toml", "types", "FR_OG", "flags_ignored")
    _sourced("nations.toml", "types", "GB_GG", "flags_ignored")
    assert type_flags(T, Strength("FR", "GR", 4)) == 1
    assert type_flags(T, Strength("FR", "OG", 4)) == 2
    assert type_flags(T, Strength("GB", "GG", 5)) == 2
    assert type_flags(T, Strength("GB", "LN", 4)) == 0


def test_retreat_per_flag_militia_three_spanish_two() -> None:
    # ccn.md §15.1 (militia 3 hexes a flag) and §4.6 source 5 (all Spanish units 2).
    _sourced("nations.toml", "types", "ES_LN", "retreat")
    assert retreat_hexes(T, Strength("FR", "LN", 4), 2) == 2
    assert retreat_hexes(T, Strength("PT", "MI", 4), 1) == 3
    assert retreat_hexes(T, Strength("ES", "LN", 4), 1) == 2
    assert retreat_hexes(T, Strength("ES", "MI", 4), 1) == 3
