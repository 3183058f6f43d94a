"""Alembic migrations of the store (run with :func:`pbem.store.migrate`).

No ``alembic.ini`` is needed: :mod:`pbem.store.db` builds the Alembic config
in code. To add a revision after changing :mod:`pbem.store.models`::

    python -m pbem.migrations.revision "what changed"

then read and fix the generated file in ``versions/``.
"""
