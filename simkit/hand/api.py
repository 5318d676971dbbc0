"""Public hand analysis: win check, waits, shanten and splits, one hand or a batch.

Each function takes the concealed part as tile notation (``"123456789m1122z"``) or a count array of
34 kinds, the player's exposed or declared melds as strings (``melds=["pung 555z", "kong 1111m"]``)
and the rule set (``rules="douque"``, a name or a :class:`~simkit.rules.Rules`). Inputs are
validated here, with errors naming what is wrong; the numba kernels behind them never validate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import HandError, InputTypeError, TileCountError, show
from ..melds import check_total_counts, meld_counts, parse_melds
from ..rules import resolve_rules
from ..tiles import N_KINDS, as_counts, tile_name
from .shanten import shanten_batch_kernel, shanten_kernel
from .split import MAX_SPLITS, PART_CHOW, PART_NAMES, PART_PAIR, SCRATCH, splits_kernel
from .tables import hand_tables
from .waits import mask_to_kinds, waits_batch_kernel, waits_kernel
from .win import is_win_batch_kernel, is_win_kernel

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
    from .shanten import LIVE_ALL, discard_eval_kernel

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
    if arr.size:
        if arr.min() < 0 or arr.max() > 4:
            row = int(np.argwhere((arr < 0) | (arr > 4))[0, 0])
            raise TileCountError(f"{name}: row {row} has a count outside 0..4: {arr[row].tolist()}")
        outside = ~rules.tile_mask
        if outside.any() and arr[:, outside].any():
            row, col = np.argwhere(arr[:, outside])[0]
            kind = int(np.flatnonzero(outside)[col])
            raise TileCountError(f"{name}: row {row} holds {tile_name(kind)}, not a tile of rule set '{rules.name}'")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _batch_melds(n_melds, n: int, name: str) -> np.ndarray:
    """``n_melds`` as int64[n]: an integer or an integer array of n, every value 0-4."""
    arr = np.asarray(n_melds)
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iu":
        raise InputTypeError(f"{name}: n_melds must be an integer 0-4 or an array of them, got {show(n_melds)}")
    try:
        arr = np.broadcast_to(arr, (n,))
    except ValueError:
        raise HandError(f"{name}: n_melds must be a scalar or an array of N={n} values, got shape {arr.shape}") from None
    if arr.size and (arr.min() < 0 or arr.max() > 4):
        row = int(np.flatnonzero((arr < 0) | (arr > 4))[0])
        raise HandError(f"{name}: n_melds must be between 0 and 4, got {arr[row]} in row {row}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _check_batch_sizes(counts: np.ndarray, n_melds: np.ndarray, offsets: Sequence[int], name: str) -> None:
    sizes = counts.sum(axis=1, dtype=np.int64)
    ok = np.zeros(len(sizes), bool)
    for off in offsets:
        ok |= sizes == off - 3 * n_melds
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        allowed = " or ".join(f"{off} - 3 * n_melds" for off in offsets)
        raise HandError(f"{name}: row {row} has {sizes[row]} tiles with {n_melds[row]} melds; rows need {allowed} tiles")


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
    """
    rules = resolve_rules(rules)
    c = _batch_counts(counts, rules, "is_win_batch")
    k = _batch_melds(n_melds, len(c), "is_win_batch")
    _check_batch_sizes(c, k, (14,), "is_win_batch")
    out = np.empty(len(c), np.bool_)
    is_win_batch_kernel(c, k, hand_tables(rules), out)
    return out


def waits_batch(counts, n_melds=0, meld_counts=None, rules="douque") -> np.ndarray:
    """Waits of many ``13 - 3k`` tile hands on all cores, as int64 bitmasks over the 34 kinds.

    ``meld_counts`` (N, 34), optional: tiles in each player's own melds (for the 4-copy rule).
    Use :func:`simkit.hand.waits.mask_to_kinds` to turn a mask into kinds.
    """
    rules = resolve_rules(rules)
    c = _batch_counts(counts, rules, "waits_batch")
    k = _batch_melds(n_melds, len(c), "waits_batch")
    _check_batch_sizes(c, k, (13,), "waits_batch")
    if meld_counts is None:
        mc = np.zeros_like(c)
    else:
        mc = _batch_counts(meld_counts, rules, "waits_batch (meld_counts)")
        if mc.shape != c.shape:
            raise TileCountError(f"waits_batch: meld_counts shape {mc.shape} differs from counts {c.shape}")
        over = (c.astype(np.int16) + mc) > 4
        if over.any():
            row, kind = np.argwhere(over)[0]
            raise TileCountError(f"waits_batch: row {row} holds more than 4 copies of {tile_name(int(kind))}")
    out = np.empty(len(c), np.int64)
    waits_batch_kernel(c, k, mc, hand_tables(rules), out)
    return out


def shanten_batch(counts, n_melds=0, rules="douque") -> np.ndarray:
    """Shanten of many ``13 - 3k`` or ``14 - 3k`` tile hands on all cores; int8[N]."""
    rules = resolve_rules(rules)
    c = _batch_counts(counts, rules, "shanten_batch")
    k = _batch_melds(n_melds, len(c), "shanten_batch")
    _check_batch_sizes(c, k, (13, 14), "shanten_batch")
    out = np.empty(len(c), np.int8)
    shanten_batch_kernel(c, k, hand_tables(rules), out)
    return out
