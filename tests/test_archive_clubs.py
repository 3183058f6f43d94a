"""Issue 18: a club's games are indexed by club, and its ladder and tournament get pages."""

from __future__ import annotations

from pathlib import Path

from club_kit import make_club
from test_archive_site import CHROMIUM, _every_page_in_one_browser, check_site
from test_clubs_tournament import _create, _play_out

from pbem.archive.site import build_site
from pbem.clock import FakeClock
from pbem.config import Config
from pbem.pipeline import load_server_key
from pbem.store import Store


def test_club_games_ladder_and_tournament_pages(
    store: Store, config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    kit = make_club(store, config, clock, tmp_path, 4)
    _create(kit, "open4", 4, top=2)
    assert _play_out(kit, "open4") > 0
    out = tmp_path / "site"
    key = load_server_key(tmp_path / "server_ed25519")
    report = build_site(store, out, server_key=key)
    assert report.built  # every game of the tournament, finished
    pages = check_site(out)  # every link resolves, the tournament's game links included
    text = {p.relative_to(out).as_posix(): " ".join(" ".join(pg.text).split())
            for p, pg in pages.items()}  # fmt: skip
    assert "Test club" in text["index.html"] and "clubs/c1.html" in pages[out / "index.html"].links
    club = text["clubs/c1.html"]
    assert "Every game of the club Test club" in club and "Dice fairness" in club
    ladder = text["clubs/c1-ladder.html"]
    assert "Player 00" in ladder and "W/D/L" in ladder
    tour = text["clubs/c1-tournament-open4.html"]
    assert "Standings" in tour and "Round 1" in tour and "Player 00" in tour
    assert any(
        link.startswith("../games/") for link in pages[out / "clubs/c1-tournament-open4.html"].links
    )
    assert "@club.test" not in " ".join(text.values())  # never a player's address
    if CHROMIUM.exists():  # the club pages in headless Chromium too: no console error, 375 px
        for rel, (has_main, width) in _every_page_in_one_browser(out).items():
            assert has_main, f"{rel} has no <main>"
            assert width <= 375, f"{rel} is {width} px wide at 375 px"
