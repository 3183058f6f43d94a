"""The Commands & Colors family: rules machinery the C&C systems share.

C&C Ancients (:mod:`engine.cca`) and C&C Napoleonics use the same turn shape:
a decision inside a turn comes from the orders, else the deciding side's
standing orders, else a question that pauses the turn (:mod:`engine.cc.decide`);
standing orders are parsed and merged by :mod:`engine.cc.policy` over each
system's own vocabulary. Pausing and resuming by replay is not C&C-specific
and lives in :mod:`engine.core.replay`.
"""
