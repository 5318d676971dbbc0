"""Slow, obviously-correct pure-Python reference scorer for the night_market fan table.

Written from ``rules/night_market.md`` (Scoring) only; no simkit code is imported or
copied. The hand mechanics (splits of a complete concealed part, wait sets) come from the
pure-Python hand reference ``tests/reference.py``.

Method
------
For every split of the concealed part and every part of it that can hold the winning tile, build
the five sets of the hand (the melds and the concealed parts) as records (shape, kind, concealed,
claimed), decide every one of the 23 patterns literally from its condition in the table, then
drop every pattern that a present pattern "replaces" (the table's replacement list, applied as
data: :data:`REPLACES`). Keep the arrangement with the most fan; ties go to the lexicographically
largest item vector in :data:`ITEM_NAMES` order.

Interpretations (the rules file's (I) marks, and the points it leaves open)
-------------------------------------------------------------------------
1. A kong (exposed, added, concealed) is a pung for every pung pattern. A concealed pung is a
   concealed kong or a pung of the concealed part, except the pung the winning tile completes on
   a discard win. Claimed melds: pung, chow, exposed kong, added kong (it grew from a claimed
   pung); a concealed kong is not claimed.
2. "The only winning tile kind": the ready hand (hand minus the winning tile) has exactly one
   winning kind by ``ref_waits`` (a kind the winner holds 4 of is no wait). Dan Diao: the winning
   tile sits in the pair; Bian Zhang: it is the 3 of a 123 chow or the 7 of a 789 chow; Kan Zhang:
   the middle tile of a chow.
3. Men Qing: nothing claimed, won on a discard. Bu Qiu Ren: nothing claimed, self-drawn.
4. Quan Qiu Ren: four claimed melds, a discard win, the winning tile in the pair.
5. Hai Di Lao Yue: ``last_tile`` and self-drawn; He Di Lao Yu: ``last_discard`` and not self-drawn.
   Hai Di and Bu Qiu Ren both replace Zi Mo and stack with each other.
6. Ping Hu: four chows and the pair a character. Peng Peng Hu: no chow among the five sets.
7. Cou Yi Se: the five sets are of one type (characters or honors) except exactly one.
8. Greater than 5 / Less than 5: every tile of hand and melds a character 6-9 / 1-4.
9. Replacements: exactly the table's, with the (I) ones: Si An Ke replaces Three concealed pungs,
   Shuang An Ke, Peng Peng Hu, Men Qing; Da Si Xi replaces Xiao Si Xi and Peng Peng Hu.
10. Payment = base + fan_value x fan (options ``base``, ``fan_value``; 50 and 100).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

try:  # tests/ on sys.path (conftest.py) ...
    from reference import MZ_KINDS, hand_text, ref_waits
    from reference_arrangements import best, placements, random_hand
except ImportError:  # ... or tests as a package
    from tests.reference import MZ_KINDS, hand_text, ref_waits
    from tests.reference_arrangements import best, placements, random_hand

N_KINDS = 34
WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)
MELD_TYPES = ("pung", "kong", "added_kong", "concealed_kong", "chow")
CLAIMED_TYPES = ("pung", "kong", "added_kong", "chow")
MELD_SIZE = {"pung": 3, "kong": 4, "added_kong": 4, "concealed_kong": 4, "chow": 3}

FAN: dict[str, int] = {
    "self_drawn": 1,
    "pair_wait": 1,
    "edge_wait": 1,
    "closed_wait": 1,
    "concealed_hand": 1,
    "all_chows": 2,
    "two_concealed_pungs": 2,
    "fully_concealed": 4,
    "all_pungs": 6,
    "one_type_but_one_set": 6,
    "fully_melded": 6,
    "last_tile_draw": 8,
    "last_discard": 8,
    "greater_than_five": 12,
    "less_than_five": 12,
    "three_concealed_pungs": 16,
    "full_flush": 24,
    "all_honors": 64,
    "four_concealed_pungs": 64,
    "little_three_dragons": 64,
    "little_four_winds": 64,
    "big_three_dragons": 88,
    "big_four_winds": 88,
}
ITEM_NAMES: tuple[str, ...] = tuple(FAN)

#: (pattern, the pattern it replaces), from the table's "replaces" column
REPLACES: tuple[tuple[str, str], ...] = (
    ("fully_concealed", "self_drawn"),
    ("fully_concealed", "concealed_hand"),
    ("fully_melded", "pair_wait"),
    ("last_tile_draw", "self_drawn"),
    ("three_concealed_pungs", "two_concealed_pungs"),
    ("full_flush", "one_type_but_one_set"),
    ("all_honors", "all_pungs"),
    ("four_concealed_pungs", "three_concealed_pungs"),
    ("four_concealed_pungs", "two_concealed_pungs"),
    ("four_concealed_pungs", "all_pungs"),
    ("four_concealed_pungs", "concealed_hand"),
    ("big_three_dragons", "little_three_dragons"),
    ("big_four_winds", "little_four_winds"),
    ("big_four_winds", "all_pungs"),
)

DEFAULT_OPTIONS = {"base": 50, "fan_value": 100}


def _check(c, win_tile, melds, self_drawn, last_tile, last_discard) -> None:
    if len(c) != N_KINDS or min(c) < 0:
        raise ValueError("counts must be 34 non-negative counts")
    if any(c[i] for i in range(N_KINDS) if i not in MZ_KINDS):
        raise ValueError(f"night_market has characters and honors only: {hand_text(c)}")
    if c[win_tile] < 1:
        raise ValueError("the winning tile must be in the hand")
    if len(melds) > 4:
        raise ValueError("at most 4 melds")
    total = list(c)
    for typ, kind in melds:
        if typ not in MELD_TYPES or kind not in MZ_KINDS:
            raise ValueError(f"bad meld {(typ, kind)}")
        if typ == "chow":
            if kind > 6:
                raise ValueError(f"bad chow {(typ, kind)}")
            for d in range(3):
                total[kind + d] += 1
        else:
            total[kind] += MELD_SIZE[typ]
    if max(total) > 4:
        raise ValueError("more than 4 tiles of a kind")
    if sum(c) != 14 - 3 * len(melds):
        raise ValueError("wrong number of concealed tiles")
    if last_tile and not self_drawn:
        raise ValueError("last_tile is a self-draw")
    if last_discard and self_drawn:
        raise ValueError("last_discard is a discard win")


def _patterns(sets, win_set, win_tile, tiles, single, self_drawn, last_tile, last_discard, n_melds) -> dict:
    """Every pattern of the table that holds for one arrangement, before replacements."""
    claimed_melds = [s for s in sets if s["claimed"]]
    nothing_claimed = not claimed_melds
    pungs = [s for s in sets if s["shape"] == "pung"]
    chows = [s for s in sets if s["shape"] == "chow"]
    (pair,) = [s for s in sets if s["shape"] == "pair"]
    concealed_pungs = sum(1 for s in pungs if s["concealed"])
    dragon_pungs = sum(1 for s in pungs if s["kind"] in DRAGONS)
    wind_pungs = sum(1 for s in pungs if s["kind"] in WINDS)
    honor_sets = sum(1 for s in sets if s["kind"] >= 27)
    chars = [t for t in tiles if t < 9]
    honors = [t for t in tiles if t >= 27]

    found = set()
    if self_drawn:
        found.add("self_drawn")
    if single and win_set["shape"] == "pair":
        found.add("pair_wait")
    if single and win_set["shape"] == "chow":
        first = win_set["kind"]
        if (first % 9 == 0 and win_tile == first + 2) or (first % 9 == 6 and win_tile == first):
            found.add("edge_wait")
        if win_tile == first + 1:
            found.add("closed_wait")
    if nothing_claimed and not self_drawn:
        found.add("concealed_hand")
    if len(chows) == 4 and pair["kind"] < 9:
        found.add("all_chows")
    if concealed_pungs == 2:
        found.add("two_concealed_pungs")
    if nothing_claimed and self_drawn:
        found.add("fully_concealed")
    if not chows:
        found.add("all_pungs")
    if honor_sets in (1, 4):
        found.add("one_type_but_one_set")
    if n_melds == 4 and len(claimed_melds) == 4 and not self_drawn and win_set["shape"] == "pair":
        found.add("fully_melded")
    if last_tile and self_drawn:
        found.add("last_tile_draw")
    if last_discard and not self_drawn:
        found.add("last_discard")
    if all(5 <= t <= 8 for t in tiles):
        found.add("greater_than_five")
    if all(0 <= t <= 3 for t in tiles):
        found.add("less_than_five")
    if concealed_pungs == 3:
        found.add("three_concealed_pungs")
    if not honors:
        found.add("full_flush")
    if not chars:
        found.add("all_honors")
    if concealed_pungs == 4:
        found.add("four_concealed_pungs")
    if dragon_pungs == 2 and pair["kind"] in DRAGONS:
        found.add("little_three_dragons")
    if wind_pungs == 3 and pair["kind"] in WINDS:
        found.add("little_four_winds")
    if dragon_pungs == 3:
        found.add("big_three_dragons")
    if wind_pungs == 4:
        found.add("big_four_winds")
    assert len(found & {"pair_wait", "edge_wait", "closed_wait"}) <= 1
    return found


def ref_score(
    counts: Sequence[int],
    win_tile: int,
    melds: Sequence[tuple[str, int]] = (),
    *,
    self_drawn: bool = False,
    last_tile: bool = False,
    last_discard: bool = False,
    options: Mapping | None = None,
) -> dict:
    """Score a night_market win.

    ``counts``: 34 concealed counts including the winning tile; ``melds``: (type, lowest kind) with
    type in :data:`MELD_TYPES`. Returns ``{"items": {name: fan}, "fan", "points", "split",
    "win_part"}``. Raises ValueError for impossible input or an incomplete hand.
    """
    c = tuple(int(x) for x in counts)
    win_tile = int(win_tile)
    melds = tuple((str(t), int(k)) for t, k in melds)
    opts = dict(DEFAULT_OPTIONS, **(options or {}))
    _check(c, win_tile, melds, self_drawn, last_tile, last_discard)
    k = len(melds)
    arrangements = placements(c, k, win_tile)
    if not arrangements:
        raise ValueError(f"not a complete hand: {hand_text(c)} + {melds}")
    tiles = [t for t in range(N_KINDS) for _ in range(c[t])]
    meld_counts = [0] * N_KINDS
    for typ, kind in melds:
        for t in [kind, kind + 1, kind + 2] if typ == "chow" else [kind] * MELD_SIZE[typ]:
            tiles.append(t)
            meld_counts[t] += 1
    ready = list(c)
    ready[win_tile] -= 1
    single = len(ref_waits(ready, k, meld_counts, MZ_KINDS, False)) == 1

    def scored(split, win_idx):
        sets = [
            dict(
                shape="chow" if typ == "chow" else "pung",
                kind=kind,
                concealed=typ == "concealed_kong",
                claimed=typ in CLAIMED_TYPES,
            )
            for typ, kind in melds
        ]
        for idx, (shape, kind) in enumerate(split):
            concealed = shape == "pung" and not (not self_drawn and idx == win_idx)
            sets.append(dict(shape=shape, kind=kind, concealed=concealed, claimed=False))
        win_set = sets[k + win_idx]
        found = _patterns(sets, win_set, win_tile, tiles, single, self_drawn, last_tile, last_discard, k)
        found -= {loser for winner, loser in REPLACES if winner in found}
        return {name: FAN[name] for name in ITEM_NAMES if name in found}, split, split[win_idx]

    items, split, win_part = best((scored(split, win_idx) for split, win_idx in arrangements), ITEM_NAMES)
    fan = sum(items.values())
    return {
        "items": items,
        "fan": fan,
        "points": float(opts["base"] + opts["fan_value"] * fan),
        "split": split,
        "win_part": win_part,
    }


# --------------------------------------------------------------------------- random cases

#: tile pools the random hands are drawn from (skewed towards the rare patterns)
POOLS = (
    tuple(MZ_KINDS),
    tuple(MZ_KINDS),
    tuple(MZ_KINDS),
    tuple(range(9)),
    tuple(range(27, 34)),
    (0, 1, 2, 3),
    (5, 6, 7, 8),
    tuple(range(9)) + DRAGONS,
    tuple(range(9)) + WINDS,
)


def random_case(rng: random.Random) -> dict:
    """A random consistent night_market case: keyword arguments for :func:`ref_score`.

    k = 0..4 melds (pung, kong, added_kong, concealed_kong, chow), then a complete concealed part
    of pungs, chows and a pair from the tiles left, all drawn from one random pool of kinds
    (:data:`POOLS`, so one-suit, all-honor, 1-4 and 6-9 hands are frequent), a winning tile drawn
    from the hand by count, and random flags that are consistent.
    """
    while True:
        pool = rng.choice(POOLS)
        chow_starts = [s for s in range(7) if {s, s + 1, s + 2} <= set(pool)]
        left = {kind: 4 for kind in MZ_KINDS}
        k = rng.choice((0, 0, 1, 1, 2, 3, 4, 4))
        hand = random_hand(rng, k, MELD_TYPES + ("chow", "pung"), pool, chow_starts, left, MELD_SIZE, 0.5)
        if hand is None:
            continue
        melds, c, win_tile = hand
        case = dict(counts=c, win_tile=win_tile, melds=melds)
        case["self_drawn"] = rng.random() < 0.5
        if case["self_drawn"]:
            case["last_tile"] = rng.random() < 0.15
        else:
            case["last_discard"] = rng.random() < 0.15
        if rng.random() < 0.2:
            case["options"] = {"base": rng.choice((50, 10, 0.5)), "fan_value": rng.choice((100, 20, 7.5))}
        return case
