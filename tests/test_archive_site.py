"""``pbem archive build`` over demo games (issue 18): pages, links, hidden information,
incremental rebuilds, and a real browser stepping through a replay."""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag

import pytest
from sqlmodel import col, select

from pbem.archive.hooks import ArchivePage, register_pages, unregister_pages
from pbem.archive.site import build_site
from pbem.demo import check_system, run_demo
from pbem.pipeline import load_server_key
from pbem.store import Game, GameStatus, Snapshot, Store

pytestmark = pytest.mark.skipif(check_system() is not None, reason="engine not ready")

VOID = {"meta", "link", "img", "br", "hr", "input", "source", "wbr"}
CHROMIUM = Path("/usr/bin/chromium")


@dataclass
class Page(HTMLParser):
    """A page parsed strictly enough for the tests: nesting, ids, links, images."""

    problems: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    stack: list[str] = field(default_factory=list)
    images: int = 0
    text: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if "id" in a:
            if a["id"] in self.ids:
                self.problems.append(f"id {a['id']} twice")
            self.ids.add(str(a["id"]))
        if tag == "img":
            self.images += 1
            if not (a.get("alt") or "").strip():
                self.problems.append(f"img {a.get('src')} has no alt text")
        for name in ("href", "src"):
            if a.get(name):
                self.links.append(str(a[name]))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else ''}>")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(path: Path) -> Page:
    page = Page()
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>"), path
    page.feed(text)
    page.close()
    if page.stack:
        page.problems.append(f"unclosed {page.stack}")
    return page


def check_site(root: Path) -> dict[Path, Page]:
    """Every page is well nested, every image has alt text, every link resolves."""
    pages = {p: _parse(p) for p in sorted(root.rglob("*.html"))}
    for path, page in pages.items():
        assert not page.problems, f"{path.relative_to(root)}: {page.problems}"
        for link in page.links:
            assert "://" not in link and not link.startswith("/"), f"{path}: {link} not relative"
            target, frag = urldefrag(link)
            dest = (path.parent / target).resolve() if target else path
            assert dest.is_file(), f"{path.relative_to(root)}: {link} does not resolve"
            if frag and dest.suffix == ".html":
                assert frag in pages[dest].ids, f"{path.relative_to(root)}: no #{frag} in {link}"
    return pages


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One store with a finished game (resigned after 5 epochs) and a running one."""
    directory = tmp_path_factory.mktemp("archive-demo")
    done = asyncio.run(run_demo(directory, seed=5, max_epochs=12, resign_at=5, timeout=60,
                                game_id="arch-done"))  # fmt: skip
    assert done.finished, done.message
    shutil.copytree(directory / "mails", directory / "mails-done")  # the next game reuses names
    running = asyncio.run(run_demo(directory, seed=3, max_epochs=6, timeout=60,
                                   game_id="arch-running"))  # fmt: skip
    assert not running.finished, running.message
    yield directory


def _store(demo: Path) -> Store:
    return Store(f"sqlite:///{demo / 'data' / 'pbem.sqlite3'}")


def test_archive_build_over_demo_games(demo: Path, tmp_path: Path) -> None:
    store = _store(demo)
    key = load_server_key(demo / "data" / "server_ed25519")
    out = tmp_path / "site"
    try:
        first = build_site(store, out, server_key=key, running_delay=2)
    finally:
        store.dispose()
    assert sorted(first.built) == ["arch-done", "arch-running"]
    pages = check_site(out)
    text = {
        p.relative_to(out).as_posix(): " ".join(" ".join(pg.text).split())
        for p, pg in pages.items()
    }
    assert "arch-done" in text["index.html"] and "arch-running" in text["index.html"]
    done = text["games/arch-done/audit.html"]
    assert "OK arch-done: 2 joins" in done and "shuffles recomputed" in done
    assert "χ²" in done and "p-value" in done and "What these figures mean" in done
    assert (out / "games/arch-done/arch-done.audit.json").is_file()
    replay = text["games/arch-done/index.html"]
    assert "game arch-done turn 1" in replay  # a finished game shows the signed orders
    # Hidden information: a running game shows neither orders text nor the last epochs.
    running = text["games/arch-running/index.html"]
    assert "game arch-running turn" not in running
    assert "first 4 of 6 epochs" in running
    assert not (out / "games/arch-running/arch-running.audit.json").exists()
    assert not (out / "games/arch-running/board-5.png").exists()
    assert "Dice fairness" in text["dice.html"] and "verify_dice.py" in text["dice.html"]
    assert any(name.startswith("players/") for name in text)
    verify = subprocess.run(
        ["python3", str(Path(__file__).parent.parent / "verify_dice.py"),
         str(out / "games/arch-done/arch-done.audit.json")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verify.returncode == 0 and verify.stdout.startswith("OK arch-done"), verify.stdout


def test_the_game_end_mail_carries_the_fairness_report_and_its_plots(demo: Path) -> None:
    ends = []
    for path in sorted((demo / "mails-done").glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        if "[arch-done]" in str(msg["Subject"]) and "game over" in str(msg["Subject"]):
            ends.append(msg)
    assert len(ends) == 2  # one per player
    for msg in ends:
        body = msg.get_body(("plain",))
        assert body is not None
        text = " ".join(body.get_content().split())
        assert "Dice fairness" in text and "game arch-done:" in text and "chi-squared" in text
        pngs = [a.get_filename() for a in msg.iter_attachments()
                if a.get_content_type() == "image/png"]  # fmt: skip
        assert pngs == ["arch-done-dice-faces.png", "arch-done-dice-luck.png"]


def test_rebuild_touches_only_the_changed_game_and_the_indexes(demo: Path, tmp_path: Path) -> None:
    work = tmp_path / "demo"
    shutil.copytree(demo / "data", work / "data")
    store = _store(work)
    key = load_server_key(work / "data" / "server_ed25519")
    out = tmp_path / "site"
    try:
        build_site(store, out, server_key=key, running_delay=2)
        before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
        again = build_site(store, out, server_key=key, running_delay=2)
        assert again.built == [] and again.written == []
        with store.transaction() as session:  # the running game ends
            game = session.get(Game, "arch-running")
            assert game is not None
            game.status = GameStatus.ABANDONED
            session.add(game)
        third = build_site(store, out, server_key=key, running_delay=2)
    finally:
        store.dispose()
    assert third.built == ["arch-running"] and third.kept == ["arch-done"]
    for path, mtime in before.items():
        rel = path.relative_to(out).as_posix()
        if rel.startswith("games/arch-done/"):
            assert path.stat().st_mtime_ns == mtime, f"{rel} was rewritten"
            assert rel not in third.written
    assert "games/arch-running/index.html" in third.written
    assert "games/arch-running/board-6.png" in third.written  # now every epoch is shown
    assert "index.html" in third.written and "manifest.json" in third.written
    assert not any(w.startswith("games/arch-done/") for w in third.written)
    check_site(out)


def test_club_pages_plug_in_and_a_failing_provider_does_not_stop_the_build(
    demo: Path, tmp_path: Path
) -> None:
    def ladder(session: object) -> list[ArchivePage]:
        return [ArchivePage("ladder-demo.html", "Ladder: demo club", "<p>1. Hamilcar &amp; co</p>")]

    def broken(session: object) -> list[ArchivePage]:
        raise RuntimeError("the clubs changed shape")

    register_pages(ladder)
    register_pages(broken)
    store = _store(demo)
    try:
        build_site(store, tmp_path, server_key=None)
    finally:
        store.dispose()
        unregister_pages(ladder)
        unregister_pages(broken)
    pages = check_site(tmp_path)
    page = tmp_path / "clubs" / "ladder-demo.html"
    assert "1. Hamilcar & co" in "".join(pages[page].text)
    assert "clubs/ladder-demo.html" in pages[tmp_path / "index.html"].links
    # Without the server key no record is signed, and the audit page says so.
    assert "not checked: no server key" in (tmp_path / "games/arch-done/audit.html").read_text()


HARNESS = """<script>
(function () {
  var trace = [document.body.getAttribute("data-step")];
  ["next", "next", "prev", "last", "first"].forEach(function (id) {
    document.getElementById(id).click();
    trace.push(document.body.getAttribute("data-step"));
  });
  document.body.setAttribute("data-trace", trace.join(","));
}());
</script>
</body>"""


def _chromium(url: str, budget: int = 3000) -> tuple[str, str]:
    """Load ``url`` in headless Chromium at 375 px; return the DOM after its scripts ran, and
    the browser's log (console messages appear there as ``CONSOLE`` lines, the frames' too)."""
    run = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=375,800",
         "--enable-logging=stderr", "--v=0", f"--virtual-time-budget={budget}",
         "--allow-file-access-from-files", "--dump-dom", url],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout, run.stderr


# Every page of the site in one browser: each in a 375 px wide frame (a phone's width; a frame
# may be narrower than the 500 px a headless window will open at). Once a frame has loaded, the
# harness notes whether the page has its <main> and how far right anything sticks out of it, but
# for what sits in a horizontally scrolling box (.scroll, the wide tables).
EVERY_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>every page</title></head>
<body><script>
var pages = %s, seen = [];
pages.forEach(function (rel) {
  var frame = document.createElement("iframe");
  frame.width = "375";
  frame.height = "600";
  frame.onload = function () {
    var doc = frame.contentDocument, right = 0;
    doc.querySelectorAll("body *").forEach(function (e) {
      if (!e.closest(".scroll") && e.tagName !== "SCRIPT" && e.tagName !== "STYLE") {
        right = Math.max(right, Math.ceil(e.getBoundingClientRect().right));
      }
    });
    seen.push(rel + "|" + (doc.querySelector("main") ? "main" : "no-main") + "|" + right);
    document.body.setAttribute("data-seen", seen.join(" "));
  };
  frame.src = rel;
  document.body.appendChild(frame);
});
</script></body></html>
"""


def _every_page_in_one_browser(root: Path) -> dict[str, tuple[bool, int]]:
    """Load every page under ``root`` in one Chromium process (see EVERY_PAGE); return each
    page's (has its <main>, width used) and assert that no page wrote to the console."""
    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html"))
    harness = root / "every-page.html"
    harness.write_text(EVERY_PAGE % json.dumps(rels), encoding="utf-8")
    try:
        dom, log = _chromium(harness.as_uri(), budget=20000)
    finally:
        harness.unlink()
    errors = [line for line in log.splitlines() if "CONSOLE" in line]
    assert not errors, "\n".join(errors[:20])
    found = re.search(r'data-seen="([^"]*)"', dom)
    seen = {}
    for item in (found.group(1) if found else "").split():
        rel, main, width = item.rsplit("|", 2)
        seen[rel] = (main == "main", int(width))
    assert sorted(seen) == rels, f"not loaded: {sorted(set(rels) - set(seen))}"
    return seen


@pytest.mark.chromium
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
def test_the_site_in_headless_chromium(demo: Path, tmp_path: Path) -> None:
    """Every page loads without a console error and fits 375 px; the replay steps forward and
    back."""
    store = _store(demo)
    out = tmp_path / "site"
    try:
        build_site(store, out, server_key=load_server_key(demo / "data" / "server_ed25519"),
                   running_delay=2)  # fmt: skip
    finally:
        store.dispose()
    pages = check_site(out)  # links and alt texts, as above
    seen = _every_page_in_one_browser(out)
    assert len(seen) == len(pages) >= 10  # index, dice, 2 games x 2, systems, players...
    for rel, (has_main, width) in seen.items():
        assert has_main, f"{rel} has no <main>"
        assert width <= 375, f"{rel} is {width} px wide at 375 px"
    replay = out / "games" / "arch-done" / "index.html"
    for step in ("e0", "e3"):  # a link to an epoch opens on it, the others hidden
        dom, log = _chromium(f"{replay.as_uri()}#{step}")
        assert f'data-step="{step}"' in dom and "CONSOLE" not in log
        assert f'id="{step}" data-epoch="{step[1:]}">' in dom
        assert dom.count("data-epoch=") - dom.count('" hidden="">') == 1
    stepping = replay.with_name("stepping.html")
    stepping.write_text(replay.read_text(encoding="utf-8").replace("</body>", HARNESS))
    dom, log = _chromium(stepping.as_uri())
    assert "CONSOLE" not in log, log[-2000:]
    last = max(int(x) for x in re.findall(r'data-epoch="(\d+)"', dom))
    assert f'data-trace="e0,e1,e2,e1,e{last},e0"' in dom  # Forward, Forward, Back, Last, First


def test_a_club_rule_publishes_its_running_games_with_its_delay(demo: Path, tmp_path: Path) -> None:
    """Two clubs each with a running game: only the one whose club set
    ``archive_running_delay`` is published, that many epochs behind, and its
    page shows no orders text, hand or deck (issue 18)."""
    from pbem.clock import FakeClock
    from pbem.clubs import clubs
    from pbem.clubs.models import ClubGame
    from pbem.clubs.rules import RuleError

    directory = tmp_path / "demo"
    shutil.copytree(demo, directory)
    shutil.rmtree(directory / "mails")  # the next game reuses the mail names
    quiet = asyncio.run(run_demo(directory, seed=4, max_epochs=5, timeout=60,
                                 game_id="arch-quiet"))  # fmt: skip
    assert not quiet.finished, quiet.message
    store = _store(directory)
    try:
        with store.transaction() as s:
            clock = FakeClock()
            shows = clubs.create_club(s, "shows", "Shows club", "cca", clock)
            keeps = clubs.create_club(s, "keeps", "Keeps club", "cca", clock)
            for bad in ("-1", "1001", "soon", "2.5"):
                with pytest.raises(RuleError, match=r"archive_running_delay: .*0 to 1000 or off"):
                    clubs.set_rule(s, shows, "archive_running_delay", bad)
            clubs.set_rule(s, shows, "archive_running_delay", "3")
            clubs.set_rule(s, keeps, "archive_running_delay", "off")  # as by default
            s.add(ClubGame(game_id="arch-running", club_id="shows"))
            s.add(ClubGame(game_id="arch-quiet", club_id="keeps"))
        out = tmp_path / "site"
        report = build_site(
            store, out, server_key=load_server_key(directory / "data" / "server_ed25519")
        )
        assert sorted(report.built) == ["arch-done", "arch-running"]
        flagged = build_site(  # the operator's delay is a floor for club games, never a key
            store, tmp_path / "site2", server_key=None, running_delay=5
        )
        assert "arch-quiet" not in flagged.built
        with store.transaction() as s:  # what the referee alone knows of the game now
            secret = json.loads(
                s.exec(
                    select(Snapshot.state_json)
                    .where(col(Snapshot.game_id) == "arch-running")
                    .order_by(col(Snapshot.version).desc())
                ).first()
                or "{}"
            )
    finally:
        store.dispose()
    pages = check_site(out)
    text = {
        p.relative_to(out).as_posix(): " ".join(" ".join(pg.text).split())
        for p, pg in pages.items()
    }
    published = " ".join(
        f.read_text(encoding="utf-8") for f in (out / "games/arch-running").glob("*.html")
    )
    hands = [side["hand"] for side in secret["sides"].values()]
    assert hands and all(hands) and len(secret["deck"]) > 4
    for cards in [*hands, secret["deck"][:4]]:  # no hand, no deck order, in any spelling
        for sep in (", ", " ", ",", "</td><td>"):
            assert sep.join(cards) not in published, cards
    assert "evade: ask" not in published  # a side's standing orders stay private
    assert "deck not revealed yet" in text["games/arch-running/audit.html"]
    assert "arch-quiet" not in " ".join(text) + " ".join(text.values())
    assert "arch-running" in text["index.html"] and "Keeps club" not in text["index.html"]
    running = text["games/arch-running/index.html"]
    assert "first 3 of 6 epochs" in running
    assert "game arch-running turn" not in running  # no orders text
    assert not (out / "games/arch-running/board-4.png").exists()
    assert not (out / "games/arch-running/arch-running.audit.json").exists()
    assert "first 1 of 6" in (tmp_path / "site2/games/arch-running/index.html").read_text()


@pytest.mark.chromium
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
def test_the_one_browser_check_sees_a_console_error_in_any_page(tmp_path: Path) -> None:
    """The check above would notice a console error or a too wide page in any framed page."""
    good = "<!DOCTYPE html><html><body><main>fine</main></body></html>"
    (tmp_path / "deep").mkdir()
    (tmp_path / "index.html").write_text(good)
    (tmp_path / "deep" / "page.html").write_text(
        good.replace("</main>", "</main><script>noSuchFunction();</script>")
    )
    with pytest.raises(AssertionError, match="noSuchFunction"):
        _every_page_in_one_browser(tmp_path)
    (tmp_path / "deep" / "page.html").write_text(
        good.replace("fine", '<div style="width: 600px">wide</div>')
    )
    assert _every_page_in_one_browser(tmp_path) == {  # a page too wide for 375 px is measured
        "index.html": (True, 367), "deep/page.html": (True, 608)
    }  # fmt: skip
