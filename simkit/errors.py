"""Exception types of simkit.

Every error a user can provoke with bad input derives from :class:`SimkitError` and from the
matching built-in (``ValueError`` or ``TypeError``), so ``except ValueError`` keeps working. Messages
name what is wrong and, where there is a fixed list, what is allowed.
"""

import numbers

import numpy as np

__all__ = [
    "SimkitError",
    "InputTypeError",
    "TileNotationError",
    "TileCountError",
    "MeldError",
    "RulesError",
    "HandError",
    "ScoreError",
    "show",
    "check_flag",
    "check_int",
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


class InputTypeError(SimkitError, TypeError):
    """An argument of the wrong type: not a str where notation is needed, a float or a bool where an
    integer is needed, an int where a flag (True / False) is needed, ..."""


def show(value, limit: int = 60) -> str:
    """A short ``repr`` of a value for an error message (long ones cut; never fails)."""
    try:
        text = repr(value)
    except Exception:  # e.g. an int beyond Python's 4300-digit str limit
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_flag(value, name: str) -> bool:
    """``value`` as a bool if it is a real boolean (``bool`` or ``numpy.bool_``), else
    :class:`InputTypeError` naming the argument (``0``, ``1``, ``"no"``, ``None`` are refused)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InputTypeError(f"{name} must be True or False, got {show(value)}")


def check_int(value, name: str, low: int, high: int, error: type = SimkitError) -> int:
    """``value`` as a Python int if it is an integer (not a bool, not a float) with
    ``low <= value <= high``; else :class:`InputTypeError` or ``error`` naming the argument."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise InputTypeError(f"{name} must be an integer from {low} to {high}, got {show(value)}")
    value = int(value)
    if not low <= value <= high:
        raise error(f"{name} must be an integer from {low} to {high}, got {show(value)}")
    return value

