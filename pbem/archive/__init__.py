"""The public archive: every finished game replayable and auditable on static web pages.

- :mod:`pbem.archive.site`: ``pbem archive build DIR`` (incremental static site);
- :mod:`pbem.archive.collect`: what the pages show, read from the store;
- :mod:`pbem.archive.gameaudit`: a game's audit record and the verifier's verdict;
- :mod:`pbem.archive.stats`: dice fairness (face counts, chi-squared, luck);
- :mod:`pbem.archive.plots`: its PNG pictures (matplotlib);
- :mod:`pbem.archive.pages`: the HTML (templates in ``templates/archive/``);
- :mod:`pbem.archive.hooks`: where clubs plug in (which club a game is, club pages).

See docs/archive.md.
"""
