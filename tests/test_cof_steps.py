"""The state-changing steps the turn applies: hits and rout (cof.md §9.1, §9.7), lone leaders
(§4.2), leader replacement (§4.5), withdrawal points (§11)."""

from __future__ import annotations

from cof_kit import skirmish

from engine.cof.state import from_scenario
from engine.cof.steps import Ctx, add_hits, displace_lone_leaders, kill_leader, replace_leaders
from engine.randomness import ScriptedDice


def _ctx(*faces: str) -> Ctx:
    return Ctx(from_scenario(skirmish()), ScriptedDice(list(faces)))


def test_hits_short_of_tq_leave_the_unit_in_place() -> None:
    """§9.1: hits only measure closeness to rout."""
    ctx = _ctx()
    add_hits(ctx, ctx.s.unit("E4"), 6, "test")
    assert ctx.s.unit("E4").hits == 6 and not ctx.s.unit("E4").routed


def test_a_unit_at_its_tq_routs_and_a_pass_puts_it_by_its_standard() -> None:
    """§9.7: DR <= printed TQ: placed as close as possible to the Standard."""
    ctx = _ctx("3")
    e4 = ctx.s.unit("E4")
    add_hits(ctx, e4, 7, "test")
    assert e4.routed and e4.on_map and e4.hex == ctx.s.sides["north"].standard == "0201"


def test_a_failed_rout_roll_makes_the_unit_flee_and_counts_its_tq() -> None:
    """§9.7 DR > TQ: it flees; §11: its printed TQ counts to its side's withdrawal points."""
    ctx = _ctx("9")
    add_hits(ctx, ctx.s.unit("E4"), 7, "test")
    assert ctx.s.unit("E4").status == "fled" and ctx.s.sides["north"].points == 7


def test_a_routed_unit_hit_again_is_eliminated() -> None:
    ctx = _ctx("3")
    e4 = ctx.s.unit("E4")
    add_hits(ctx, e4, 7, "test")
    add_hits(ctx, e4, 1, "again")
    assert e4.status == "eliminated" and not e4.on_map


def test_without_a_standard_a_routing_unit_flees_without_a_roll() -> None:
    ctx = _ctx()
    ctx.s.sides["north"].standard = ""
    add_hits(ctx, ctx.s.unit("E4"), 7, "test")
    assert ctx.s.unit("E4").status == "fled"


def test_a_lone_leader_next_to_an_enemy_falls_back_to_the_nearest_friend() -> None:
    """§4.2: moved to the nearest friendly combat unit's hex; not movement."""
    ctx = _ctx()
    amun = ctx.s.leader("amun")
    amun.hex = "0705"
    h3 = ctx.s.unit("H3")
    h3.hex = "0706"
    displace_lone_leaders(ctx, h3)
    assert amun.hex == "0703"  # E4, the nearest Egyptian unit


def test_an_oc_killed_costs_five_times_his_initiative_and_a_wc_is_replaced() -> None:
    """§11 and §4.5."""
    ctx = _ctx()
    kill_leader(ctx, ctx.s.leader("ramesses"), "test")
    assert ctx.s.sides["north"].points == 25
    kill_leader(ctx, ctx.s.leader("amun"), "test")
    replace_leaders(ctx)
    amun = ctx.s.leader("amun")
    assert amun.on_map and amun.replacement == 1
    assert any(u.hex == amun.hex and u.wing == "2" for u in ctx.s.live("north"))
    assert not ctx.s.leader("ramesses").on_map
