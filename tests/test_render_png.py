"""The PNG board: decodes, has the board's size, shows the same things as the SVG."""

from __future__ import annotations

import io

from PIL import Image, ImageFont

from pbem.render.png import PNG_RADIUS, board_size, draw_board, render_png, render_png_uncached
from pbem.render.sample import sample_view
from pbem.render.scene import ARROW, SYMBOL
from pbem.render.view import make_view


def test_png_decodes_and_has_the_board_size() -> None:
    view = sample_view()
    img = Image.open(io.BytesIO(render_png(view)))
    img.load()
    assert img.format == "PNG"
    assert img.size == board_size(view)
    w, h = img.size
    assert 700 < w < 900 and 450 < h < 650
    assert len(img.convert("RGB").getcolors(maxcolors=1 << 16) or []) > 20


def test_the_bundled_font_is_a_scalable_freetype_font() -> None:
    # No system fonts: Pillow's own font must scale (Pillow >= 10.1).
    assert isinstance(ImageFont.load_default(size=13), ImageFont.FreeTypeFont)


def test_overlay_colours_survive_the_palette() -> None:
    rgb = Image.open(io.BytesIO(render_png_uncached(sample_view()))).convert("RGB")
    colours = {c for _, c in rgb.getcolors(maxcolors=1 << 16) or []}
    for hexcode in (*SYMBOL.values(), ARROW["south"]):
        if hexcode == SYMBOL["unknown"]:
            continue
        assert tuple(bytes.fromhex(hexcode[1:])) in colours


def test_units_change_only_the_overlay() -> None:
    empty = draw_board(make_view(terrain=sample_view().terrain))
    full = draw_board(sample_view())
    assert empty.size == full.size
    # Terrain corner (no unit there) is the same picture in both.
    box = (0, 0, 40, 40)
    assert empty.crop(box).tobytes() == full.crop(box).tobytes()
    assert empty.tobytes() != full.tobytes()


def test_other_sizes_scale_the_same_layout() -> None:
    view = sample_view()
    small = Image.open(io.BytesIO(render_png_uncached(view, PNG_RADIUS / 2)))
    assert abs(small.size[0] * 2 - board_size(view)[0]) <= 2
