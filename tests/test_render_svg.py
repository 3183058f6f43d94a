"""The SVG board: a golden picture, well-formed XML, escaped text, section lines."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from engine.core.picture import SideBand
from pbem.render.sample import sample_picture as sample_view
from pbem.render.svg import render_svg

GOLDEN = Path(__file__).parent / "golden" / "board_sample.svg"
NS = "{http://www.w3.org/2000/svg}"


def test_sample_board_matches_the_golden_svg() -> None:
    """Regenerate with ``PBEM_REGEN_GOLDEN=1 pytest tests/test_render_svg.py`` (and look at it)."""
    svg = render_svg(sample_view())
    if os.environ.get("PBEM_REGEN_GOLDEN"):
        GOLDEN.write_text(svg, encoding="utf-8")
    assert svg == GOLDEN.read_text(encoding="utf-8")


def test_svg_is_well_formed_with_every_layer() -> None:
    root = ET.fromstring(render_svg(sample_view()))
    layers = [g.get("class") for g in root.iter(f"{NS}g")]
    base = ["terrain", "grid", "sections", "coordinates"]
    assert layers == [*base, "banners", "losses", "units", "leaders", "moves", "battles"]
    texts = {t.text for t in root.iter(f"{NS}text")}
    assert {"A", "M", "1", "9", "HI", "CCAM", "Hannibal", "-2 F"} <= texts


def test_section_lines_run_through_columns_e_and_i_of_long_rows() -> None:
    root = ET.fromstring(render_svg(sample_view()))
    g = next(g for g in root.iter(f"{NS}g") if g.get("class") == "sections")
    xs = {float(p.get("points", "").split()[0].split(",")[0]) for p in g}
    coords = next(g for g in root.iter(f"{NS}g") if g.get("class") == "coordinates")
    letter_x = {t.text: float(t.get("x", "0")) for t in coords}
    assert xs == {letter_x["E"], letter_x["I"]}


def test_army_names_are_escaped() -> None:
    sides = (SideBand("north", "North", "<script>&"), SideBand("south", "South", "South"))
    view = replace(sample_view(), sides=sides)
    svg = render_svg(view)
    assert "<script>" not in svg
    assert "&lt;script&gt;&amp;" in svg
    ET.fromstring(svg)


def test_same_view_same_bytes() -> None:
    a = render_svg.__wrapped__(sample_view())
    b = render_svg.__wrapped__(sample_view())
    assert a == b
