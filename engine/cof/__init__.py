"""Chariots of Fire (Great Battles of History vol. XIV): charts as data and the rule core.

Not a playable system yet (docs/cof-status.md): the charts (:mod:`engine.cof.tables`), the troop
types, armies and leaders, and the pure rule functions the next session builds the system on.
"""
