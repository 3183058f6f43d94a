"""Board rendering speed: PNG per board (median, p95), SVG and ASCII render times.

Run: ``python bench/render_bench.py [--boards N]``. Measures the per-turn cost
(the cached base image reused, as in a running game), the one-off cost of
building the base for a new terrain map, and the encoded sizes. Uses the
demonstration board (41 units, 6 leaders, moves and battles).
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import statistics
import time
import zlib
from collections.abc import Callable
from dataclasses import replace

import PIL
from PIL import Image

from engine.core.picture import Picture
from pbem.render.ascii import render_ascii
from pbem.render.geometry import Layout
from pbem.render.png import _base, _palette, draw_board, mail_radius, render_png_uncached
from pbem.render.sample import sample_picture
from pbem.render.scene import base_of
from pbem.render.svg import render_svg


def _views(n: int) -> list[Picture]:
    """``n`` distinct pictures (one unit's blocks vary) so no per-picture cache can help."""
    base = sample_picture()
    out = []
    for i in range(n):
        u = base.counters[0]
        counters = (replace(u, count=1 + i % u.full), *base.counters[1:])
        out.append(replace(base, counters=counters, title=f"board {i}"))
    return out


def _times(f: Callable[[Picture], object], views: list[Picture]) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds per call (CPU time shows the cost on a busy machine)."""
    wall, cpu = [], []
    for v in views:
        t, c = time.perf_counter(), time.thread_time()
        f(v)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)
    return wall, cpu


def _summary(name: str, ms: tuple[list[float], list[float]]) -> str:
    wall, cpu = ms
    q = statistics.quantiles(wall, n=20)
    med = statistics.median(wall)
    return (
        f"{name:<28} median {med:6.2f} ms  p95 {q[18]:6.2f} ms  ({1000 / med:5.0f}/s)"
        f"  cpu median {statistics.median(cpu):6.2f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=300)
    ap.add_argument(
        "--encodings", action="store_true", help="split a PNG's time; try other zlib settings"
    )
    args = ap.parse_args()
    views = _views(args.boards)
    render_png_uncached(views[0])  # warm the base image, palette and fonts
    t = time.perf_counter()
    _base.cache_clear()
    _palette.cache_clear()
    render_png_uncached(views[0])
    base_ms = (time.perf_counter() - t) * 1000
    png_ms = _times(render_png_uncached, views)
    svg_ms = _times(render_svg.__wrapped__, views)
    ascii_ms = _times(render_ascii, views)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"python {platform.python_version()}, Pillow {PIL.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load {load:.2f}"
    )
    print(
        f"boards: {len(views)}; PNG {len(render_png_uncached(views[0]))} bytes, "
        f"SVG {len(render_svg(views[0]))} bytes"
    )
    print(_summary("PNG per board (cached base)", png_ms))
    print(_summary("SVG per board", svg_ms))
    print(_summary("ASCII per board", ascii_ms))
    print(f"{'new terrain map (base+PNG)':<28} {base_ms:7.2f} ms once per board layout")
    if args.encodings:
        _encodings(views)


def _encodings(views: list[Picture]) -> None:
    """Where a PNG's time goes, and what other zlib settings would cost (same pixels)."""
    layout = Layout(views[0].size, mail_radius(views[0]))
    pal = _palette(layout, base_of(views[0]))
    drawn = {id(v): draw_board(v) for v in views}
    print(_summary("  drawing (base, overlay, tokens)", _times(draw_board, views)))

    def quantize(v: Picture) -> Image.Image:
        return drawn[id(v)].quantize(palette=pal, dither=Image.Dither.NONE)

    print(_summary("  palette mapping", _times(quantize, views)))
    mapped = {id(v): quantize(v) for v in views}
    for level, strategy, name in (
        (1, None, "zlib level 1 (pbem's)"),
        (1, zlib.Z_RLE, "zlib level 1, RLE"),
        (1, zlib.Z_HUFFMAN_ONLY, "zlib Huffman only"),
        (6, None, "zlib level 6"),
        (0, None, "stored (no compression)"),
    ):
        options: dict[str, int] = {"compress_level": level}
        if strategy is not None:
            options["compress_type"] = strategy

        def save(v: Picture, options: dict[str, int] = options) -> bytes:
            buf = io.BytesIO()
            mapped[id(v)].save(buf, format="PNG", **options)
            return buf.getvalue()

        print(_summary(f"  {name}: {len(save(views[0]))} B", _times(save, views)))


if __name__ == "__main__":
    main()
