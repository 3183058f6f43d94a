"""C&C Ancients scenario files: every problem by line, the validated model, a text picture.

:class:`ScenarioChecker` is the ``scenarios`` capability of the cca system
(:mod:`engine.core.capabilities`): ``pbem scenario`` reaches it through the
registry, never by importing this package.
"""

from __future__ import annotations

from engine.cc.scenario import TextChecker, info_of
from engine.cca.scenario.check import FORMAT, IMPASSABLE, RULES, TERRAIN, UNIT_TYPES, check_text
from engine.cca.scenario.model import Leader, Problem, ReserveUnit, Scenario, Side, Unit
from engine.cca.scenario.text import render_details, render_scenario

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


class ScenarioChecker(TextChecker):
    """The ``scenarios`` capability: checks (by line) and the details ``show`` prints."""

    def __init__(self) -> None:
        super().__init__(check_text, render_details)
