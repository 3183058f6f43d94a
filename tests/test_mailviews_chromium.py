"""The turn mail as a browser shows it: headless Chromium screenshots at phone and desktop width.

The screenshots are kept in ``artifacts/`` (ignored by git; CI keeps the
folder) for a person to look at: ``turn_mail_375.png`` (a phone, 375 CSS px
at 2 device pixels per px) and ``turn_mail_1280.png`` (a desktop window).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image

from engine.core.picture import Picture
from pbem.mailviews.compose import turn_mail
from pbem.mailviews.model import (
    Card,
    DiceReveal,
    Envelope,
    NarrativeEvent,
    Recipient,
    TurnMail,
)
from pbem.render.bundle import RenderedBoard, render_board
from pbem.render.geometry import Layout
from pbem.render.png import board_size, mail_radius
from pbem.render.sample import sample_events, sample_picture
from pbem.render.scene import ARROW, COUNT_SIZE
from pbem.render.svg import BACKGROUND
from pbem.render.terrain_art import FILL

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(
    os.environ.get("PBEM_ARTIFACTS", Path(__file__).resolve().parents[1] / "artifacts")
)

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="headless Chromium is not installed"),
]

RGB = tuple[int, int, int]


def _rgb(hexcode: str) -> RGB:
    r, g, b = bytes.fromhex(hexcode[1:])
    return (r, g, b)


def _mail_html(board: RenderedBoard, side: str, tmp_path: Path) -> Path:
    mail = turn_mail(
        TurnMail(
            Envelope(
                "g7", "Cannae", 4, Recipient("Bob", "bob@example.org", "Europe/Prague", side),
                "pbem@club.example", "<g7.turn.4@club.example>",
            ),
            "south" if side == "north" else "north",
            tuple(NarrativeEvent.from_dict(e) for e in sample_events()),
            board,
            (Card("3C", "Order Three Units Center", "Order 3 units in the center."),),
            DiceReveal(12, "a" * 64, "b" * 64, "c" * 64),
            datetime(2026, 11, 23, 17, 0, tzinfo=UTC),
            "",
        )
    )  # fmt: skip
    html_part = mail.get_body(("html",))
    assert html_part is not None
    # A mail client resolves cid: to the inline part; do the same with a file.
    html = re.sub(r'src="cid:[^"]+"', 'src="board.png"', str(html_part.get_content()))
    (tmp_path / "board.png").write_bytes(board.png)
    page = tmp_path / "turn.html"
    page.write_text(html, encoding="utf-8")
    return page


def _shoot(page: Path, width: int, scale: int, name: str, tmp_path: Path) -> Image.Image:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / name
    shot.unlink(missing_ok=True)
    subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--hide-scrollbars", f"--user-data-dir={tmp_path / ('p' + name)}",
            f"--force-device-scale-factor={scale}", f"--screenshot={shot}",
            f"--window-size={width},2200", page.as_uri(),
        ],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    img = Image.open(shot).convert("RGB")
    assert img.size == (width * scale, 2200 * scale)
    return img


def _board_box(img: Image.Image) -> tuple[int, int, int, int]:
    """Where the board image landed: the rows and columns full of its background colour."""
    bg = _rgb(BACKGROUND)
    w, h = img.size
    px = img.load()
    assert px is not None
    # Browsers colour-manage images: allow a few levels of difference.
    rows = [
        y for y in range(h) if sum(1 for x in range(0, w, 2) if _near(px[x, y], bg, 3)) > w // 8
    ]
    assert rows, "the board image is not on the page"
    top, bottom = rows[0], rows[-1]
    mid = (top + bottom) // 2
    line = [x for x in range(w) if _near(px[x, top + 2], bg, 3) or _near(px[x, mid], bg, 3)]
    return (min(line), top, max(line), bottom)


def _near(c: RGB, target: RGB, tol: int) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(c, target, strict=True))


def _pixels(img: Image.Image, colour: RGB, tol: int = 24) -> int:
    return sum(n for n, c in img.getcolors(maxcolors=1 << 22) or [] if _near(c, colour, tol))


def _check(img: Image.Image, pic: Picture, *, min_digit_px: float) -> None:
    x0, y0, x1, _ = _board_box(img)
    width_png, _ = board_size(pic)
    k = (x1 - x0 + 1) / width_png  # device pixels per PNG pixel
    layout = Layout(pic.size, mail_radius(pic))
    board = img.crop((x0, y0, x1 + 1, y0 + round(layout.height * k)))
    # Arrows: both sides' move arrows are on the board as shown.
    for side in ("north", "south"):
        assert _pixels(board, _rgb(ARROW[side])) > 40, side
    # Counts are legible: the printed number is at least this many device pixels tall...
    digit = COUNT_SIZE * layout.r * k
    assert digit >= min_digit_px, digit
    # ...and strength reads at a glance: a 1-block unit's stack is plainly smaller than a
    # 4-block one's, cropped to its hex as the player sees it.
    units = {c.hex: c for c in pic.counters}
    assert (units["K2"].count, units["G2"].count) == (1, 4)
    clear = _rgb(FILL["clear"])

    def stack(hex_id: str) -> int:
        """Pixels of the hex that are not bare ground: the counter's footprint."""
        cx, cy = layout.px(pic.centre(hex_id))
        r = layout.r
        box = (cx - 0.75 * r, cy - 0.75 * r, cx + 0.75 * r, cy + 0.75 * r)
        crop = board.crop(tuple(round(v * k) for v in box))
        return sum(n for n, c in crop.getcolors(maxcolors=1 << 20) or [] if not _near(c, clear, 30))

    assert stack("G2") > 1.25 * stack("K2")


def test_turn_mail_on_a_phone_and_a_desktop_shows_arrows_and_legible_counts(
    tmp_path: Path,
) -> None:
    """Issue 14: a 375 px phone and a 1280 px window; North sees the board from his side."""
    pic = sample_picture("north")
    page = _mail_html(render_board(pic), "north", tmp_path)
    phone = _shoot(page, 375, 2, "turn_mail_375.png", tmp_path)
    _check(phone, pic, min_digit_px=11)
    desk = _shoot(page, 1280, 1, "turn_mail_1280.png", tmp_path)
    _check(desk, pic, min_digit_px=10)
    # On the desktop the board is shown at its mail column width, at half its pixels (2x).
    x0, _, x1, _ = _board_box(desk)
    assert abs((x1 - x0 + 1) - board_size(pic)[0] / 2) <= 4
