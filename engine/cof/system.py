"""Chariots of Fire (GMT's Great Battles of History vol. XIV) behind :class:`GameSystem`.

The game state is :class:`engine.cof.state.CofState`; a turn runs from decision to decision
(:mod:`engine.cof.turn`): the side whose wing is activated mails its Orders Phase
(:mod:`engine.cof.orders`), the other side answers Trump questions or lets its standing
orders answer (:mod:`engine.cof.policy`). One die: the d10, faces 0-9 (cof.md §2.1).
The charts are data (:mod:`engine.cof.tables`); a club plays its own with ``--tables``, and
every prompt says plainly when the charts hold placeholder values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.cof import orders as orders_mod
from engine.cof import turnover
from engine.cof.policy import DEFAULT_STANDING, parse_policy
from engine.cof.position import load_position, write_position
from engine.cof.state import (
    SIDES,
    CofState,
    SideState,
    Unit,
    charts_of,
    clone,
    from_scenario,
    state_from_dict,
    state_to_dict,
)
from engine.cof.steps import Ctx, separate
from engine.cof.tables import bundled, load_cof_text, one_file_schemas
from engine.cof.turn import free_leaders, opening
from engine.cof.view import board
from engine.core.api import Prompt, Question, Resolution
from engine.core.tables import Tables, TableSchema
from engine.randomness import D10, Die, Randomness

__all__ = ["SYSTEM", "CofSystem"]


class CofSystem:
    """Chariots of Fire (stateless; every method works on the state it is given)."""

    name = "cof"
    version = "1"
    title = "Chariots of Fire (Great Battles of History XIV)"
    sides: tuple[str, ...] = SIDES
    dice: Mapping[str, Die] = {D10.name: D10}

    # --- files --------------------------------------------------------------------------

    def load_position(self, text: str) -> CofState:
        return load_position(text)

    def write_position(self, state: CofState) -> str:
        return write_position(state)

    def new_game(
        self,
        position: CofState,
        options: Mapping[str, Any] | None = None,
        rng: Randomness | None = None,
    ) -> CofState:
        """The battle ready for its first Orders Phase (a game in progress is returned as is).
        ``options``: ``turnover`` (true / false) plays the optional Chariot Turnover rule
        (:mod:`engine.cof.turnover`, rulebook §6.8)."""
        s = clone(position)
        for k, v in (options or {}).items():
            if k != turnover.RULE:
                raise ValueError(f"unknown option {k!r}: Chariots of Fire has {turnover.RULE}")
            if not isinstance(v, bool):
                raise ValueError(f"option {k}: true or false, not {v!r}")
            rules = [r for r in s.special_rules if r != k]
            s.special_rules = [*rules, k] if v else rules
        for side in SIDES:
            if not s.sides[side].standing:
                s.sides[side].standing = DEFAULT_STANDING
        if not s.active and not s.pending and not s.result and not s.used and not s.pool:
            opening(s)
        return s

    def start(self, scenario: Any) -> CofState:
        """A new game straight from a :class:`~engine.cof.scenario.spec.CofScenario`."""
        return self.new_game(from_scenario(scenario))

    # --- the turn -----------------------------------------------------------------------

    def prompt(self, state: CofState) -> Prompt:
        s = state
        if s.result:
            text = "The battle is over: " + ("a draw" if s.result == "draw" else f"{s.result} wins")
            return Prompt("over", None, text, result=s.result, turn=s.turn)
        if s.pending:
            p = s.pending
            text, answers, default = orders_mod.question(s)
            q = Question(p["id"], p["side"], text, answers, default, p["step"], p["label"])
            return Prompt("question", p["side"], text, question=q, turn=s.turn)
        a = s.active
        side = a["side"]
        army = s.sides[side].name
        if a["wing"]:
            what = f"wing {a['wing']} takes its Orders Phase"
        else:
            why = {"initiative": "with the Initiative", "momentum": "with its Momentum marker",
                   "trump": "after a Trump"}[a["how"]]  # fmt: skip
            what = f"chooses the wing it activates {why} ({', '.join(a['choices'])})"
            if a["how"] == "momentum" and a["choices"] == ["none"]:
                names = ", ".join(ld.id for ld in free_leaders(s, side))
                what = (
                    "has no wing its Momentum marker may activate: write 'wing none'; "
                    f"{names} may still move (cof.md §5.3)"
                )
        text = f"Turn {s.turn}: {army} ({side}) {what}.{_charts_note(s)}{_options_note(s)}"
        return Prompt("orders", side, text, turn=s.turn)

    def parse_orders(self, state: CofState, side: str, text: str) -> orders_mod.Submission:
        return orders_mod.parse(state, side, text)

    def resolve(
        self, state: CofState, submission: orders_mod.Submission, rng: Randomness
    ) -> Resolution:
        ctx = Ctx(clone(state), rng)
        orders_mod.carry_out(ctx, submission)
        separate(ctx.s)
        return Resolution(ctx.s, tuple(ctx.events))

    # --- what players see ---------------------------------------------------------------

    def legal_actions(self, state: CofState, side: str, card: str | None = None) -> dict[str, Any]:
        """The side's activation markers (``cards``) and its units with their options."""
        from engine.cof.autoplay import unit_options  # noqa: PLC0415

        return {**self.legal_hints(state, side), "units": unit_options(state, side)}

    def legal_hints(self, state: CofState, side: str) -> dict[str, Any]:
        s = state
        out = []
        for marker in [m for m in s.pool + s.used if m.startswith(side + ":")]:
            where = "in the pool" if marker in s.pool else "drawn"
            out.append({"code": marker, "name": f"{marker.split(':', 1)[1]} marker ({where})"})
        if s.active.get("side") == side and not s.active.get("wing"):
            out = [{"code": f"wing {c}", "name": f"activate {c}"} for c in s.active["choices"]]
        return {"cards": sorted(out, key=lambda c: c["code"])}

    def public_view(self, state: CofState) -> dict[str, Any]:
        s = state
        data = state_to_dict(s)
        out: dict[str, Any] = {
            "game_id": s.game_id,
            "title": s.title,
            "turn": s.turn,
            "initiative": s.initiative,
            "active": dict(s.active),
            "pool": list(s.pool),
            "used": list(s.used),
            "result": s.result,
            "sides": {k: _side_view(v) for k, v in s.sides.items()},
            "units": [
                {**u, "markers": _markers(x)} for u, x in zip(data["units"], s.units, strict=True)
            ],
            "leaders": data["leaders"],
            "terrain": dict(s.terrain),
            "elevation": dict(s.elevation),
            "hexsides": [list(x) for x in s.hexsides],
            "map": {"columns": list(s.columns), "rows": list(s.rows)},
            "charts": {"sha256": s.charts.sha256, "placeholders": len(s.charts.placeholders())},
        }
        out["board"] = board(out)
        return out

    def player_view(self, state: CofState, side: str) -> dict[str, Any]:
        v = self.public_view(state)
        v["standing"] = state.sides[side].standing  # (the defaults fill what it leaves out)
        return v

    def masked(self, state: CofState, side: str) -> CofState:
        """Nothing is hidden on a GBoH map but the other side's standing orders (blanked: the
        defaults play for them, :func:`engine.cof.policy.policy_of`)."""
        s = clone(state)
        for other_side in SIDES:
            if other_side != side:
                s.sides[other_side].standing = ""
        return s

    def summary(self, state: CofState) -> str:
        s = state
        pts = ", ".join(
            f"{v.name} {v.points}/{v.withdrawal_level}" for v in (s.sides[x] for x in SIDES)
        )
        p = self.prompt(s)
        tail = p.text if p.kind == "over" else f"{p.side} to {'answer' if p.question else 'move'}"
        return f"Turn {s.turn}: withdrawal points {pts}; {tail}"

    def to_json(self, state: CofState) -> str:
        return json.dumps(state_to_dict(state), sort_keys=True, separators=(",", ":"))

    def from_json(self, text: str) -> CofState:
        return state_from_dict(json.loads(text))

    def orders_template(self, state: CofState, side: str) -> str:
        s = state
        head = f"game {s.game_id}\nturn {s.turn}\nside {side}\n"
        if s.pending and s.pending["side"] == side:
            _, answers, default = orders_mod.question(s)
            return head + f"# answers: {', '.join(answers)} (default {default})\nanswer {default}\n"
        a = s.active
        if a.get("side") != side:
            return head + "# not your Orders Phase: standing orders only\n"
        lines = [head.rstrip("\n")]
        if not a["wing"]:
            lines.append(f"# choose: {', '.join(a['choices'])}")
            lines.append(f"wing {a['choices'][0]}")
        lines.append("order move")
        wing = a["wing"] or a["choices"][0]
        for u in s.live(side):
            if u.wing == wing:
                about = f"{u.type}, TQ {u.tq}, MA {u.ma}, faces {u.facing}"
                lines.append(f"# move {u.id} {u.hex} ...  ({about})")
        lines.append("pass")
        return "\n".join(lines) + "\n"

    def parse_standing_orders(self, text: str) -> Any:
        return parse_policy(text)

    def card_name(self, code: str) -> str:
        return code

    # --- capabilities -------------------------------------------------------------------

    def capability(self, name: str) -> object | None:
        if name == "tables":
            return _TABLES
        if name == "autoplay":
            from engine.cof.autoplay import AutoPlayer  # noqa: PLC0415

            return AutoPlayer(self)
        if name == "forecast":
            from engine.cof.forecast import Forecaster  # noqa: PLC0415

            return Forecaster()
        if name == "picture":
            from engine.cof.view import CofPicture  # noqa: PLC0415

            return CofPicture()
        if name == "playout":
            from engine.cof.playout import CofPlayout  # noqa: PLC0415

            return CofPlayout(self)
        if name == "scenarios":
            from engine.cof import scenario  # noqa: PLC0415

            checker = getattr(scenario, "ScenarioChecker", None)
            return checker() if checker is not None else None
        return None


def _markers(u: Unit) -> list[str]:
    """The information markers on a counter (cof.md §2.6), as the picture names them."""
    flags = ("moved", "engaged", "routed", "rallied", "column", "out_of_command")
    out = [f for f in flags if getattr(u, f)]
    if u.supply != "full":
        out.append(f"missile_{u.supply}")
    return out


def _side_view(v: SideState) -> dict[str, Any]:
    return {
        "army": v.name,
        "points": v.points,
        "withdrawal_level": v.withdrawal_level,
        "standard": v.standard,
        "wings": list(v.wings),
    }


def _charts_note(s: CofState) -> str:
    n = len(s.charts.placeholders())
    if not n:
        return ""
    return (
        f" These charts hold {n} placeholder values (cof.md Appendix A), not the printed "
        "player aids: a club that owns the game plays its own with --tables."
    )


def _options_note(s: CofState) -> str:
    if not turnover.playing(s):
        return ""
    return (
        " Optional rule: Chariot Turnover (rulebook §6.8): a moving chariot declares its Speed"
        " (move E1 speed 7 ...; the MP it uses by default) and rolls on turning."
    )


class _ChartProvider:
    """The ``tables`` capability: the charts as one ``pbem-tables/1`` file (docs/tables.md)."""

    def schemas(self) -> tuple[TableSchema, ...]:
        return one_file_schemas(self.default_text())

    def default_text(self) -> str:
        return bundled().tables.text

    def load(self, text: str) -> Tables:
        return load_cof_text(text).tables

    def with_tables(self, state: CofState, tables: Tables) -> CofState:
        s = clone(state)
        s.tables_text = "" if tables.sha256 == bundled().sha256 else tables.text
        charts_of(s.tables_text)
        return s

    def tables_of(self, state: CofState) -> Tables:
        return state.charts.tables


_TABLES = _ChartProvider()

SYSTEM = CofSystem()
"""The Chariots of Fire system object (registered in :mod:`engine.systems`)."""
