"""Chariots of Fire battles: the scenario contract (spec) and, later, its file loader."""
