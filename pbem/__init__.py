"""pbem: the play-by-email referee (daemon, mail, store, CLI)."""

__version__ = "0.1.0"
