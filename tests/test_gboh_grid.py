"""The GBoH hex map (engine.gboh.grid): numbers, neighbours, distance, facing, lines.

Geometry facts are those of the Chariots of Fire digest, cof.md §2.2 (its
neighbour table, and the checks it lists against the rulebook's examples)
and §6.5 (facing: front, flanks, rear).
"""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core.grid import Grid
from engine.gboh.grid import (
    SIDES,
    VERTICES,
    GHex,
    HexMap,
    MapNotationError,
    column_front,
    flank_hexes,
    front_hexes,
    rear_hexes,
    side_between,
    side_vertices,
    turns,
    zone_of_control,
)
from engine.hexgrid import STANDARD_BOARD, Board, Hex

MAP = HexMap(last_col=40, last_row=30)
H = GHex.parse

hexes = st.builds(GHex, st.integers(1, 40), st.integers(1, 30))


@given(hexes)
def test_ids_round_trip(h: GHex) -> None:
    assert GHex.parse(str(h)) == h
    assert MAP.parse(MAP.notation(h)) == h
    assert len(str(h)) == 4


def test_ids_read_as_printed() -> None:
    assert H("1423") == GHex(14, 23)
    assert H("523") == H("0523") == GHex(5, 23)
    assert str(GHex(5, 3)) == "0503"
    for bad in ("14-23", "C4", "12345", ""):
        with pytest.raises(MapNotationError):
            GHex.parse(bad)
    with pytest.raises(MapNotationError, match=r"off the map: columns run 01\.\.40"):
        MAP.parse("4101")


def test_neighbour_table_of_the_digest() -> None:
    """cof.md §2.2: odd columns sit half a hex lower than even ones."""
    even, odd = H("1836"), H("1736")
    assert [str(even.neighbour(s)) for s in SIDES] == [
        "1835",
        "1935",
        "1936",
        "1837",
        "1736",
        "1735",
    ]
    assert [str(odd.neighbour(s)) for s in SIDES] == [
        "1735",
        "1836",
        "1837",
        "1737",
        "1637",
        "1636",
    ]


@given(hexes)
def test_neighbours_are_symmetric_and_at_distance_one(h: GHex) -> None:
    for s, n in zip(SIDES, h.neighbours(), strict=True):
        assert h.distance(n) == 1
        assert side_between(h, n) == s
        assert side_between(n, h) == SIDES[(SIDES.index(s) + 3) % 6]


def test_distances_of_the_astarpa_example() -> None:
    """cof.md §2.2: 1835→2134/2135 = 3, 1835→2235 = 4, 2135→1835 = 3, 2135→2237 = 2."""
    assert H("1835").distance(H("2134")) == 3
    assert H("1835").distance(H("2135")) == 3
    assert H("1835").distance(H("2235")) == 4
    assert H("2135").distance(H("1835")) == 3
    assert H("2135").distance(H("2237")) == 2


def test_distance_is_the_number_of_steps() -> None:
    small = HexMap(last_col=12, last_row=10)
    start = H("0605")
    seen = {start: 0}
    todo = deque([start])
    while todo:
        h = todo.popleft()
        for n in small.neighbours(h):
            if n not in seen:
                seen[n] = seen[h] + 1
                todo.append(n)
    assert len(seen) == 120
    assert all(start.distance(h) == d for h, d in seen.items() if not _near_edge(small, h))


def _near_edge(m: HexMap, h: GHex) -> bool:
    return len(m.neighbours(h)) < 6 or any(len(m.neighbours(n)) < 6 for n in m.neighbours(h))


def test_front_hexes_of_the_digest_checks() -> None:
    """cof.md §2.2: 1736 facing east → 1836/1837; 2039 facing west → 1938/1939; 2038 west →
    1937/1938; 2036 west → 1935/1936 (the Assyrian front hex of the Nihriya example)."""
    assert {str(h) for h in front_hexes(H("1736"), "E")} == {"1836", "1837"}
    assert {str(h) for h in front_hexes(H("2039"), "W")} == {"1938", "1939"}
    assert {str(h) for h in front_hexes(H("2038"), "W")} == {"1937", "1938"}
    assert {str(h) for h in front_hexes(H("2036"), "W")} == {"1935", "1936"}


def test_turning_two_vertices() -> None:
    """cof.md §2.2: a unit in 2136 whose front is 2037/2137 is two vertices from facing east."""
    facing = next(
        v for v in VERTICES if {str(h) for h in front_hexes(H("2136"), v)} == {"2037", "2137"}
    )
    assert turns("E", facing) == 2
    assert turns("E", "W") == 3 and turns("NE", "E") == 1 and turns("SE", "SE") == 0


@given(hexes, st.sampled_from(VERTICES))
def test_front_flanks_and_rear_are_the_six_neighbours(h: GHex, facing: str) -> None:
    """cof.md §6.5: two front hexes, the next two flanks, the last two rear."""
    front, flank, rear = front_hexes(h, facing), flank_hexes(h, facing), rear_hexes(h, facing)
    assert sorted((*front, *flank, *rear)) == sorted(h.neighbours())
    assert all(a.distance(b) == 1 for a, b in (front, rear))  # each pair shares a hexside
    assert set(zone_of_control(h, facing)) == set(front)
    opposite = VERTICES[(VERTICES.index(facing) + 3) % 6]
    assert set(rear_hexes(h, facing)) == set(front_hexes(h, opposite))


def test_column_front_is_ahead_and_the_two_beside_it() -> None:
    ahead, left, right = column_front(H("1736"), "N")
    assert (str(ahead), {str(left), str(right)}) == ("1735", {"1636", "1836"})
    # a unit leaving column faces a vertex at an end of its hexside
    assert side_vertices("N") == ("NW", "NE") and side_vertices("SE") == ("E", "SE")
    for v in side_vertices("N"):
        assert H("1735") in front_hexes(H("1736"), v)
    # where a rule asks for a column's front hexes (facing hexside N) they include the hex ahead
    assert "1735" in {str(h) for h in front_hexes(H("1736"), "N")}
    with pytest.raises(ValueError, match="facing must be one of"):
        front_hexes(H("1736"), "X")


@given(hexes, hexes)
def test_lines_run_from_one_hex_to_the_other_step_by_step(a: GHex, b: GHex) -> None:
    steps = a.line_to(b)
    assert steps[0] == (a,) and steps[-1] == (b,)
    assert len(steps) == a.distance(b) + 1
    for i, step in enumerate(steps):
        assert all(a.distance(h) == i for h in step)


def test_a_line_along_a_hexside_reports_both_hexes() -> None:
    tie = [s for s in H("1010").line_to(H("1210")) if len(s) == 2]
    assert tie == [(H("1109"), H("1110"))] or tie == [(H("1110"), H("1111"))]


def test_the_map_and_the_cc_board_are_both_grids() -> None:
    def names(grid: Grid[GHex] | Grid[Hex], text: str) -> tuple[str, int]:
        h = grid.parse(text)
        return grid.orientation, len(grid.neighbours(h))

    assert names(MAP, "1423") == ("flat", 6)
    assert names(MAP, "0101") == ("flat", 3)  # a corner of the map
    assert names(STANDARD_BOARD, "C4") == ("pointy", 6)
    board: Grid[Hex] = Board()
    assert board.distance(board.parse("A1"), board.parse("M1")) == 12
    assert board.notation(board.parse("c4")) == "C4"
    assert len(list(MAP)) == 40 * 30


def test_a_map_hex_hashes_sorts_and_reads_as_before() -> None:
    # A GBoH hex is a tuple underneath now: sets of hexes iterate as they did, and a hex
    # number read twice is the same hex.
    h = GHex.parse("1423")
    assert (h.col, h.row) == (14, 23) and hash(h) == hash((14, 23))
    assert GHex.parse("1423") is h and GHex.parse(" 523") == GHex(5, 23)
    assert sorted([GHex(2, 1), GHex(1, 9), GHex(1, 2)]) == [GHex(1, 2), GHex(1, 9), GHex(2, 1)]
    assert h.neighbours() == tuple(h.neighbour(s) for s in SIDES)
    for other in (GHex(1, 1), GHex(40, 30), GHex(15, 22), GHex(13, 23)):
        x1, y1, z1 = h.cube
        x2, y2, z2 = other.cube
        assert h.distance(other) == max(abs(x1 - x2), abs(y1 - y2), abs(z1 - z2))
