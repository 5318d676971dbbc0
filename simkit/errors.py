"""Exception types of simkit.

Every error a user can provoke with bad input derives from :class:`SimkitError` and from the
matching built-in (``ValueError`` or ``TypeError``), so ``except ValueError`` keeps working. Messages
name what is wrong and, where there is a fixed list, what is allowed.
"""

__all__ = [
    "SimkitError",
    "TileNotationError",
    "TileCountError",
    "MeldError",
    "RulesError",
    "HandError",
    "ScoreError",
]


class SimkitError(Exception):
    """Base class of every error simkit raises on bad input."""


class TileNotationError(SimkitError, ValueError):
    """A tile or hand string is not valid m/p/s/z notation, or uses a kind the rule set lacks."""


class TileCountError(SimkitError, ValueError):
    """Impossible tile counts: more than 4 copies of a kind, negative counts, wrong array shape."""


class MeldError(SimkitError, ValueError):
    """A meld string is malformed or not allowed by the rule set."""


class RulesError(SimkitError, ValueError):
    """Unknown rule set, unknown rule option, or an option value that is not allowed."""


class HandError(SimkitError, ValueError):
    """A hand has the wrong number of tiles for the question asked (e.g. shanten of 12 tiles)."""


class ScoreError(SimkitError, ValueError):
    """A win that cannot be scored: not a complete hand, or contradictory win flags."""
