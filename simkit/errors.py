"""Exception types of simkit.

Every error simkit raises on purpose derives from :class:`SimkitError` and from the matching
built-in: bad input is a ``ValueError`` (:class:`InputValueError` and the specific ones below) or a
``TypeError`` (:class:`InputTypeError`), so ``except ValueError`` keeps working; a run that cannot go
on for a reason outside its arguments (a full disk, a lost worker) is a ``RuntimeError``
(:class:`RunError`), as is a policy that breaks the rules of the game
(:class:`simkit.play.runtime.EngineError`). Messages are one line, name what is wrong and, where
there is a fixed list, what is allowed; echoed input is cut to a readable length.
"""

import numbers
import re

import numpy as np

__all__ = [
    "SimkitError",
    "InputTypeError",
    "InputValueError",
    "RunError",
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


#: An error message echoes at most this many characters of one quoted input (the rest is cut).
ECHO_LIMIT = 80
#: ... and is at most this long in all.
MESSAGE_LIMIT = 2000

# a quoted input: its opening quote not after a letter or digit, its closing one not before one (an
# apostrophe, as in "the fee's", is no quote)
_QUOTED = re.compile(r"(?<!\w)'([^'\n]{%d,})'(?!\w)|(?<!\w)\"([^\"\n]{%d,})\"(?!\w)" % (ECHO_LIMIT + 1, ECHO_LIMIT + 1))


def _cut(match: re.Match) -> str:
    text = match.group(1) if match.group(1) is not None else match.group(2)
    quote = match.group(0)[0]
    return f"{quote}{text[: ECHO_LIMIT - 25]}...{text[-15:]}{quote} ({len(text):,} characters)"


def readable(message: str) -> str:
    """``message`` with every quoted input longer than :data:`ECHO_LIMIT` cut in its middle (its
    length said) and the whole at most :data:`MESSAGE_LIMIT` characters: an error echoes what it
    refuses, but a 100,000-character argument must not fill the screen."""
    out = _QUOTED.sub(_cut, message)
    return out if len(out) <= MESSAGE_LIMIT else out[: MESSAGE_LIMIT - 30] + f"... ({len(out):,} characters)"


class SimkitError(Exception):
    """Base class of every error simkit raises on bad input. Its message is kept readable: long
    echoed inputs are cut (:func:`readable`)."""

    def __init__(self, *args):
        if len(args) == 1 and isinstance(args[0], str):
            args = (readable(args[0]),)
        super().__init__(*args)


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


class PolicyError(SimkitError, ValueError):
    """A policy given by a bad name, syntax, parameter value or file, or one that cannot be brought back."""


class InputValueError(SimkitError, ValueError):
    """An argument whose value is not allowed -- out of range, not one of the choices, inconsistent
    with another argument, a file or run that is not what was asked for -- where no more specific
    error above applies."""


class RunError(SimkitError, RuntimeError):
    """A run could not go on for a reason outside its arguments: a full disk, a lost worker process,
    another process writing the same run. The message says how to finish it."""


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


def check_int(value, name: str, low: int, high: int, error: type = InputValueError) -> int:
    """``value`` as a Python int if it is an integer (not a bool, not a float) with
    ``low <= value <= high``; else :class:`InputTypeError` or ``error`` naming the argument."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise InputTypeError(f"{name} must be an integer from {low} to {high}, got {show(value)}")
    value = int(value)
    if not low <= value <= high:
        raise error(f"{name} must be an integer from {low} to {high}, got {show(value)}")
    return value
