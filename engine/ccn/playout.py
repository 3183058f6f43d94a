"""The Napoleonics playout (:mod:`engine.core.playout`): the shared C&C one on this system."""

from __future__ import annotations

from engine.cc.playout import CCPlayout

__all__ = ["NapoleonicsPlayout"]


class NapoleonicsPlayout(CCPlayout):
    """The ``playout`` capability of C&C Napoleonics."""

    def __init__(self) -> None:
        from engine.ccn.autoplay import RULES  # noqa: PLC0415 - the system loads this lazily
        from engine.ccn.system import SYSTEM  # noqa: PLC0415
        from engine.ccn.turn import resolve  # noqa: PLC0415

        super().__init__(SYSTEM, RULES, resolve)
