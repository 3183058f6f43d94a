"""C&C Ancients scenario files: every problem by line, the validated model, a text picture.

:class:`ScenarioChecker` is the ``scenarios`` capability of the cca system
(:mod:`engine.core.capabilities`): ``pbem scenario`` reaches it through the
registry, never by importing this package.
"""

from __future__ import annotations

from engine.cca.scenario.check import FORMAT, IMPASSABLE, RULES, TERRAIN, UNIT_TYPES, check_text
from engine.cca.scenario.model import Leader, Problem, ReserveUnit, Scenario, Side, Unit
from engine.cca.scenario.text import render_details, render_scenario
from engine.core.capabilities import ScenarioInfo

__all__ = [
    "FORMAT",
    "IMPASSABLE",
    "RULES",
    "TERRAIN",
    "UNIT_TYPES",
    "Leader",
    "Problem",
    "ReserveUnit",
    "Scenario",
    "ScenarioChecker",
    "Side",
    "Unit",
    "check_text",
    "info_of",
    "render_details",
    "render_scenario",
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
        """Leaders, reserves and special rules, as ``pbem scenario show`` prints them."""
        _, scenario = check_text(text)
        return [] if scenario is None else render_details(scenario)
