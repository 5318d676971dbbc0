"""Slow, obviously-correct pure-Python reference scorer for the duel fan table and payments.

Written from ``rules/duel.md`` and its source text (with its three worked examples) only; no
simkit code is imported or copied. Splits come from the pure-Python hand reference
``tests/reference.py``.

Method
------
The arrangements of a win are every split of the concealed part into melds + a pair, plus seven
pairs when the hand has no melds and every count is even. For each, the five sets (or seven pairs)
are listed and every pattern is decided literally from its condition; Luxury seven pairs then
replaces Seven pairs, and a Heavenly / Earthly Hand replaces everything ("8 fan flat, nothing else
added"). The arrangement with the most fan counts (ties: the lexicographically largest item
vector in :data:`ITEM_NAMES` order).

Interpretations
---------------
1. Win (1) on every win; Self-drawn (+1); Concealed (+1): no pung / exposed kong / added kong
   among the melds (concealed kongs fine), on any win, seven pairs included.
2. Kongs count as pungs for All pungs, Big three dragons, Little / Big four winds.
3. Seven pairs: no melds, 14 tiles, every count even; luxury when a count is 4.
4. Full flush = no honor tile; All honours = no character tile (seven pairs included).
5. Win on a kong = ``replacement`` and self-drawn (the winner has a kong); Last tile = ``last_tile``
   and self-drawn; Robbing the kong = ``robbing_kong`` (a discard win). They stack.
6. Heavenly (dealer, self-drawn, dealt 14, no melds) and Earthly (non-dealer, self-drawn, first draw,
   no melds): the only item, 8 fan. "Before any call" is a fact of the play, given here as
   ``first_turn``: a call takes a discard, so the dealer's concealed kong (declared, not called:
   duel.md's seven pairs needs "no calls, no declared kongs") leaves Earthly Hand possible.
7. Payment: multiple = min(2^(fan-1), multiple_cap); the loser pays multiple x stake plus the
   winner's kongs (exposed 2, added 1, concealed 4) x stake; the winner pays fee x that.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

try:  # tests/ on sys.path (conftest.py) ...
    from reference import MZ_KINDS, hand_text
    from reference_arrangements import best, random_hand, random_win_tile, seven_pairs, splits, take_identical
except ImportError:  # ... or tests as a package
    from tests.reference import MZ_KINDS, hand_text
    from tests.reference_arrangements import best, random_hand, random_win_tile, seven_pairs, splits, take_identical

N_KINDS = 34
WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)
MELD_TYPES = ("pung", "kong", "added_kong", "concealed_kong")
MELD_SIZE = {"pung": 3, "kong": 4, "added_kong": 4, "concealed_kong": 4}
KONG_STAKES = {"pung": 0, "kong": 2, "added_kong": 1, "concealed_kong": 4}

FAN: dict[str, int] = {
    "win": 1,
    "self_drawn": 1,
    "concealed_hand": 1,
    "all_pungs": 2,
    "full_flush": 2,
    "seven_pairs": 3,
    "luxury_seven_pairs": 5,
    "big_three_dragons": 8,
    "little_four_winds": 8,
    "big_four_winds": 10,
    "all_honors": 10,
    "replacement_tile": 1,
    "last_tile_draw": 1,
    "robbing_the_kong": 1,
    "heavenly_hand": 8,
    "earthly_hand": 8,
}
ITEM_NAMES: tuple[str, ...] = tuple(FAN)
DEFAULT_OPTIONS = {"stake": 1, "fee": 0.05, "chips": None, "multiple_cap": 32}


def _check(c, win_tile, melds, flags) -> None:
    if len(c) != N_KINDS or min(c) < 0 or any(c[i] for i in range(N_KINDS) if i not in MZ_KINDS):
        raise ValueError(f"duel has characters and honors only: {c}")
    if c[win_tile] < 1:
        raise ValueError("the winning tile must be in the hand")
    total = list(c)
    for typ, kind in melds:
        if typ not in MELD_TYPES or kind not in MZ_KINDS:
            raise ValueError(f"bad duel meld {(typ, kind)} (no chows)")
        total[kind] += MELD_SIZE[typ]
    if len(melds) > 4 or max(total) > 4 or sum(c) != 14 - 3 * len(melds):
        raise ValueError("impossible tiles")
    sd = flags["self_drawn"]
    if flags["robbing_kong"] and (sd or c[win_tile] != 1 or any(k == win_tile for _, k in melds)):
        raise ValueError("robbing: a discard win on the last copy of its kind")
    if flags["replacement"] and not (sd and any(t != "pung" for t, _ in melds)):
        raise ValueError("replacement: a self-draw with a kong")
    if flags["last_tile"] and not sd:
        raise ValueError("last_tile: a self-draw")
    ft = flags["first_turn"]
    if ft not in (None, "heavenly", "earthly"):
        raise ValueError(f"first_turn {ft!r}")
    if ft and (melds or not sd or flags["replacement"] or flags["robbing_kong"] or flags["last_tile"]):
        raise ValueError(f"{ft}: self-drawn, no melds")
    if ft == "heavenly" and not flags["dealer"] or ft == "earthly" and flags["dealer"]:
        raise ValueError(f"{ft}: wrong player")


def _arrangements(c: tuple[int, ...], melds) -> list[tuple[str, tuple]]:
    """("sets", split) for every split, and ("seven_pairs", pairs) when the hand is seven pairs."""
    out = [("sets", split) for split in splits(c, len(melds))]
    pairs = seven_pairs(c, melds)
    if pairs is not None:
        out.append(("seven_pairs", pairs))
    return out


def ref_score(
    counts: Sequence[int],
    win_tile: int,
    melds: Sequence[tuple[str, int]] = (),
    *,
    self_drawn: bool = False,
    robbing_kong: bool = False,
    replacement: bool = False,
    last_tile: bool = False,
    first_turn: str | None = None,
    dealer: bool = False,
    options: Mapping | None = None,
) -> dict:
    """Score a duel win. Returns ``{"items", "fan", "multiple", "win_payment", "kong_payment",
    "points", "fee", "arrangement"}``; ValueError for impossible input or an incomplete hand."""
    c = tuple(int(x) for x in counts)
    win_tile = int(win_tile)
    melds = tuple((str(t), int(k)) for t, k in melds)
    opts = dict(DEFAULT_OPTIONS, **(options or {}))
    flags = dict(
        self_drawn=self_drawn,
        robbing_kong=robbing_kong,
        replacement=replacement,
        last_tile=last_tile,
        first_turn=first_turn,
        dealer=dealer,
    )
    _check(c, win_tile, melds, flags)
    arrangements = _arrangements(c, melds)
    if not arrangements:
        raise ValueError(f"not a complete hand: {hand_text(c)} + {melds}")
    tiles = [t for t in range(N_KINDS) for _ in range(c[t])] + [k for typ, k in melds for _ in range(MELD_SIZE[typ])]

    def scored(form, parts):
        found = {"win"}
        if self_drawn:
            found.add("self_drawn")
        if not any(typ in ("pung", "kong", "added_kong") for typ, _ in melds):
            found.add("concealed_hand")
        if all(t < 9 for t in tiles):
            found.add("full_flush")
        if all(t >= 27 for t in tiles):
            found.add("all_honors")
        if replacement and self_drawn:
            found.add("replacement_tile")
        if last_tile and self_drawn:
            found.add("last_tile_draw")
        if robbing_kong:
            found.add("robbing_the_kong")
        if form == "seven_pairs":
            found.add("seven_pairs")
            if any(c[k] == 4 for k in parts):
                found.add("luxury_seven_pairs")
                found.discard("seven_pairs")
        else:
            pung_kinds = [k for _, k in melds] + [k for shape, k in parts if shape == "pung"]
            (pair,) = [k for shape, k in parts if shape == "pair"]
            if not any(shape == "chow" for shape, _ in parts):
                found.add("all_pungs")
            if all(d in pung_kinds for d in DRAGONS):
                found.add("big_three_dragons")
            winds = [w for w in WINDS if w in pung_kinds]
            if len(winds) == 3 and pair in WINDS:
                found.add("little_four_winds")
            if len(winds) == 4:
                found.add("big_four_winds")
        return {name: FAN[name] for name in ITEM_NAMES if name in found}, (form, parts)

    items, arrangement = best((scored(form, parts) for form, parts in arrangements), ITEM_NAMES)
    if first_turn == "heavenly":
        items = {"heavenly_hand": 8}
    elif first_turn == "earthly":
        items = {"earthly_hand": 8}
    fan = sum(items.values())
    multiple = min(2 ** (fan - 1), opts["multiple_cap"])
    win_payment = multiple * opts["stake"]
    kong_payment = sum(KONG_STAKES[typ] for typ, _ in melds) * opts["stake"]
    points = win_payment + kong_payment
    return {
        "items": items,
        "fan": fan,
        "multiple": multiple,
        "win_payment": float(win_payment),
        "kong_payment": float(kong_payment),
        "points": float(points),
        "fee": float(points * opts["fee"]),
        "arrangement": arrangement,
    }


def ref_kong_payment(melds, stake=1.0) -> float:
    """What the opponent pays the owner of ``melds`` (list of (type, kind)) for its kongs."""
    return float(sum(KONG_STAKES[typ] for typ, _ in melds) * stake)


# --------------------------------------------------------------------------- random cases

POOLS = (
    tuple(MZ_KINDS),
    tuple(MZ_KINDS),
    tuple(MZ_KINDS),
    tuple(range(9)),
    tuple(range(27, 34)),
    tuple(range(9)) + DRAGONS,
    tuple(range(9)) + WINDS,
)


def random_case(rng: random.Random) -> dict:
    """A random consistent duel case: keyword arguments for :func:`ref_score`.

    One in five is a seven-pairs hand (no melds); the others have k = 0..4 melds (pung, exposed /
    added / concealed kong) and a concealed part of pungs, chows and a pair, all from one random
    pool of kinds. The winning tile is drawn from the hand by count; the flags are consistent.
    """
    while True:
        pool = rng.choice(POOLS)
        chow_starts = [s for s in range(7) if {s, s + 1, s + 2} <= set(pool)]
        left = {kind: 4 for kind in MZ_KINDS}
        c = [0] * N_KINDS
        melds = []
        if rng.random() < 0.2:  # seven pairs
            if not all(take_identical(rng, pool, left, c, 2) for _ in range(7)):
                continue
            win_tile = random_win_tile(rng, c)
        else:
            hand = random_hand(
                rng, rng.choice((0, 0, 1, 1, 2, 3, 4)), MELD_TYPES, pool, chow_starts, left, MELD_SIZE, 0.4
            )
            if hand is None:
                continue
            melds, c, win_tile = hand
        case = dict(counts=c, win_tile=win_tile, melds=melds)
        case["dealer"] = rng.random() < 0.5
        if not melds and rng.random() < 0.1:
            case["first_turn"] = rng.choice(("heavenly", "earthly"))
            case["dealer"] = case["first_turn"] == "heavenly"
            case["self_drawn"] = True
        else:
            case["self_drawn"] = rng.random() < 0.5
            if case["self_drawn"]:
                case["replacement"] = any(t != "pung" for t, _ in melds) and rng.random() < 0.4
                case["last_tile"] = rng.random() < 0.15
            else:
                can_rob = c[win_tile] == 1 and not any(k == win_tile for _, k in melds)
                case["robbing_kong"] = can_rob and rng.random() < 0.3
        if rng.random() < 0.2:
            case["options"] = {
                "stake": rng.choice((1, 2, 0.5)),
                "fee": rng.choice((0.05, 0.0, 0.1)),
                "multiple_cap": rng.choice((32, 8, 64, 1000)),
            }
        return case
