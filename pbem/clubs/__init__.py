"""Clubs: members, ratings, ladders, Swiss tournaments, campaigns, reliability, replacements.

A club runs many games at once for its members (docs/clubs.md). The modules:

- ``models``: the tables; ``rules``: a club's rules (default deadlines, grace,
  system, table files, ladder and reliability limits);
- ``clubs``: creating clubs, members and admins (by signing key), profiles;
- ``ratings``: OpenSkill ratings per club and system, updated at game end;
- ``ladder``: challenges (who may challenge whom, open games, timeouts);
- ``swiss``: the pure Swiss pairing, scoring and bracket rules;
- ``tournament``: tournaments over the store (rounds of games, scoring, bracket);
- ``campaign``: campaigns of linked battles declared in TOML;
- ``reliability``: missed deadlines, excused or not, and the score;
- ``replacements``: seats offered to replacement players;
- ``hooks``: what happens when a club game ends or a deadline is missed;
- ``mailcmd``: the same commands by signed mail; ``standings``: the standings mail
  (text, HTML and a rating-history PNG, drawn by ``plots``); ``signed``: club
  statements in the one replay cache (deadlines as iCalendar: :mod:`pbem.calendar`);
- ``api``: the read API (plain dataclasses) for pages and reports;
- ``jobs``: the daemon extension (weekly standings, round deadlines, challenge timeouts).

This package never imports a game system: it asks :mod:`engine.systems`
(through :mod:`pbem.pipeline.systems`) and uses the system's ``sides``.
"""
