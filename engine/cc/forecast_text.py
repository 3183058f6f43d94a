"""A C&C ``check`` forecast as a player reads it: text and JSON (both C&C systems).

:class:`ForecastReport` wraps a :class:`~engine.cc.odds.Forecast` for the
``forecast`` capability (:mod:`engine.core.capabilities`): the moves, then
each battle's dice, the faces that hit and exact odds. The system gives the
legend of its die's faces (:mod:`engine.cca.forecast_text`,
:mod:`engine.ccn.forecast_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.cc.odds import Forecast, MoveForecast, percent
from engine.core.api import Event
from engine.core.text import wrap

__all__ = [
    "ForecastReport",
    "forecast_json",
    "forecast_text",
    "fraction_json",
    "moves_json",
    "moves_text",
]


@dataclass(frozen=True)
class ForecastReport:
    """One forecast, as the ``forecast`` capability hands it to ``pbem check``."""

    forecast: Forecast
    legend: str  # what the faces in "hits on" mean

    @property
    def state(self) -> Any:
        return self.forecast.state

    @property
    def events(self) -> Sequence[Event]:
        return self.forecast.events

    @property
    def marks(self) -> Sequence[tuple[str, str, str, str]]:
        """Each battle as ``(attacker hex, target hex, kind, "3d")`` for the preview board."""
        return tuple(
            (b.attacker_hex, b.target_hex, b.kind, f"{b.dice}d") for b in self.forecast.battles
        )

    def text(self) -> str:
        return forecast_text(self.forecast, self.legend)

    def to_json(self) -> dict[str, Any]:
        return forecast_json(self.forecast)


def _pct(p: Fraction) -> str:
    return percent(p)


def _dice_text(steps: Sequence[tuple[str, int]]) -> str:
    parts = [f"{n} {what}" if what == "base" else f"{what} -> {n}" for what, n in steps]
    return ", ".join(parts)


def moves_text(moves: Sequence[MoveForecast]) -> list[str]:
    """The lines of a forecast's moves, one a move line (every system's ``check``)."""
    if not moves:
        return ["Moves: none."]
    out = ["Moves (as the referee would carry them out):"]
    for m in moves:
        extra = [x for x in (f"stops: {m.stopped_by}" if m.stopped_by else "", m.note) if x]
        tail = f"  ({'; '.join(extra)})" if extra else ""
        out.append(f"  line {m.line:>3}  {m.who}: {' > '.join(m.path)}{tail}")
    return out


def moves_json(moves: Sequence[MoveForecast]) -> list[dict[str, Any]]:
    """A forecast's moves as ``pbem check --json`` gives them."""
    return [
        {
            "line": m.line,
            "order": m.quote,
            "who": m.who,
            "path": list(m.path),
            "stopped_by": m.stopped_by,
            "note": m.note,
        }
        for m in moves
    ]


def forecast_text(fc: Forecast, legend: str) -> str:
    """The moves, then a table of the battles' dice and odds, then notes by line."""
    out = moves_text(fc.moves)
    out.append("")
    if not fc.battles:
        out.append("Battles: none.")
        return "\n".join(out) + "\n"
    out.append("Battles (no dice rolled; chances for each battle on its own):")
    head = (
        f"  {'line':>4}  {'attacker':<14} {'target':<14} {'dice':>4}  {'hits on':<8} "
        f"{'E[hits]':>7} {'hit':>6} {'elim':>6} {'flag':>6} {'retreat':>7}"
    )
    out.append(head)
    notes: list[str] = []
    for b in fc.battles:
        o = b.odds
        att = b.attacker.split(" ", 1)[-1]
        tgt = b.target.split(" ", 1)[-1]
        out.append(
            f"  {b.line:>4}  {att:<14} {tgt:<14} {b.dice:>4}  {' '.join(b.hit_faces):<8} "
            f"{float(o.expected_hits):>7.2f} {_pct(o.p_hit):>6} {_pct(o.p_eliminate):>6} "
            f"{_pct(o.p_flag):>6} {_pct(o.p_retreat):>7}"
        )
        kind = "fires at" if b.kind == "ranged" else "attacks"
        what = [
            f"{b.attacker} {kind} {b.target} ({b.target_blocks} blocks)",
            f"dice: {_dice_text(b.dice_steps)}",
        ]
        if b.ignored:
            what.append("ignored: " + ", ".join(f"the first {n} {f}" for f, n in b.ignored))
        if b.flag_ignores:
            what.append(f"the target may ignore {b.flag_ignores} flag(s)")
        notes.append(f"line {b.line}: " + "; ".join([*what, *b.notes]) + ".")
    out.append("")
    out.append(
        wrap(
            f"hits on: the faces that score ({legend}). "
            "E[hits]: expected hits; hit: at least one; elim: the target is "
            "eliminated; flag: at least one flag; retreat: more flags than it may "
            "ignore, and not eliminated.",
            78,
            "    ",
            "  ",
        )
    )
    out += [wrap(n, 78, "    ", "  ") for n in notes]
    out += [wrap(f"Note: {n}.", 78, "    ", "  ") for n in fc.notes]
    return "\n".join(out) + "\n"


def fraction_json(p: Fraction) -> dict[str, Any]:
    """A probability as ``{"fraction": "3/10", "value": 0.3}``."""
    return {"fraction": str(p), "value": float(p)}


def forecast_json(fc: Forecast) -> dict[str, Any]:
    """The ``notes``, ``moves`` and ``battles`` of ``pbem check --json``."""
    out: dict[str, Any] = {}
    out["notes"] = list(fc.notes)
    out["moves"] = moves_json(fc.moves)
    out["battles"] = [
        {
            "line": b.line,
            "order": b.quote,
            "kind": b.kind,
            "attacker": b.attacker,
            "attacker_hex": b.attacker_hex,
            "target": b.target,
            "target_hex": b.target_hex,
            "dice": b.dice,
            "dice_steps": [list(s) for s in b.dice_steps],
            "hit_faces": list(b.hit_faces),
            "ignored": {f: n for f, n in b.ignored},
            "target_blocks": b.target_blocks,
            "flag_ignores": b.flag_ignores,
            "expected_hits": fraction_json(b.odds.expected_hits),
            "p_hit": fraction_json(b.odds.p_hit),
            "p_eliminate": fraction_json(b.odds.p_eliminate),
            "p_flag": fraction_json(b.odds.p_flag),
            "p_retreat": fraction_json(b.odds.p_retreat),
            "truncated": fraction_json(b.odds.truncated),
            "notes": list(b.notes),
        }
        for b in fc.battles
    ]
    return out
