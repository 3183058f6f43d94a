"""The Chariots of Fire picture: counters with type, TQ, facing, hits and markers on a flat-top map.

Rules named: cof.md §2.2 (flat-top hexes numbered CCRR), §2.3 and §2.6 (what a counter and its
markers show), §6.5 (facing a vertex; a column faces a hexside), §6.6 (the CH-2 + RI stack).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

from engine.cof.picture import (
    CofView,
    area_of_action,
    area_picture,
    overview_picture,
    view_of_scenario,
)
from engine.cof.scenario import load_scenario
from engine.core.picture import Counter
from pbem.render.ascii import render_ascii
from pbem.render.geometry import Layout
from pbem.render.png import render_png
from pbem.render.prims import Poly, Text
from pbem.render.scene import flat_counter_prims
from pbem.render.svg import render_svg

ROOT = Path(__file__).resolve().parent.parent / "scenarios" / "cof"


def _view(name: str) -> CofView:
    return view_of_scenario(load_scenario((ROOT / name).read_text(encoding="utf-8")))


TEACHING = _view("000-teaching.toml")


def _counter(p_counters: tuple[Counter, ...], hex_id: str) -> Counter:
    return next(c for c in p_counters if c.hex == hex_id)


def test_each_unit_is_a_flat_counter_with_type_weapon_tq_and_facing() -> None:
    p = area_picture(TEACHING)
    e1 = _counter(p.counters, "0403")
    assert (e1.label, e1.count, e1.full, e1.stack) == ("CH2 C", 6, 6, False)
    assert e1.facing == 90.0  # vertex E: the right-hand point
    m4 = _counter(p.counters, "1207")
    assert (m4.label, m4.count, m4.facing) == ("SI", 5, 270.0)  # vertex W
    assert m4.note == "Mitanni captain of the foot"  # a leader with the unit


def test_a_chariot_and_its_runners_are_one_counter() -> None:
    p = area_picture(TEACHING)
    here = [c for c in p.counters if c.hex == "0404"]
    assert [c.label for c in here] == ["CH2+RI C"]


def test_hits_and_markers_show_on_the_counter() -> None:
    units = tuple(
        replace(u, hits=2, markers=("moved", "engaged", "missile_low")) if u.id == "E4" else u
        for u in TEACHING.units
    )
    p = area_picture(replace(TEACHING, units=units))
    e4 = _counter(p.counters, "0406")
    assert (e4.count, e4.full) == (5, 7)  # TQ 7 less 2 cohesion hits
    assert e4.tags == ("2h", "Mv", "Eng", "Lo")
    assert any("Mv moved" in line for line in p.legend)
    svg = render_svg(p)
    assert ">2h Mv Eng Lo<" in svg


def test_a_unit_in_column_points_to_a_hexside() -> None:
    units = tuple(
        replace(u, facing="side:N", markers=("column",)) if u.id == "E5" else u
        for u in TEACHING.units
    )
    e5 = _counter(area_picture(replace(TEACHING, units=units)).counters, "0407")
    assert (e5.facing, e5.tags) == (0.0, ("Col",))


def test_the_facing_wedge_points_to_the_facing() -> None:
    layout = Layout((10.0, 10.0), 40.0)
    for degrees, (dx, dy) in ((90.0, (1, 0)), (270.0, (-1, 0)), (30.0, (0.5, -math.sqrt(3) / 2))):
        u = Counter("0101", "a", "SI", 7, 7, stack=False, facing=degrees)
        wedge = flat_counter_prims(layout, (100.0, 100.0), u, "#8b5a2b")[0]
        assert isinstance(wedge, Poly)
        tip = wedge.pts[0]
        assert math.isclose(tip[0] - 100.0, 0.84 * 40 * dx, abs_tol=1e-6)
        assert math.isclose(tip[1] - 100.0, 0.84 * 40 * dy, abs_tol=1e-6)
    texts = [
        p.text for p in flat_counter_prims(layout, (0.0, 0.0), u, "#000") if isinstance(p, Text)
    ]
    assert "SI" in texts and "7" in texts


def test_streams_are_drawn_along_the_side_two_hexes_share() -> None:
    p = area_picture(TEACHING)
    assert {e.style for e in p.edges} == {"stream"}
    # The first stream hexside, 0801-0901: both ends are corners of both hexes.
    a, b = p.cell("0801"), p.cell("0901")
    edge = p.edges[0]
    for end in (edge.a, edge.b):
        assert any(math.dist(end, c) < 1e-9 for c in a.corners)
        assert any(math.dist(end, c) < 1e-9 for c in b.corners)


def test_terrain_and_hills_have_their_styles() -> None:
    p = area_picture(TEACHING)
    assert p.cell("0509").style == "forest"
    assert p.cell("1006").style == "hill"
    assert p.cell("1006").terrain == "clear, level 1"


def test_the_area_of_action_has_hex_ids_the_overview_the_whole_map() -> None:
    megiddo = _view("001-megiddo.toml")
    area = area_picture(megiddo, focus=["1614", "1709"])
    ids = {h.id for h in area.hexes}
    assert {"1614", "1709"} <= ids and len(ids) <= 15 * 11
    assert area.hex_ids and "1614" in render_svg(area)
    whole = overview_picture(megiddo)
    assert len(whole.hexes) == 40 * 30 and not whole.hex_ids
    assert len(whole.counters) == len(megiddo.units)
    assert "01" in [c.text for c in whole.columns]


def test_the_area_follows_the_turns_combats_and_stays_on_the_map() -> None:
    kadesh = _view("002-kadesh.toml")
    shocked = replace(kadesh, combats=(("2817", "1622", "close", "2 (1)"),))
    c0, c1, r0, r1 = area_of_action(shocked)
    assert c0 <= 16 and c1 >= 28 and r0 >= 1 and r1 <= 30
    corner = area_of_action(kadesh, focus=["0101"])
    assert corner[0] == 1 and corner[2] == 1


def test_the_pictures_render_as_png_and_text() -> None:
    p = area_picture(TEACHING)
    assert render_png(p).startswith(b"\x89PNG")
    text = render_ascii(p)
    assert re.search(r"\bc26\b", text)  # the first side's CH2, TQ 6, in lower case
    assert "withdrawal points 0 of 18" in text


def test_a_lone_leader_and_a_standard_are_markers() -> None:
    p = area_picture(TEACHING)
    standard = next(m for m in p.markers if m.hex == "0206")
    assert (standard.name, standard.letter) == ("Standard", "S")
    moved = replace(
        TEACHING,
        leaders=tuple(
            replace(ld, hex="0305") if ld.id == "egy-oc" else ld for ld in TEACHING.leaders
        ),
    )
    oc = next(m for m in area_picture(moved).markers if m.hex == "0305")
    assert (oc.name, oc.letter) == ("Commander of the screen", "O")


def test_a_view_travels_as_plain_data_and_the_capability_draws_it() -> None:
    import json

    from engine.cof.picture import view_from_dict, view_to_dict
    from engine.cof.view import CofPicture
    from engine.core.capabilities import PictureBuilder as PictureProtocol

    units = tuple(
        replace(u, hits=1, markers=("moved",)) if u.id == "E4" else u for u in TEACHING.units
    )
    view = replace(TEACHING, units=units, moves=(("egyptian", ("0406", "0506")),))
    data = json.loads(json.dumps(view_to_dict(view)))
    assert view_from_dict(data) == view
    builder = CofPicture()
    assert isinstance(builder, PictureProtocol)
    assert builder.picture({"board": data}) == area_picture(view)
    assert builder.picture({"board": data}, viewer="egyptian").bottom == "egyptian"
    assert len(builder.overview({"board": data}).hexes) == 16 * 12


def test_the_capability_draws_the_cof_systems_public_view() -> None:
    from engine.cof.system import SYSTEM
    from engine.cof.view import CofPicture

    state = SYSTEM.load_position((ROOT / "000-teaching.toml").read_text(encoding="utf-8"))
    state.units[0].hits = 2
    state.units[0].moved = True
    view = SYSTEM.public_view(state)
    p = CofPicture().picture(view)
    # Five counters a side: the CH2 and its runners are one.
    assert len(p.counters) == 10
    first = _counter(p.counters, view["units"][0]["hex"])
    assert first.tags == ("2h", "Mv") and first.count == first.full - 2
    assert {e.style for e in p.edges} == {"stream"}
    assert any(c.label == "CH2+RI C" for c in p.counters)


def test_the_board_marks_its_own_moves_and_then_the_events() -> None:
    """One rule for what a board shows: its own moves (a board written as data may carry
    them), then the moves of the events it is given; with no events, only its own."""
    from engine.cof.picture import view_to_dict
    from engine.cof.view import CofPicture

    view = replace(TEACHING, moves=(("egyptian", ("0406", "0506")),))
    data = {"board": view_to_dict(view)}
    event = {"kind": "move", "data": {"side": "hittite", "from": "1006", "to": "0906"}}
    pictures = CofPicture()
    alone = pictures.picture(data)
    both = pictures.picture(data, [event])
    assert len(alone.arrows) == 1 and len(both.arrows) == 2
    assert pictures.picture(data) == area_picture(view)
