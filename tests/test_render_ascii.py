"""The ASCII board for mail text: narrow, quote-safe, with a legend."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cca.tables import BUNDLED
from engine.hexgrid import STANDARD_BOARD
from engine.systems import get_system
from pbem.render.ascii import render_ascii
from pbem.render.picture import picture_of
from pbem.render.sample import sample_picture as sample_view


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
    assert "LC1" in text  # south K2, 1 block left
    assert "MI2" in text
    assert "ccm1" in text and "CCM = CCAM" in text


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
        st.tuples(st.sampled_from(["north", "south"]), st.sampled_from(sorted(BUNDLED.units))),
        max_size=60,
    ),
    st.lists(
        st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=30),
        max_size=6,
    ),
)
def test_any_board_stays_mail_safe(units: dict[str, tuple[str, str]], names: list[str]) -> None:
    public = {
        "units": [
            {"id": h, "side": s, "type": c, "hex": h, "blocks": 1, "full": BUNDLED.units[c].blocks}
            for h, (s, c) in units.items()
        ],
        "leaders": [
            {"name": n, "side": "north", "hex": str(STANDARD_BOARD.hexes[i * 7])}
            for i, n in enumerate(names)
        ],
    }
    for viewer in ("north", "south"):
        _check_mail_safe(render_ascii(picture_of(get_system("cca"), public, (), viewer)))


def test_north_reads_the_board_from_his_own_edge() -> None:
    """Each player sees the board from his side: North's row 9 at the bottom, A on his right."""
    lines = render_ascii(sample_view("north")).splitlines()
    header = next(line for line in lines if line.strip().startswith("M"))
    assert header.split() == list("MLKJIHGFEDCBA")
    rows = [line.split()[0] for line in lines if line[:1].isdigit()]
    assert rows == [str(r) for r in range(1, 10)]
    assert lines[0].startswith("South (UPPER CASE)")
    # His left flank is on his left: the flank names read left, centre, right for him too.
    flanks = next(line for line in lines if "centre" in line)
    assert flanks.index("left flank") < flanks.index("centre") < flanks.index("right flank")
    assert "Flanks as North sees them." in " ".join(" ".join(lines).split())
    # North's left-flank hexes (columns I-M as South names them) are on the left of his board.
    row8 = next(line for line in lines if line.startswith("8 "))
    assert row8.index("hc3") < row8.index("lc3")  # L8 (his left) before A8 (his right)


def test_the_turn_is_written_out_moves_battles_and_losses() -> None:
    text = " ".join(render_ascii(sample_view()).split())
    assert "Moved last turn: F1-F2-F3" in text
    assert "E3->F5 (ranged) -2 F" in text  # where the LS stood when it was shot, not G7
    assert "Eliminated last turn: north LI in J4." in text
