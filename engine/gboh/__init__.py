"""Code shared by Great Battles of History systems (Chariots of Fire, ...): the hex map."""
