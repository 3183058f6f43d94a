"""Pure, deterministic rules engines: no I/O, no clock, no global randomness."""
