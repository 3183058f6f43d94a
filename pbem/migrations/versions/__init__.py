"""Alembic revisions, oldest first (``r0001_initial`` creates every table)."""
