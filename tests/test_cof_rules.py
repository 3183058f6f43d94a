"""Chariots of Fire rule core: rules cases naming cof.md sections.

Chart-driven rules run on a fixture chart of the test's own (``fixture(...)``: the bundled
charts with the tables the test relies on replaced by its own values), or on cells the
rulebook's worked examples fix (tagged ``rulebook`` and asserted in test_cof_tables.py). No
test relies on a placeholder value.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from cof_rules_kit import fixed as _fixed
from cof_rules_kit import make_terrain as _terrain

from engine.cof import cohesion, command, missile, movement, shock
from engine.cof.tables import (
    Band,
    Clash,
    CofTables,
    MissileRow,
    ShockRow,
    TurnoverRow,
    bundled,
)
from engine.gboh.grid import GHex, HexMap, front_hexes, sectors

B = bundled()
T = B.types
H = GHex.parse


TERRAIN = {
    "clear": _terrain("clear", 1, 1),
    "rough": _terrain("rough", 3, 4, heavy_hit=True, chariot_hit=True, turn_hit=True),
    "woods": _terrain("woods", 2, 0, chariot_ok=False, heavy_hit=True, missile_drm=1),
    "minor_river": _terrain("minor_river", 2, 3, where="hexside", heavy_hit=True),
    "climb": _terrain("climb", 1, 2, where="climb"),
}


def fixture(**over: Any) -> CofTables:
    """The test's own charts: a CRT whose cell in column c at roll r is (c, r) clipped at 0,
    simple clash rows, a missile table that gives 1 hit at or below 4, costs above."""
    crt = tuple(ShockRow(dr, tuple((c, max(dr, 0)) for c in range(1, 13))) for dr in range(-1, 11))
    clash = {(a, d): Clash(f"{a}_{d}", a, d, 5, "none") for a in T for d in T}
    clash[("SI", "CH2")] = Clash("SI_CH2", "SI", "CH2", 4, "AS")
    clash[("CH2", "HI")] = Clash("CH2_HI", "CH2", "HI", 3, "DS")
    clash[("CH2", "CH3")] = Clash("CH2_CH3", "CH2", "CH3", 0, "-")
    cols = ("c1", "c2", "c3", "b1", "b2", "s1", "s2", "j1", "pass_thru")
    miss = tuple(MissileRow(dr, dict.fromkeys(cols, 1 if dr <= 4 else 0)) for dr in range(-1, 11))
    charts = replace(
        B,
        terrain=TERRAIN,
        crt=crt,
        clash=clash,
        missile=miss,
        armor={w: {"armored": 1, "partial": 0, "unarmored": -1} for w in "BCJS"},
        weapons=_fixed(C=3, B=2, J=1, S=2),
        shifts=_fixed(flank=2, numbers=2, minor_river=-2, higher_ground=-3),
        bands={"ch3_7_9": Band("ch3_7_9", "CH3", 7, 9, False)},
        turnover=tuple(TurnoverRow(dr, {"ch3_7_9": dr >= 5}) for dr in range(10)),
    )
    return replace(charts, **over)


F = fixture()


# --- the grid: facing and sectors (cof.md §2.2, §6.5, §7.2) ---------------------------


def test_front_hexes_of_the_nihriya_example() -> None:
    # cof.md §2.2: 1736 facing east fronts 1836/1837; 2036 facing west fronts 1935/1936.
    assert set(front_hexes(H("1736"), "E")) == {H("1836"), H("1837")}
    assert set(front_hexes(H("2036"), "W")) == {H("1935"), H("1936")}


def test_astarpa_distances_and_the_flank_rear_boundary() -> None:
    # cof.md §2.2, §7.2: 2135 -> 2237 is 2 hexes, on the flank/rear boundary facing west.
    assert H("1835").distance(H("2134")) == 3
    assert H("1835").distance(H("2235")) == 4
    assert sectors(H("2135"), "W", H("2237")) == {"flank", "rear"}
    assert sectors(H("2135"), "W", H("1835")) == {"front"}


# --- movement (cof.md §6) -----------------------------------------------------------------


def _nihriya(steps: list[str], **kw: Any) -> movement.MoveTrace:
    return movement.trace_move(
        F, T["CH2"], H("1736"), "E", steps, ma=9, terrain=lambda h: "clear", **kw
    )


def test_nihriya_pass_through_path_costs_nine_mp() -> None:
    # cof.md §6.7 worked example: 1836, 1935, 2036, 2136, two vertices to face 2037/2137
    # (6 MP), 2137, 2038, 1938: all 9 MP.
    t = _nihriya(["1836", "1935", "2036", "2136", "SE", "SW", "2137", "2038", "1938"])
    assert t.problem == ""
    assert (t.mp, t.hex, t.facing) == (9, H("1938"), "SW")
    assert set(front_hexes(H("2136"), "SW")) == {H("2037"), H("2137")}


def test_no_turning_in_an_entered_enemy_front_hex() -> None:
    # cof.md §6.5: the Hittite CH-2 may not turn in 1935, the Assyrian's front hex.
    fronts = movement.enemy_front_hexes([(H("2036"), "W")])
    t = _nihriya(["1836", "1935", "SE"], enemy_fronts=fronts)
    assert "enemy front hex" in t.problem
    assert t.hex == H("1935")


def test_a_chariot_turns_at_most_two_vertices_in_a_hex() -> None:
    # cof.md §6.5: chariots 2 vertices a hex, battle wagons 1, infantry any number.
    t = _nihriya(["1836", "SE", "SW", "W"])
    assert "at most 2 vertices" in t.problem
    w = movement.trace_move(
        F, T["BW"], H("1736"), "E", ["SE", "SW"], ma=9, terrain=lambda h: "clear"
    )
    assert "at most 1 vertices" in w.problem
    i = movement.trace_move(
        F, T["SI"], H("1736"), "E", ["SE", "SW", "W"], ma=4, terrain=lambda h: "clear"
    )
    assert (i.problem, i.mp) == ("", 3)


def test_a_unit_enters_only_its_front_hexes() -> None:
    # cof.md §6.1.
    t = _nihriya(["1735"])
    assert "not a front hex" in t.problem


def test_entry_costs_hexsides_climbs_and_friends_read_the_chart() -> None:
    # cof.md §6.2, §6.6, §12.1 (fixture costs).
    assert movement.entry_cost(F, T["SI"], "rough") == 3
    assert movement.entry_cost(F, T["CH2"], "rough", ["minor_river"], climb=True) == 9
    assert movement.entry_cost(F, T["CH2"], "woods") is None
    assert movement.entry_cost(F, T["SI"], "clear", through_friend=True) == 2


def test_terrain_hits_for_heavy_infantry_and_chariots() -> None:
    # cof.md §6.2: SI/HI 1 hit entering rough or woods, crossing a minor river, not in
    # column; chariots 1 hit in rough; no other type.
    assert movement.terrain_hits(F, T["SI"], "rough", ["minor_river"]) == 2
    assert movement.terrain_hits(F, T["SI"], "rough", in_column=True) == 0
    assert movement.terrain_hits(F, T["CH3"], "rough") == 1
    assert movement.terrain_hits(F, T["LI"], "rough") == 0
    assert movement.turn_hits(F, T["HI"], "rough", 2) == 2
    assert movement.turn_hits(F, T["HI"], "clear", 2) == 0


def test_moving_past_the_ma_stops_the_move() -> None:
    # cof.md §6.1: a unit needs the full cost to enter.
    t = movement.trace_move(
        F, T["SI"], H("1736"), "E", ["1836", "1935"], ma=4, terrain=lambda h: "rough"
    )
    assert "needs 3 MP, 1 left" in t.problem
    assert (t.hex, t.hits) == (H("1836"), 1)


def test_column_moves_ahead_or_beside_and_refaces_free() -> None:
    # cof.md §6.3: a column faces a hexside; it enters the hex ahead or either beside it.
    t = movement.trace_move(
        F,
        T["SI"],
        H("1736"),
        "N",
        ["1735", "1835"],
        ma=6,
        terrain=lambda h: "rough",
        in_column=True,
    )
    assert (t.problem, t.hits, t.facing) == ("", 0, "NE")
    assert movement.column_ma(F, 4, True) == 5


def test_start_adjacent_facing_allowance() -> None:
    # cof.md §6.5: half the MA rounded up in one enemy's front; none in two or more.
    assert movement.start_turn_allowance(9, 1) == 5
    assert movement.start_turn_allowance(9, 2) == 0
    assert movement.start_turn_allowance(9, 0) is None


def test_out_of_command_units_keep_away_from_the_enemy() -> None:
    # cof.md §5.5: never into a hex adjacent to an enemy unit.
    enemy = frozenset({H("1836")})
    assert not movement.out_of_command_may_enter(H("1736"), enemy)
    assert movement.out_of_command_may_enter(H("1534"), enemy)


def test_orderly_withdrawal_allowance_and_rolls() -> None:
    # cof.md §6.4 examples: CH-2 (MA 9) before CH-3 (MA 7): automatic, 2 MP; Mitanni RI
    # (TQ 4) rolls 7 before SI: no withdrawal, no hit (only a modified 9 costs one).
    assert movement.withdrawal_allowance(9, 7) == 2
    assert movement.withdrawal_allowance(4, 9) == 0
    assert cohesion.orderly_withdrawal(B, T["CH2"], 5, 9) == cohesion.Check(True, 0)
    assert cohesion.orderly_withdrawal(B, T["RI"], 4, 7) == cohesion.Check(False, 0)
    assert cohesion.orderly_withdrawal(B, T["RI"], 4, 9) == cohesion.Check(False, 1)
    assert cohesion.orderly_withdrawal(B, T["RI"], 4, 7, wc_ability=3).passed


# --- missile fire (cof.md §7) -----------------------------------------------------------


def test_composite_bow_at_two_hexes_rolling_four_scores_one_hit() -> None:
    # cof.md §7.6 (rulebook §7.17 example), on the bundled chart's confirmed cell; the
    # fixture armor row makes the modifier 0 against a partial (SI) target.
    f = fixture(missile=B.missile)
    fire = missile.resolve_fire(f, "C", 2, T["SI"], 4)
    assert (fire.modified, fire.hits) == (4, 1)


def test_astarpa_ranges() -> None:
    # cof.md §7.4: C hits at 3 hexes, not 4; B at 2, not 3.
    assert missile.in_range(B, "C", 3) and not missile.in_range(B, "C", 4)
    assert missile.in_range(B, "B", 2) and not missile.in_range(B, "B", 3)
    with pytest.raises(ValueError, match="does not reach 4"):
        missile.resolve_fire(F, "C", 4, T["SI"], 3)


def test_missile_modifiers() -> None:
    # cof.md §7.6, §12.8: armor (fixture), +1 a moving bow LI, +1 woods, -1 lower target at 2+.
    assert missile.missile_drm(F, "C", T["CH2"]) == 1
    assert missile.missile_drm(F, "B", T["LI"], bow_moving=True) == 0
    assert missile.missile_drm(F, "J", T["SI"], target_terrain="woods") == 1
    assert missile.missile_drm(F, "S", T["SI"], lower_target=True, distance=2) == -1
    assert missile.missile_drm(F, "S", T["SI"], lower_target=True, distance=1) == 0


def test_rolls_beyond_the_table_read_its_edge() -> None:
    # cof.md §7.6 [E]: the first and last rows take every roll beyond them.
    assert missile.missile_hits(F, "c1", -7) == 1
    assert missile.missile_hits(F, "c1", 15) == 0


def test_missile_supply_and_leader_check() -> None:
    # cof.md §7.5, §7.9: an unmodified 9 leaves the unit low; a low unit that fires is out;
    # an unmodified 0 puts a leader in the target hex at risk.
    assert missile.resolve_fire(F, "C", 1, T["SI"], 9).supply == "low"
    assert missile.resolve_fire(F, "C", 1, T["SI"], 3, supply="low").supply == "no"
    assert missile.resolve_fire(F, "C", 1, T["SI"], 0).leader_check
    with pytest.raises(ValueError, match="Missile No"):
        missile.resolve_fire(F, "C", 1, T["SI"], 3, supply="no")


def test_field_of_fire() -> None:
    # cof.md §7.2: light infantry into front or flank, chariots any way.
    firer = H("2135")
    assert missile.may_target(T["LI"], firer, "W", H("1835"))
    assert missile.may_target(T["LI"], firer, "W", H("2237"))  # on the boundary: flank too
    assert not missile.may_target(T["LI"], firer, "W", H("2335"))
    assert missile.may_target(T["CH2"], firer, "W", H("2335"))


def test_line_of_sight_woods_and_two_units() -> None:
    # cof.md §7.3: woods block; one unit between does not, two do; adjacent always.
    a, b = H("1010"), H("1013")
    between = {h for step in a.line_to(b)[1:-1] for h in step}
    assert missile.line_of_sight(a, b, blocks=lambda h: False, occupied=lambda h: False)
    assert not missile.line_of_sight(a, b, blocks=lambda h: h in between, occupied=lambda h: False)
    one = {H("1011")}
    assert missile.line_of_sight(a, b, blocks=lambda h: False, occupied=lambda h: h in one)
    assert not missile.line_of_sight(a, b, blocks=lambda h: False, occupied=lambda h: h in between)
    assert missile.line_of_sight(a, H("1011"), blocks=lambda h: True, occupied=lambda h: True)


# --- shock (cof.md §8, §9.2) ------------------------------------------------------------


def test_hittite_chariot_shocks_of_the_rulebook_example() -> None:
    # cof.md §8.6-§8.8 (rulebook §8.16, §8.17 examples, confirmed cells): CH-3(A) on CH-2(Z)
    # rolls 6 -> 1 (2); CH-3(B) on CH-2(Y) rolls 9 -> 1 (3); CH-2(C) on SI(X) rolls 3 -> 3 (1),
    # defender superior: 9 hits on the chariot.
    a = shock.resolve_shock(B, T["CH3"], T["CH2"], 6)
    assert (a.base, a.superiority, a.attacker_hits, a.defender_hits) == (9, "none", 1, 2)
    b = shock.resolve_shock(B, T["CH3"], T["CH2"], 9)
    assert (b.attacker_hits, b.defender_hits) == (1, 3)
    c = shock.resolve_shock(B, T["CH2"], T["SI"], 3)
    assert (c.base, c.superiority, c.attacker_hits, c.defender_hits) == (2, "DS", 9, 1)


def test_a_rear_attack_is_attack_superior() -> None:
    # cof.md §8.6 #2 (rulebook §8.17 example): the CH-2 attacking the SI from behind would
    # have AS instead; not if it stands in the front of another enemy no friend attacks.
    assert shock.superiority(B, T["CH2"], T["SI"], rear=True) == "AS"
    assert shock.superiority(B, T["CH2"], T["SI"], rear=True, rear_attacker_fronted=True) == "DS"
    assert shock.superiority(F, T["CH2"], T["SI"], defender_in_column=True) == "AS"


def test_column_shifts_and_table_edges() -> None:
    # cof.md §8.7: flank 2 right; 2 per extra unit; terrain; held at the edges.
    assert shock.shifted_column(F, 5, flank=True) == 7
    assert shock.shifted_column(F, 5, attackers=2, defenders=1) == 7
    assert shock.shifted_column(F, 5, attackers=1, defenders=3) == 1
    assert shock.shifted_column(F, 11, flank=True, attackers=3) == 12
    assert shock.shifted_column(F, 5, terrain_shifts=["minor_river", "higher_ground"]) == 1


def test_superiority_multiplies_hits() -> None:
    # cof.md §8.8 #3 (fixture CRT: column c, roll r gives (c, r)).
    s = shock.resolve_shock(F, T["SI"], T["CH2"], 3)
    assert (s.superiority, s.attacker_hits, s.defender_hits) == ("AS", 4, 6)
    d = shock.resolve_shock(F, T["CH2"], T["HI"], 2, drm=1)
    assert (d.modified, d.attacker_hits, d.defender_hits) == (3, 9, 3)


def test_no_shock_where_the_chart_forbids_it() -> None:
    # cof.md §8.2: a CH-2 never shocks a chariot.
    assert not shock.may_shock(F, T["CH2"], T["CH3"])
    with pytest.raises(ValueError, match="may not shock"):
        shock.resolve_shock(F, T["CH2"], T["CH3"], 5)


def test_a_flank_attack_from_the_rear_is_not_also_a_flank_shift() -> None:
    # cof.md §8.7 [E].
    s = shock.resolve_shock(F, T["SI"], T["SI"], 4, rear=True, flank=True)
    assert (s.column, s.superiority) == (5, "AS")


def test_leader_modifiers() -> None:
    # cof.md §4.1: a wing leader +1 with the attacker, -1 with the defender; an OC his Charisma.
    wc = shock.wing_leader_bonus(F)
    assert shock.leader_drm([wc, 3], [wc]) == 3


def test_hits_are_shared_evenly_extra_to_the_superior_unit() -> None:
    # cof.md §9.2 #1 (rulebook §9.12 example): a CH-2+RI taking 3 hits -> 1 each, the third
    # to the owner's choice (here the runner).
    assert shock.distribute_hits(3, ["CH2", "RI"], ["RI"]) == {"CH2": 1, "RI": 2}
    assert shock.distribute_hits(4, ["a", "b", "c"]) == {"a": 2, "b": 1, "c": 1}


def test_mutual_rout() -> None:
    # cof.md §9.2 #3: the larger excess routs; equal -> the defender; not if any unit is short.
    assert shock.mutual_rout([(9, 5)], [(8, 6)]) == "attacker"
    assert shock.mutual_rout([(7, 5)], [(8, 6)]) == "defender"
    assert shock.mutual_rout([(7, 5), (2, 5)], [(8, 6)]) is None


# --- cohesion, TQ checks, rout (cof.md §8.4, §8.9, §9) ------------------------------------


def test_pre_shock_checks_of_the_rulebook_example() -> None:
    # cof.md §8.4: D (TQ 5) rolls 6 -> no attack, 1 hit; SI X (TQ 7) rolls 9 -> 2 hits.
    assert cohesion.check(B, "must_check_attacker", 5, 6) == cohesion.Check(False, 1)
    assert cohesion.check(B, "defender_check", 7, 9) == cohesion.Check(False, 2)
    assert cohesion.check(B, "defender_check", 7, 7) == cohesion.Check(True, 0)


def test_rout_and_collapse() -> None:
    # cof.md §8.9, §9.7: hits >= TQ routs; rout roll 5 vs TQ 5 reaches the Standard.
    assert cohesion.routs(5, 5) and not cohesion.routs(4, 5)
    assert cohesion.rout_roll(B, 5, 5) == "standard"
    assert cohesion.rout_roll(B, 5, 6) == "flees"
    assert cohesion.rout_roll(B, 5, 0, standard=False) == "flees"
    assert cohesion.check(B, "engaged_collapse", 6, 7).passed is False


def test_pass_through_block_needs_a_roll_below_tq() -> None:
    # cof.md §6.7 example: the Assyrian rolls 7 against CH-2 TQ 5: no block; 5 would not either.
    assert not cohesion.pass_through_blocked(B, 5, 7)
    assert not cohesion.pass_through_blocked(B, 5, 5)
    assert cohesion.pass_through_blocked(B, 5, 4)


def test_aggression_reaction_against_fire() -> None:
    # cof.md §8.10 example: RI (TQ 5) fired on at 2 hexes rolls 8: 8 - 2 = 6 >= 5, reacts.
    assert cohesion.aggression_vs_fire(B, 5, 8, 2)
    assert not cohesion.aggression_vs_fire(B, 5, 6, 2)
    assert cohesion.aggression_vs_shock(B, 5, 5)


def test_reaction_facing_costs_infantry_the_excess() -> None:
    # cof.md §6.5: infantry rolls after turning: DR > TQ gives DR - TQ hits.
    assert cohesion.check(B, "reaction_facing", 4, 7).hits == 3


def test_rally_recover_and_column_tq() -> None:
    # cof.md §9.8, §9.3, §6.3, §9.1.
    assert cohesion.rally(3, 7, 3) == 3
    assert cohesion.rally(3, 7, 4) is None
    assert cohesion.recover(3) == 1 and cohesion.recover(1) == 0
    assert cohesion.effective_tq(B, 7, column=True) == 5
    assert cohesion.effective_tq(B, 7, routed=True) == 1


def test_turnover_reads_the_band_of_the_declared_speed() -> None:
    # cof.md §6.8 example on the confirmed cell: a CH-3 at speed 7 rolls 7 and overturns.
    assert cohesion.turnover(B, "CH3", 7, 7)
    assert cohesion.turnover(F, "CH3", 8, 5)
    assert not cohesion.turnover(F, "CH3", 8, 4)
    assert not cohesion.turnover(F, "CH3", 3, 9)  # no fixture band for speed 3


def test_leader_casualties() -> None:
    # cof.md §8.5 example: Barattarna rolls 0 (wounded), then 3 <= Initiative 5: survives.
    assert cohesion.leader_casualty(B, "shock", iter([0, 3]), 5) == "wounded"
    assert cohesion.leader_casualty(B, "shock", iter([0, 6]), 5) == "killed"
    assert cohesion.leader_casualty(B, "shock", iter([4]), 5) == "unhurt"
    assert cohesion.leader_casualty(B, "shock", iter([0]), 5, wounded=True) == "killed"
    # §7.9: missile fire checks only on an unmodified 0, then a second 0 wounds.
    assert cohesion.leader_casualty(B, "missile", iter([1]), 5) == "unhurt"
    assert cohesion.leader_casualty(B, "missile", iter([0, 2]), 5) == "unhurt"
    assert cohesion.leader_casualty(B, "missile", iter([0, 0, 9]), 5) == "killed"


# --- command (cof.md §3, §5, §9.5, §11) ---------------------------------------------------


def test_initiative_momentum_and_trump() -> None:
    # cof.md §3 A, §5.3, §5.4 (example: Thutmose III, Initiative 6, rolls 5 and trumps).
    assert command.initiative((4, 3), (6, 5)) == 0
    assert command.initiative((4, 5), (6, 5)) is None
    assert command.trump(5, 6)
    assert not command.trump(7, 6)
    assert command.momentum(4, 4) and not command.momentum(5, 4)
    assert not command.trump_allowed(
        oc_alive=True, used_this_turn=False, oc_with_engaged=False, marker_chosen=True
    )
    assert command.trump_allowed(
        oc_alive=True, used_this_turn=False, oc_with_engaged=False, marker_chosen=False
    )


def test_command_range_counts_hexes_around_the_enemy() -> None:
    # cof.md §5.5: the unit's hex counts, the leader's does not; no path through enemies.
    grid = HexMap()
    leader, unit = H("1010"), H("1013")
    assert command.command_path(grid, leader, unit, lambda h: True) == 3
    wall = {H("1011"), H("0911"), H("1111")}
    assert command.command_path(grid, leader, unit, lambda h: h not in wall) == 5
    assert command.in_command(grid, leader, unit, 3, lambda h: True)
    assert not command.in_command(grid, None, unit, 9, lambda h: True)
    assert command.command_range(9, with_engaged=True) == 4
    assert command.command_range(9, wounded=True) == 8


def test_withdrawal_from_engagement_and_victory() -> None:
    # cof.md §9.5: roll at most Ability (+ OC's Charisma); §11: TQ of the dead + 5 x the OC's
    # Initiative; both over -> the smaller excess wins, equal -> draw.
    assert command.withdraw_engaged(6, 4, oc_charisma=2)
    assert not command.withdraw_engaged(7, 4, oc_charisma=2)
    assert command.withdrawal_points([5, 7, 4], 6) == 46
    assert command.outcome((10, 5), (20, 30)) == "on"
    assert command.outcome((25, 5), (20, 30)) == "1"
    assert command.outcome((25, 33), (20, 30)) == "1"
    assert command.outcome((23, 33), (20, 30)) == "draw"


def test_sectors_agree_with_the_six_neighbours_for_every_facing() -> None:
    # cof.md §6.5: front, flank and rear hexes; §7.2 extends them by angle.
    from engine.gboh.grid import VERTICES, flank_hexes, rear_hexes

    for h in (H("1423"), H("1522")):
        for f in VERTICES:
            assert all(sectors(h, f, x) == {"front"} for x in front_hexes(h, f))
            assert all(sectors(h, f, x) == {"flank"} for x in flank_hexes(h, f))
            assert all(sectors(h, f, x) == {"rear"} for x in rear_hexes(h, f))


# --- pass-through, designation, heroes (cof.md §6.7, §8.2-§8.3, §10) --------------------


def test_a_chariot_passes_through_an_enemy_chariot_but_never_stops_or_turns_there() -> None:
    # cof.md §6.7 (Nihriya): 2036 and 2038 hold Assyrian chariots; the Hittite CH-2 passes.
    enemy = frozenset({H("2036"), H("2038")})
    ok = _nihriya(
        ["1836", "1935", "2036", "2136", "SE", "SW", "2137", "2038", "1938"],
        enemy_chariots=enemy,
    )
    assert ok.problem == ""
    turn = _nihriya(["1836", "1935", "2036", "SE"], enemy_chariots=enemy)
    assert "while passing through 2036" in turn.problem
    stop = _nihriya(["1836", "1935", "2036"], enemy_chariots=enemy)
    assert "may not stop in 2036" in stop.problem
    si = movement.trace_move(
        F,
        T["SI"],
        H("1935"),
        "E",
        ["2036"],
        ma=4,
        terrain=lambda h: "clear",
        enemy_chariots=enemy,
    )
    assert "may not be entered" in si.problem


def test_a_moved_heavy_unit_takes_a_hit_moving_again() -> None:
    # cof.md §6.1: SI/HI only.
    assert movement.moved_again_hits(B, T["SI"], True) == 1
    assert movement.moved_again_hits(B, T["SI"], False) == 0
    assert movement.moved_again_hits(B, T["CH2"], True) == 0


def test_shock_designation() -> None:
    # cof.md §8.2: must after moving adjacent or Engaged; may if adjacent all along; never LI,
    # columns, routed units, units that turned in place.
    assert shock.shock_duty(T["SI"], ended_adjacent=True) == "must"
    assert shock.shock_duty(T["SI"], engaged=True) == "must"
    assert shock.shock_duty(T["CH2"], adjacent_throughout=True) == "may"
    assert shock.shock_duty(T["LI"], ended_adjacent=True) is None
    assert shock.shock_duty(T["SI"], ended_adjacent=True, in_column=True) is None
    assert shock.shock_duty(T["SI"], ended_adjacent=True, turned_in_place=True) is None


def test_target_assignment_of_the_rulebook_example() -> None:
    # cof.md §8.3 example: Hittite CH-2(C) in 2037 facing west fronts Egyptian SI(X) 1936
    # and CH-2(Y) 1937; a CH-2 may not shock a chariot, so X is its only obligatory target.
    enemies = {H("1935"): T["LI"], H("1936"): T["SI"], H("1937"): T["CH2"], H("1938"): T["CH2"]}
    assert shock.front_targets(B, T["CH2"], H("2037"), "W", enemies) == [H("1936")]
    # CH-3(A) in 2039 facing west: Z (1938) is the only unit in its front.
    assert shock.front_targets(B, T["CH3"], H("2039"), "W", enemies) == [H("1938")]
    assert shock.may_add_target(H("2037"), "W", H("2036"))  # a flank hex
    assert not shock.may_add_target(H("2037"), "W", H("2137"))  # a rear hex


def test_heroic_duel() -> None:
    # cof.md §10.3: 1 hit, 2 at twice the lower total, 3 at three times; equal: none;
    # survivors keep one hit of the duel (example: entered with 1, took 2 -> 2).
    from engine.cof import heroes

    assert heroes.duel_hits(5, 5) == 0
    assert heroes.duel_hits(5, 9) == 1
    assert heroes.duel_hits(5, 10) == 2
    assert heroes.duel_hits(4, 12) == 3
    r = heroes.duel_round((2, 7), (3, 3), (4, 6))
    assert r.hits == (2, 0) and r.dead == (False, False)
    assert heroes.hits_kept(1, 2) == 2
    assert heroes.hero_drm(B, True) == 2 and heroes.hero_drm(B, False) == -2
