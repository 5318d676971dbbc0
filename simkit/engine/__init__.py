"""Game engine layer: randomness, dealing (and, later, the turn/claim state machine)."""
