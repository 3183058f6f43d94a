"""CLI sub-commands, one module per command group.

Every module here defines ``register(subparsers)`` which adds its parsers and
sets ``func`` (called with the parsed namespace, returning an exit code).
:mod:`pbem.cli` discovers the modules, so adding a command never edits a
shared list.
"""
