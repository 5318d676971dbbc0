"""How strong a policy is and which of several is best: exploitability lower bounds, ratings of a
round robin, and sequential decisions that stop as soon as the answer is clear."""

from .exploitability import Exploitability, exploitability, responder

__all__ = ["Exploitability", "exploitability", "responder"]
