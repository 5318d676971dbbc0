"""The scoring core every rule set shares: item rows, scratch, meld tally, split walk, best arrangement.

A rule set's scoring module (:mod:`simkit.scoring.douque`, ...) holds only what is its own: its
item table (:class:`Item` rows with their values, and what each item replaces), its parameters, the
items that do not depend on the arrangement, and one jitted function that scores one arrangement.
Everything else is here, written once:

* :func:`tally_melds` counts the exposed and declared melds (claimed melds, kongs, chows, pungs,
  honor pungs, the kinds of the pungs) and :func:`meld_tiles` / :func:`tile_suits` the tiles;
* :func:`best_arrangement` walks every arrangement of a winning hand -- seven pairs where the rule
  set has them, every split of the concealed part (:func:`simkit.hand.split.splits_kernel`) and,
  where it matters, every place the winning tile can take in it -- tallies each
  (:class:`Arrangement`: chows, pungs, concealed pungs, honor pungs, the pair, where the winning
  tile sits), has the rule set score it into a candidate item vector and keeps the best;
* :func:`better` is the tie rule: the largest total, ties going to the lexicographically largest
  item vector in the rule set's item order. The choice therefore never depends on the order in
  which the arrangements are enumerated.

Every rule set's ``score_kernel(counts, win_tile, melds, n_melds, <its win flags>, t, p, work, items)``
takes the same hand arguments, described once here:

counts : uint8[34]
    Concealed tiles including the winning tile (``14 - 3 * n_melds``); must be complete.
win_tile : int
    Kind of the winning tile.
melds : int array (>= n_melds, 2)
    Rows ``(meld type code, lowest kind)`` as in :mod:`simkit.melds` (chows included where the rule
    set has them); only the first ``n_melds`` count.
t : HandTables
    The rule set's hand tables (:func:`simkit.hand.tables.hand_tables`).
p : the rule set's parameters (``params_of(rules)``)
work : ScoreWork
    From the rule set's ``new_work()``. On return ``work.choice`` holds (split, part of the winning
    tile) of the scored arrangement in ``work.splits``; split -1 is seven pairs.
items : array (N_ITEMS,) of the item dtype
    Output: the value of each item of the best arrangement. The kernel returns their sum, or -1
    (items zero) if the hand is not complete.

Every rule set's ``score_batch_kernel`` scores N hands on all cores, one :data:`BATCH_CHUNK` of
rows per ``prange`` step (:func:`batch_chunks`, :func:`score_chunk`): arrays of length N (``counts``
(N, 34), ``melds`` (N, 4, 2), the flags), then ``t, p``, then ``items`` [N, N_ITEMS] of the rule
set's ``ITEM_DTYPE`` and the value of each hand [N] out (-1 for a hand that is not complete).

The rule set's function is passed to :func:`best_arrangement` as an argument; both are inlined into
the rule set's kernel (``inline="always"``), so each rule set gets its own compiled walk (and
stays cacheable).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._jit import borrow, jit
from ..hand.split import MAX_SPLITS, PART_CHOW, PART_PAIR, SCRATCH, splits_kernel
from ..hand.win import is_seven_pairs
from ..melds import MELD_ADDED_KONG, MELD_CHOW, MELD_CONCEALED_KONG, MELD_KONG, MELD_PUNG
from ..tiles import EAST, WHITE

__all__ = [
    "RULE_SET_SCORING",
    "Item",
    "ScoreWork",
    "new_work",
    "work_of",
    "BATCH_CHUNK",
    "batch_chunks",
    "chunk_hands",
    "score_chunk",
    "ITEMS_DIR",
    "load_items",
    "item_table",
    "work_factory",
    "fixed_values",
    "Arrangement",
    "MeldTally",
    "tally_melds",
    "meld_tiles",
    "tile_suits",
    "best_arrangement",
    "better",
    "item_total",
    "holds",
    "first_holding",
    "MELD_PUNG",
    "MELD_KONG",
    "MELD_ADDED",
    "MELD_CONCEALED",
    "MELD_CHOW",
    "EAST",
    "WHITE",
]

#: What every rule set's scoring module exports (beyond its own parameters class and payment
#: functions): the item table and its names, length, dtype, values (at the default options) and
#: replacements; the options as kernel parameters and as item values; the scratch, the kernel and
#: the batch kernel.
RULE_SET_SCORING = (
    "ITEMS",
    "ITEM_NAMES",
    "N_ITEMS",
    "ITEM_DTYPE",
    "VALUES",
    "REPLACES",
    "params_of",
    "values_of",
    "new_work",
    "score_kernel",
    "score_batch_kernel",
)

# the meld type codes of simkit.melds (MELD_ADDED, MELD_CONCEALED: its added and concealed kongs) and
# the first wind (East, 27) and dragon (White, 31) kinds of simkit.tiles, under the core's names
MELD_ADDED = MELD_ADDED_KONG
MELD_CONCEALED = MELD_CONCEALED_KONG


class Item(NamedTuple):
    """One row of a rule set's item table (tai, fan or points table)."""

    name: str  #: stable snake_case name (a dataset column)
    label: str  #: the rules file's name
    tai: str  #: the value as written in the rules (option name where an option sets it)
    condition: str  #: when it scores, and what it replaces
    value: float  #: the value at the default options (per pung or kong for "1 each"), as scored
    replaced_by: tuple = ()  #: names of the items that replace this one (it is not scored beside them)


#: Where the item tables live: ``items/<rule set>.toml``, one ``[[item]]`` per row of the table.
ITEMS_DIR = Path(__file__).parent / "items"


def load_items(rule_set: str) -> tuple:
    """The item table of a rule set, from ``items/<rule_set>.toml``: a tuple of :class:`Item`, in
    the order of the kernel's item vector."""
    with open(ITEMS_DIR / f"{rule_set}.toml", "rb") as f:
        rows = tomllib.load(f)["item"]
    return tuple(
        Item(r["name"], r["label"], r["tai"], r["condition"], r["value"], tuple(r.get("replaced_by", ()))) for r in rows
    )


def item_table(rule_set: str, dtype=np.int64) -> tuple:
    """``(ITEMS, ITEM_NAMES, N_ITEMS, VALUES, REPLACES)`` of a rule set: its item table
    (:func:`load_items`), the names (dataset columns), their number, the values at the default
    options (``dtype[N_ITEMS]``), in table order, and ``{item: the items it replaces}`` (from each
    row's ``replaced_by``)."""
    items = load_items(rule_set)
    names = tuple(item.name for item in items)
    unknown = {r for item in items for r in item.replaced_by} - set(names)
    if len(set(names)) != len(names) or unknown:
        raise ValueError(f"{rule_set} item table: repeated names, or replaced_by names not in it: {sorted(unknown)}")
    replaces = {n: tuple(item.name for item in items if n in item.replaced_by) for n in names}
    values = np.array([item.value for item in items], dtype)
    return items, names, len(items), values, {k: v for k, v in replaces.items() if v}


def work_factory(n_items: int, dtype):
    """A rule set's ``new_work()``: fresh scratch for its kernel, ``n_items`` items of ``dtype``."""

    def rule_set_new_work() -> ScoreWork:
        """Fresh scratch arrays for the rule set's ``score_kernel``."""
        return new_work(n_items, dtype)

    return rule_set_new_work


def fixed_values(values: np.ndarray):
    """A rule set's ``values_of(rules)`` when no option changes an item's value: a copy of ``values``."""

    def values_of(rules) -> np.ndarray:
        """The value of each item (table order); the same for every Rules of the rule set."""
        return values.copy()

    return values_of


class ScoreWork(NamedTuple):
    """Scratch arrays of a scoring kernel (allocate once with :func:`new_work`, reuse)."""

    splits: np.ndarray  #: int8[MAX_SPLITS, 5, 2]
    cand: np.ndarray  #: [N_ITEMS] of the rule set's item dtype, the arrangement being scored
    ready: np.ndarray  #: uint8[34], the hand before the winning tile
    meld_counts: np.ndarray  #: uint8[34], tiles in the winner's melds
    choice: np.ndarray  #: int64[2], (split index, part index) of the best arrangement; split -1 is seven pairs
    split_scratch: np.ndarray  #: int64[SCRATCH], work space of the splits kernel


def new_work(n_items: int, dtype=np.int64) -> ScoreWork:
    """Fresh scratch arrays for a scoring kernel with ``n_items`` items of ``dtype``."""
    return work_of(np.zeros(n_items, dtype))


@jit(inline="always")
def work_of(cand):  # pragma: no cover - compiled
    """Fresh scratch arrays around the candidate vector ``cand`` (also inside kernels)."""
    return ScoreWork(
        np.zeros((MAX_SPLITS, 5, 2), np.int8),
        cand,
        np.zeros(34, np.uint8),
        np.zeros(34, np.uint8),
        np.zeros(2, np.int64),
        np.zeros(SCRATCH, np.int64),
    )


class MeldTally(NamedTuple):
    """What the scoring needs to know of the winner's exposed and declared melds."""

    claimed: int  #: melds made on a discard: pungs, chows, exposed and added kongs (all but concealed kongs)
    concealed_kongs: int
    kongs: int  #: kongs of any kind
    chows: int
    pungs: int  #: pungs and kongs
    honor_pungs: int  #: pungs and kongs of honors
    dragons: int  #: pungs and kongs of dragons
    winds: int  #: pungs and kongs of winds
    pung_kinds: int  #: bit k set: a pung or kong of kind k


class Arrangement(NamedTuple):
    """One arrangement of a winning hand: the melds, one split of the concealed part (or seven
    pairs) and the place of the winning tile in it. Counts are of the whole hand (melds included)."""

    chows: int
    pungs: int  #: pungs and kongs
    concealed_pungs: int  #: concealed kongs, and the split's pungs but the one a discard completed
    honor_sets: int  #: pungs, kongs and the pair of honors
    dragons: int  #: pungs and kongs of dragons
    winds: int  #: pungs and kongs of winds
    pair: int  #: kind of the pair (-1 for seven pairs)
    pung_kinds: int  #: bit k set: a pung or kong of kind k
    win_part: int  #: part type (PART_*) holding the winning tile; -1 where the place is not scored
    win_kind: int  #: lowest kind of that part
    seven_pairs: bool
    luxury: bool  #: seven pairs with a kind held four times


@jit(inline="always")
def tally_melds(melds, n_melds):  # pragma: no cover - compiled
    """The :class:`MeldTally` of the first ``n_melds`` rows ``(meld type code, lowest kind)``."""
    claimed = 0
    concealed_kongs = 0
    kongs = 0
    chows = 0
    pungs = 0
    honor_pungs = 0
    dragons = 0
    winds = 0
    pung_kinds = np.int64(0)
    for m in range(n_melds):
        mtype = melds[m, 0]
        kind = melds[m, 1]
        if mtype == MELD_CONCEALED:
            concealed_kongs += 1
        else:
            claimed += 1
        if mtype == MELD_CHOW:
            chows += 1
            continue
        if mtype != MELD_PUNG:
            kongs += 1
        pungs += 1
        pung_kinds |= np.int64(1) << kind
        if kind >= EAST:
            honor_pungs += 1
            if kind >= WHITE:
                dragons += 1
            else:
                winds += 1
    return MeldTally(claimed, concealed_kongs, kongs, chows, pungs, honor_pungs, dragons, winds, pung_kinds)


@jit(inline="always")
def meld_tiles(melds, n_melds, out):  # pragma: no cover - compiled
    """Write the tiles of the first ``n_melds`` melds into ``out`` (uint8[34], zeroed first)."""
    for k in range(34):
        out[k] = 0
    for m in range(n_melds):
        mtype = melds[m, 0]
        kind = melds[m, 1]
        if mtype == MELD_CHOW:
            for d in range(3):
                out[kind + d] += 1
        else:
            out[kind] += 3 if mtype == MELD_PUNG else 4


@jit(inline="always")
def tile_suits(counts, meld_counts):  # pragma: no cover - compiled
    """Which suits the whole hand holds: ``(characters, dots or bamboo, honors)``."""
    has_m = False
    has_p = False
    has_z = False
    for k in range(34):
        if counts[k] + meld_counts[k]:
            if k < 9:
                has_m = True
            elif k < EAST:
                has_p = True
            else:
                has_z = True
    return has_m, has_p, has_z


BATCH_CHUNK = 256  #: hands a batch kernel scores with one scratch (one prange step)


@jit(inline="always")
def batch_chunks(n):  # pragma: no cover - compiled
    """Number of :data:`BATCH_CHUNK`-hand chunks of a batch of ``n`` hands (the batch kernels'
    ``prange``)."""
    return (n + BATCH_CHUNK - 1) // BATCH_CHUNK


@jit(inline="always")
def chunk_hands(c, n):  # pragma: no cover - compiled
    """The hands of chunk ``c`` of a batch of ``n``: a range."""
    return range(c * BATCH_CHUNK, min(n, (c + 1) * BATCH_CHUNK))


@jit(inline="always")
def score_chunk(score_row, c, n, cand, rows, out):  # pragma: no cover - compiled
    """One ``prange`` step of every rule set's batch kernel: ``out[i] = score_row(i, work, rows)``
    for the hands of chunk ``c`` of ``n`` (:func:`chunk_hands`), with one scratch (:func:`work_of`
    around ``cand``, a candidate vector of the kernel's item dtype). ``rows``: the batch's arrays
    (and tables, parameters), as the rule set's ``score_row`` takes them (built inside the loop)."""
    work = work_of(cand)
    for i in chunk_hands(c, n):
        out[i] = score_row(i, work, rows)


@jit(inline="always")
def better(cand, items, n=-1):  # pragma: no cover - compiled
    """Whether item vector ``cand`` beats ``items``: a larger sum, or an equal sum and a
    lexicographically larger vector. ``n``: their length when the caller knows it at compile time
    (a rule set's ``N_ITEMS``: the loops then have a constant trip count); -1: ``len(cand)``."""
    a = cand[0] - cand[0]
    b = a
    if n < 0:
        n = cand.shape[0]
    for i in range(n):
        a += cand[i]
        b += items[i]
    if a != b:
        return a > b
    for i in range(n):
        if cand[i] != items[i]:
            return cand[i] > items[i]
    return False


@jit(inline="always")
def item_total(items, zero):  # pragma: no cover - compiled
    """The sum of ``items``, accumulated from ``zero`` (``np.int64(0)`` or ``0.0``)."""
    total = zero
    for i in range(items.shape[0]):
        total += items[i]
    return total


@jit(inline="always")
def holds(ptype, pkind, tile):  # pragma: no cover - compiled
    """Whether a split part ``(ptype, pkind)`` contains a tile of kind ``tile``."""
    if ptype == PART_CHOW:
        return pkind <= tile <= pkind + 2
    return pkind == tile


@jit(inline="always")
def first_holding(splits, s, n_parts, tile):  # pragma: no cover - compiled
    """Index of the first part of split ``s`` that contains ``tile`` (-1 if none)."""
    for v in range(n_parts):
        if holds(splits[s, v, 0], splits[s, v, 1], tile):
            return v
    return -1


@jit(inline="always")
def _split_arrangement(splits, s, n_parts, w, discard_win, mt):  # pragma: no cover - compiled
    """The :class:`Arrangement` of melds ``mt`` and split ``s`` with the winning tile in part ``w``
    (-1: the place is not scored; every pung of the split then counts as concealed)."""
    chows = mt.chows
    pungs = mt.pungs
    hidden = mt.concealed_kongs
    honor_sets = mt.honor_pungs
    dragons = mt.dragons
    winds = mt.winds
    pung_kinds = mt.pung_kinds
    pair = -1
    for v in range(n_parts):
        vtype = splits[s, v, 0]
        kind = splits[s, v, 1]
        if vtype == PART_CHOW:
            chows += 1
            continue
        if kind >= EAST:
            honor_sets += 1
        if vtype == PART_PAIR:
            pair = kind
            continue
        pungs += 1
        pung_kinds |= np.int64(1) << kind
        if not (discard_win and v == w):
            hidden += 1
        if kind >= WHITE:
            dragons += 1
        elif kind >= EAST:
            winds += 1
    win_part = -1
    win_kind = -1
    if w >= 0:
        win_part = splits[s, w, 0]
        win_kind = splits[s, w, 1]
    return Arrangement(
        chows, pungs, hidden, honor_sets, dragons, winds, pair, pung_kinds, win_part, win_kind, False, False
    )


@jit(inline="always")
def _keep(cand, items, n_items, choice, s, w):  # pragma: no cover - compiled
    for i in range(n_items):
        items[i] = cand[i]
    choice[0] = s
    choice[1] = w


@jit(inline="always")
def best_arrangement(
    score_arrangement,
    by_place,
    seven_pairs,
    counts,
    n_melds,
    win_tile,
    discard_win,
    mt,
    t,
    work,
    items,
    n_items,
    hand,
):  # pragma: no cover - compiled
    """Score every arrangement of a complete hand and keep the best in ``items``; whether there was one.

    Parameters
    ----------
    score_arrangement : jitted function ``(a, hand, cand)``
        The rule set's scoring of one :class:`Arrangement` ``a``: it sets every item of ``cand``
        that depends on the arrangement (the others were set before the walk and stay).
    by_place : bool
        Whether the place of the winning tile can change the score: then every distinct part of a
        split that holds it is an arrangement (``work.choice[1]`` is its part); otherwise each
        split is one, marked by the first part holding the winning tile.
    seven_pairs : bool
        Whether the rule set has seven pairs (then only with tables that allow it, ``t.seven_pairs``,
        and no melds); seven pairs is tried first, as split -1.
    counts, n_melds, win_tile, discard_win
        The concealed tiles (winning tile included), the number of melds, the winning kind, and
        whether the winning tile was a discard (its pung is then not concealed).
    mt : MeldTally
        Of the winner's melds (:func:`tally_melds`).
    t : HandTables
    work : ScoreWork
        ``work.cand`` holds the items independent of the arrangement; ``work.choice`` is set.
    items : array (N_ITEMS,)
        Output, untouched when there is no arrangement (callers zero it first).
    n_items : int
        ``N_ITEMS`` of the rule set (a compile-time constant: the item loops unroll).
    hand : tuple
        The rule set's own per-hand values, passed to ``score_arrangement`` as they are.
    """
    # borrowed views (no reference counts: the caller owns the arrays) for the walk's inner loops
    cand = borrow(work.cand)
    splits = borrow(work.splits)
    choice = borrow(work.choice)
    best = borrow(items)
    found = False
    if seven_pairs and n_melds == 0 and t.seven_pairs and is_seven_pairs(counts, t):
        luxury = False
        for k in range(34):
            if counts[k] == 4:
                luxury = True
        a = Arrangement(0, 0, 0, 0, 0, 0, -1, np.int64(0), -1, -1, True, luxury)
        score_arrangement(a, hand, cand)
        _keep(cand, best, n_items, choice, -1, 0)
        found = True
    n_splits = splits_kernel(counts, n_melds, t, work.splits, work.split_scratch)
    n_parts = 5 - n_melds
    for s in range(n_splits):
        for w in range(n_parts if by_place else 1):
            if by_place:
                if not holds(splits[s, w, 0], splits[s, w, 1], win_tile):
                    continue
                repeated = False  # the same part seen before: the same arrangement
                for v in range(w):
                    if splits[s, v, 0] == splits[s, w, 0] and splits[s, v, 1] == splits[s, w, 1]:
                        repeated = True
                if repeated:
                    continue
            a = _split_arrangement(splits, s, n_parts, w if by_place else -1, discard_win, mt)  # one inlined site
            score_arrangement(a, hand, cand)
            if not found or better(cand, best, n_items):
                _keep(cand, best, n_items, choice, s, w if by_place else first_holding(splits, s, n_parts, win_tile))
                found = True
    return found
