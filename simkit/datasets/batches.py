"""Engine rows to Arrow: a chunk's result arrays (:func:`rows_to_batch`) and decision log
(:func:`decisions_to_batch`) as RecordBatches of the declared schema, the winning hands as text
(:func:`format_wins`, jitted; :func:`writer_kernels` lists the kernels a run compiles)."""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa

from .._jit import jit
from ..engine.actions import N_ACTIONS, PHASE_NAMES, action_name
from ..errors import InputValueError, RunError
from ..melds import MELD_TYPES
from ..tiles import TILE_NAMES
from .schema import DEAL_ID_HAND_BITS, DECLARATIONS, WIN_TYPES, WINDS, decision_schema, extra_columns, pays_in_tai

__all__ = [
    "decisions_to_batch",
    "rows_to_batch",
    "format_wins",
    "writer_kernels",
]


_WIND0 = 27  # kind of East


_ACTION_NAMES: tuple | None = None


def _action_names() -> tuple:
    global _ACTION_NAMES
    if _ACTION_NAMES is None:
        _ACTION_NAMES = tuple(action_name(a) for a in range(N_ACTIONS))
    return _ACTION_NAMES


def decisions_to_batch(dec: dict, *, seed: int, copy) -> pa.RecordBatch:
    """The decision log of :func:`simkit.simulate_matches` (``decisions=True`` or
    ``"observations"``: its ``"decisions"`` columns) as one RecordBatch of :func:`decision_schema`
    (with the observation columns when the log has them); ``copy`` an int, or an int8 array (a
    duplicate call's own ``copy`` column)."""

    n = len(dec["match"])
    tile = np.asarray(dec["tile"], np.int8)
    has_tile = tile >= 0
    action = np.asarray(dec["action"], np.int16)
    names = _action_names()
    dictionary = _NAME_ARRAYS.get(names)
    if dictionary is None:
        dictionary = _NAME_ARRAYS[names] = pa.array(names, pa.string())
    copies = np.full(n, copy, np.int8) if np.ndim(copy) == 0 else np.asarray(copy, np.int8)
    cols = {
        "deal_id": np.asarray(dec["deal_id"], np.int64),
        "copy": copies,
        "seed": np.full(n, seed, np.int64),
        "match": np.asarray(dec["match"], np.int64),
        "hand": np.asarray(dec["hand"], np.int16),
        "step": np.asarray(dec["step"], np.int16),
        "player": np.asarray(dec["player"], np.int8),
        "phase": _category(dec["phase"], PHASE_NAMES),
        "tile": _category(np.where(has_tile, tile, np.int8(0)), TILE_NAMES, valid=has_tile),
        "action": pa.DictionaryArray.from_arrays(pa.array(action, pa.int16()), dictionary),
        "action_code": action,
        "n_legal": np.asarray(dec["n_legal"], np.int16),
        "shanten_before": np.asarray(dec["shanten_before"], np.int8),
        "shanten_after": np.asarray(dec["shanten_after"], np.int8),
    }
    for i in range(4):
        cols[f"counter_{i}"] = np.asarray(dec[f"counter_{i}"], np.float64)
    observations = "legal" in dec
    schema = decision_schema(observations)
    arrays = []
    for field in schema:
        value = cols[field.name] if field.name in cols else dec[field.name]
        if isinstance(value, np.ndarray):
            value = _arrow(np.ascontiguousarray(value), field.type)
        arrays.append(value)
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


_MELD_WIDTH = 4 * (len("concealed_kong ") + 5) + 3 * 2  # four melds and three ", "


_SUIT_LETTER = np.frombuffer(b"mpsz", np.uint8)


_TYPE_TEXT = np.frombuffer("".join(MELD_TYPES).encode(), np.uint8)


_TYPE_OFFSETS = np.cumsum([0] + [len(t) for t in MELD_TYPES]).astype(np.int64)


_MELD_SIZES = np.array([3, 4, 4, 4, 3], np.int64)  # tiles of each meld type code


_CHOW = MELD_TYPES.index("chow")


@jit
def _format_wins_kernel(
    won, hands, melds, type_text, type_offsets, meld_sizes, chow, letters, hand_buf, hand_off, meld_buf, meld_off
):  # pragma: no cover
    """Notation of each winner's concealed tiles and melds into string buffers (Arrow layout).

    ``won`` bool[n]; ``hands`` uint8[n, 34]; ``melds`` int8[n, 4, 2] (type code, kind; -1 unused);
    writes ``hand_buf``/``meld_buf`` bytes and int32 offsets ``hand_off``/``meld_off`` [n + 1].
    Rows with ``won[i]`` False get empty strings (the caller marks them null).
    """
    n = won.shape[0]
    h = 0
    m = 0
    for i in range(n):
        hand_off[i] = h
        meld_off[i] = m
        if not won[i]:
            continue
        for suit in range(4):
            start = 9 * suit
            size = 7 if suit == 3 else 9
            wrote = False
            for r in range(size):
                for _ in range(hands[i, start + r]):
                    hand_buf[h] = 49 + r  # '1' + r
                    h += 1
                    wrote = True
            if wrote:
                hand_buf[h] = letters[suit]
                h += 1
        first = True
        for j in range(melds.shape[1]):
            code = melds[i, j, 0]
            if code < 0:
                continue
            kind = melds[i, j, 1]
            if not first:
                meld_buf[m] = 44  # ','
                meld_buf[m + 1] = 32  # ' '
                m += 2
            first = False
            for c in range(type_offsets[code], type_offsets[code + 1]):
                meld_buf[m] = type_text[c]
                m += 1
            meld_buf[m] = 32
            m += 1
            rank = kind % 9
            for t in range(meld_sizes[code]):
                meld_buf[m] = 49 + rank + (t if code == chow else 0)
                m += 1
            meld_buf[m] = letters[kind // 9]
            m += 1
    hand_off[n] = h
    meld_off[n] = m


def format_wins(won, hands, melds) -> tuple[pa.Array, pa.Array]:
    """The winners' concealed tiles and melds in notation, as two Arrow string arrays.

    Parameters
    ----------
    won : bool[n]
        Rows with a winner; the others are null.
    hands : uint8[n, 34]
        Concealed tile counts (each 0-4).
    melds : int8[n, 4, 2]
        ``(type code, kind)`` per meld (:data:`simkit.melds.MELD_TYPES` codes; ``-1`` unused); the
        kind is the meld's lowest tile.

    Returns
    -------
    (hand notation, melds text): e.g. ``"123m55z"`` and ``"pung 777m, concealed_kong 1111z"``
    (``""`` without melds), the latter readable by :func:`simkit.parse_melds`.
    """
    won = np.ascontiguousarray(won, np.bool_)
    hands = np.ascontiguousarray(hands, np.uint8)
    melds = np.ascontiguousarray(melds, np.int8)
    n = len(won)
    if hands.shape != (n, 34) or melds.shape[0] != n or melds.shape[2:] != (2,) or melds.shape[1] > 4:
        raise InputValueError(f"format_wins: shapes {hands.shape} and {melds.shape} do not fit {n} rows")
    if n and (hands.max(initial=0) > 4 or melds.max(initial=-1) >= 34 or (melds[:, :, 0] >= len(MELD_TYPES)).any()):
        raise InputValueError("format_wins: tile counts must be 0-4, meld codes and kinds in range")
    hand_buf = np.empty(max(1, int(hands[won].sum(dtype=np.int64)) + 4 * n), np.uint8)
    meld_buf = np.empty(max(1, n * _MELD_WIDTH), np.uint8)
    hand_off = np.empty(n + 1, np.int32)
    meld_off = np.empty(n + 1, np.int32)
    _format_wins_kernel(
        won,
        hands,
        melds,
        _TYPE_TEXT,
        _TYPE_OFFSETS,
        _MELD_SIZES,
        _CHOW,
        _SUIT_LETTER,
        hand_buf,
        hand_off,
        meld_buf,
        meld_off,
    )
    return _string_array(hand_buf, hand_off, won, n), _string_array(meld_buf, meld_off, won, n)


def writer_kernels() -> list:
    """``[(name, dispatcher, signature)]``: the Parquet writer's notation kernel (:func:`format_wins`)
    for the argument types every run passes it. ``simkit simulate`` has it compiled on a cold start
    while the engine's helper process compiles the hand kernels the engine's first piece waits for
    (:func:`simkit.engine.compiled.also_first`)."""

    args = (
        np.zeros(1, np.bool_),
        np.zeros((1, 34), np.uint8),
        np.zeros((1, 4, 2), np.int8),
        _TYPE_TEXT,
        _TYPE_OFFSETS,
        _MELD_SIZES,
        _CHOW,
        _SUIT_LETTER,
        np.empty(1, np.uint8),
        np.empty(2, np.int32),
        np.empty(1, np.uint8),
        np.empty(2, np.int32),
    )
    return [("format_wins", _format_wins_kernel, tuple(numba.typeof(a) for a in args))]


def _string_array(buf, offsets, valid, n) -> pa.Array:
    size = int(offsets[n])
    validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(
        pa.string(),
        n,
        [validity, pa.py_buffer(offsets), pa.py_buffer(buf[:size].copy())],
        null_count=int(n - np.count_nonzero(valid)),
    )


@jit
def _gather_kernel(src, cols, out):  # pragma: no cover
    """``out[j, i] = src[i, cols[j]]``: columns ``cols`` of the row-major matrix ``src`` as the
    contiguous rows of ``out``, cast to its dtype (as numpy's ``astype`` casts), in one pass over
    the rows of ``src``. Serial: on two threads (``prange``) it saved a few milliseconds per
    100,000 rows but took about three times as long to compile, on the critical path of a run's
    cold start."""
    for i in range(src.shape[0]):
        for j in range(cols.shape[0]):
            out[j, i] = src[i, cols[j]]


def _matrix_column(a: np.ndarray, base=None):
    """``(matrix, j)`` when the 1-D ``a`` is column ``j`` of the C-contiguous 2-D ``matrix`` (``base``,
    or the array ``a`` views), as the engine's result columns are; else None."""
    base = a.base if base is None else base
    if not (
        isinstance(base, np.ndarray)
        and base.ndim == 2
        and base.flags.c_contiguous
        and a.ndim == 1
        and base.dtype == a.dtype
        and a.shape[0] == base.shape[0]
        and a.strides == (base.strides[0],)
    ):
        return None
    j, rest = divmod(a.__array_interface__["data"][0] - base.__array_interface__["data"][0], a.itemsize)
    return (base, j) if rest == 0 and 0 <= j < base.shape[1] else None


def _numeric_columns(wanted) -> dict:
    """``{name: contiguous array}``, each ``np.asarray(a).astype(dtype)``, for ``wanted``: an iterable
    of ``(name, a, dtype)`` or ``(name, a, dtype, matrix)``.

    The engine returns its columns as strided views of a few row-major matrices (ints, floats,
    items); cast one at a time, each column costs a pass over its whole matrix. Here the columns of
    one matrix that go to one dtype are gathered in a single pass (:func:`_gather_kernel`); any other
    array (a copy, another dtype kind) is cast as it is.
    """
    out = {}
    groups = {}
    for name, a, dtype, *matrix in wanted:
        a = np.asarray(a)
        dtype = np.dtype(dtype)
        found = None
        if a.dtype.kind == dtype.kind or (a.dtype.kind in "iu" and dtype.kind in "iu"):
            found = _matrix_column(a, *matrix)
        if found is None:
            out[name] = np.ascontiguousarray(a.astype(dtype, copy=False))
        else:
            base, j = found
            groups.setdefault((id(base), dtype), (base, []))[1].append((name, j))
    for (_, dtype), (base, members) in groups.items():
        block = np.empty((len(members), base.shape[0]), dtype)
        _gather_kernel(base, np.array([j for _, j in members], np.int64), block)
        for row, (name, _) in zip(block, members):
            out[name] = row
    return out


_NAME_ARRAYS: dict = {}


def _category(codes, names, valid=None) -> pa.DictionaryArray:
    codes = np.asarray(codes).astype(np.int8, copy=False)
    mask = None if valid is None else ~valid
    names = tuple(names)
    dictionary = _NAME_ARRAYS.get(names)
    if dictionary is None:  # the few category lists, built once (Arrow arrays are immutable)
        dictionary = _NAME_ARRAYS[names] = pa.array(names, pa.string())
    return pa.DictionaryArray.from_arrays(pa.array(codes, pa.int8(), mask=mask), dictionary)


def _arrow(value: np.ndarray, type_: pa.DataType) -> pa.Array:
    """A numpy column as an Arrow array of ``type_`` (no copy when it is contiguous and of that type;
    a fixed-size binary column from the rows of a contiguous uint8 or int8 [n, width] array)."""
    if pa.types.is_fixed_size_binary(type_):
        raw = np.ascontiguousarray(value).view(np.uint8)
        return pa.FixedSizeBinaryArray.from_buffers(type_, len(raw), [None, pa.py_buffer(raw)])
    dtype = np.dtype(type_.to_pandas_dtype())
    if (
        value.dtype == dtype
        and value.flags.c_contiguous
        and pa.types.is_primitive(type_)
        and not pa.types.is_boolean(type_)
    ):
        return pa.Array.from_buffers(type_, len(value), [None, pa.py_buffer(value)], null_count=0)
    return pa.array(value.astype(dtype, copy=False), type_)


def rows_to_batch(res: dict, schema: pa.Schema, *, seed: int, copy: int, policy_labels, rules) -> pa.RecordBatch:
    """One RecordBatch of a run's schema (:func:`schema_for`) from :func:`simkit.simulate_matches` output.

    Parameters
    ----------
    res : dict of numpy arrays
        ``simulate_matches`` columns (``n`` rows).
    schema : pyarrow.Schema
        The run's schema, ``schema_for(rules, res)``.
    seed : int
    copy : int
        0, or 1 for the seat-swapped copy of a duplicate run.
    policy_labels : (str, str)
        Player 0's and player 1's policy in these rows.
    rules : Rules
        For the payment in tai units (``base / tai_value``).

    Every column is built from whole arrays (numpy, the numba kernels :func:`_gather_kernel` and
    :func:`format_wins`' kernel, dictionary arrays from their codes): no Python work per row.
    """
    n = len(res["match"])
    items = np.asarray(res["items"])
    item_columns = [name for name in schema.names if name.startswith("item_")]
    if items.shape != (n, len(item_columns)):
        raise RunError(f"the engine returned {items.shape[1]} scoring items, the schema has {len(item_columns)}")
    types = {
        field.name: np.dtype(field.type.to_pandas_dtype()) for field in schema if pa.types.is_primitive(field.type)
    }
    i64, i8 = np.dtype(np.int64), np.dtype(np.int8)
    native = [  # columns computed from: the engine's values, in its dtype
        (key, res[key], np.asarray(res[key]).dtype)
        for key in ("winner", "hand_tai", "dealer_tai", "prevailing_wind", "seat_wind_0")
    ]
    wanted = native + [
        ("match", res["match"], i64),
        ("hand", res["hand"], i64),
        ("win_type", res["win_type"], i8),
        ("win_tile", res["win_tile"], i8),
        ("declared_0", res["declared_0"], i8),
        ("declared_1", res["declared_1"], i8),
        ("score_0", res["score_0"], np.float64),
        ("score_1", res["score_1"], np.float64),
    ]
    for name in (
        "dealer",
        "dealer_turn",
        "streak",
        "payer",
        "points",
        "turns",
        "tiles_left",
        "kongs_0",
        "kongs_1",
        "skipped_wins_0",
        "skipped_wins_1",
    ):
        wanted.append((name, res[name], types[name]))
    extras = extra_columns(res, schema.names)
    wanted += [(key, res[key], np.asarray(res[key]).dtype) for key in extras]
    items_matrix = items if items.ndim == 2 and items.flags.c_contiguous else None
    wanted += [
        (name, items[:, j], types[name]) + ((items_matrix,) if items_matrix is not None else ())
        for j, name in enumerate(item_columns)
    ]
    v = _numeric_columns(wanted)

    winner = v["winner"]
    won = winner >= 0
    match, hand = v["match"], v["hand"]
    labels = sorted(set(policy_labels))
    cols = {
        "deal_id": (match << DEAL_ID_HAND_BITS) | hand,
        "copy": np.full(n, copy, np.int8),
        "seed": np.full(n, seed, np.int64),
        "match": match,
        "hand": hand,
        "policy_0": _category(np.full(n, labels.index(policy_labels[0]), np.int8), labels),
        "policy_1": _category(np.full(n, labels.index(policy_labels[1]), np.int8), labels),
        "prevailing_wind": _category(v["prevailing_wind"] - _WIND0, WINDS),
        "seat_wind_0": _category(v["seat_wind_0"] - _WIND0, WINDS),
        "seat_wind_1": _category(np.where(v["seat_wind_0"] == _WIND0, np.int8(2), np.int8(0)), WINDS),
        "winner": winner,
        "winner_policy": _category(
            np.where(winner == 1, labels.index(policy_labels[1]), labels.index(policy_labels[0])), labels, valid=won
        ),
        "win_type": _category(v["win_type"], WIN_TYPES),
        "win_tile": _category(np.where(won, v["win_tile"], np.int8(0)), TILE_NAMES, valid=won),
        "declared_0": _category(v["declared_0"], DECLARATIONS),
        "declared_1": _category(v["declared_1"], DECLARATIONS),
        "hand_tai": v["hand_tai"],
        "dealer_tai": v["dealer_tai"],
    }
    hands = res.get("win_hand")
    melds = res.get("win_melds")
    if hands is not None and melds is not None:
        cols["win_hand"], cols["win_melds"] = format_wins(won, hands, melds)
    else:  # an engine without the winner's tiles: the columns exist, all null
        cols["win_hand"] = pa.nulls(n, pa.string())
        cols["win_melds"] = pa.nulls(n, pa.string())
    if pays_in_tai(rules):
        opts = rules.options
        cols["payment_tai"] = np.where(won, opts.base / opts.tai_value + v["hand_tai"] + v["dealer_tai"], 0.0)
    v["score_0"] = v["score_0"] + 0.0  # turns -0.0 into 0.0 (a new array: v may hold the caller's)
    v["score_1"] = v["score_1"] + 0.0
    for name in item_columns + extras + [name for name, *_ in wanted if name not in cols]:
        cols.setdefault(name, v[name])
    arrays = []
    for field in schema:
        value = cols[field.name]
        if isinstance(value, np.ndarray):
            value = _arrow(value, field.type)
        arrays.append(value)
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
