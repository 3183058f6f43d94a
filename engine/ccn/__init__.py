"""Commands & Colors: Napoleonics (ccn.md): the rules engine behind ``get_system("ccn")``.

Use :data:`SYSTEM` (an :class:`engine.ccn.system.CCNSystem`); see :mod:`engine.core.api`
for the protocol and :mod:`engine.ccn.system` for the Napoleonics specifics. The rules
tables are data (:mod:`engine.ccn.tables`, files in ``engine/ccn/data``); the combat rules are
in :mod:`engine.ccn.rules`; scenarios in :mod:`engine.ccn.scenario`. What exists and what
remains, section by section of ccn.md, is in docs/ccn-status.md. Shared C&C machinery comes
from :mod:`engine.cc` and :mod:`engine.hexgrid`.
"""

from engine.ccn.system import SYSTEM, CCNSystem

__all__ = ["SYSTEM", "CCNSystem"]
