"""Fuzz the scenario/position loaders: every problem reported by line, nothing raised.

Inputs are the bundled scenarios with lines deleted, duplicated, swapped or
edited (values replaced by other types, hexes off the board, unknown unit
types, broken quotes), plus arbitrary text.

- :func:`pbem.scenarios.validate_text` returns a list of problems and never
  raises; every problem has a line within the file (0 for the whole file).
- :func:`pbem.scenarios.load_text` raises only :class:`ScenarioError`.
- The engine's loader (``get_system("cca").load_position``) raises only
  :class:`engine.core.api.PositionError`.
"""

from __future__ import annotations

import functools
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.api import PositionError
from engine.systems import get_system
from pbem.scenarios import ScenarioError, load_text, scenarios_dir, validate_text

EXAMPLES = int(os.environ.get("PBEM_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


@functools.cache
def _texts() -> tuple[str, ...]:
    files = sorted(scenarios_dir().rglob("*.toml"))[:6]
    return tuple(p.read_text(encoding="utf-8") for p in files)


VALUES = st.one_of(
    st.sampled_from(
        [
            '"Z99"',
            '"A0"',
            "-1",
            "1e400",
            '"x',
            "[]",
            "{}",
            '"""',
            "true",
            '"legion"',
            '""',
            '"cca"',
            '"pbem-position/2"',
            "[[",
            "999999999999999999999",
            '"\\u0000"',
            "nan",
        ]
    ),
    st.text(max_size=12),
    st.integers().map(str),
)


@st.composite
def scenario_texts(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=300))
    lines = draw(st.sampled_from(_texts())).split("\n")
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["delete", "dup", "swap", "value", "insert", "key"]))
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "delete" and len(lines) > 1:
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "value" and "=" in lines[i]:
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {draw(VALUES)}"
        elif kind == "key" and "=" in lines[i]:
            lines[i] = draw(st.text(max_size=8)) + " =" + lines[i].split("=", 1)[1]
        else:
            lines.insert(i, draw(st.text(max_size=30)))
    return "\n".join(lines)


@FUZZ
@given(scenario_texts())
def test_validate_reports_problems_by_line_and_never_raises(text: str) -> None:
    problems = validate_text(text)
    last = text.count("\n") + 1
    for p in problems:
        assert 0 <= p.line <= last, p
        assert p.code and p.message
    try:
        load_text(text)
    except ScenarioError as exc:
        assert exc.problems
    else:
        # Only a text the validator's TOML/metadata checks accept can load.
        assert not [p for p in problems if p.code != "engine"]


@FUZZ
@given(scenario_texts())
def test_engine_loader_raises_only_position_error(text: str) -> None:
    try:
        get_system("cca").load_position(text)
    except PositionError as exc:
        assert exc.line >= 0


FUZZ_TARGETS = [
    test_validate_reports_problems_by_line_and_never_raises,
    test_engine_loader_raises_only_position_error,
]
