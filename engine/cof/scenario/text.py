"""What ``pbem scenario list`` and ``show`` say of a Chariots of Fire battle.

:func:`info_of` is the listing entry (:class:`engine.core.capabilities.ScenarioInfo`),
:func:`render_details` the lines ``show`` prints: the map, each side with its Withdrawal
Level and Standard, each wing with its commander and troops, the rules and the sources.
:class:`ScenarioChecker` is the ``scenarios`` capability the cof system object offers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from engine.cof.scenario.load import check_text
from engine.cof.scenario.spec import SEATS, ArmySpec, CofScenario
from engine.cof.tables import bundled
from engine.core.capabilities import ScenarioInfo, ScenarioProblem

__all__ = ["ScenarioChecker", "info_of", "list_infos", "render_details"]


def info_of(scenario: CofScenario) -> ScenarioInfo:
    """The listing entry: armies, Withdrawal Levels as the goal, the side moving first; sides
    by the system's seats (the first army north, the second south), as games name them."""
    a, b = scenario.armies
    seat = {army.side: s for s, army in zip(SEATS, scenario.armies, strict=True)}
    return ScenarioInfo(
        id=scenario.id,
        name=scenario.title,
        year=scenario.extra.get("year", ""),
        sides={seat[army.side]: army.name for army in scenario.armies},
        goal=f"withdrawal {a.withdrawal_level}/{b.withdrawal_level}",
        first=seat.get(scenario.first_side, scenario.first_side),
        detail=scenario,
    )


def list_infos(texts: Mapping[str, str]) -> list[ScenarioInfo]:
    """The valid scenarios among ``texts`` (name -> text), sorted by id; the others skipped."""
    found = [check_text(text)[1] for text in texts.values()]
    return sorted((info_of(s) for s in found if s is not None), key=lambda i: i.id)


def _map_line(s: CofScenario) -> str:
    m = s.map
    kinds = Counter(t.terrain for t in m.terrain if t.terrain != "clear")
    hills = sum(1 for t in m.terrain if t.elevation > 0)
    sides = Counter(h.kind for h in m.hexsides)
    parts = [f"{n} {k}" for k, n in sorted(kinds.items())]
    if hills:
        parts.append(f"{hills} raised hexes")
    parts += [f"{n} {k} hexsides" for k, n in sorted(sides.items())]
    cols = f"columns {m.first_column:02d}..{m.last_column:02d}"
    size = f"{cols}, rows {m.first_row:02d}..{m.last_row:02d}"
    return f"Map: {size}; " + (", ".join(parts) if parts else "all clear")


def _side_lines(s: CofScenario, army: ArmySpec) -> list[str]:
    tables = bundled()
    army_name = tables.armies[army.army].name if army.army in tables.armies else army.army
    first = "; holds the Initiative on turn 1" if s.first_side == army.side else ""
    standard = f", Standard at {army.standard_hex}" if army.standard_hex else ", no Standard"
    out = [
        f"{army.side}: {army.name} ({army_name}), Withdrawal Level {army.withdrawal_level}"
        f"{standard}{first}"
    ]
    leaders = [ldr for ldr in s.leaders if ldr.side == army.side]
    for wing in army.wings:
        units = [c for c in s.counters if c.side == army.side and c.wing == wing]
        kinds = Counter(c.type for c in units)
        troops = ", ".join(f"{n} {t}" for t, n in sorted(kinds.items()))
        chiefs = [ldr for ldr in leaders if ldr.wing == wing]
        chief = ", ".join(f"{ldr.name} ({ldr.role}, CR {ldr.command_range})" for ldr in chiefs)
        late = max((c.arrives for c in units), default=0)
        arrives = f"; arrives on turn {late} at the map edge" if late else ""
        out.append(f"  wing {wing}: {troops}; led by {chief or 'nobody'}{arrives}")
    for ldr in leaders:
        if ldr.wing is None:
            out.append(f"  {ldr.name} ({ldr.role}, Init {ldr.initiative}, CR {ldr.command_range})"
                       f" at {ldr.hex}, commands no wing")  # fmt: skip
    return out


def render_details(s: CofScenario) -> list[str]:
    """The lines ``pbem scenario show`` prints for a valid scenario."""
    battle = bundled().battles.get(s.battle)
    if battle is None:
        head = "Battle: none (pbem's own scenario)"
    else:
        label = "pbem's approximation" if s.approximation else "as published"
        head = f"Battle: {battle.name} ({label})"
    out = [head, _map_line(s)]
    for army in s.armies:
        out += _side_lines(s, army)
    turns = f"{s.turns} turns" if s.turns else "no turn limit"
    rules = ", ".join(s.special_rules) or "none"
    out.append(f"Turns: {turns}; special rules: {rules}")
    if s.notes:
        out.append(f"Notes: {s.notes}")
    out += [f"Source: {src}" for src in s.sources]
    return out


class ScenarioChecker:
    """The ``scenarios`` capability (:mod:`engine.core.capabilities`) of Chariots of Fire."""

    def check(self, text: str) -> tuple[list[ScenarioProblem], ScenarioInfo | None]:
        """Every problem by line; the listing entry (scenario in ``detail``) when none."""
        problems, scenario = check_text(text)
        return problems, None if scenario is None else info_of(scenario)

    def details(self, text: str) -> list[str]:
        """The lines ``pbem scenario show`` prints under the board."""
        scenario = check_text(text)[1]
        return [] if scenario is None else render_details(scenario)
