"""Shared helpers for the benchmark scripts: progress bar, percentiles, machine, PNG plots.

No dependency beyond Pillow (already a pbem dependency): the plots are drawn
by hand, small and legible, for ``bench/results/``.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

RESULTS = Path(__file__).resolve().parent / "results"
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]


class Progress:
    """A one-line stderr progress bar: ``label [#####.....] 50/100 12.3/s``."""

    def __init__(self, label: str, total: float, *, unit: str = "") -> None:
        self.label = label
        self.total = max(total, 1)
        self.unit = unit
        self.start = time.monotonic()
        self._last = 0.0
        self.enabled = sys.stderr.isatty() or os.environ.get("PBEM_BENCH_PROGRESS") == "1"

    def update(self, done: float, extra: str = "") -> None:
        now = time.monotonic()
        if not self.enabled or (now - self._last < 0.2 and done < self.total):
            return
        self._last = now
        frac = min(done / self.total, 1.0)
        bar = "#" * int(frac * 30)
        rate = done / max(now - self.start, 1e-9)
        sys.stderr.write(
            f"\r{self.label} [{bar:<30}] {done:.0f}/{self.total:.0f}{self.unit} "
            f"{rate:.1f}/s {extra}   "
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def percentile(values: Sequence[float], q: float) -> float:
    """Return the ``q``-th percentile (0-100) by linear interpolation; nan if empty."""
    if not values:
        return math.nan
    data = sorted(values)
    pos = (len(data) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def machine() -> str:
    """Describe this machine in one line: CPUs, model, OS, Python."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} vCPU {model}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, load average {load:.1f} at start"
    )


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def save_json(name: str, data: object) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
    return path


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType
        return ImageFont.load_default()


def _nice_max(value: float) -> float:
    if value <= 0 or math.isnan(value):
        return 1.0
    exp = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * exp:
            return step * exp
    return 10 * exp


def _frame(
    title: str, xlabel: str, ylabel: str, ymax: float, size: tuple[int, int]
) -> tuple[Image.Image, ImageDraw.ImageDraw, tuple[int, int, int, int]]:
    width, height = size
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    left, top, right, bottom = 70, 40, width - 20, height - 50
    draw.text((width // 2, 8), title, fill="black", font=_font(15), anchor="ma")
    draw.line([(left, top), (left, bottom), (right, bottom)], fill="black", width=1)
    small = _font(11)
    for i in range(6):
        v = ymax * i / 5
        y = bottom - (bottom - top) * i / 5
        draw.line([(left - 4, y), (right, y)], fill="#dddddd" if i else "black")
        draw.text((left - 6, y), f"{v:g}", fill="black", font=small, anchor="rm")
    draw.text((12, (top + bottom) // 2), ylabel, fill="black", font=small, anchor="lm")
    draw.text(((left + right) // 2, height - 14), xlabel, fill="black", font=small, anchor="mm")
    return img, draw, (left, top, right, bottom)


def plot_lines(
    path: Path,
    title: str,
    series: dict[str, Sequence[tuple[float, float]]],
    *,
    xlabel: str,
    ylabel: str,
    size: tuple[int, int] = (720, 360),
) -> Path:
    """Draw one line per series (x, y points) and save a PNG."""
    xs = [x for pts in series.values() for x, _ in pts] or [0.0, 1.0]
    ys = [y for pts in series.values() for _, y in pts] or [1.0]
    xmax = _nice_max(max(xs))
    ymax = _nice_max(max(ys) * 1.05)
    img, draw, (left, top, right, bottom) = _frame(title, xlabel, ylabel, ymax, size)
    small = _font(11)
    for i in range(6):
        x = left + (right - left) * i / 5
        draw.text((x, bottom + 4), f"{xmax * i / 5:g}", fill="black", font=small, anchor="ma")
    for n, (name, pts) in enumerate(series.items()):
        colour = COLOURS[n % len(COLOURS)]
        coords = [
            (left + (right - left) * x / xmax, bottom - (bottom - top) * y / ymax) for x, y in pts
        ]
        if len(coords) > 1:
            draw.line(coords, fill=colour, width=2)
        draw.rectangle([right - 170, top + 6 + 16 * n, right - 158, top + 16 + 16 * n], fill=colour)
        draw.text((right - 152, top + 4 + 16 * n), name, fill="black", font=small)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, optimize=True)
    return path


def _short(v: float) -> str:
    return f"{v:.0f}" if v >= 100 else f"{v:.2g}" if v < 1 else f"{v:.1f}"


def plot_bars(
    path: Path,
    title: str,
    groups: dict[str, dict[str, float]],
    *,
    ylabel: str,
    size: tuple[int, int] = (720, 360),
) -> Path:
    """Draw grouped bars (group -> {label: value}) with the value on each bar; save a PNG."""
    labels: list[str] = []
    for values in groups.values():
        labels += [k for k in values if k not in labels]
    top_value = max(
        (v for vs in groups.values() for v in vs.values() if not math.isnan(v)), default=1
    )
    ymax = _nice_max(top_value * 1.1)
    img, draw, (left, top, right, bottom) = _frame(title, "", ylabel, ymax, size)
    small = _font(11)
    slot = (right - left) / max(len(groups), 1)
    bar = slot * 0.8 / max(len(labels), 1)
    for g, (group, values) in enumerate(groups.items()):
        x0 = left + slot * g + slot * 0.1
        draw.text((x0 + slot * 0.4, bottom + 4), group, fill="black", font=small, anchor="ma")
        for i, label in enumerate(labels):
            v = values.get(label, math.nan)
            if math.isnan(v):
                continue
            y = bottom - (bottom - top) * v / ymax
            colour = COLOURS[i % len(COLOURS)]
            draw.rectangle([x0 + bar * i, y, x0 + bar * (i + 1) - 3, bottom], fill=colour)
            draw.text(
                (x0 + bar * (i + 0.5), y - 2), f"{v:.3g}", fill="black", font=small, anchor="md"
            )
    for i, label in enumerate(labels):
        colour = COLOURS[i % len(COLOURS)]
        draw.rectangle([right - 120, top + 6 + 16 * i, right - 108, top + 16 + 16 * i], fill=colour)
        draw.text((right - 102, top + 4 + 16 * i), label, fill="black", font=small)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, optimize=True)
    return path


def per_second(times: Iterable[float], start: float) -> list[tuple[float, float]]:
    """Bucket event times (seconds) into a per-second rate series from ``start``."""
    buckets: dict[int, int] = {}
    for t in times:
        buckets[int(t - start)] = buckets.get(int(t - start), 0) + 1
    if not buckets:
        return []
    return [(float(s) + 0.5, float(buckets.get(s, 0))) for s in range(max(buckets) + 1)]
