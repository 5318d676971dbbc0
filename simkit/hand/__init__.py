"""Hand analysis: table-driven win check, waits, shanten and splits (kernels and public API)."""

from .api import discards, is_win, is_win_batch, shanten, shanten_batch, splits, waits, waits_batch
from .sample import random_complete_hands, random_ready_hands
from .waits import mask_to_kinds

__all__ = [
    "is_win",
    "waits",
    "shanten",
    "splits",
    "discards",
    "is_win_batch",
    "waits_batch",
    "shanten_batch",
    "mask_to_kinds",
    "random_complete_hands",
    "random_ready_hands",
]
