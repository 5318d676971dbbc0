"""Slow, obviously-correct pure-Python reference scorer for the douque tai table.

Written from ``rules/douque.md`` §7-§9 only (no simkit code is imported or copied);
the numba tai kernel is tested *against* this module.  The hand mechanics (splits of a complete
concealed part, wait sets) come from the pure-Python hand reference ``tests/reference.py``.

Entry point
-----------
``ref_score(counts, win_tile, melds=(), *, self_drawn=False, robbing_kong=False, replacement=False,
last_tile=False, first_turn=None, declared=None, seat_wind="E", prevailing_wind="E", dealer=False,
streak=0, options=None) -> dict`` — see its docstring.  ``ITEM_NAMES`` lists every item name in a
fixed order (they are data columns).  ``random_case(rng)`` draws a random *consistent* scoring case
(keyword arguments for ``ref_score``) for property tests of a kernel against this reference.

Method (literal §7)
-------------------
For every split of the concealed part (``ref_splits``) and every part of that split that can hold
the winning tile (a pair/pung of its kind, a chow containing it), build the list of the 5 "sets" of
the hand (the exposed melds + the concealed parts) with a concealed flag on every pung/kong, score
every item of the table on that list, and keep the arrangement with the most hand tai (ties: the
lexicographically largest item vector in ``ITEM_NAMES`` order, then the first in sorted split
order and part order; deterministic and independent of how splits are enumerated).

Interpretations (every point where douque.md leaves room; decided here, tested in
``tests/test_reference_scoring.py``)
-------------------------------------------------------------------------------------------------
Tiles and sets
  1. A kong (exposed, added or concealed) is a pung for every pung-based item: Seat Wind,
     Prevailing Wind, Dragon Pung, Little/Big Three Dragons, Little/Big Four Winds, All Pungs.
  2. Concealed pungs = concealed kongs + pungs of the concealed part, except the pung that the
     winning tile completes on a discard win (a win on the opponent's discard, including Robbing
     the Kong and Human Hand).  On a self-draw (incl. replacement, last tile, Heavenly, Earthly)
     every concealed-part pung is concealed.  Claimed pungs, exposed kongs and added kongs are
     never concealed (an added kong started as a claimed pung).  When the winning tile's kind is
     both in a pung and in a chow (or pair) of the split, it may sit in either (§7: "any place its
     kind can take"), and the better placement is used.
Win-type items
  3. Self-drawn (4) = ``self_drawn`` (a replacement or last-tile self-draw is a self-draw).  Robbing
     the Kong is a discard win: ``robbing_kong`` with ``self_drawn`` is inconsistent (ValueError).
  4. Concealed Hand (1) = no pung / exposed kong / added kong among the melds (concealed kongs
     allowed), on a self-draw *or* a discard win.  Fully Concealed (1) = Concealed Hand and
     self-drawn, on top of both.
  5. Out with Replacement Tile (1) needs ``self_drawn`` and at least one kong (any kind) among the
     winner's melds; ``replacement`` otherwise is inconsistent (ValueError).  It stacks with Last
     Tile Draw when the replacement is the last drawable tile.
  6. Last Tile Draw (1) = ``last_tile`` and ``self_drawn``.  ``last_tile`` on a discard win is
     allowed and scores nothing (Last Tile Claim is not used, §7).
  7. Single Wait (1): the ready hand (``counts`` minus one ``win_tile``, same melds) had exactly one
     winning kind, by ``ref_waits(ready, k, meld_counts, DOUQUE_KINDS, seven_pairs=False)``: kinds
     of which the winner holds all 4 (hand + own melds) are not waits; tiles seen elsewhere (the
     opponent's melds, discards) do not matter.  It does not depend on the split or on where the
     winning tile sits (so 1112m waiting 2m/3m is never Single Wait, even when won on 2m).  Scored
     on a self-draw or a discard win, with Earthly and Human Hand, but never with Heavenly Hand.
  8. Fully Melded (2): all 4 melds are ``pung``/``kong``/``added_kong`` (a concealed kong is not a
     "melded" meld) and the win is not self-drawn; the pair wait is then automatic.  It never
     meets Concealed Hand (which needs no exposed meld).  Single Wait (always true then) is also
     scored unless option ``fully_melded_single_wait`` is False.
Pattern items
  9. Seat Wind and Prevailing Wind both score for one pung when the seat wind is the prevailing
     wind (East pung as East in the East round = 2 tai: "stacks").  Seat wind "E" = z1, "W" = z3.
 10. Dragon Pung scores 1 per dragon pung/kong.  Little/Big Three Dragons replace *all* Dragon Pung
     tai; Little/Big Four Winds replace *all* Seat/Prevailing Wind tai (whatever the seat and
     prevailing winds are).  The dragon specials do not replace wind items (Big Three Dragons +
     a seat-wind pung scores both) and the wind specials do not replace Dragon Pung, unless All
     Honors replaces them (12).  (A Little Four Winds hand with a dragon pung is necessarily all
     honors, so Dragon Pung never actually meets a wind special.)
 11. Half Flush (4) = the tiles (hand + melds) are of exactly one suit (characters, or dots 1/9) AND
     there is at least one honor tile.  Full Flush (8) = characters only.  All Honors (16) =
     honors only.  So the three are mutually exclusive by definition (an all-dots hand cannot be
     complete); "characters only" is Full Flush, never Half Flush.
 12. All Honors replaces All Pungs, Half Flush, Dragon Pung, Seat Wind, Prevailing Wind.  With
     Little/Big Three Dragons or Little/Big Four Winds (at most one of those four can occur in a
     14-tile hand) the two are shown as ONE merged item ``all_honors_<other>`` worth
     16 + other - 4 (16, 20, 20, 28) and neither ``all_honors`` nor the other item is scored.
     Four/Three Concealed Pungs, Concealed Hand, Self-drawn, Fully Concealed, Single Wait,
     Fully Melded, ... still add.
 13. Three Concealed Pungs (2) needs exactly three concealed pungs; four give Four Concealed Pungs
     (5) only.  Four Concealed Pungs stacks with All Pungs and Concealed Hand (§7).
 14. All Pungs (4): the used split has no chow (4 pungs/kongs + pair, melds included).
Special wins and declarations (flags are trusted for timing; obvious contradictions raise)
 15. ``first_turn``: "heavenly" needs ``dealer`` and ``self_drawn`` (the dealer's 14 dealt tiles:
     nothing is claimed, so every pung is concealed; ``win_tile`` may be any tile of the hand and
     does not change the score); "earthly" needs not ``dealer`` and ``self_drawn``; "human" needs
     not ``dealer`` and not ``self_drawn``.  All three need: no melds (nobody made a pung or kong),
     no declaration (the winner has not discarded), no replacement / robbing / last tile.
     Heavenly and Earthly replace Concealed Hand, Self-drawn and Fully Concealed; Human replaces
     Concealed Hand (Fully Concealed cannot occur on its discard win).  Every other item adds.
     Tai: Heavenly = option ``heavenly_tai``, Earthly = 16, Human = option ``human_tai``.
 16. ``declared``: "migi" scores ``migi_tai``, "ready" scores ``declare_ready_tai``; an item worth
     0 tai (option set to 0) is not listed.  MIGI needs no melds (nobody had a pung or kong when
     it was declared, and a declarer makes no pung/kong afterwards except the automatic added kong
     of an existing exposed pung, which MIGI cannot have); "ready" allows any melds.
 17. Dealer tai = 1 + 2 * ``streak`` (not capped here: ``streak_cap`` only governs the deal), and
     does not depend on ``dealer``; ``total_tai`` = base/tai_value + hand tai + dealer tai,
     ``points`` = base + tai_value * (hand tai + dealer tai).
 18. Robbing the Kong: the robbed tile is the 4th copy of the opponent's pung, so the winner holds
     exactly one tile of that kind (the winning tile, necessarily in a chow) and no meld of it;
     anything else is inconsistent (ValueError).
 19. Options: keys other than the §9 names are a ValueError (typo guard); ``skipped_pung`` and
     ``streak_cap`` are accepted and ignored.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

try:  # tests/ on sys.path (conftest.py) ...
    from reference import DOUQUE_KINDS, hand_text, ref_waits
    from reference_arrangements import best, placements, random_hand
except ImportError:  # ... or tests as a package
    from tests.reference import DOUQUE_KINDS, hand_text, ref_waits
    from tests.reference_arrangements import best, placements, random_hand

N_KINDS = 34
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)
SEAT_WINDS = {"E": EAST, "W": WEST}
PREVAILING_WINDS = {"E": EAST, "S": SOUTH, "W": WEST, "N": NORTH}

MELD_TYPES = ("pung", "kong", "added_kong", "concealed_kong")
EXPOSED_MELD_TYPES = ("pung", "kong", "added_kong")
MELD_SIZE = {"pung": 3, "kong": 4, "added_kong": 4, "concealed_kong": 4}

ITEM_NAMES: tuple[str, ...] = (
    "self_drawn",
    "concealed_hand",
    "fully_concealed",
    "seat_wind",
    "prevailing_wind",
    "dragon_pung",
    "single_wait",
    "replacement_tile",
    "robbing_the_kong",
    "last_tile_draw",
    "fully_melded",
    "three_concealed_pungs",
    "four_concealed_pungs",
    "all_pungs",
    "half_flush",
    "full_flush",
    "little_three_dragons",
    "big_three_dragons",
    "little_four_winds",
    "big_four_winds",
    "all_honors",
    "all_honors_little_three_dragons",
    "all_honors_big_three_dragons",
    "all_honors_little_four_winds",
    "all_honors_big_four_winds",
    "heavenly_hand",
    "earthly_hand",
    "human_hand",
    "migi",
    "declare_ready",
)

#: fixed tai of §7 (option-dependent items are filled from the options)
FIXED_TAI: dict[str, int] = {
    "self_drawn": 4,
    "concealed_hand": 1,
    "fully_concealed": 1,
    "seat_wind": 1,
    "prevailing_wind": 1,
    "dragon_pung": 1,  # per dragon pung/kong
    "single_wait": 1,
    "replacement_tile": 1,
    "robbing_the_kong": 1,
    "last_tile_draw": 1,
    "fully_melded": 2,
    "three_concealed_pungs": 2,
    "four_concealed_pungs": 5,
    "all_pungs": 4,
    "half_flush": 4,
    "full_flush": 8,
    "little_three_dragons": 4,
    "big_three_dragons": 8,
    "little_four_winds": 8,
    "big_four_winds": 16,
    "all_honors": 16,
    "earthly_hand": 16,
}
#: §7.1: All Honors + X shown as one item worth (16 + X - 4)
ALL_HONORS_MERGE_DISCOUNT = 4

#: §9 defaults
DEFAULT_OPTIONS: dict[str, object] = {
    "heavenly_tai": 24,
    "human_tai": 8,
    "migi_tai": 8,
    "declare_ready_tai": 1,
    "skipped_pung": "hand",
    "fully_melded_single_wait": True,
    "base": 50,
    "tai_value": 20,
    "streak_cap": 10,
}


# --------------------------------------------------------------------------- input checks


def _merge_options(options: Mapping | None) -> dict:
    opts = dict(DEFAULT_OPTIONS)
    if options:
        unknown = set(options) - set(DEFAULT_OPTIONS)
        if unknown:
            raise ValueError(f"unknown scoring option(s) {sorted(unknown)}; known: {sorted(DEFAULT_OPTIONS)}")
        opts.update(options)
    for name in ("heavenly_tai", "human_tai", "migi_tai", "declare_ready_tai"):
        if int(opts[name]) != opts[name] or opts[name] < 0:
            raise ValueError(f"option {name} must be a non-negative integer, got {opts[name]!r}")
    if not isinstance(opts["fully_melded_single_wait"], bool):
        raise ValueError("option fully_melded_single_wait must be a bool")
    if not (opts["base"] > 0 and opts["tai_value"] > 0):
        raise ValueError("options base and tai_value must be positive")
    return opts


def _check_input(c, win_tile, melds, flags) -> None:
    """Raise ValueError unless the tiles and flags describe a possible douque win."""
    if len(c) != N_KINDS:
        raise ValueError(f"counts must have length 34, got {len(c)}")
    douque = set(DOUQUE_KINDS)
    if any(x < 0 for x in c) or any(c[i] for i in range(N_KINDS) if i not in douque):
        raise ValueError(f"counts hold negative counts or non-douque tiles: {c}")
    if win_tile not in douque or c[win_tile] < 1:
        raise ValueError(f"win_tile {win_tile} must be a douque kind held in counts")
    if len(melds) > 4:
        raise ValueError("at most 4 melds")
    for typ, kind in melds:
        if typ not in MELD_TYPES or kind not in douque:
            raise ValueError(f"bad meld {(typ, kind)!r}")
    total = list(c)
    for typ, kind in melds:
        total[kind] += MELD_SIZE[typ]
    if max(total) > 4:
        raise ValueError("more than 4 tiles of one kind in hand + melds")
    if sum(c) != 14 - 3 * len(melds):
        raise ValueError(f"{len(melds)} melds need {14 - 3 * len(melds)} concealed tiles, got {sum(c)}")

    self_drawn = flags["self_drawn"]
    first_turn = flags["first_turn"]
    declared = flags["declared"]
    if flags["seat_wind"] not in SEAT_WINDS:
        raise ValueError(f"seat_wind must be 'E' or 'W', got {flags['seat_wind']!r}")
    if flags["prevailing_wind"] not in PREVAILING_WINDS:
        raise ValueError(f"prevailing_wind must be E/S/W/N, got {flags['prevailing_wind']!r}")
    if int(flags["streak"]) != flags["streak"] or flags["streak"] < 0:
        raise ValueError(f"streak must be a non-negative integer, got {flags['streak']!r}")
    if declared not in (None, "ready", "migi"):
        raise ValueError(f"declared must be None, 'ready' or 'migi', got {declared!r}")
    if first_turn not in (None, "heavenly", "earthly", "human"):
        raise ValueError(f"first_turn must be None, 'heavenly', 'earthly' or 'human', got {first_turn!r}")
    if flags["robbing_kong"]:
        if self_drawn:
            raise ValueError("robbing_kong is a discard win: self_drawn must be False")
        if c[win_tile] != 1 or any(kind == win_tile for _, kind in melds):
            raise ValueError("a robbed kong tile is the last copy of its kind: the winner holds no other")
    if flags["replacement"]:
        if not self_drawn:
            raise ValueError("replacement needs self_drawn")
        if not any(typ != "pung" for typ, _ in melds):
            raise ValueError("replacement needs a kong among the winner's melds")
    if declared == "migi" and melds:
        raise ValueError("MIGI is impossible with melds (nobody may have made a pung or kong)")
    if first_turn is not None:
        if melds or declared or flags["replacement"] or flags["robbing_kong"] or flags["last_tile"]:
            raise ValueError(f"{first_turn} hand: no melds, declaration, replacement, robbing or last tile")
        if first_turn == "heavenly" and not (flags["dealer"] and self_drawn):
            raise ValueError("heavenly hand: the dealer, self_drawn=True")
        if first_turn == "earthly" and (flags["dealer"] or not self_drawn):
            raise ValueError("earthly hand: the non-dealer, self_drawn=True")
        if first_turn == "human" and (flags["dealer"] or self_drawn):
            raise ValueError("human hand: the non-dealer, self_drawn=False")


# --------------------------------------------------------------------------- arrangements


def _sets(melds, split, win_idx, discard_win):
    """The 5 sets of the hand as (shape, kind, concealed): shape "pung" (incl. kongs), "chow", "pair"."""
    sets = [("pung", kind, typ == "concealed_kong") for typ, kind in melds]
    for idx, (shape, kind) in enumerate(split):
        completed_by_discard = discard_win and idx == win_idx
        sets.append((shape, kind, shape == "pung" and not completed_by_discard))
    return sets


# --------------------------------------------------------------------------- the tai table


def _pattern_items(sets, tiles: set[int], seat: int, prevailing: int) -> dict[str, int]:
    """§7 / §7.1 items that depend on the tiles and the split (not on how the hand was won)."""
    items: dict[str, int] = {}
    pung_kinds = [kind for shape, kind, _ in sets if shape == "pung"]
    (pair_kind,) = [kind for shape, kind, _ in sets if shape == "pair"]
    n_chows = sum(1 for shape, _, _ in sets if shape == "chow")
    n_concealed_pungs = sum(1 for shape, _, concealed in sets if shape == "pung" and concealed)
    dragon_pungs = sum(1 for kind in pung_kinds if kind in DRAGONS)
    wind_pungs = sum(1 for kind in pung_kinds if kind in WINDS)

    if dragon_pungs == 3:
        dragons = "big_three_dragons"
    elif dragon_pungs == 2 and pair_kind in DRAGONS:
        dragons = "little_three_dragons"
    else:
        dragons = None
    if wind_pungs == 4:
        winds = "big_four_winds"
    elif wind_pungs == 3 and pair_kind in WINDS:
        winds = "little_four_winds"
    else:
        winds = None
    assert not (dragons and winds), "a 14-tile hand cannot hold a dragon and a wind special"

    honors = {t for t in tiles if t >= 27}
    suits = {"m" if t < 9 else "p" for t in tiles if t < 27}
    all_honors = not suits

    if all_honors:
        special = dragons or winds
        if special:
            items["all_honors_" + special] = FIXED_TAI["all_honors"] + FIXED_TAI[special] - ALL_HONORS_MERGE_DISCOUNT
        else:
            items["all_honors"] = FIXED_TAI["all_honors"]
        # All Honors replaces All Pungs, Half Flush, Dragon Pung, Seat Wind, Prevailing Wind.
    else:
        if dragons:
            items[dragons] = FIXED_TAI[dragons]  # replaces Dragon Pung
        elif dragon_pungs:
            items["dragon_pung"] = FIXED_TAI["dragon_pung"] * dragon_pungs
        if winds:
            items[winds] = FIXED_TAI[winds]  # replaces Seat and Prevailing Wind
        else:
            if seat in pung_kinds:
                items["seat_wind"] = FIXED_TAI["seat_wind"]
            if prevailing in pung_kinds:
                items["prevailing_wind"] = FIXED_TAI["prevailing_wind"]
        if n_chows == 0:
            items["all_pungs"] = FIXED_TAI["all_pungs"]
        if suits == {"m"} and not honors:
            items["full_flush"] = FIXED_TAI["full_flush"]
        elif len(suits) == 1 and honors:
            items["half_flush"] = FIXED_TAI["half_flush"]

    if n_concealed_pungs == 4:
        items["four_concealed_pungs"] = FIXED_TAI["four_concealed_pungs"]
    elif n_concealed_pungs == 3:
        items["three_concealed_pungs"] = FIXED_TAI["three_concealed_pungs"]
    return items


def _win_items(c, win_tile, melds, flags, opts) -> dict[str, int]:
    """§7 items that depend on how the hand was won / declared (not on the split)."""
    items: dict[str, int] = {}
    first_turn = flags["first_turn"]
    self_drawn = flags["self_drawn"]
    concealed = not any(typ in EXPOSED_MELD_TYPES for typ, _ in melds)
    heavenly_or_earthly = first_turn in ("heavenly", "earthly")

    if self_drawn and not heavenly_or_earthly:
        items["self_drawn"] = FIXED_TAI["self_drawn"]
    if concealed and first_turn is None:  # Heavenly / Earthly / Human replace Concealed Hand
        items["concealed_hand"] = FIXED_TAI["concealed_hand"]
    if concealed and self_drawn and not heavenly_or_earthly:
        items["fully_concealed"] = FIXED_TAI["fully_concealed"]
    if flags["replacement"] and self_drawn:
        items["replacement_tile"] = FIXED_TAI["replacement_tile"]
    if flags["robbing_kong"]:
        items["robbing_the_kong"] = FIXED_TAI["robbing_the_kong"]
    if flags["last_tile"] and self_drawn:
        items["last_tile_draw"] = FIXED_TAI["last_tile_draw"]

    fully_melded = len(melds) == 4 and all(typ in EXPOSED_MELD_TYPES for typ, _ in melds) and not self_drawn
    if fully_melded:
        items["fully_melded"] = FIXED_TAI["fully_melded"]

    if first_turn != "heavenly" and not (fully_melded and not opts["fully_melded_single_wait"]):
        ready = list(c)
        ready[win_tile] -= 1
        meld_counts = [0] * N_KINDS
        for typ, kind in melds:
            meld_counts[kind] += MELD_SIZE[typ]
        if len(ref_waits(ready, len(melds), meld_counts, DOUQUE_KINDS, False)) == 1:
            items["single_wait"] = FIXED_TAI["single_wait"]

    if first_turn == "heavenly":
        items["heavenly_hand"] = opts["heavenly_tai"]
    elif first_turn == "earthly":
        items["earthly_hand"] = FIXED_TAI["earthly_hand"]
    elif first_turn == "human":
        items["human_hand"] = opts["human_tai"]

    if flags["declared"] == "migi":
        items["migi"] = opts["migi_tai"]
    elif flags["declared"] == "ready":
        items["declare_ready"] = opts["declare_ready_tai"]
    return items


# --------------------------------------------------------------------------- entry point


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
    declared: str | None = None,
    seat_wind: str = "E",
    prevailing_wind: str = "E",
    dealer: bool = False,
    streak: int = 0,
    options: Mapping | None = None,
) -> dict:
    """Score a douque win (§7-§9).

    ``counts``: length-34 concealed tiles INCLUDING the winning tile (14 - 3k tiles for k melds);
    ``win_tile``: its kind; ``melds``: list of (type, kind), type in ``MELD_TYPES``.
    Flags: see the module docstring (inconsistent flags or an incomplete hand raise ValueError).

    Returns ``{"items": {name: tai}`` (only items with tai > 0), ``"hand_tai"``, ``"dealer_tai"``,
    ``"total_tai"`` (base/tai_value + hand + dealer), ``"points"`` (base + tai_value * (hand +
    dealer)), ``"split"`` (the concealed-part split used, a sorted tuple as in ``ref_splits``),
    ``"win_part"`` (the part of that split holding the winning tile)}.
    """
    c = tuple(int(x) for x in counts)
    win_tile = int(win_tile)
    melds = tuple((str(typ), int(kind)) for typ, kind in melds)
    flags = dict(
        self_drawn=bool(self_drawn),
        robbing_kong=bool(robbing_kong),
        replacement=bool(replacement),
        last_tile=bool(last_tile),
        first_turn=first_turn,
        declared=declared,
        seat_wind=seat_wind,
        prevailing_wind=prevailing_wind,
        dealer=bool(dealer),
        streak=streak,
    )
    opts = _merge_options(options)
    _check_input(c, win_tile, melds, flags)
    arrangements = placements(c, len(melds), win_tile)
    if not arrangements:
        raise ValueError(f"not a complete hand: {hand_text(c)} with melds {list(melds)}")

    tiles = {i for i in range(N_KINDS) if c[i]} | {kind for _, kind in melds}
    seat = SEAT_WINDS[seat_wind]
    prevailing = PREVAILING_WINDS[prevailing_wind]
    discard_win = not flags["self_drawn"]  # a discard, a robbed kong tile, Human Hand
    win_items = _win_items(c, win_tile, melds, flags, opts)

    def scored(split, win_idx):
        items = dict(win_items)
        items.update(_pattern_items(_sets(melds, split, win_idx, discard_win), tiles, seat, prevailing))
        return items, split, split[win_idx]

    items, split, win_part = best((scored(split, win_idx) for split, win_idx in arrangements), ITEM_NAMES)

    items = {name: items[name] for name in ITEM_NAMES if items.get(name, 0) > 0}
    hand_tai = sum(items.values())
    dealer_tai = 1 + 2 * int(streak)
    base, tai_value = opts["base"], opts["tai_value"]
    return {
        "items": items,
        "hand_tai": hand_tai,
        "dealer_tai": dealer_tai,
        "total_tai": float(base / tai_value + hand_tai + dealer_tai),
        "points": float(base + tai_value * (hand_tai + dealer_tai)),
        "split": split,
        "win_part": win_part,
    }


# --------------------------------------------------------------------------- random cases


def random_case(rng: random.Random) -> dict:
    """A random consistent douque scoring case: keyword arguments for :func:`ref_score`.

    k = 0..4 melds (pung / kong / added_kong / concealed_kong), then a complete concealed part of
    random pungs and character chows + one pair from the tiles left, a winning tile drawn from it
    by count, and random flags that satisfy every consistency rule of the module docstring.
    Skewed towards the rarer items (honors, first-turn wins) on purpose.  ``rng``: random.Random.
    """
    kinds = list(DOUQUE_KINDS)
    while True:
        left = {kind: 4 for kind in kinds}
        k = rng.choice((0, 0, 1, 1, 2, 3, 4))
        pool = kinds if rng.random() < 0.7 else [kind for kind in kinds if kind >= 27]
        hand = random_hand(rng, k, MELD_TYPES, pool, range(7), left, MELD_SIZE, 0.35)
        if hand is None:
            continue
        melds, c, win_tile = hand

        has_kong = any(typ != "pung" for typ, _ in melds)
        case = dict(counts=c, win_tile=win_tile, melds=melds)
        case["seat_wind"] = rng.choice("EW")
        case["prevailing_wind"] = rng.choice("ESWN")
        case["dealer"] = rng.random() < 0.5
        case["streak"] = rng.randrange(11) if rng.random() < 0.5 else 0
        if not melds and rng.random() < 0.15:
            ft = rng.choice(("heavenly", "earthly", "human"))
            case["first_turn"] = ft
            case["dealer"] = ft == "heavenly"
            case["self_drawn"] = ft != "human"
        else:
            case["self_drawn"] = rng.random() < 0.5
            if not case["self_drawn"]:
                can_rob = c[win_tile] == 1 and not any(kind == win_tile for _, kind in melds)
                case["robbing_kong"] = can_rob and rng.random() < 0.3
            else:
                case["replacement"] = has_kong and rng.random() < 0.4
            case["last_tile"] = rng.random() < 0.1
            r = rng.random()
            if r < 0.15 and not melds:
                case["declared"] = "migi"
            elif r < 0.35:
                case["declared"] = "ready"
        if rng.random() < 0.3:
            case["options"] = {
                "heavenly_tai": rng.choice((24, 16)),
                "human_tai": rng.choice((8, 16)),
                "migi_tai": rng.choice((8, 4)),
                "declare_ready_tai": rng.choice((1, 0)),
                "fully_melded_single_wait": rng.random() < 0.5,
            }
        return case
