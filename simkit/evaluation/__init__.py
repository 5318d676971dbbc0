"""How strong a policy is and which of several is best: exploitability lower bounds, ratings of a
round robin, and sequential decisions that stop as soon as the answer is clear."""

from .exploitability import Exploitability, exploitability, responder
from .ratings import RATING_METHODS, pair_matches, plot_ratings, ratings
from .sequential import Decision, confidence_sequence, decide, fixed_sample_matches

__all__ = [
    "Exploitability",
    "exploitability",
    "responder",
    "ratings",
    "pair_matches",
    "plot_ratings",
    "RATING_METHODS",
    "decide",
    "Decision",
    "confidence_sequence",
    "fixed_sample_matches",
]
