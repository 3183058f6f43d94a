"""Hex geometry: notation, neighbours, distance, line of sight, sections."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core.cube import cube_line, cube_round
from engine.hexgrid import STANDARD_BOARD, Hex, HexNotationError

B = STANDARD_BOARD
board_hexes = st.sampled_from(B.hexes)


def test_board_has_113_hexes_in_alternating_rows() -> None:
    assert len(B.hexes) == 5 * 13 + 4 * 12
    assert Hex.parse("M1") in B
    assert Hex.parse("M2") not in B
    assert Hex.parse("L2") in B


@pytest.mark.parametrize("bad", ["", "4C", "Z1", "A10", "A0", "AA1", "M2", "N5"])
def test_bad_names_are_refused_with_a_reason(bad: str) -> None:
    with pytest.raises(HexNotationError) as err:
        B.parse(bad)
    assert str(err.value)


def test_notation_forgives_case_and_spaces() -> None:
    assert B.parse(" c4 ") == B.parse("C4")


@given(board_hexes)
def test_name_round_trips(h: Hex) -> None:
    assert B.parse(str(h)) == h
    assert eval(repr(h)) == h


@given(board_hexes)
def test_cube_coordinates_sum_to_zero_and_round_trip(h: Hex) -> None:
    assert h.q + h.r + h.s == 0
    assert Hex.from_cube(h.q, h.r) == h


@given(board_hexes, board_hexes)
def test_distance_is_symmetric_and_zero_only_on_itself(a: Hex, b: Hex) -> None:
    assert a.distance(b) == b.distance(a)
    assert (a.distance(b) == 0) == (a == b)


@given(board_hexes, board_hexes, board_hexes)
def test_triangle_inequality(a: Hex, b: Hex, c: Hex) -> None:
    assert a.distance(c) <= a.distance(b) + b.distance(c)


@given(board_hexes)
def test_neighbours_are_at_distance_one_and_mutual(h: Hex) -> None:
    ns = h.neighbours()
    assert len(set(ns)) == 6
    for n in ns:
        assert h.distance(n) == 1
        assert h in n.neighbours()


def test_offset_rows_neighbours() -> None:
    # C3 (13-hex row) touches B4 and C4 above it; C4 (12-hex row) touches C5 and D5.
    assert {str(n) for n in B.neighbours(B.parse("C3"))} == {"B3", "D3", "B4", "C4", "B2", "C2"}
    assert {str(n) for n in B.neighbours(B.parse("C4"))} == {"B4", "D4", "C5", "D5", "C3", "D3"}
    assert {str(n) for n in B.neighbours(B.parse("A1"))} == {"B1", "A2"}
    assert B.is_edge(B.parse("L4"))


@given(board_hexes, board_hexes)
def test_line_of_sight_steps(a: Hex, b: Hex) -> None:
    steps = a.line_to(b)
    assert steps[0] == (a,) and steps[-1] == (b,)
    assert len(steps) == a.distance(b) + 1
    for i, step in enumerate(steps):
        for h in step:
            assert a.distance(h) == i
            assert b.distance(h) == len(steps) - 1 - i
    # The same line drawn the other way crosses the same hexes.
    assert [set(s) for s in b.line_to(a)] == [set(s) for s in reversed(steps)]


def test_line_along_an_edge_is_a_tie() -> None:
    # C1 to C3 runs exactly along the edge that B2 and C2 share (§20.1 tie).
    steps = B.parse("C1").line_to(B.parse("C3"))
    assert len(steps) == 3
    assert {str(h) for h in steps[1]} == {"B2", "C2"}


def test_sections_from_souths_seat_and_line_hexes_in_both() -> None:
    assert B.sections(B.parse("A1")) == {"left"}
    assert B.sections(B.parse("E1")) == {"left", "centre"}
    assert B.sections(B.parse("G5")) == {"centre"}
    assert B.sections(B.parse("I3")) == {"centre", "right"}
    assert B.sections(B.parse("D2")) == {"left"}
    assert B.sections(B.parse("E2")) == {"centre"}
    assert B.sections(B.parse("M9")) == {"right"}
    # North names them the other way round.
    assert B.sections_for(B.parse("A1"), south=False) == {"right"}


def test_rear_neighbours_for_retreat() -> None:
    assert {str(h) for h in B.parse("C4").toward(1)} == {"C3", "D3"}
    assert {str(h) for h in B.parse("C4").toward(9)} == {"C5", "D5"}
    assert B.parse("C1").toward(1) == ()


def _exact_line(a: Hex, b: Hex) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The line as first written: every point a Fraction, nudged by 1/10**6, then rounded."""
    n, eps = a.distance(b), Fraction(1, 10**6)
    out = []
    for i in range(n + 1):
        fq = a.q + (b.q - a.q) * Fraction(i, n)
        fr = a.r + (b.r - a.r) * Fraction(i, n)
        out.append((cube_round(fq + eps, fr + eps), cube_round(fq - eps, fr - eps)))
    return out


def test_lines_of_sight_are_the_exact_rational_ones_on_the_whole_board() -> None:
    # Lines are drawn on integers now: every pair of hexes still crosses the same hexes.
    for a in B.hexes:
        for b in B.hexes:
            if a != b:
                assert cube_line((a.q, a.r), (b.q, b.r), a.distance(b)) == _exact_line(a, b)


def test_a_hex_hashes_and_sorts_as_its_coordinates() -> None:
    # Sets and dicts of hexes iterate as they did when a hex was a frozen dataclass.
    h = B.parse("C4")
    assert hash(h) == hash((h.x, h.y)) and h == Hex(h.x, h.y)
    assert sorted([B.parse("A2"), B.parse("C1"), B.parse("A1")]) == [
        B.parse("A1"),
        B.parse("A2"),
        B.parse("C1"),
    ]
    with pytest.raises(ValueError, match="doubled coordinates"):
        Hex(1, 2)
