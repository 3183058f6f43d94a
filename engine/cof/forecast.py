"""What a checked Chariots of Fire submission would do, without rolling a die (``pbem check``).

:func:`forecast` carries out the order lines as :func:`engine.cof.orders.parse` checks them (a
dry :class:`~engine.cof.phase.Phase`: units move, nothing is rolled, the inactive side does
not react), then asks the engine itself for the numbers:

* each ``fire`` line: the engine's own volley (:meth:`Phase.volley`) run on a copy of the
  board for each face of its d10, giving the range, the die-roll modifier and the hits of
  every roll, and whether the target routs;
* each shock the orders bring (the designation is the engine's: the Shock Segment,
  :func:`engine.cof.shocks.shock_segment`, run on a copy with the player's own ``attack``
  lines when he wrote them, else pbem's target plan): the Clash of Arms column
  (:func:`engine.cof.shock.base_column`), the column after the shifts, the superiority,
  the leaders' and heroes' modifier, the result of every d10 on the Shock CRT, and the
  chances of a pre-shock TQ check failing and of the defender routing (its hits reaching
  its TQ), enumerating the shock's pre-shock checks and its roll together.

The odds are exact fractions: every face of the fire's d10; for a shock, every face of its
roll with every outcome of its pre-shock checks (the faces of a check that end the segment
alike are taken together, :func:`_classes`); every other roll of the run (leader casualties,
rout rolls, the other shocks) gets a face that passes or spares (:func:`_neutral`). The
faces are served by what each d10 is for as data (:class:`engine.cof.steps.Roll`, on a
:class:`_Probe` resolution), never by the text of its purpose. Each
fire is computed on the board as it stands after the lines before it, each shock on the
board after every move and fire, without the results of the other shocks or of any fire.
Nothing here restates a rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from copy import copy
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product, repeat
from typing import Any

from engine.cc.forecast_text import fraction_json, moves_json, moves_text
from engine.cc.odds import MoveForecast, percent
from engine.cof import cohesion, orders
from engine.cof.firing import pick_problem
from engine.cof.phase import Action, Phase
from engine.cof.shock import base_column
from engine.cof.shocks import Plan, shock_segment
from engine.cof.state import CofState, Unit, clone, state_to_dict
from engine.cof.steps import Ctx, Roll, chart_type
from engine.core.api import Event
from engine.core.text import wrap
from engine.gboh.grid import GHex
from engine.randomness import D10, Die

__all__ = ["CofForecast", "FireForecast", "Forecaster", "ShockForecast", "forecast"]

FACES = D10.faces


@dataclass(frozen=True)
class FireForecast:
    """One ``fire`` line: range, modifier and the chance of each number of hits."""

    line: int
    quote: str
    unit: str
    hex: str
    weapon: str
    target: str  # the target hex
    target_units: tuple[str, ...]
    range: int
    drm: int
    hits_by_roll: tuple[int, ...]  # hits for each unmodified d10 face 0-9
    hits: tuple[tuple[int, Fraction], ...]  # (hits, chance), fewest first
    p_rout: Fraction  # a target unit routs (or is eliminated)


@dataclass(frozen=True)
class ShockForecast:
    """One shock the orders bring, as the Shock Segment would fight it."""

    attackers: tuple[str, ...]
    attacker_hexes: tuple[str, ...]
    defenders: tuple[str, ...]  # the defending hexes
    defender_units: tuple[str, ...]
    attacker_type: str
    defender_type: str
    base: int
    column: int
    superiority: str
    drm: int
    results: tuple[tuple[int, int] | None, ...]  # (attacker, defender) hits per d10 face
    checks: tuple[tuple[str, Fraction], ...]  # (attacker, chance its pre-shock check fails)
    p_no_shock: Fraction  # no attacker left to shock (every check failed)
    attacker_hits: tuple[tuple[int, Fraction], ...]
    defender_hits: tuple[tuple[int, Fraction], ...]
    p_defender_routs: Fraction
    p_attacker_routs: Fraction


@dataclass
class CofForecast:
    """The forecast of one Orders Phase (the ``forecast`` capability's report)."""

    side: str
    wing: str
    moves: tuple[MoveForecast, ...]
    fires: tuple[FireForecast, ...]
    shocks: tuple[ShockForecast, ...]
    state: Any  # the board after every move line, before any die
    events: Sequence[Event]  # the moves, for the preview board
    notes: tuple[str, ...] = ()

    @property
    def marks(self) -> Sequence[tuple[str, str, str, str]]:
        """Each fire and shock as ``(from hex, target hex, kind, label)``."""
        out = [(f.hex, f.target, "ranged", f"{f.weapon} {f.range}") for f in self.fires]
        for s in self.shocks:
            out += [(s.attacker_hexes[0], h, "close", f"col {s.column}") for h in s.defenders]
        return tuple(out)

    def text(self) -> str:
        return forecast_text(self)

    def to_json(self) -> dict[str, Any]:
        return forecast_json(self)


class Forecaster:
    """The ``forecast`` capability (:mod:`engine.core.capabilities`)."""

    def forecast(self, state: CofState, side: str, submission: Any) -> CofForecast | None:
        return forecast(state, side, submission)


# --- the dice served while enumerating ---------------------------------------------------


def _neutral(s: CofState) -> Callable[[Roll], str]:
    """The face a roll that is not being enumerated gets: 0 passes every TQ check and rout
    roll (cof.md §9.1: at most the TQ passes); a leader's casualty check gets the first face
    that leaves him unhurt on the charts played."""
    spare = next(
        (
            f
            for f in FACES
            if cohesion.leader_casualty(s.charts, "shock", repeat(int(f)), 0) == "unhurt"
            and cohesion.leader_casualty(s.charts, "missile", repeat(int(f)), 0) == "unhurt"
        ),
        "0",
    )

    def face(roll: Roll) -> str:
        if roll.kind == "casualty check":
            return spare
        # an aggression reaction (cof.md §8.10) passes at most the TQ: 9 leaves the shock be
        return "9" if roll.kind == "aggression reaction" else "0"

    return face


def _zero(roll: Roll) -> str:
    return "0"


class _NoDice:
    """The dice of a forecast's resolution: none is ever rolled (:class:`_Probe` serves
    every face)."""

    def roll(self, die: Die, count: int, purpose: str) -> tuple[str, ...]:
        raise AssertionError(f"the odds roll no die ({purpose})")

    def permutation(self, n: int, purpose: str) -> tuple[int, ...]:
        raise AssertionError(f"the odds roll no die ({purpose})")


@dataclass
class _Probe(Ctx):
    """A resolution that rolls no die: each d10 gets the face ``faces`` gives its
    :class:`~engine.cof.steps.Roll`, else a neutral one; it records every roll asked."""

    faces: dict[Roll, str] = field(default_factory=dict)
    neutral: Callable[[Roll], str] = _zero
    asked: list[Roll] = field(default_factory=list)

    def d10(self, purpose: str, roll: Roll | None = None) -> int:
        key = roll if roll is not None else Roll("")
        self.asked.append(key)
        return int(self.faces.get(key) or self.neutral(key))


def _live(ph: Phase, faces: dict[Roll, str], neutral: Callable[[Roll], str]) -> Phase:
    """A copy of the dry phase ``ph`` on a copy of its board whose d10 are ``faces``."""
    out = copy(ph)  # no __post_init__: command stays as at the start of the phase
    out.s = clone(ph.s)
    out.ctx = _Probe(out.s, _NoDice(), faces=faces, neutral=neutral)
    out.hooks = None
    out.moved, out.fired, out.acted = set(ph.moved), set(ph.fired), set(ph.acted)
    out.turned, out.withdrew, out.faced = set(ph.turned), set(ph.withdrew), set(ph.faced)
    out.shock, out.fronting, out.picks = list(ph.shock), dict(ph.fronting), dict(ph.picks)
    return out


def _asked(live: Phase) -> list[Roll]:
    assert isinstance(live.ctx, _Probe)
    return live.ctx.asked


def _broken(s: CofState, ids: Sequence[str]) -> bool:
    """Whether any of the units ``ids`` routed or left the map."""
    return any(s.unit(i).routed or not s.unit(i).on_map for i in ids)


def _spread(dist: dict[tuple[Any, ...], Fraction], i: int) -> tuple[tuple[int, Fraction], ...]:
    got: dict[int, Fraction] = {}
    for key, p in dist.items():
        got[key[i]] = got.get(key[i], Fraction(0)) + p
    return tuple(sorted(got.items()))


# --- the forecast ------------------------------------------------------------------------


def forecast(state: CofState, side: str, sub: Any) -> CofForecast | None:
    """Describe what ``sub`` (accepted by :func:`engine.cof.orders.parse`) would do; roll
    nothing. None for an answer or standing orders."""
    if getattr(sub, "kind", "") != "orders":
        return None
    s = state
    notes = [_charts_note(s)] if s.charts.placeholders() else []
    wing = s.active.get("wing") or sub.wing
    if wing in ("pool", "none"):
        notes.append("no wing is activated: nothing moves, fires or shocks")
        return CofForecast(side, wing, (), (), (), s, (), tuple(notes))
    if s.active.get("how") == "momentum":
        notes.append("a Momentum activation is rolled for first (cof.md §5.3): it may fail")
    ph = Phase(clone(s), side, wing, sub.order)
    neutral = _neutral(s)
    moves: list[MoveForecast] = []
    fires: list[FireForecast] = []
    events: list[Event] = []
    for x in orders.in_order(sub.actions):
        if x.verb == "fire":
            fires.append(_fire(ph, x, neutral))
        before = _positions(ph.s)
        problem = orders.do_order(ph, x)
        if problem is not None:
            raise ValueError(f"line {x.line}: {problem}")
        if x.verb == "move":
            m, e = _move(ph, x, before)
            moves.append(m)
            events += e
    shocks = _shocks(ph, orders.plan_of(sub.actions), neutral)
    notes.append(
        "no die rolled; the inactive side's reactions (orderly withdrawal, reaction fire) "
        "are not played; each fire on the board after the lines before it, each shock on "
        "the board after every move, without the results of any fire or other shock"
    )
    return CofForecast(
        side, wing, tuple(moves), tuple(fires), tuple(shocks), ph.s, tuple(events), tuple(notes)
    )


def _charts_note(s: CofState) -> str:
    n = len(s.charts.placeholders())
    return (
        f"these odds come from charts holding {n} placeholder values (cof.md Appendix A), "
        "not the printed player aids: a club that owns the game plays its own with --tables"
    )


def _positions(s: CofState) -> dict[str, tuple[str, str]]:
    return {u.id: (u.hex, u.facing) for u in s.units} | {ld.id: (ld.hex, "") for ld in s.leaders}


def _move(
    ph: Phase, x: Action, before: dict[str, tuple[str, str]]
) -> tuple[MoveForecast, list[Event]]:
    after = _positions(ph.s)
    who = next((k for k in before if before[k] != after[k] and k.lower() in _names(ph, x)), None)
    if who is None:
        found = ph.find(x.who)
        name = found.id if found is not None else x.who
        return MoveForecast(x.line, x.quote, name, (before.get(name, ("", ""))[0],)), []
    start, end = before[who][0], after[who][0]
    path = (start, *[h for h in _hexes(x.args) if h != start])
    facing = after[who][1]
    note = f"faces {facing}" if facing else ""
    data = {"unit": who, "side": ph.side, "from": start, "to": end, "facing": facing}
    event = Event("move", f"{who} moves {start} -> {end}", data, ())
    return MoveForecast(x.line, x.quote, who, path, None, note), [event]


def _names(ph: Phase, x: Action) -> set[str]:
    found = ph.find(x.who)
    return {x.who.lower()} | ({found.id.lower()} if found is not None else set())


def _hexes(args: Sequence[str]) -> list[str]:
    out = []
    for a in args:
        try:
            out.append(str(GHex.parse(a)))
        except ValueError:
            continue
    return out


def _fire(ph: Phase, x: Action, neutral: Callable[[Roll], str]) -> FireForecast:
    u = ph.find(x.who)
    if not isinstance(u, Unit) or len(x.args) not in (1, 2):
        raise ValueError(f"line {x.line}: not a fire order the referee accepts")
    pick = x.args[1].lower() if len(x.args) == 2 else ""
    problem = ph.fire_problem(u, x.args[0]) or pick_problem(ph, x.args[0], pick)
    if problem:
        raise ValueError(f"line {x.line}: {problem}")
    target = str(GHex.parse(x.args[0]))
    ids: tuple[str, ...] = ()  # the counters hit (of a CH-2 with runners: one, §7.13)
    first = Roll("fire", u.id, target)
    runs: list[tuple[int, int, int, bool]] = []  # per face: hits, modified, range, broken
    for f in FACES:
        live = _live(ph, {first: f}, neutral)
        if pick:
            live.picks[u.id] = pick
        live.volley(live.s.unit(u.id), target, "fire")
        assert live.ctx is not None
        e = next(e for e in live.ctx.events if e.kind == "fire")
        d = e.data
        ids = tuple(str(i) for i in d["hit"])
        runs.append((int(d["hits"]), int(d["modified"]), int(d["range"]), _broken(live.s, ids)))
    each = Fraction(1, len(FACES))
    dist: dict[tuple[Any, ...], Fraction] = {}
    for hits, _, _, broken in runs:
        dist[hits, broken] = dist.get((hits, broken), Fraction(0)) + each
    return FireForecast(
        line=x.line,
        quote=x.quote,
        unit=u.id,
        hex=u.hex,
        weapon=u.missile,
        target=target,
        target_units=ids,
        range=runs[0][2],
        drm=runs[0][1] - int(FACES[0]),
        hits_by_roll=tuple(r[0] for r in runs),
        hits=_spread(dist, 0),
        p_rout=sum((p for k, p in dist.items() if k[1]), Fraction(0)),
    )


# --- shocks ------------------------------------------------------------------------------


def _run_segment(
    ph: Phase, plan: Plan, faces: dict[Roll, str], neutral: Callable[[Roll], str]
) -> Phase:
    """The Shock Segment of ``plan`` (the player's ``attack`` lines, or none: pbem's) played
    on a copy of the board with the d10 faces given."""
    live = _live(ph, faces, neutral)
    shock_segment(live, plan)
    return live


def _shock_events(live: Phase) -> Iterator[Event]:
    assert live.ctx is not None
    return (e for e in live.ctx.events if e.kind == "shock")


def _this_shock(live: Phase, hexes: Sequence[str]) -> Event | None:
    return next((x for x in _shock_events(live) if set(x.data["defenders"]) & set(hexes)), None)


def _shocks(ph: Phase, plan: Plan, neutral: Callable[[Roll], str]) -> list[ShockForecast]:
    seen = _run_segment(ph, plan, {}, neutral)
    asked = _asked(seen)
    rolls = [r for r in asked if r.kind == "shock"]
    return [
        _shock(ph, plan, e, roll, neutral=neutral, asked=asked)
        for e, roll in zip(_shock_events(seen), rolls, strict=False)
    ]


def _classes(
    ph: Phase, plan: Plan, roll: Roll, neutral: Callable[[Roll], str]
) -> list[tuple[str, Fraction]]:
    """The faces of a check's roll that end the segment alike (the others rolling neutral),
    as (one of them, their chance): a TQ check has a pass class and a fail class or two."""
    groups: dict[str, list[str]] = {}
    for f in FACES:
        live = _run_segment(ph, plan, {roll: f}, neutral)
        key = json.dumps(state_to_dict(live.s), sort_keys=True)
        groups.setdefault(key, []).append(f)
    return [(fs[0], Fraction(len(fs), len(FACES))) for fs in groups.values()]


def _shock(
    ph: Phase,
    plan: Plan,
    e: Event,
    roll: Roll,
    *,
    neutral: Callable[[Roll], str],
    asked: Sequence[Roll],
) -> ShockForecast:
    s = ph.s
    attackers = tuple(str(a) for a in e.data["attackers"])
    hexes = tuple(str(h) for h in e.data["defenders"])
    d_units = tuple(d.id for h in hexes for d in s.units_at(h) if d.side != ph.side)
    a_units = tuple(
        {m.id: None for a in attackers for m in ph.stack(s.unit(a))}
    )  # a chariot and its runners share the attacker's hits
    lead = s.unit(roll.who)
    target = next(d for d in s.units_at(roll.at) if d.side != ph.side)
    a_type, d_type = chart_type(s, lead), chart_type(s, target)
    checked = [a for a in attackers if Roll("pre-shock check", a) in asked]
    checks = [Roll("pre-shock check", a) for a in checked]
    checks += [r for r in (Roll("defender check", d) for d in d_units) if r in asked]
    choices = [_classes(ph, plan, r, neutral) for r in checks]
    choices.append([(f, Fraction(1, len(FACES))) for f in FACES])
    dist: dict[tuple[int, ...], Fraction] = {}
    results: dict[str, tuple[int, int] | None] = {}
    for combo in product(*choices):
        faces = dict(zip([*checks, roll], (f for f, _ in combo), strict=True))
        chance = Fraction(1)
        for _, p in combo:
            chance *= p
        live = _run_segment(ph, plan, faces, neutral)
        assert live.ctx is not None
        got = _this_shock(live, hexes)
        hits = (int(got.data["attacker_hits"]), int(got.data["defender_hits"])) if got else None
        if all(f == neutral(r) for r, f in faces.items() if r != roll):
            results[faces[roll]] = hits
        failed = {
            str(x.data["unit"])
            for x in live.ctx.events
            if x.kind == "pre-shock" and x.data.get("passed") is False
        }
        key = (
            *(hits or (-1, -1)),
            sum(1 << i for i, a in enumerate(checked) if a in failed),
            int(_broken(live.s, d_units)),
            int(_broken(live.s, a_units)),
        )
        dist[key] = dist.get(key, Fraction(0)) + chance
    fought = {k: p for k, p in dist.items() if k[0] >= 0}
    return ShockForecast(
        attackers=attackers,
        attacker_hexes=tuple(s.unit(a).hex for a in attackers),
        defenders=hexes,
        defender_units=d_units,
        attacker_type=a_type.code,
        defender_type=d_type.code,
        base=base_column(s.charts, a_type, d_type),
        column=int(e.data["column"]),
        superiority=str(e.data["superiority"]),
        drm=int(e.data["modified"]) - int(neutral(roll)),
        results=tuple(results.get(f) for f in FACES),
        checks=tuple(
            (a, sum((p for k, p in dist.items() if k[2] >> i & 1), Fraction(0)))
            for i, a in enumerate(checked)
        ),
        p_no_shock=sum((p for k, p in dist.items() if k[0] < 0), Fraction(0)),
        attacker_hits=_spread(fought, 0),
        defender_hits=_spread(fought, 1),
        p_defender_routs=sum((p for k, p in dist.items() if k[3]), Fraction(0)),
        p_attacker_routs=sum((p for k, p in dist.items() if k[4]), Fraction(0)),
    )


# --- text --------------------------------------------------------------------------------


def _rolls(values: Sequence[Any]) -> str:
    """``0-2: 1 (2), 3-9: 0 (1)``: runs of faces with the same value."""
    out, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            faces = f"{start}" if i - 1 == start else f"{start}-{i - 1}"
            v = values[start]
            shown = "no shock" if v is None else (f"{v[0]} ({v[1]})" if isinstance(v, tuple) else v)
            out.append(f"{faces}: {shown}")
            start = i
    return ", ".join(out)


def _chances(spread: Sequence[tuple[int, Fraction]]) -> str:
    return ", ".join(f"{n} {percent(p)}" for n, p in spread)


def forecast_text(fc: CofForecast) -> str:
    """The moves, each fire and each shock with its odds, then the notes."""
    out = moves_text(fc.moves)
    out.append("")
    if fc.fires:
        out.append("Missile fire (no die rolled; the d10 is 0-9):")
        for f in fc.fires:
            out.append(
                f"  line {f.line:>3}  {f.unit} ({f.weapon}) at {f.target} "
                f"({', '.join(f.target_units)}): range {f.range}, DRM {f.drm:+d}"
            )
            out.append(wrap(f"hits by roll: {_rolls(f.hits_by_roll)}", 78, "      ", "      "))
            out.append(wrap(f"chance of hits: {_chances(f.hits)}; the target routs "
                            f"{percent(f.p_rout)}", 78, "      ", "      "))  # fmt: skip
        out.append("")
    if not fc.shocks:
        out.append("Shocks: none.")
    else:
        out.append("Shocks (the Shock Segment after the moves; each on its own):")
        for k in fc.shocks:
            out += _shock_lines(k)
    out += [wrap(f"Note: {n}.", 78, "    ", "  ") for n in fc.notes]
    return "\n".join(out) + "\n"


SUPERIORITY = {
    "AS": "attacker superior (the defender's hits doubled)",
    "DS": "defender superior (the attacker's hits tripled)",
}


def _shock_lines(k: ShockForecast) -> list[str]:
    def para(text: str) -> str:
        return wrap(text, 78, "      ", "      ")

    shift = k.column - k.base
    column = f"clash of arms column {k.base}"
    if shift:
        column += f", shifted {shift:+d} to column {k.column}"
    sup = SUPERIORITY.get(k.superiority, "no superiority")
    out = [
        f"  {', '.join(k.attackers)} ({k.attacker_type}) on "
        f"{', '.join(k.defender_units)} in {', '.join(k.defenders)} ({k.defender_type})",
        para(f"{column}; {sup}; leaders and heroes DRM {k.drm:+d}"),
        para(f"result by roll, attacker (defender) hits: {_rolls(k.results)}"),
    ]
    out += [f"      {a} must pass a pre-shock TQ check: fails {percent(p)}" for a, p in k.checks]
    if k.p_no_shock:
        out.append(f"      no shock (attackers held back, defenders gone): {percent(k.p_no_shock)}")
    out.append(
        para(
            f"hits to the attackers: {_chances(k.attacker_hits)}; "
            f"to the defenders: {_chances(k.defender_hits)}"
        )
    )
    out.append(
        f"      the defender routs {percent(k.p_defender_routs)}; "
        f"the attacker routs {percent(k.p_attacker_routs)}"
    )
    return out


def _spread_json(spread: Sequence[tuple[int, Fraction]]) -> list[dict[str, Any]]:
    return [{"hits": n, "chance": fraction_json(p)} for n, p in spread]


def forecast_json(fc: CofForecast) -> dict[str, Any]:
    """``notes``, ``moves``, ``battles`` (each fire and shock) for ``pbem check --json``."""
    battles: list[dict[str, Any]] = [
        {
            "line": f.line,
            "order": f.quote,
            "kind": "ranged",
            "attacker": f.unit,
            "attacker_hex": f.hex,
            "target_hex": f.target,
            "targets": list(f.target_units),
            "weapon": f.weapon,
            "range": f.range,
            "drm": f.drm,
            "hits_by_roll": list(f.hits_by_roll),
            "hits": _spread_json(f.hits),
            "p_rout": fraction_json(f.p_rout),
        }
        for f in fc.fires
    ]
    battles += [
        {
            "kind": "shock",
            "attackers": list(k.attackers),
            "attacker_hexes": list(k.attacker_hexes),
            "defender_hexes": list(k.defenders),
            "defenders": list(k.defender_units),
            "attacker_type": k.attacker_type,
            "defender_type": k.defender_type,
            "base_column": k.base,
            "column": k.column,
            "superiority": k.superiority,
            "drm": k.drm,
            "results_by_roll": [list(r) if r else None for r in k.results],
            "pre_shock_fails": {a: fraction_json(p) for a, p in k.checks},
            "p_no_shock": fraction_json(k.p_no_shock),
            "attacker_hits": _spread_json(k.attacker_hits),
            "defender_hits": _spread_json(k.defender_hits),
            "p_defender_routs": fraction_json(k.p_defender_routs),
            "p_attacker_routs": fraction_json(k.p_attacker_routs),
        }
        for k in fc.shocks
    ]
    return {"notes": list(fc.notes), "moves": moves_json(fc.moves), "battles": battles}
