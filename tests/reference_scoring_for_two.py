"""Slow, obviously-correct pure-Python reference scorer for for_two's combination points.

Written from ``rules/for_two.md`` (Scoring (I)) and the combination table of its source text only;
no simkit code is imported or copied. Splits come from the pure-Python hand reference
``tests/reference.py``.

The five basic combinations, in the source's order, are pair + (4 pungs), (3 pungs + 1 chow),
(2 + 2), (1 + 3), (4 chows); kongs count as pungs, claimed chows as chows. A hand scores the
combination of its best split (the most points; ties: the combination listed first, i.e. with more
pungs); the loser pays ``bid x stake x points``, times ``self_drawn_multiplier`` for a self-draw.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

try:  # tests/ on sys.path (conftest.py) ...
    from reference import ALL_KINDS, hand_text
    from reference_arrangements import best, random_hand, splits
except ImportError:  # ... or tests as a package
    from tests.reference import ALL_KINDS, hand_text
    from tests.reference_arrangements import best, random_hand, splits

N_KINDS = 34
MELD_TYPES = ("pung", "kong", "added_kong", "concealed_kong", "chow")
MELD_SIZE = {"pung": 3, "kong": 4, "added_kong": 4, "concealed_kong": 4, "chow": 3}
#: the source's table: (pungs, chows) of each basic combination, in its order
COMBINATIONS = ((4, 0), (3, 1), (2, 2), (1, 3), (0, 4))
ITEM_NAMES = ("four_pungs", "three_pungs_one_chow", "two_pungs_two_chows", "one_pung_three_chows", "four_chows")
DEFAULT_OPTIONS = {"stake": 1, "combination_points": (5, 4, 3, 2, 1), "self_drawn_multiplier": 2, "fold_payment": 1}


def ref_score(
    counts: Sequence[int],
    win_tile: int,
    melds: Sequence[tuple[str, int]] = (),
    *,
    self_drawn: bool = False,
    bid: int = 1,
    options: Mapping | None = None,
) -> dict:
    """Score a for_two win. Returns ``{"items": {combination: points}, "combination_points",
    "points", "split"}``; ValueError for impossible input or an incomplete hand."""
    c = tuple(int(x) for x in counts)
    melds = tuple((str(t), int(k)) for t, k in melds)
    opts = dict(DEFAULT_OPTIONS, **(options or {}))
    if bid not in (1, 2, 3):
        raise ValueError("the bid is 1, 2 or 3")
    if c[int(win_tile)] < 1:
        raise ValueError("the winning tile must be in the hand")
    total = list(c)
    for typ, kind in melds:
        if typ not in MELD_TYPES:
            raise ValueError(f"bad meld {typ}")
        if typ == "chow":
            if kind >= 27 or kind % 9 > 6:
                raise ValueError(f"bad chow at {kind}")
            for d in range(3):
                total[kind + d] += 1
        else:
            total[kind] += MELD_SIZE[typ]
    if len(melds) > 4 or max(total) > 4 or sum(c) != 14 - 3 * len(melds):
        raise ValueError("impossible tiles")

    def scored(split):
        chows = sum(1 for typ, _ in melds if typ == "chow") + sum(1 for shape, _ in split if shape == "chow")
        index = COMBINATIONS.index((4 - chows, chows))
        return {ITEM_NAMES[index]: opts["combination_points"][index]}, index, split

    found = best((scored(split) for split in splits(c, len(melds))), ITEM_NAMES)
    if found is None:
        raise ValueError(f"not a complete hand: {hand_text(c)} + {melds}")
    items, index, split = found
    value = items[ITEM_NAMES[index]]
    points = bid * opts["stake"] * value * (opts["self_drawn_multiplier"] if self_drawn else 1)
    return {
        "items": items,
        "combination_points": value,
        "points": float(points),
        "split": split,
    }


def random_case(rng: random.Random) -> dict:
    """A random consistent for_two case: keyword arguments for :func:`ref_score`.

    k = 0..4 melds (pung, kongs, chow), a concealed part of pungs, chows (any suit) and a pair from
    the tiles left (sometimes from one suit only, so that pung/chow ambiguities are frequent), a
    winning tile from the hand, a random bid and self-draw, sometimes custom options.
    """
    while True:
        one_suit = rng.random() < 0.4
        base = 9 * rng.randrange(3)
        pool = list(range(base, base + 9)) if one_suit else list(ALL_KINDS)
        chow_starts = [s for s in pool if s < 27 and s % 9 <= 6]
        left = {kind: 4 for kind in ALL_KINDS}
        k = rng.choice((0, 0, 1, 1, 2, 3, 4))
        hand = random_hand(rng, k, MELD_TYPES + ("chow",), pool, chow_starts, left, MELD_SIZE, 0.5)
        if hand is None:
            continue
        melds, c, win_tile = hand
        case = dict(counts=c, win_tile=win_tile, melds=melds, self_drawn=rng.random() < 0.5, bid=rng.choice((1, 2, 3)))
        if rng.random() < 0.3:
            case["options"] = {
                "stake": rng.choice((1, 2, 0.25)),
                "combination_points": rng.choice(
                    ((5, 4, 3, 2, 1), (1, 2, 3, 4, 5), (2, 2, 2, 2, 2), (1.5, 3, 3, 1, 0.5))
                ),
                "self_drawn_multiplier": rng.choice((2, 1, 3)),
            }
        return case
