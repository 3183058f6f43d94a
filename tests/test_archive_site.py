"""``pbem archive build`` over demo games (issue 18): pages, links, hidden information,
incremental rebuilds, and a real browser stepping through a replay."""

from __future__ import annotations

import asyncio
import email
import email.policy
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

from pbem.archive.hooks import ArchivePage, register_pages, unregister_pages
from pbem.archive.site import build_site
from pbem.demo import check_system, run_demo
from pbem.pipeline import load_server_key
from pbem.store import Game, GameStatus, Store

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


# Headless Chromium will not open a window narrower than 500 px, so the page is laid out in a
# 375 px wide root instead (a phone's width): nothing may stick out of it, but for what sits in
# a horizontally scrolling box (.scroll, the wide tables).
WIDTH = """<style>html { width: 375px; }</style>
<script>
var right = 0;
document.querySelectorAll("body *").forEach(function (e) {
  if (!e.closest(".scroll") && e.tagName !== "SCRIPT" && e.tagName !== "STYLE") {
    right = Math.max(right, Math.ceil(e.getBoundingClientRect().right));
  }
});
document.body.setAttribute("data-width", String(right));
</script>
</body>"""
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


def _chromium(url: str) -> tuple[str, str]:
    """Load ``url`` in headless Chromium at 375 px; return the DOM after its scripts ran, and
    the browser's log (console messages appear there as ``CONSOLE`` lines)."""
    run = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=375,800",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", "--dump-dom", url],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout, run.stderr


@pytest.mark.chromium
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
def test_the_site_in_headless_chromium(demo: Path, tmp_path: Path) -> None:
    """Pages load without a console error, fit 375 px, and the replay steps forward and back."""
    store = _store(demo)
    out = tmp_path / "site"
    try:
        build_site(store, out, server_key=load_server_key(demo / "data" / "server_ed25519"))
    finally:
        store.dispose()
    check_site(out)  # links and alt texts, as above
    kinds = ["index.html", "dice.html", "games/arch-done/index.html", "games/arch-done/audit.html",
             "systems/cca.html", next(p.relative_to(out).as_posix()
                                      for p in out.glob("players/*.html"))]  # fmt: skip
    for rel in kinds:  # each page as published, plus a line that measures its width
        page = out / rel
        measured = page.with_name(f"measured-{page.name}")
        measured.write_text(page.read_text(encoding="utf-8").replace("</body>", WIDTH))
        dom, log = _chromium(measured.as_uri())
        assert "</main>" in dom, rel
        assert "CONSOLE" not in log, (rel, log[-2000:])
        width = int(re.search(r'data-width="(\d+)"', dom).group(1))  # type: ignore[union-attr]
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
