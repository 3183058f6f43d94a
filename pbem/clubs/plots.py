"""Rating-history plots as PNG (matplotlib, the Agg backend: no display needed)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime

__all__ = ["rating_plot"]


def rating_plot(points: Sequence[tuple[datetime, float, float]], title: str) -> bytes:
    """Return a PNG of ``(when, mu, sigma)`` points: the rating and a band of one deviation."""
    import matplotlib  # noqa: PLC0415 - heavy: imported only when a plot is drawn

    matplotlib.use("Agg")
    from matplotlib.figure import Figure  # noqa: PLC0415

    fig = Figure(figsize=(6.4, 3.2), dpi=100)
    ax = fig.add_subplot()
    xs = list(range(len(points) + 1))
    mus = [25.0] + [p[1] for p in points]
    sig = [25.0 / 3] + [p[2] for p in points]
    ax.fill_between(
        xs,
        [m - s for m, s in zip(mus, sig, strict=True)],
        [m + s for m, s in zip(mus, sig, strict=True)],
        alpha=0.25,
        label="± deviation",
    )
    ax.plot(xs, mus, marker="o", label="rating")
    ax.set_xlabel("rated games")
    ax.set_ylabel("rating")
    ax.set_title(title[:80])
    ax.legend(loc="best")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()
