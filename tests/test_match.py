"""Match scoring: one scenario twice, sides swapped, decided by banners (docs/scenarios.md)."""

from __future__ import annotations

import pytest

from engine.systems import get_system
from pbem.match import GameResult, MatchError, pairings, score_match

Game = tuple[int, int, str | None]  # banners north, banners south, winning side
SIDES = get_system("cca").sides  # north, south


def result(  # noqa: PLR0917
    scenario: str, a: str, b: str, na: int, nb: int, winner: str | None
) -> GameResult:
    """``a`` plays the first side, ``b`` the second, with those banners."""
    first, second = SIDES
    return GameResult(scenario, {first: a, second: b}, {first: na, second: nb}, winner)


def _games(one: Game, two: Game) -> list[GameResult]:
    """Ann plays north in game 1 and south in game 2; Bob the other side."""
    return [
        result("cca-007-cannae", "ann", "bob", *one),
        result("cca-007-cannae", "bob", "ann", *two),
    ]


def test_more_banners_in_total_wins_even_if_games_are_split() -> None:
    # Ann wins game 1 by 7-2; Bob wins game 2 by 7-5: Ann 12 banners, Bob 9.
    result = score_match(_games((7, 2, "north"), (7, 5, "north")))
    assert result.winner == "ann"
    assert result.decided_by == "banners"
    assert [(s.player, s.banners, s.wins) for s in result.scores] == [
        ("ann", 12, 1),
        ("bob", 9, 1),
    ]


def test_two_wins_win_the_match() -> None:
    result = score_match(_games((7, 3, "north"), (4, 7, "south")))
    assert result.winner == "ann"
    assert result.scores[0].wins == 2


def test_equal_banners_then_games_won_decides() -> None:
    # Ann wins 7-5, then a second game stopped at 6-4 for Bob: 11 banners each.
    result = score_match(_games((7, 5, "north"), (6, 4, None)))
    assert result.winner == "ann"
    assert result.decided_by == "games"


def test_equal_banners_and_games_is_a_draw() -> None:
    result = score_match(_games((7, 5, "north"), (7, 5, "north")))
    assert result.winner is None
    assert result.decided_by == "draw"
    assert result.scores[0].banners == result.scores[1].banners == 12


def test_pairings_swap_the_sides() -> None:
    one, two = pairings("cca-015-zama", "ann", "bob", SIDES)
    assert one.players == {"north": "ann", "south": "bob"}
    assert two.players == {"north": "bob", "south": "ann"}
    with pytest.raises(MatchError):
        pairings("cca-015-zama", "ann", "ann", SIDES)


def test_a_system_with_other_side_names_scores_the_same_way() -> None:
    """The sides are the system's: a Napoleonic match is French v Allied."""
    one, two = pairings("ccn-001", "ann", "bob", ("french", "allied"))
    games = [
        GameResult(one.scenario, one.players, {"french": 6, "allied": 2}, "french"),
        GameResult(two.scenario, two.players, {"french": 6, "allied": 4}, "french"),
    ]
    res = score_match(games)
    assert res.winner == "ann" and [s.banners for s in res.scores] == [10, 8]


@pytest.mark.parametrize(
    "games",
    [
        [result("x", "ann", "bob", 5, 3, "north")],
        [result("x", "ann", "bob", 5, 3, "north"), result("y", "bob", "ann", 5, 3, None)],
        [result("x", "ann", "bob", 5, 3, "north"), result("x", "ann", "bob", 5, 3, None)],
        [result("x", "ann", "bob", 5, 3, "east"), result("x", "bob", "ann", 5, 3, None)],
        [result("x", "ann", "bob", -1, 3, None), result("x", "bob", "ann", 5, 3, None)],
    ],
    ids=["one-game", "two-scenarios", "sides-not-swapped", "bad-winner", "negative-banners"],
)
def test_games_that_are_not_a_match_are_refused(games: list[GameResult]) -> None:
    with pytest.raises(MatchError):
        score_match(games)
