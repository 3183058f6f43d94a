"""C&C Ancients' ``check`` forecast for the ``forecast`` capability.

:class:`Forecaster` wraps :func:`engine.cca.odds.forecast` in the C&C report
(:mod:`engine.cc.forecast_text`): the moves, then each battle's dice, the
faces that hit and exact odds.
"""

from __future__ import annotations

from engine.cc.forecast_text import ForecastReport, forecast_json, forecast_text
from engine.cca.odds import forecast
from engine.cca.orders import Submission
from engine.cca.state import State

__all__ = ["LEGEND", "ForecastReport", "Forecaster", "forecast_json", "forecast_text"]

LEGEND = "G/B/R colours, H helmet, S swords"
"""What the faces of the Ancients battle die are called in the forecast."""


class Forecaster:
    """The ``forecast`` capability: odds for accepted orders (not for answers)."""

    def forecast(self, state: State, side: str, submission: Submission) -> ForecastReport | None:
        """The forecast of ``submission``; None when the state waits for an answer."""
        if state.pending is not None:
            return None
        return ForecastReport(forecast(state, side, submission), LEGEND)
