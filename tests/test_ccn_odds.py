"""Napoleonics odds of a submission without rolling (engine.ccn.odds); cases named after ccn.md.

The forecast gives each battle its dice (by strength, card, terrain, square cap: §11), the
faces that hit (§12.2, §13.2) and exact odds; one test resolves every possible roll and
compares.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from ccn_kit import play, position

from engine.cc.odds import BattleForecast, Forecast
from engine.ccn.state import State
from engine.ccn.system import SYSTEM
from engine.core.capabilities import FORECAST, find

FACES = ("INF", "CAV", "ART", "FLAG", "SABRE")
WEIGHT = {"INF": Fraction(2, 6), "CAV": Fraction(1, 6), "ART": Fraction(1, 6),
          "FLAG": Fraction(1, 6), "SABRE": Fraction(1, 6)}  # fmt: skip


def _forecast(state: State, body: str, side: str = "south") -> Forecast:
    sub = SYSTEM.parse_orders(state, side, body)
    forecaster = find(SYSTEM, FORECAST)
    assert forecaster is not None
    report = forecaster.forecast(state, side, sub)
    assert report is not None
    return report.forecast  # type: ignore[attr-defined,no-any-return]


def _one(state: State, body: str) -> BattleForecast:
    (b,) = _forecast(state, body).battles
    return b


def test_s12_2_fire_hits_on_the_target_symbol_only() -> None:
    """§4.2, §12.2: line infantry fires its blocks in dice; only INF hits infantry."""
    s = position("S F3 FR LN", "N F5 FR LN")
    b = _one(s, "card attack_centre\norder F3\nfire F3 at F5\n")
    blocks = s.unit("s1").blocks
    assert b.dice == blocks and b.dice_steps[0] == ("base", blocks)
    assert b.hit_faces == ("INF",)
    assert b.odds.expected_hits == Fraction(blocks, 3)
    assert b.odds.p_hit == 1 - Fraction(2, 3) ** blocks


def test_s4_2_british_line_fire_adds_a_die() -> None:
    """§4.2 (nations.toml GB_LN fire_standing): British line infantry fires one die more."""
    french = _one(
        position("S F3 FR LN", "N F5 FR LN"), "card attack_centre\norder F3\nfire F3 at F5\n"
    )
    british = _one(
        position("S F3 GB LN", "N F5 FR LN"), "card attack_centre\norder F3\nfire F3 at F5\n"
    )
    assert british.dice == french.dice + 1


def test_s13_2_melee_sabres_hit_and_flags_count() -> None:
    """§13.2: in melee SABRE hits too; a FLAG is counted for the retreat."""
    s = position("S F4 GB LN", "N F5 FR LN", "N A8 FR LN")
    b = _one(s, "card attack_centre\norder F4\nattack F4 at F5\n")
    assert b.hit_faces == ("INF", "SABRE")
    assert b.odds.expected_hits == Fraction(b.dice, 2)
    assert b.odds.p_flag == 1 - Fraction(5, 6) ** b.dice
    assert any("battle back" in n for n in b.notes)


def test_s23_terrain_reduces_the_dice_after_the_card() -> None:
    """§11, §23: the count is base, then card dice, then the terrain reduction."""
    s = position("S F3 GB LN", "N F5 FR LN", terrain={"F5": "town"})
    plain = _one(
        position("S F3 GB LN", "N F5 FR LN"), "card attack_centre\norder F3\nfire F3 at F5\n"
    )
    b = _one(s, "card attack_centre\norder F3\nfire F3 at F5\n")
    assert b.dice_steps[-1][0] == "terrain" and b.dice < plain.dice


def test_s16_3_a_lone_leader_dies_on_a_sabre() -> None:
    """§16.3: a melee on a lone leader kills him with one SABRE."""
    s = position("S F4 GB LN", "N A8 FR LN", leaders=["N F5 Junot"])
    b = _one(s, "card attack_centre\norder F4\nattack F4 at F5\n")
    assert b.hit_faces == ("SABRE",)
    assert b.odds.p_eliminate == 1 - Fraction(5, 6) ** b.dice


def test_s20_retire_and_reform_is_reported_as_a_possibility() -> None:
    """§20: cavalry attacked by infantry may retire and reform; the forecast says so."""
    s = position("S F4 GB LN", "N F5 FR LC", "N A8 FR LN")
    b = _one(s, "card attack_centre\norder F4\nattack F4 at F5\n")
    assert b.hit_faces == ("CAV", "SABRE")
    assert any("retire and reform" in n for n in b.notes)


def test_the_check_text_shows_the_dice_and_odds() -> None:
    """`pbem check` prints each battle's dice, the faces that hit and the odds."""
    s = position("S F3 FR LN", "N F5 FR LN")
    sub = SYSTEM.parse_orders(s, "south", "card attack_centre\norder F3\nfire F3 at F5\n")
    forecaster = find(SYSTEM, FORECAST)
    assert forecaster is not None
    report = forecaster.forecast(s, "south", sub)
    assert report is not None
    text = report.text()
    assert "Battles" in text and "INF" in text and "%" in text
    assert report.to_json()["battles"][0]["dice"] == 4


def test_the_odds_match_resolving_every_possible_roll() -> None:
    """Cross-check: resolve the turn once per roll and weigh what happened (§12-§15)."""
    s = position("S F4 FR LN 3", "N F5 GB LN", "N A8 FR LN")
    body = "card attack_centre\norder F4\nattack F4 at F5 no-advance\n"
    b = _one(s, body)
    assert b.dice == 4  # 3 blocks, +1 French melee against infantry (nations.toml FR_LN)
    total = hit = elim = retreat = Fraction(0)
    target = "n2"
    for roll in product(FACES, repeat=b.dice):
        p = Fraction(1)
        for f in roll:
            p *= WEIGHT[f]
        after, _ = play(s, body, list(roll), fill="CAV")
        u = after.unit(target)
        lost = 4 - (u.blocks if u.hex is not None else 0)
        total += p * lost
        hit += p if lost else 0
        elim += p if u.hex is None else 0
        retreat += p if u.hex is not None and str(u.hex) != "F5" else 0
    assert (b.odds.expected_hits, b.odds.p_hit, b.odds.p_eliminate) == (total, hit, elim)
    assert b.odds.p_retreat == retreat
