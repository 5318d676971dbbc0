"""Public hand analysis: win check, waits, shanten and splits, one hand or a batch.

Each function takes the concealed part as tile notation (``"123456789m1122z"``) or a count array of
34 kinds, the player's exposed or declared melds as strings (``melds=["pung 555z", "kong 1111m"]``)
and the rule set (``rules="douque"``, a name or a :class:`~simkit.rules.Rules`). Inputs are
validated here, with errors naming what is wrong; the numba kernels behind them never validate,
except those of the batch calls (:mod:`simkit.hand.checked`), which check each row's values in
their parallel pass and leave the error to this module.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import HandError, InputTypeError, SimkitError, TileCountError, show
from ..melds import check_total_counts, meld_counts, parse_melds
from ..rules import resolve_rules
from ..tiles import N_KINDS, as_counts, tile_name
from .checked import (
    BAD_COUNT,
    BAD_KIND,
    BAD_MELD_COUNT,
    BAD_MELD_KIND,
    BAD_MELDS,
    BAD_OVER,
    BAD_SIZE,
    first_bad_rows,
    is_win_checked_kernel,
    narrow_kernel,
    shanten_checked_kernel,
    waits_checked_kernel,
)
from .shanten import LIVE_ALL, discard_eval_kernel, shanten_kernel
from .split import MAX_SPLITS, PART_CHOW, PART_NAMES, PART_PAIR, SCRATCH, splits_kernel
from .tables import hand_tables
from .waits import mask_to_kinds, waits_kernel
from .win import is_win_kernel

__all__ = [
    "is_win",
    "waits",
    "shanten",
    "splits",
    "discards",
    "is_win_batch",
    "waits_batch",
    "shanten_batch",
]


def _prepare(hand, melds, rules):
    rules = resolve_rules(rules)
    counts = as_counts(hand, rules)
    parsed = parse_melds(melds, rules)
    check_total_counts(counts, parsed)
    return rules, counts, parsed


def _require_size(counts: np.ndarray, n_melds: int, sizes: Sequence[int], what: str) -> None:
    total = int(counts.sum())
    if total not in sizes:
        expected = " or ".join(str(s) for s in sizes)
        melds = f"{n_melds} meld{'s' if n_melds != 1 else ''}"
        raise HandError(f"{what}: the concealed part has {total} tiles; with {melds} it must have {expected}")


def is_win(hand, melds=None, rules="douque") -> bool:
    """Whether the concealed part ``hand`` plus ``melds`` is a complete (winning) hand.

    Parameters
    ----------
    hand : str or array-like of 34 ints
        Concealed tiles, the winning tile included: ``14 - 3 * len(melds)`` tiles.
    melds : list of str, optional
        Exposed/declared melds, e.g. ``["pung 555z", "concealed_kong 1111m"]``.
    rules : str or Rules
        Rule set (tile set, seven pairs). Default ``"douque"``.

    Examples
    --------
    >>> is_win("11123455678999m")
    True
    >>> is_win("11999m", melds=["pung 111z", "kong 2222z", "concealed_kong 5555z"])
    True
    """
    rules, counts, parsed = _prepare(hand, melds, rules)
    _require_size(counts, len(parsed), (14 - 3 * len(parsed),), "is_win")
    return bool(is_win_kernel(counts, len(parsed), hand_tables(rules)))


def waits(hand, melds=None, rules="douque") -> list[str]:
    """The winning tiles of a ready concealed part, as tile strings (``[]`` if not ready).

    ``hand`` holds ``13 - 3 * len(melds)`` tiles. A kind of which the player already holds all 4
    copies (concealed part plus own melds) is never a winning tile.
    """
    rules, counts, parsed = _prepare(hand, melds, rules)
    _require_size(counts, len(parsed), (13 - 3 * len(parsed),), "waits")
    mask = waits_kernel(counts, len(parsed), meld_counts(parsed), hand_tables(rules))
    return [tile_name(k) for k in mask_to_kinds(mask)]


def shanten(hand, melds=None, rules="douque") -> int:
    """Shanten number: -1 complete, 0 ready, n = n tile exchanges from ready.

    ``hand`` holds ``13 - 3k`` or ``14 - 3k`` tiles with ``k = len(melds)``. Counts the regular form
    (``4 - k`` melds + a pair) and, where the rule set has it and ``k == 0``, seven pairs. Tiles in
    exposed melds do not count against the 4-copy limit (as in the ``mahjong`` package).
    """
    rules, counts, parsed = _prepare(hand, melds, rules)
    k = len(parsed)
    _require_size(counts, k, (13 - 3 * k, 14 - 3 * k), "shanten")
    return int(shanten_kernel(counts, k, hand_tables(rules), np.empty(20, np.int64)))


def discards(hand, melds=None, rules="douque", visible=None) -> list[dict]:
    """Tile efficiency of a ``14 - 3k`` tile hand: for every kind held, the shanten after
    discarding it and the improving tiles then -- the kinds that would lower it and how many of
    them are live (4 minus the copies seen: the hand, the melds, and ``visible``, any further tiles
    seen such as the rivers and the opponent's melds, in notation or counts). Best first: least
    shanten, then most live improving tiles (the order the greedy policy discards by).

    Returns a list of dicts: ``discard`` (the tile), ``shanten``, ``live`` (live improving tiles),
    ``improving`` (their kinds, notation).
    """

    rules, counts, parsed = _prepare(hand, melds, rules)
    k = len(parsed)
    _require_size(counts, k, (14 - 3 * k,), "discards")
    seen = counts.astype(np.int64) + meld_counts(parsed)
    if visible is not None:
        seen = seen + as_counts(visible, rules).astype(np.int64)
    if (seen > 4).any():
        raise TileCountError(f"more than 4 copies seen of {', '.join(tile_name(x) for x in np.flatnonzero(seen > 4))}")
    t = hand_tables(rules)
    work = np.empty(20, np.int64)
    sh = np.empty(34, np.int64)
    live = np.empty(34, np.int64)
    discard_eval_kernel(counts, k, t, seen, sh, live, np.int64(LIVE_ALL))
    out = []
    for d in np.flatnonzero(counts):
        after = counts.copy()
        after[d] -= 1
        improving = []
        for x in rules.kinds:
            if seen[x] >= 4:
                continue
            after[x] += 1
            if shanten_kernel(after, k, t, work) < sh[d]:
                improving.append(tile_name(x))
            after[x] -= 1
        out.append({"discard": tile_name(int(d)), "shanten": int(sh[d]), "live": int(live[d]), "improving": improving})
    out.sort(key=lambda r: (r["shanten"], -r["live"]))
    return out


def splits(hand, melds=None, rules="douque") -> list[tuple[str, ...]]:
    """Every split of a complete concealed part into melds and a pair.

    Returns a list of tuples of part strings, melds first, then the pair, e.g.
    ``[("pung 111m", "pung 222m", "pung 333m", "pair 55z"), ("chow 123m", ...)]``. Exposed melds
    are not repeated. Empty when the hand is not complete in the regular form (seven pairs has no
    meld split).
    """
    rules, counts, parsed = _prepare(hand, melds, rules)
    k = len(parsed)
    _require_size(counts, k, (14 - 3 * k,), "splits")
    out = np.zeros((MAX_SPLITS, 5, 2), np.int8)
    n = splits_kernel(counts, k, hand_tables(rules), out, np.empty(SCRATCH, np.int64))
    result = []
    for s in range(min(n, MAX_SPLITS)):
        parts = []
        for p in range(5 - k):
            ptype, kind = int(out[s, p, 0]), int(out[s, p, 1])
            if ptype == PART_CHOW:
                tiles = tile_name(kind)[0] + tile_name(kind + 1)[0] + tile_name(kind + 2)
            else:
                name = tile_name(kind)
                tiles = name[0] * (2 if ptype == PART_PAIR else 3) + name[1]
            parts.append(f"{PART_NAMES[ptype]} {tiles}")
        result.append(tuple(parts))
    return result


# ---------------------------------------------------------------------------------------------
# batch


def _batch_counts(counts, rules, name: str) -> np.ndarray:
    """``counts`` as a C-contiguous uint8[N, 34] array, every value checked (numpy, one thread)."""
    arr = _counts_layout(counts, name)
    _check_count_values(arr, rules, name)
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _counts_layout(counts, name: str) -> np.ndarray:
    """``counts`` as an integer array of shape (N, 34), its values not yet checked."""
    if isinstance(counts, str) or counts is None:
        raise InputTypeError(f"{name}: counts must be an integer array of shape (N, 34), got {show(counts)}")
    try:
        arr = np.asarray(counts)
    except ValueError:  # ragged nested lists
        raise TileCountError(f"{name}: counts must be an integer array of shape (N, 34), got {show(counts)}") from None
    if arr.ndim != 2 or arr.shape[1] != N_KINDS:
        raise TileCountError(f"{name}: counts must have shape (N, 34), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TileCountError(f"{name}: counts must be integers, got dtype {arr.dtype}")
    return arr


def _check_count_values(arr: np.ndarray, rules, name: str, kinds: bool = True) -> None:
    """Every count 0-4 and (``kinds``) every tile of the rule set's kinds, else the first bad row."""
    if not arr.size:
        return
    if arr.min() < 0 or arr.max() > 4:
        _raise_count(arr, int(np.argwhere((arr < 0) | (arr > 4))[0, 0]), name)
    outside = ~rules.tile_mask
    if kinds and outside.any() and arr[:, outside].any():
        _raise_kind(arr, int(np.argwhere(arr[:, outside])[0, 0]), rules, name)


def _raise_count(arr: np.ndarray, row: int, name: str):
    raise TileCountError(f"{name}: row {row} has a count outside 0..4: {arr[row].tolist()}")


def _raise_kind(arr: np.ndarray, row: int, rules, name: str):
    kind = int(np.flatnonzero(arr[row] * ~rules.tile_mask)[0])
    raise TileCountError(f"{name}: row {row} holds {tile_name(kind)}, not a tile of rule set '{rules.name}'")


def _batch_melds(n_melds, n: int, name: str) -> np.ndarray:
    """``n_melds`` as int64[n]: an integer or an integer array of n, every value 0-4."""
    arr = _melds_layout(n_melds, n, name)
    if arr.size and (arr.min() < 0 or arr.max() > 4):
        _raise_melds(arr, int(np.flatnonzero((arr < 0) | (arr > 4))[0]), name)
    return np.ascontiguousarray(arr, dtype=np.int64)


def _melds_layout(n_melds, n: int, name: str) -> np.ndarray:
    """``n_melds`` as an integer array of shape (n,) (a broadcast view for a scalar), values not yet checked."""
    arr = np.asarray(n_melds)
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iu":
        raise InputTypeError(f"{name}: n_melds must be an integer 0-4 or an array of them, got {show(n_melds)}")
    try:
        return np.broadcast_to(arr, (n,))
    except ValueError:
        raise HandError(
            f"{name}: n_melds must be a scalar or an array of N={n} values, got shape {arr.shape}"
        ) from None


def _raise_melds(arr: np.ndarray, row: int, name: str):
    raise HandError(f"{name}: n_melds must be between 0 and 4, got {arr[row]} in row {row}")


def _check_batch_sizes(counts: np.ndarray, n_melds: np.ndarray, offsets: Sequence[int], name: str) -> None:
    sizes = counts.sum(axis=1, dtype=np.int64)
    ok = np.zeros(len(sizes), bool)
    for off in offsets:
        ok |= sizes == off - 3 * n_melds
    if not ok.all():
        _raise_size(counts, n_melds, int(np.flatnonzero(~ok)[0]), offsets, name)


def _raise_size(counts: np.ndarray, n_melds: np.ndarray, row: int, offsets: Sequence[int], name: str):
    allowed = " or ".join(f"{off} - 3 * n_melds" for off in offsets)
    size = int(counts[row].sum(dtype=np.int64))
    raise HandError(f"{name}: row {row} has {size} tiles with {n_melds[row]} melds; rows need {allowed} tiles")


def _raise_over(counts: np.ndarray, mc: np.ndarray, row: int, name: str):
    kind = int(np.flatnonzero((counts[row].astype(np.int16) + mc[row]) > 4)[0])
    raise TileCountError(f"{name}: row {row} holds more than 4 copies of {tile_name(kind)}")


def _narrow(arr: np.ndarray) -> np.ndarray:
    """An integer (N, 34) array as C-contiguous uint8, values outside 0..4 as 255 (the checked
    kernels refuse them, and the error quotes the original row)."""
    if arr.dtype == np.uint8:
        return np.ascontiguousarray(arr)
    out = np.empty(arr.shape, np.uint8)
    if arr.size:
        narrow_kernel(arr, out)
    return out


class _Batch:
    """The inputs of a batch call, ready for a checked kernel (:mod:`simkit.hand.checked`): the
    layout of every argument checked here, the values of every row checked by the kernel in its
    parallel pass; :meth:`raise_first` turns what the kernel found into the error the numpy checks
    (:func:`_batch_counts`, :func:`_batch_melds`, :func:`_check_batch_sizes`) raise on the same
    input, so that the two agree on every input (``tests/test_api.py`` checks it on random ones).
    """

    def __init__(self, counts, n_melds, rules, name: str, sizes: Sequence[int]):
        self.rules, self.name, self.sizes = rules, name, tuple(sizes)
        self.original = arr = _counts_layout(counts, name)
        self.counts = _narrow(arr)
        try:
            self.melds_view = _melds_layout(n_melds, len(arr), name)
        except SimkitError:
            self.check_values_in_numpy(melds=False)  # an error in the counts comes first, as it always did
            raise
        scalar = np.ndim(n_melds) == 0
        self.per_row = not scalar
        if scalar:
            self.n_melds = np.full(1, np.asarray(n_melds).astype(np.int64) if 0 <= n_melds <= 4 else -1, np.int64)
        else:
            self.n_melds = np.ascontiguousarray(self.melds_view, dtype=np.int64)
        self.outside = np.where(rules.tile_mask, 0, 255).astype(np.uint8)
        self.first = first_bad_rows(len(arr))

    def check_values_in_numpy(self, melds: bool = True) -> None:
        """The numpy checks of every value (an error path: they raise the first problem)."""
        _check_count_values(self.original, self.rules, self.name)
        if melds:
            k = _batch_melds(self.melds_view, len(self.original), self.name)
            _check_batch_sizes(self.counts, k, self.sizes, self.name)

    def raise_first(self, mc: np.ndarray | None = None, mc_original: np.ndarray | None = None) -> None:
        """Raise the error of the first check (in the numpy checks' order) some row failed, if any
        did (``mc``: waits_batch's meld counts as the kernel saw them, ``mc_original`` as given)."""
        if not len(self.first):
            return
        first = self.first.min(axis=0)
        n = len(self.counts)
        if first[BAD_COUNT] < n:
            _raise_count(self.original, int(first[BAD_COUNT]), self.name)
        if first[BAD_KIND] < n:
            _raise_kind(self.original, int(first[BAD_KIND]), self.rules, self.name)
        if first[BAD_MELDS] < n:
            _raise_melds(self.melds_view, int(first[BAD_MELDS]), self.name)
        if first[BAD_SIZE] < n:
            _raise_size(self.counts, self.melds_view, int(first[BAD_SIZE]), self.sizes, self.name)
        if first[BAD_MELD_COUNT] < n:
            _raise_count(mc_original, int(first[BAD_MELD_COUNT]), f"{self.name} (meld_counts)")
        if first[BAD_MELD_KIND] < n:
            _raise_kind(mc_original, int(first[BAD_MELD_KIND]), self.rules, f"{self.name} (meld_counts)")
        if first[BAD_OVER] < n:  # every count and meld count is then 0..4: narrowed as given
            _raise_over(self.counts, mc, int(first[BAD_OVER]), self.name)


def is_win_batch(counts, n_melds=0, rules="douque") -> np.ndarray:
    """Win check of many hands on all cores.

    Parameters
    ----------
    counts : int array (N, 34)
        Concealed parts, ``14 - 3 * n_melds`` tiles each.
    n_melds : int or int array (N,)
    rules : str or Rules

    Returns
    -------
    bool[N]

    Every row is checked (counts 0-4, kinds of the rule set, n_melds 0-4, size) in the kernel's
    parallel pass; the first bad row raises an error naming it.
    """
    rules = resolve_rules(rules)
    b = _Batch(counts, n_melds, rules, "is_win_batch", (14,))
    out = np.empty(len(b.counts), np.bool_)
    is_win_checked_kernel(b.counts, b.n_melds, b.per_row, b.outside, hand_tables(rules), out, b.first)
    b.raise_first()
    return out


def waits_batch(counts, n_melds=0, meld_counts=None, rules="douque") -> np.ndarray:
    """Waits of many ``13 - 3k`` tile hands on all cores, as int64 bitmasks over the 34 kinds.

    ``meld_counts`` (N, 34), optional: tiles in each player's own melds (for the 4-copy rule).
    Use :func:`simkit.hand.waits.mask_to_kinds` to turn a mask into kinds. Every row is checked in
    the kernel's parallel pass (see :func:`is_win_batch`), ``meld_counts`` too.
    """
    rules = resolve_rules(rules)
    name = "waits_batch"
    b = _Batch(counts, n_melds, rules, name, (13,))
    if meld_counts is None:
        mc = np.zeros((1, N_KINDS), np.uint8)
    else:
        mc_name = f"{name} (meld_counts)"
        try:
            raw = _counts_layout(meld_counts, mc_name)
            if raw.shape != b.counts.shape:
                _check_count_values(raw, rules, mc_name)  # its own values first, as they always were
                raise TileCountError(f"{name}: meld_counts shape {raw.shape} differs from counts {b.counts.shape}")
        except SimkitError:
            b.check_values_in_numpy()  # an error in counts or n_melds comes first, as it always did
            raise
        mc = _narrow(raw)
    out = np.empty(len(b.counts), np.int64)
    waits_checked_kernel(
        b.counts, b.n_melds, b.per_row, mc, meld_counts is not None, b.outside, hand_tables(rules), out, b.first
    )
    b.raise_first(mc, raw if meld_counts is not None else None)
    return out


def shanten_batch(counts, n_melds=0, rules="douque") -> np.ndarray:
    """Shanten of many ``13 - 3k`` or ``14 - 3k`` tile hands on all cores; int8[N].

    Every row is checked in the kernel's parallel pass (see :func:`is_win_batch`).
    """
    rules = resolve_rules(rules)
    b = _Batch(counts, n_melds, rules, "shanten_batch", (13, 14))
    out = np.empty(len(b.counts), np.int8)
    shanten_checked_kernel(b.counts, b.n_melds, b.per_row, b.outside, hand_tables(rules), out, b.first)
    b.raise_first()
    return out
