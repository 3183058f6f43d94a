"""The Ancients playout (:mod:`engine.core.playout`)."""

from __future__ import annotations

from engine.cc.playout import CCPlayout

__all__ = ["AncientsPlayout"]


class AncientsPlayout(CCPlayout):
    """The ``playout`` capability of C&C Ancients."""

    def __init__(self) -> None:
        from engine.cca.autoplay import _Random  # noqa: PLC0415 - the system loads this lazily
        from engine.cca.system import SYSTEM  # noqa: PLC0415

        super().__init__(SYSTEM, _Random())
