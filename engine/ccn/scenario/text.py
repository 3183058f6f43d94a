"""The lines ``pbem scenario show`` prints under a Napoleonics board.

Sides (nations, commander, command cards, banners, who moves first), leaders, victory
objectives, special rules and the placeholders a file still carries, in words.
"""

from __future__ import annotations

from engine.ccn.scenario.model import Objective, Scenario, Side

__all__ = ["objective_text", "render_details", "side_text"]

_COUNT = {
    "each": "1 banner per hex held",
    "any": "1 banner while any of them is held",
    "all": "1 banner while all of them are held",
    "majority": "1 banner while it holds more of them than the enemy",
}


def side_text(side: Side, first: str) -> str:
    """One line per side: army, nations, commander, command, banners, first move."""
    who = f" under {side.commander}" if side.commander else ""
    moves = " · moves first" if side.side == first else ""
    return (
        f"{side.side.capitalize()}: {side.army} ({'+'.join(side.nations)}){who}"
        f" · {side.command} command cards · {side.banners} banners to win"
        f" · {len(side.units)} units{moves}"
    )


def objective_text(o: Objective) -> str:
    """An objective in words."""
    count = _COUNT[o.count].replace(
        "1 banner", f"{o.banners} banners" if o.banners > 1 else "1 banner"
    )
    when = "held at the start of its turn" if o.when == "turn-start" else "entered"
    hexes = ", ".join(o.hexes)
    return f"{o.side.capitalize()} objective {hexes}: {count}, {o.kind}, counted when {when}"


def render_details(scenario: Scenario) -> list[str]:
    """Sides, leaders, objectives, special rules and placeholders, one item a line."""
    out = [side_text(s, scenario.first) for s in scenario.sides]
    for side in scenario.sides:
        if side.leaders:
            names = ", ".join(f"{ld.name} ({ld.hex})" for ld in side.leaders)
            out.append(f"{side.side.capitalize()} leaders: {names}")
    out += [objective_text(o) for o in scenario.objectives]
    for rule in scenario.special:
        params = ", ".join(f"{k}={v}" for k, v in rule.params.items())
        head = "Special rule" if rule.enforced else "Special rule (players apply it)"
        tail = (f": {params}" if params else "") + (f" - {rule.note}" if rule.note else "")
        out.append(f"{head} {rule.rule}{tail}")
    for p in scenario.placeholders:
        out.append(
            f"Placeholder {p.field}{' ' + ', '.join(p.items) if p.items else ''}: {p.reason}"
        )
    return out
