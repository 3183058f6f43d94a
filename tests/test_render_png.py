"""The PNG board: 2x a mail column, same things as the SVG, strength readable at a glance."""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image, ImageFont

from engine.systems import get_system
from pbem.render.picture import picture_of
from pbem.render.png import (
    MAIL_COLUMN,
    PNG_SCALE,
    board_size,
    display_size,
    draw_board,
    mail_radius,
    render_png,
    render_png_uncached,
)
from pbem.render.sample import sample_picture
from pbem.render.scene import _BLOCKS, ARROW, SYMBOL


def test_png_is_twice_a_mail_column_wide() -> None:
    """A 2x image for a 600 px column: sharp on phones, never wider than the column."""
    view = sample_picture()
    img = Image.open(io.BytesIO(render_png(view)))
    img.load()
    assert img.format == "PNG"
    assert img.size == board_size(view)
    assert display_size(view)[0] == MAIL_COLUMN == 600
    assert abs(img.size[0] - PNG_SCALE * MAIL_COLUMN) <= 1
    assert abs(img.size[1] - PNG_SCALE * display_size(view)[1]) <= 2
    assert len(img.convert("RGB").getcolors(maxcolors=1 << 16) or []) > 20


def test_the_bundled_font_is_a_scalable_freetype_font() -> None:
    # No system fonts: Pillow's own font must scale (Pillow >= 10.1).
    assert isinstance(ImageFont.load_default(size=13), ImageFont.FreeTypeFont)


def test_overlay_colours_survive_the_palette() -> None:
    rgb = Image.open(io.BytesIO(render_png_uncached(sample_picture()))).convert("RGB")
    colours = {c for _, c in rgb.getcolors(maxcolors=1 << 16) or []}
    for hexcode in (*SYMBOL.values(), ARROW["south"], ARROW["north"]):
        if hexcode == SYMBOL["grey"]:
            continue
        assert tuple(bytes.fromhex(hexcode[1:])) in colours


def test_units_change_only_the_overlay() -> None:
    full = sample_picture()
    empty = replace(full, counters=(), markers=(), arrows=(), battles=(), losses=())
    a, b = draw_board(empty), draw_board(full)
    assert a.size == b.size
    # Terrain corner (no unit there) is the same picture in both.
    box = (0, 0, 40, 40)
    assert a.crop(box).tobytes() == b.crop(box).tobytes()
    assert a.tobytes() != b.tobytes()


def test_other_sizes_scale_the_same_layout() -> None:
    view = sample_picture()
    small = Image.open(io.BytesIO(render_png_uncached(view, mail_radius(view) / 2)))
    assert abs(small.size[0] * 2 - board_size(view)[0]) <= 2


def _one_unit(blocks: int) -> Image.Image:
    public = {
        "units": [{"id": "u", "side": "south", "type": "HI", "hex": "G5", "blocks": blocks}],
        "sides": {"south": {"army": "Roman", "colour": "grey"}},
    }
    pic = picture_of(get_system("cca"), public)
    img = draw_board(pic).convert("RGB")
    r = mail_radius(pic)
    from pbem.render.geometry import Layout

    x, y = Layout(pic.size, r).px(pic.centre("G5"))
    return img.crop((round(x - r), round(y - r), round(x + r), round(y + r)))


def test_a_strong_unit_reads_as_a_taller_stack_than_a_weak_one() -> None:
    """Cropped to one hex, a 4-block and a 1-block unit look plainly different (issue 14)."""
    grey = tuple(bytes.fromhex(_BLOCKS["grey"][1:]))

    def block_pixels(img: Image.Image) -> int:
        return sum(n for n, c in img.getcolors(maxcolors=1 << 16) or [] if c == grey)

    one, four = block_pixels(_one_unit(1)), block_pixels(_one_unit(4))
    assert four > 1.5 * one
    # And the number is printed: the SVG carries it as text in the unit layer.
    from pbem.render.svg import render_svg

    for n in (1, 4):
        public = {"units": [{"id": "u", "side": "south", "type": "HI", "hex": "G5", "blocks": n}]}
        svg = render_svg(picture_of(get_system("cca"), public))
        units = svg[svg.index('<g class="units">') : svg.index('<g class="leaders">')]
        assert f">{n}</text>" in units
