"""C&C Napoleonics scenario files: every problem by line, the validated model, details.

:class:`ScenarioChecker` is the ``scenarios`` capability of the ccn system
(:mod:`engine.core.capabilities`): ``pbem scenario`` reaches it through the registry.
The system's loader builds its initial state from :func:`load_scenario`'s model.
"""

from __future__ import annotations

from engine.ccn.scenario.check import (
    FORMAT,
    RULES,
    ScenarioFileError,
    check_text,
    load_scenario,
    tables,
)
from engine.ccn.scenario.model import (
    NORTH,
    SIDES,
    SOUTH,
    Leader,
    Objective,
    Placeholder,
    Problem,
    Scenario,
    Side,
    SpecialRule,
    Unit,
)
from engine.ccn.scenario.text import render_details
from engine.core.capabilities import ScenarioInfo

__all__ = [
    "FORMAT",
    "NORTH",
    "RULES",
    "SIDES",
    "SOUTH",
    "Leader",
    "Objective",
    "Placeholder",
    "Problem",
    "Scenario",
    "ScenarioChecker",
    "ScenarioFileError",
    "Side",
    "SpecialRule",
    "Unit",
    "check_text",
    "info_of",
    "load_scenario",
    "render_details",
    "tables",
]


def info_of(scenario: Scenario) -> ScenarioInfo:
    """What ``pbem scenario list`` shows of ``scenario`` (armies, banners, first side)."""
    return ScenarioInfo(
        id=scenario.id,
        name=scenario.name,
        year=scenario.year,
        sides={"north": scenario.north.army, "south": scenario.south.army},
        goal=f"{scenario.north.banners}/{scenario.south.banners}",
        first=scenario.first,
        detail=scenario,
    )


class ScenarioChecker:
    """The ``scenarios`` capability: checks (by line) and the details ``show`` prints."""

    def check(self, text: str) -> tuple[list[Problem], ScenarioInfo | None]:
        """Every problem by line; the scenario's summary (model in ``detail``) when none."""
        problems, scenario = check_text(text)
        return problems, None if scenario is None else info_of(scenario)

    def details(self, text: str) -> list[str]:
        """Sides, leaders, objectives, rules and placeholders, as ``pbem scenario show`` prints."""
        _, scenario = check_text(text)
        return [] if scenario is None else render_details(scenario)
