"""System-neutral core shared by every game system: API types, canonical JSON, replay."""
