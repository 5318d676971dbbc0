"""Former name of :mod:`simkit.scoring.core` (the scoring core), kept for code that imports it."""

from .core import *  # noqa: F401,F403
from .core import __all__  # noqa: F401
