"""Odds of a submission without rolling (engine.cca.odds); cases named after cca.md sections."""

from __future__ import annotations

from fractions import Fraction

from test_cca_helpers import SYS, position

from engine.cca.odds import BattleForecast, Forecast, forecast, percent
from engine.cca.state import State
from engine.hexgrid import Hex


def _forecast(st: State, body: str, side: str = "south") -> Forecast:
    text = f"game {st.game_id}\nturn {st.turn}\n{body}"
    return forecast(st, side, SYS.parse_orders(st, side, text))


def _one(st: State, body: str) -> BattleForecast:
    f = _forecast(st, body)
    assert len(f.battles) == 1
    return f.battles[0]


def test_s10_heavy_infantry_at_medium_in_the_open_hits_on_blue_and_swords() -> None:
    b = _one(position(north=["E5 MI"], south=["E4 HI"]), "card 3C\norder E4\nattack E4 at E5\n")
    assert b.dice == 5
    assert b.hit_faces == ("B", "S")  # 2 faces of 6 per die
    assert b.ignored == ()
    o = b.odds
    assert o.expected_hits == Fraction(5, 3)
    assert o.p_hit == 1 - Fraction(4, 6) ** 5
    assert o.p_flag == 1 - Fraction(5, 6) ** 5
    # 4 blocks: 4 or 5 hits of 5 dice at 1/3.
    assert o.p_eliminate == 5 * Fraction(1, 3) ** 4 * Fraction(2, 3) + Fraction(1, 3) ** 5
    assert o.truncated == 0
    assert percent(o.p_flag) == "59.8%"


def test_s17_forest_caps_close_combat_at_two_dice() -> None:
    st = position(north=["E5 MI"], south=["E4 HI"], terrain={"forest": ["E5"]})
    b = _one(st, "card 3C\norder E4\nattack E4 at E5\n")
    assert b.dice == 2
    assert b.dice_steps == (("base", 5), ("terrain", 2))
    assert b.odds.expected_hits == Fraction(2, 3)
    assert b.odds.p_eliminate == 0


def test_s18_clash_of_shields_adds_two_dice_after_the_terrain_cap() -> None:
    st = position(
        north=["E5 MI"], south=["E4 HI"], terrain={"forest": ["E5"]}, south_hand=("CS", "3C")
    )
    b = _one(st, "card CS\norder E4\nattack E4 at E5\n")
    assert b.dice_steps == (("base", 5), ("terrain", 2), ("card", 4))
    assert b.odds.expected_hits == Fraction(4, 3)


def test_s10_6_light_infantry_swords_do_not_hit() -> None:
    b = _one(position(north=["E5 MI"], south=["E4 LI"]), "card 3C\norder E4\nattack E4 at E5\n")
    assert b.hit_faces == ("B",)
    assert b.odds.expected_hits == Fraction(b.dice, 6)


def test_s10_5_a_leader_adds_the_helmet() -> None:
    st = position(north=["E5 MI"], south=["E4 HI"], south_leaders=["E4 Marcus"])
    b = _one(st, "card 3C\norder E4\nattack E4 at E5\n")
    assert b.hit_faces == ("B", "H", "S")
    assert b.odds.expected_hits == Fraction(5 * 3, 6)


def test_s13_elephant_ignores_the_first_colour_hit_and_a_flag_from_cavalry() -> None:
    st = position(north=["E5 ELE"], south=["E4 HC"])
    b = _one(st, "card 3C\norder E4\nattack E4 at E5\n")
    assert b.hit_faces == ("R",)
    assert b.ignored == (("R", 1),)
    assert b.flag_ignores == 1
    n = b.dice
    # Hits = max(0, reds - 1): E = n/6 - P(at least one red).
    assert b.odds.expected_hits == Fraction(n, 6) - (1 - Fraction(5, 6) ** n)
    # A retreat needs two flags or more.
    assert b.odds.p_retreat <= 1 - Fraction(5, 6) ** n - n * Fraction(1, 6) * Fraction(5, 6) ** (
        n - 1
    )


def test_s12_3_support_lets_the_target_ignore_one_flag() -> None:
    st = position(north=["E6 MI", "D6 MI", "F6 MI"], south=["E4 LB"])
    b = _one(st, "card 3C\norder E4\nfire E4 at E6\n")
    assert b.kind == "ranged"
    assert b.dice == 2
    assert b.flag_ignores == 1
    assert b.odds.p_flag == 1 - Fraction(25, 36)
    assert b.odds.p_retreat == Fraction(1, 36)  # both dice flags


def test_s9_ranged_after_moving_rolls_one_die_on_the_board_after_the_move() -> None:
    st = position(north=["E7 MI"], south=["E4 LB"])
    f = _forecast(st, "card 3C\norder E4\nmove E4 to E5\nfire E5 at E7\n")
    assert [m.path for m in f.moves] == [("E4", "E5")]
    assert f.battles[0].dice == 1
    assert f.battles[0].attacker_hex == "E5"
    moved = f.state.unit_at(Hex.parse("E5"))
    assert moved is not None and moved.type == "LB"


def test_s17_forest_stops_a_move_and_forbids_battle() -> None:
    st = position(north=["E8 MI"], south=["E3 MI"], terrain={"forest": ["E4"]})
    f = _forecast(st, "card 3C\norder E3\nmove E3 > E4\n")
    (m,) = f.moves
    assert m.stopped_by == "forest"
    assert "may not battle" in m.note
    assert f.battles == ()


def test_s16_3_a_lone_leader_dies_on_a_helmet() -> None:
    st = position(north=["A9 LI"], north_leaders=["E6 Hanno"], south=["E4 LB"])
    b = _one(st, "card 3C\norder E4\nfire E4 at E6\n")
    assert b.hit_faces == ("H",)
    assert b.odds.p_eliminate == 1 - Fraction(5, 6) ** b.dice


def test_s10_4_elephant_rerolls_are_followed_and_the_rest_reported() -> None:
    st = position(north=["E5 HC"], south=["E4 ELE"], standing="evade: never")
    b = _one(st, "card 3C\norder E4\nattack E4 at E5\n")
    assert b.hit_faces == ("R", "S")
    # Re-rolled swords add hits: more than the 2/6 per die of a single roll.
    assert b.odds.expected_hits > Fraction(2 * b.dice, 6)
    assert 0 < b.odds.truncated < Fraction(1, 100)
    assert any("re-roll" in n for n in b.notes)


def test_later_battles_are_computed_on_the_board_after_the_moves() -> None:
    st = position(north=["E5 MI", "G5 MI"], south=["E4 HI", "G4 MI"])
    f = _forecast(st, "card 3C\norder E4, G4\nattack E4 at E5\nattack G4 at G5\n")
    assert [b.dice for b in f.battles] == [5, 4]
    assert any("earlier battles" in n for n in f.notes)


def test_the_forecast_reads_no_hidden_card() -> None:
    """The opponent's hand (First Strike) changes nothing in the forecast."""
    body = "card 3C\norder E4\nattack E4 at E5\n"
    a = _one(position(north=["E5 MI"], south=["E4 HI"], north_hand=("FS", "3C")), body)
    b = _one(position(north=["E5 MI"], south=["E4 HI"], north_hand=("3L", "3C")), body)
    assert a == b


def test_s17_firing_into_a_forest_is_capped_at_one_die() -> None:
    st = position(north=["E6 MI"], south=["E4 LB"], terrain={"forest": ["E6"]})
    b = _one(st, "card 3C\norder E4\nfire E4 at E6\n")
    assert b.dice_steps == (("base", 2), ("terrain", 1))
    assert b.odds.p_hit == Fraction(1, 6)


def test_the_odds_match_resolving_every_possible_roll() -> None:
    """Cross-check: resolve the turn once per ordered roll (6^4) and count what happened."""
    from itertools import product

    from test_cca_helpers import play

    st = position(
        north=["E5 MI", "D6 MI"],
        south=["E4 MI"],
        south_leaders=["E4 Marcus"],
        standing="battle-back: never",
    )
    body = "card 3C\norder E4\nattack E4 at E5 no-advance\n"
    b = _one(st, body)
    assert (b.dice, b.hit_faces) == (4, ("B", "H", "S"))
    target = next(u.id for u in st.units if str(u.hex) == "E5")
    total = hit = elim = retreat = Fraction(0)
    for roll in product("GBRHFS", repeat=b.dice):
        p = Fraction(1, 6**b.dice)
        after = next(
            u for u in play(st, "south", body, "".join(roll)).state.units if u.id == target
        )
        lost = 4 - after.blocks
        total += p * lost
        hit += p if lost else 0
        elim += p if after.hex is None else 0
        retreat += p if after.hex is not None and str(after.hex) != "E5" else 0
    assert (b.odds.expected_hits, b.odds.p_hit, b.odds.p_eliminate) == (total, hit, elim)
    assert b.odds.p_retreat == retreat
