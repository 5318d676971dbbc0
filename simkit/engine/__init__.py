"""The game, and nothing but the game: the state of a hand as plain arrays
(:mod:`~simkit.engine.table`), actions and the view a player gets (:mod:`~simkit.engine.actions`),
randomness (:mod:`~simkit.engine.rng`), dealing (:mod:`~simkit.engine.deal`), the step function and
the loops built on it (:mod:`~simkit.engine.step`), each rule set as the engine plays and settles it
(:mod:`~simkit.engine.rulesets`), the engine compiled once per rule set
(:mod:`~simkit.engine.compiled`), the observation encoders (:mod:`~simkit.engine.observation`), the
draw records of the luck correction (:mod:`~simkit.engine.luck`) and a hand's rendering
(:mod:`~simkit.engine.display`). No module here imports a policy: the engine calls the policy functions
it is given, by kind (random's choice inlined, a trusted built-in with the engine's own legal mask,
any other with a copy)."""
