"""The fairness report's pictures (matplotlib, PNG): face counts and luck over the throws.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, no global
state, no display). The PNG carries no date or version metadata, so the same
report gives the same bytes (the archive rewrites a file only when it changed).
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

from pbem.archive.stats import FaceReport, LuckReport

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["faces_png", "luck_png"]

_OBSERVED = "#3b6ea8"
_EXPECTED = "#c0392b"
_FLAGGED = "#d35400"


def _png(fig: Figure) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415 - heavy

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80, metadata={"Software": None})
    return buf.getvalue()


def faces_png(faces: tuple[FaceReport, ...], title: str) -> bytes:
    """Bars of each face's count, the fair expectation as a line with its ±2σ band."""
    shown = [f for f in faces if f.n] or list(faces[:1])
    from matplotlib.figure import Figure  # noqa: PLC0415 - heavy: only when a plot is drawn

    fig = Figure(figsize=(6.0, 2.6 * max(1, len(shown))), layout="constrained")
    for i, rep in enumerate(shown, 1):
        ax = fig.add_subplot(len(shown), 1, i)
        xs = list(range(len(rep.faces)))
        colour = _FLAGGED if rep.flagged else _OBSERVED
        ax.bar(xs, rep.counts, color=colour, label="rolled")
        p = 1.0 / len(rep.faces) if rep.faces else 0.0
        sd = math.sqrt(rep.n * p * (1.0 - p))
        ax.axhline(rep.expected, color=_EXPECTED, linewidth=1.5, label="fair average")
        ax.axhspan(
            max(0.0, rep.expected - 2 * sd),
            rep.expected + 2 * sd,
            color=_EXPECTED,
            alpha=0.12,
            label="fair range (±2σ)",
        )
        ax.set_xticks(xs, list(rep.faces))
        ax.set_ylabel("dice")
        verdict = f"χ² {rep.chi2:.1f}, p {rep.p_value:.3f}" if rep.n else "no dice"
        ax.set_title(f"{title}: {rep.die}, {rep.n} dice ({verdict})", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    return _png(fig)


def luck_png(series: dict[str, LuckReport], title: str) -> bytes:
    """Hits shown minus hits expected after each throw, one line per group (0 = average luck).

    The most extreme run of each line is drawn thicker.
    """
    from matplotlib.figure import Figure  # noqa: PLC0415 - heavy: only when a plot is drawn

    fig = Figure(figsize=(6.0, 2.8), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    ax.axhline(0.0, color="#555555", linewidth=0.8)
    drawn = False
    for name, luck in sorted(series.items()):
        if not luck.cumulative:
            continue
        xs = list(range(1, len(luck.cumulative) + 1))
        (line,) = ax.plot(xs, luck.cumulative, linewidth=1.2, label=f"{name} (z {luck.z:+.2f})")
        run = luck.run
        if run is not None:
            start = luck.cumulative[run.first - 2] if run.first > 1 else 0.0
            ax.plot(
                [run.first - 1, *range(run.first, run.last + 1)],
                [start, *luck.cumulative[run.first - 1 : run.last]],
                color=line.get_color(),
                linewidth=3.0,
                alpha=0.6,
            )
        drawn = True
    ax.set_xlabel("hit-or-miss throws, in order")
    ax.set_ylabel("hits − expected")
    ax.set_title(f"{title}: luck over the game", fontsize=9)
    if drawn:
        ax.legend(fontsize=7, loc="best")
    else:
        ax.text(0.5, 0.5, "no hit-or-miss throws", ha="center", va="center",
                transform=ax.transAxes)  # fmt: skip
    return _png(fig)
