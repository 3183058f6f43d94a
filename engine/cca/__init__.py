"""Commands & Colors: Ancients: the rules engine (cca.md) behind ``get_system("cca")``.

Use :data:`SYSTEM` (an :class:`engine.cca.system.CCASystem`); see
:mod:`engine.core.api` for the protocol and :mod:`engine.cca.system` for the
C&C Ancients specifics.
"""

from engine.cca.system import SYSTEM, CCASystem

__all__ = ["SYSTEM", "CCASystem"]
