"""Commands & Colors: Napoleonics (ccn.md): the foundation of the second C&C system.

NOT PLAYABLE YET and deliberately not in the built-in registry (:mod:`engine.systems`):
this package holds the rules tables as data (:mod:`engine.ccn.tables`, files in
``engine/ccn/data``) and the pure table-driven rules built on them so far (:mod:`engine.ccn.dice`).
What exists and what remains, section by section of ccn.md, is in docs/ccn-status.md.
Shared C&C machinery comes from :mod:`engine.cc` and :mod:`engine.hexgrid`.
"""
