"""C&C Napoleonics combat consequences as pure rules (ccn.md §12-§23).

The turn engine declares fires and melees, rolls and counts hits; these modules decide what
follows, reading the board through :class:`engine.ccn.rules.field.Field` and changing it
through :class:`~engine.ccn.rules.field.Referee` (no I/O, no clock, dice only from the
referee):

* :mod:`~engine.ccn.rules.los` - line of sight (§23.10);
* :mod:`~engine.ccn.rules.hits` - the battle die and which faces hit what (§3, §13.3);
* :mod:`~engine.ccn.rules.flags` and :mod:`~engine.ccn.rules.retreat` - flags ignored and
  retreats (§15);
* :mod:`~engine.ccn.rules.leaders` - casualty checks, lone leaders, leader retreat and
  escape (§16, §17);
* :mod:`~engine.ccn.rules.take_ground` - take ground, breakthrough, bonus melee (§18) and
  battle back (§19);
* :mod:`~engine.ccn.rules.cavalry` - cavalry retire and reform (§20);
* :mod:`~engine.ccn.rules.squares` - squares (§21);
* :mod:`~engine.ccn.rules.combined_arms` - combined arms attacks (§22);
* :mod:`~engine.ccn.rules.standing` - the standing-order keys these rules read (§26.2).
"""
