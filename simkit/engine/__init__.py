"""Game engine layer: randomness, dealing, the state machine (state, step function, matches), positions and policies."""
