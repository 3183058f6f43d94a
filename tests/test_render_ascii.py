"""The ASCII board for mail text: narrow, quote-safe, with a legend."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.hexgrid import STANDARD_BOARD
from pbem.render.ascii import render_ascii
from pbem.render.sample import sample_view
from pbem.render.units import UNIT_LOOKS
from pbem.render.view import LeaderView, UnitView, make_view


def _check_mail_safe(text: str) -> None:
    for line in text.splitlines():
        assert len(line) <= 78, line
        assert not line.startswith((">", "From ")), line
        assert line == line.rstrip()


def test_sample_board_fits_78_columns_and_quotes_safely() -> None:
    text = render_ascii(sample_view())
    _check_mail_safe(text)
    # Quoted once it is still under 80 columns.
    assert max(len("> " + line) for line in text.splitlines()) <= 80


def test_units_show_type_blocks_and_side_by_case() -> None:
    text = render_ascii(sample_view())
    assert "hi3" in text  # north C8, 3 blocks left
    assert "HC1" in text  # south J2, 1 block left
    assert "MI2" in text
    assert "ccm3" in text and "CCM = CCAM" in text


def test_leaders_are_marked_and_named_in_the_legend() -> None:
    text = " ".join(render_ascii(sample_view()).split())
    assert "*Pa Paullus (south, E2, with a unit)" in text
    assert "*ma Maharbal (north, A9, alone)" in text
    # Hannibal and Hasdrubal get different tags.
    legend = text[text.index("Leaders:") :]
    tags = [w for w in legend.split() if w.startswith("*")]
    assert len(tags) == len(set(t.lower() for t in tags))


def test_rows_and_columns_are_labelled() -> None:
    lines = render_ascii(sample_view()).splitlines()
    assert any(line.startswith("9 ") and line.endswith(" 9") for line in lines)
    assert any(line.startswith("1 ") and line.endswith(" 1") for line in lines)
    header = next(line for line in lines if line.strip().startswith("A"))
    assert header.split() == list("ABCDEFGHIJKLM")


hexes = st.sampled_from(STANDARD_BOARD.hexes)


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        hexes.map(str),
        st.tuples(st.sampled_from(["north", "south"]), st.sampled_from(sorted(UNIT_LOOKS))),
        max_size=60,
    ),
    st.lists(
        st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=30),
        max_size=6,
    ),
)
def test_any_board_stays_mail_safe(units: dict[str, tuple[str, str]], names: list[str]) -> None:
    view = make_view(
        units=[UnitView(h, s, c, 1, UNIT_LOOKS[c].blocks) for h, (s, c) in units.items()],
        leaders=[
            LeaderView(str(STANDARD_BOARD.hexes[i * 7]), "north", n) for i, n in enumerate(names)
        ],
    )
    _check_mail_safe(render_ascii(view))
