"""The rules a Chariots of Fire rules case may call (``do``), each answering as text.

Every adapter reads the case's ``args`` and calls one pure rule of ``engine/cof``; results
are written plainly: ``yes`` / ``no``, numbers, hex ids separated by spaces, ``none``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.cof import (
    cohesion,
    elevation,
    missile,
    movement,
    reaction,
)
from engine.cof.pieces import Chief, Ground, Piece
from engine.cof.tables import CofTables
from engine.gboh.grid import GHex, front_hexes, sectors

H = GHex.parse


@dataclass
class Ctx:
    charts: CofTables
    pieces: list[Piece]
    chiefs: list[Chief]
    ground: Ground

    def unit(self, ident: str) -> Piece:
        return next(p for p in self.pieces if p.id == ident)

    def chief(self, ident: str) -> Chief:
        return next(c for c in self.chiefs if c.id == ident)

    def units(self, ids: str | list[str]) -> list[Piece]:
        names = ids.split() if isinstance(ids, str) else ids
        return [self.unit(i) for i in names]

    def type(self, code: str) -> Any:
        return self.charts.types[code]


def num(c: Ctx, v: int | str) -> int:
    """A number, or a chart value named ``table row field`` (e.g. ``types CH2 ma``)."""
    if isinstance(v, int):
        return v
    table, row, field = v.split()
    return int(c.charts.tables.table(table)[row][field])


def yn(v: object) -> str:
    return "yes" if v else "no"


def hexes(hs: Any) -> str:
    if hs is None:
        return "none"
    return " ".join(str(h) for h in hs) or "none"


def ids(xs: Any) -> str:
    return " ".join(xs) or "none"


def opt(v: int | None) -> str:
    return "no" if v is None else str(v)


# --- §2, §6 movement ---------------------------------------------------------------------


def _trace(c: Ctx, a: dict[str, Any]) -> str:
    u = c.unit(a["unit"])
    enemies = [p for p in c.pieces if p.side != u.side]
    t = movement.trace_move(
        c.charts,
        c.type(u.type),
        u.hex,
        u.facing,
        a["steps"].split(),
        ma=a.get("ma", u.ma),
        terrain=c.ground.kind,
        hexsides=c.ground.hexsides,
        enemy_fronts=movement.enemy_front_hexes((e.hex, e.facing) for e in enemies),
        blocked=frozenset(e.hex for e in enemies if not e.chariot or not u.chariot),
        friends=frozenset(p.hex for p in c.pieces if p.side == u.side and p.id != u.id),
        enemy_chariots=frozenset(e.hex for e in enemies if e.chariot and u.chariot),
        in_column=u.column,
    )
    out = f"{t.hex} {t.facing} mp={t.mp} hits={t.hits}"
    return f"{out} stop: {t.problem}" if t.problem else out


def _entry_cost(c: Ctx, a: dict[str, Any]) -> str:
    got = movement.entry_cost(
        c.charts,
        c.type(a["type"]),
        a["terrain"],
        a.get("hexsides", []),
        climb=a.get("climb", False),
        through_friend=a.get("through_friend", False),
        column=a.get("column"),
    )
    return "prohibited" if got is None else str(got)


def _terrain_hits(c: Ctx, a: dict[str, Any]) -> str:
    return str(
        movement.terrain_hits(
            c.charts,
            c.type(a["type"]),
            a["terrain"],
            a.get("hexsides", []),
            in_column=a.get("column", False),
        )
    )


def _turn_hits(c: Ctx, a: dict[str, Any]) -> str:
    return str(
        movement.turn_hits(
            c.charts,
            c.type(a["type"]),
            a["terrain"],
            a["vertices"],
            in_column=a.get("column", False),
        )
    )


def _facing_cost(c: Ctx, a: dict[str, Any]) -> str:
    return str(movement.facing_cost(c.charts, a["from"], a["to"]))


def _start_allowance(c: Ctx, a: dict[str, Any]) -> str:
    got = movement.start_turn_allowance(a["ma"], a["fronting"])
    return "any" if got is None else str(got)


def _ooc_enter(c: Ctx, a: dict[str, Any]) -> str:
    enemies = frozenset(p.hex for p in c.pieces if p.side != a["side"])
    return yn(movement.out_of_command_may_enter(H(a["hex"]), enemies))


def _column_ma(c: Ctx, a: dict[str, Any]) -> str:
    return str(movement.column_ma(c.charts, a["ma"], a["column"]))


def _moved_hits(c: Ctx, a: dict[str, Any]) -> str:
    return str(movement.moved_again_hits(c.charts, c.type(a["type"]), a["moved"]))


def _ow_allowance(c: Ctx, a: dict[str, Any]) -> str:
    return str(movement.withdrawal_allowance(num(c, a["own"]), num(c, a["enemy"])))


# --- §6.4, §6.5, §7.7-§7.10, §8.10 reactions ------------------------------------------------


def _ow_roll(c: Ctx, a: dict[str, Any]) -> str:
    u = c.unit(a["unit"])
    got = cohesion.orderly_withdrawal(
        c.charts,
        c.type(u.type),
        u.tq,
        a["dr"],
        wc_ability=a.get("wc", 0),
        oc_charisma=a.get("oc", 0),
    )
    return f"{'may' if got.passed else 'may not'} hits={got.hits}"


def _ow_eligible(c: Ctx, a: dict[str, Any]) -> str:
    return yn(reaction.withdrawal_eligible(c.charts, c.unit(a["unit"]), c.unit(a["mover"])))


def _ow_triggered(c: Ctx, a: dict[str, Any]) -> str:
    got = reaction.withdrawal_triggered(
        c.charts,
        c.pieces,
        c.unit(a["mover"]),
        H(a["entered"]),
        first_step=a.get("first_step", False),
    )
    return ids(sorted(p.id for p in got))


def _approach_hit(c: Ctx, a: dict[str, Any]) -> str:
    return str(reaction.approach_hit(c.charts, c.unit(a["unit"]), H(a["approach"])))


def _ow_hexes(c: Ctx, a: dict[str, Any]) -> str:
    got = reaction.withdrawal_hexes(
        c.charts,
        c.ground,
        c.pieces,
        c.unit(a["unit"]),
        mover_hex=H(a["mover_hex"]),
        allowance=a["allowance"],
    )
    return " ".join(f"{h}:{mp}" for h, mp in sorted(got.items())) or "none"


def _reaction_facing(c: Ctx, a: dict[str, Any]) -> str:
    return yn(
        reaction.reaction_facing_allowed(
            c.charts, c.unit(a["unit"]), c.unit(a["mover"]), c.pieces, used=a.get("used", False)
        )
    )


def _reaction_facing_hits(c: Ctx, a: dict[str, Any]) -> str:
    return str(reaction.reaction_facing_hits(c.charts, c.unit(a["unit"]), a["dr"]))


def _entry_fire(c: Ctx, a: dict[str, Any]) -> str:
    return opt(
        reaction.entry_fire(
            c.charts,
            c.unit(a["firer"]),
            c.unit(a["mover"]),
            returned_at_mover=a.get("returned", False),
            mover_passing_other=a.get("passing_other", False),
            mover_reacting=a.get("reacting", False),
        )
    )


def _leaving_fire(c: Ctx, a: dict[str, Any]) -> str:
    return opt(reaction.leaving_fire(c.charts, c.unit(a["firer"]), c.unit(a["mover"])))


def _retreat_fire(c: Ctx, a: dict[str, Any]) -> str:
    return opt(
        reaction.retreat_fire(
            c.charts, c.unit(a["firer"]), c.unit(a["trigger"]), fired=a.get("fired", False)
        )
    )


def _return_fire(c: Ctx, a: dict[str, Any]) -> str:
    return opt(
        reaction.return_fire(
            c.charts,
            c.unit(a["firer"]),
            c.unit(a["shooter"]),
            entry_fired_at_shooter=a.get("entry_fired", False),
            pass_through=a.get("pass_through", False),
        )
    )


def _pass_targets(c: Ctx, a: dict[str, Any]) -> str:
    return ids(reaction.pass_through_targets(c.unit(a["passed"])))


def _fr_path(c: Ctx, a: dict[str, Any]) -> str:
    return hexes(
        reaction.fire_and_run_path(
            c.charts,
            c.ground,
            c.pieces,
            c.unit(a["unit"]),
            c.unit(a["target"]),
            in_command=a.get("in_command", True),
        )
    )


def _fr_reply(c: Ctx, a: dict[str, Any]) -> str:
    return opt(reaction.fire_and_run_reply(c.charts, c.unit(a["target"]), H(a["end"])))


def _shock_shifts(c: Ctx, a: dict[str, Any]) -> str:
    got = elevation.shock_shifts(
        c.charts,
        c.ground,
        [H(h) for h in a["defenders"].split()],
        [H(h) for h in a["attackers"].split()],
        chariots_attack=a.get("chariots", False),
    )
    return " ".join(got) or "none"


def _fr_targets(c: Ctx, a: dict[str, Any]) -> str:
    return ids(reaction.fire_and_run_targets(c.charts, c.ground, c.pieces, c.unit(a["unit"])))


def _ar_fire(c: Ctx, a: dict[str, Any]) -> str:
    got = reaction.aggression_against_fire(c.charts, c.unit(a["reactor"]), c.unit(a["firer"]))
    return got or "no"


def _ar_fire_roll(c: Ctx, a: dict[str, Any]) -> str:
    return yn(cohesion.aggression_vs_fire(c.charts, a["tq"], a["dr"], a["distance"]))


def _ar_shock(c: Ctx, a: dict[str, Any]) -> str:
    return yn(reaction.aggression_against_shock(c.unit(a["reactor"]), c.units(a["attackers"])))


def _ar_shock_roll(c: Ctx, a: dict[str, Any]) -> str:
    return yn(cohesion.aggression_vs_shock(c.charts, a["tq"], a["dr"]))


def _ar_must(c: Ctx, a: dict[str, Any]) -> str:
    return ids(reaction.aggression_must_attack(c.unit(a["reactor"]), c.units(a["attackers"])))


def _ar_hexes(c: Ctx, a: dict[str, Any]) -> str:
    return hexes(
        reaction.aggression_hexes(
            c.charts, c.ground, c.pieces, c.unit(a["reactor"]), c.unit(a["firer"])
        )
    )


# --- §7 missile fire ---------------------------------------------------------------------


def _in_range(c: Ctx, a: dict[str, Any]) -> str:
    return yn(missile.in_range(c.charts, a["weapon"], a["distance"]))


def _missile_hits(c: Ctx, a: dict[str, Any]) -> str:
    return str(missile.missile_hits(c.charts, a["column"], a["dr"]))


def _missile_drm(c: Ctx, a: dict[str, Any]) -> str:
    return str(
        missile.missile_drm(
            c.charts,
            a["weapon"],
            c.type(a["target"]),
            bow_moving=a.get("moving", False),
            target_terrain=a.get("terrain", "clear"),
            lower_target=a.get("lower", False),
            distance=a.get("distance", 1),
        )
    )


def _fire(c: Ctx, a: dict[str, Any]) -> str:
    try:
        f = missile.resolve_fire(
            c.charts,
            a["weapon"],
            a["distance"],
            c.type(a["target"]),
            a["dr"],
            supply=a.get("supply", "full"),
            pass_through=a.get("pass_through", False),
            bow_moving=a.get("moving", False),
            target_terrain=a.get("terrain", "clear"),
            lower_target=a.get("lower", False),
        )
    except ValueError as exc:
        return f"refused: {exc}"
    return f"modified={f.modified} hits={f.hits} supply={f.supply} leader={yn(f.leader_check)}"


def _supply(c: Ctx, a: dict[str, Any]) -> str:
    return missile.supply_after(c.charts, a["supply"], a["dr"])


def _field(c: Ctx, a: dict[str, Any]) -> str:
    u = c.unit(a["firer"])
    return yn(missile.may_target(c.type(u.type), u.hex, u.facing, H(a["target"])))


def _los(c: Ctx, a: dict[str, Any]) -> str:
    occupied = {p.hex for p in c.pieces}
    got = elevation.sight(
        c.ground,
        H(a["from"]),
        H(a["to"]),
        occupied=lambda h: h in occupied,
        blocks=lambda h: c.charts.terrain[c.ground.kind(h)].blocks_los,
    )
    return "clear" if got else "blocked"


def _fronts(c: Ctx, a: dict[str, Any]) -> str:
    u = c.unit(a["unit"])
    return " ".join(sorted(str(h) for h in front_hexes(u.hex, u.facing)))


def _distance(c: Ctx, a: dict[str, Any]) -> str:
    return str(H(a["from"]).distance(H(a["to"])))


def _sectors(c: Ctx, a: dict[str, Any]) -> str:
    u = c.unit(a["unit"])
    return " ".join(sorted(sectors(u.hex, u.facing, H(a["target"]))))


def _lower(c: Ctx, a: dict[str, Any]) -> str:
    return yn(elevation.lower_target(c.ground, H(a["from"]), H(a["to"])))


def _climb(c: Ctx, a: dict[str, Any]) -> str:
    return yn(elevation.climb(c.ground, H(a["from"]), H(a["to"])))


RULES_MOVE_FIRE: dict[str, Callable[[Ctx, dict[str, Any]], str]] = {
    "trace": _trace,
    "entry-cost": _entry_cost,
    "terrain-hits": _terrain_hits,
    "turn-hits": _turn_hits,
    "facing-cost": _facing_cost,
    "start-allowance": _start_allowance,
    "ooc-enter": _ooc_enter,
    "column-ma": _column_ma,
    "moved-hits": _moved_hits,
    "ow-allowance": _ow_allowance,
    "ow-roll": _ow_roll,
    "ow-eligible": _ow_eligible,
    "ow-triggered": _ow_triggered,
    "approach-hit": _approach_hit,
    "ow-hexes": _ow_hexes,
    "reaction-facing": _reaction_facing,
    "reaction-facing-hits": _reaction_facing_hits,
    "entry-fire": _entry_fire,
    "leaving-fire": _leaving_fire,
    "retreat-fire": _retreat_fire,
    "return-fire": _return_fire,
    "pass-targets": _pass_targets,
    "fr-path": _fr_path,
    "fr-targets": _fr_targets,
    "fr-reply": _fr_reply,
    "shock-shifts": _shock_shifts,
    "ar-fire": _ar_fire,
    "ar-fire-roll": _ar_fire_roll,
    "ar-shock": _ar_shock,
    "ar-shock-roll": _ar_shock_roll,
    "ar-must-attack": _ar_must,
    "ar-hexes": _ar_hexes,
    "in-range": _in_range,
    "missile-hits": _missile_hits,
    "missile-drm": _missile_drm,
    "fire": _fire,
    "supply": _supply,
    "field-of-fire": _field,
    "los": _los,
    "fronts": _fronts,
    "distance": _distance,
    "sectors": _sectors,
    "lower-target": _lower,
    "climb": _climb,
}
"""The rules of cof.md §2-§7; :mod:`cof_rules_cases_shock` adds §3-§5 and §8-§11."""
