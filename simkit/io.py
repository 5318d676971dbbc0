"""Simulation datasets on disk: the Arrow schema, the shard writer, run metadata, reading and resume.

A *run* is a directory::

    data/runs/douque_greedy-greedy_seed0_2000matches/
        _simkit.json          the run manifest (JSON): how the run was made, its state, its shards
        _common_metadata      Parquet schema + the manifest as key-value metadata (written at the end)
        part-000000.parquet   chunk 0: matches [0, chunk_matches), one row per hand
        part-000001.parquet   chunk 1: the next chunk_matches matches, ...
        _decisions/           only in a run with decisions (simulate(..., decisions=True)):
            part-000000.parquet   chunk 0's decisions, one row per decision taken
            ...

Every shard holds whole matches, rows in (match, copy, hand) order, so the shards read in name order
are the run's rows in order (``pandas.read_parquet(run_dir)`` and ``pyarrow.dataset`` skip the
``_``- and ``.``-prefixed files). Each shard carries the run's description in its Parquet key-value
metadata under ``simkit`` and Parquet page checksums; shards are written to a hidden temporary name
in the run directory, flushed with ``fsync`` and renamed into place, so a run killed at any moment
leaves only complete shards.

The manifest says which files are the run: its ``shards`` list names every committed shard with its chunk,
matches, rows, byte size and SHA-256 (appended, atomically, as each shard is committed). Every reader
(:func:`open_run`, :meth:`Run.read_shard`, ``simkit.analysis``, a resumed run) reads exactly the
listed shards and refuses, naming the file, a listed shard that is missing, resized or corrupt (its
SHA-256 or a page checksum differs), a shard written by another run, and any other ``part-*`` or
``*.parquet`` file in the directory. What the manifest says of the run is checked against the
shards' footers (:func:`check_manifest`): each footer names the spec of the run that wrote it (rule
set and options, policies, seed, target, duplicate, items, chunking, wall design) and its chunk,
matches and rows, so an edited manifest is refused, naming the field, rather than reported as fact
or resumed toward an edited target. The manifest's ``status`` is ``running``, ``complete`` or
``overwriting`` (an ``--overwrite`` marks the old run so before deleting the files it lists; such a
directory is refused by readers until the overwrite is run again). A manifest written before the
shard list (*legacy*, e.g. ``data/sample/``) is checked against the shards' own footers instead: each
``part-<chunk>.parquet`` must carry the manifest's spec and its chunk, and their count and rows must
equal the manifest's totals (no checksums: those runs have none).

The schema is declared once (:data:`COLUMNS`, :func:`dataset_schema`); the scoring items become
``item_<name>`` columns, from the rule set's item table (:func:`item_names`).

A run with decisions (its spec's ``decisions`` is true) has a second dataset, the decision log
(:data:`DECISION_COLUMNS`), in ``_decisions/``: one shard per chunk, named like the chunk's shard.
The leading underscore keeps it out of ``pandas.read_parquet(run_dir)``. Each entry of the
manifest's ``shards`` then carries the chunk's decision shard as ``"decisions": {"file":
"_decisions/part-000012.parquet", "rows", "bytes", "sha256"}``; the decision shard is committed
before the chunk's shard and both are listed together, and every check above (missing, extra,
foreign, resized, corrupt, resume, overwrite) covers the decision shards too. A decision shard's
footer names the run's spec, its chunk and ``"table": "decisions"``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import importlib
import json
import os
import platform
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ._jit import jit
from ._version import __version__
from .errors import InputTypeError, InputValueError, RunError, SimkitError, show
from .melds import MELD_TYPES
from .tiles import TILE_NAMES

__all__ = [
    "FORMAT",
    "MANIFEST",
    "COMMON_METADATA",
    "METADATA_KEY",
    "COLUMNS",
    "WIN_TYPES",
    "WINDS",
    "DECLARATIONS",
    "DEAL_ID_HAND_BITS",
    "DECISIONS_DIR",
    "DECISION_COLUMNS",
    "decision_schema",
    "decisions_to_batch",
    "decision_entry",
    "decision_file",
    "DatasetError",
    "Run",
    "item_names",
    "dataset_schema",
    "schema_for",
    "rows_to_batch",
    "format_wins",
    "shard_name",
    "write_shard",
    "commit_shard",
    "write_manifest",
    "read_manifest",
    "write_common_metadata",
    "shard_metadata",
    "completed_chunks",
    "clean_temporary",
    "temporary_files",
    "file_digest",
    "shard_entry",
    "check_shards",
    "check_manifest",
    "verify_shard",
    "begin_overwrite",
    "is_legacy",
    "run_lock",
    "open_run",
    "read_run",
    "rules_from_dict",
    "versions",
    "now",
    "command_line",
]

#: Identifies a simkit run directory (the manifest's ``format``); bumped when the layout changes.
FORMAT = "simkit-run/1"
#: File name of the run manifest (JSON).
MANIFEST = "_simkit.json"
#: File name of the dataset-level Parquet metadata file (schema + key-value metadata only).
COMMON_METADATA = "_common_metadata"
#: Key of the JSON run description in each shard's Parquet key-value metadata.
METADATA_KEY = "simkit"
#: ``deal_id = match << DEAL_ID_HAND_BITS | hand``.
DEAL_ID_HAND_BITS = 16
#: Parquet compression codec of the shards.
COMPRESSION = "lz4"
#: Columns whose min/max statistics a shard stores, so that a filter on them skips whole shards.
#: The other columns get none (a shard's range of ``winner`` or an item says nothing), and only
#: the categorical columns are dictionary-encoded: together this halves the time of writing a shard.
STATISTICS_COLUMNS = ("deal_id", "copy", "seed", "match", "hand")
_LOCK = ".simkit.lock"
_SHARD_PREFIX = "part-"
_SHARD_SUFFIX = ".parquet"
_TMP_SUFFIX = ".tmp"

#: ``win_type`` categories, indexed by the engine's code (0 exhaustive draw ... 3 robbed kong, 4 for_two's fold).
WIN_TYPES = ("draw", "self_drawn", "discard", "robbed_kong", "fold")
#: Wind categories of ``prevailing_wind`` and ``seat_wind_*``, indexed by kind - 27.
WINDS = ("E", "S", "W", "N")
#: ``declared_*`` categories, indexed by the engine's code (0 none, 1 ready, 2 MIGI).
DECLARATIONS = ("none", "ready", "migi")

_WIND0 = 27  # kind of East

#: Subdirectory of a run holding its decision log (a second dataset; ``_``: readers of the run skip it).
DECISIONS_DIR = "_decisions"


class DatasetError(SimkitError, ValueError):
    """A directory is not a simkit run, or its files contradict its manifest."""


# ---------------------------------------------------------------------------------------------
# schema


def _dict(index_type=pa.int8()):
    return pa.dictionary(index_type, pa.string())


#: Every column of a run, in order: ``(name, Arrow type, description)``. ``item_<name>`` columns
#: (one per scoring item of the rule set, int16 tai) go where ``"item_*"`` stands.
COLUMNS: tuple = (
    (
        "deal_id",
        pa.int64(),
        "match << 16 | hand: rows of the two copies of a --duplicate run with "
        "the same deal_id were dealt from the same wall and dice (same seed, match, hand)",
    ),
    ("copy", pa.int8(), "0, or 1 for the seat-swapped replay of a --duplicate run"),
    ("seed", pa.int64(), "the run's master seed"),
    ("match", pa.int64(), "match index (its randomness depends only on seed and match)"),
    ("hand", pa.int16(), "hand index within the match"),
    ("policy_0", _dict(), "policy of player 0 in this row (replay with policies=(policy_0, policy_1))"),
    ("policy_1", _dict(), "policy of player 1 in this row"),
    ("prevailing_wind", _dict(), "round wind: E, S, W, N"),
    ("dealer", pa.int8(), "the dealer: player 0 or 1"),
    ("dealer_turn", pa.int8(), "0 for the round's first dealer, 1 for its second"),
    ("streak", pa.int16(), "the dealer's streak (consecutive hands kept)"),
    ("seat_wind_0", _dict(), "player 0's seat wind: E or W"),
    ("seat_wind_1", _dict(), "player 1's seat wind: E or W"),
    ("winner", pa.int8(), "player 0 or 1; -1 on an exhaustive draw"),
    ("payer", pa.int8(), "the player who pays; -1 on an exhaustive draw"),
    ("win_type", _dict(), "draw (exhaustive), self_drawn, discard, robbed_kong (or fold: for_two's opponent folded)"),
    ("win_tile", _dict(), "the winning tile in notation (e.g. 5z); null on a draw"),
    (
        "win_hand",
        pa.string(),
        "the winner's concealed tiles at the win, winning tile included, in "
        "notation (e.g. 123456789m11p55z); null on a draw",
    ),
    (
        "win_melds",
        pa.string(),
        "the winner's melds as simkit.parse_melds reads them (e.g. "
        "'pung 555z, concealed_kong 1111m'), '' for none; null on a draw",
    ),
    ("item_*", pa.int16(), "tai of each scoring item (0 when not scored or on a draw)"),
    ("hand_tai", pa.int16(), "the winner's hand tai (0 on a draw)"),
    ("dealer_tai", pa.int16(), "dealer tai 1 + 2 x streak when the dealer wins or pays; 0 otherwise"),
    ("payment_tai", pa.float64(), "the payment in tai units: base / tai_value + hand_tai + dealer_tai (0 on a draw)"),
    ("points", pa.float64(), "the payment in points: base + tai_value x (hand_tai + dealer_tai)"),
    ("score_0", pa.float64(), "player 0's result for the hand in points (+ won, - paid)"),
    ("score_1", pa.float64(), "player 1's result (-score_0)"),
    (
        "turns",
        pa.int16(),
        "decisions taken in the hand by both players, passes included (a player who "
        "could only pass is not asked): the hand's rows in the decision log, not its discards",
    ),
    ("tiles_left", pa.int16(), "drawable tiles left when the hand ended"),
    ("kongs_0", pa.int8(), "kongs made by player 0"),
    ("kongs_1", pa.int8(), "kongs made by player 1"),
    ("declared_0", _dict(), "player 0's declaration: none, ready, migi"),
    ("declared_1", _dict(), "player 1's declaration"),
    ("skipped_wins_0", pa.int16(), "wins player 0 passed up (Skipped Win)"),
    ("skipped_wins_1", pa.int16(), "wins player 1 passed up"),
)


#: Columns of the decision log (``simulate(..., decisions=True)``, ``simkit simulate --decisions``),
#: one row per decision taken, in the order played (within a chunk: (match, copy, hand, step)).
DECISION_COLUMNS: tuple = (
    ("deal_id", pa.int64(), "match << 16 | hand: joins the decision to its hand's row (with copy)"),
    ("copy", pa.int8(), "0, or 1 for the seat-swapped replay of a --duplicate run"),
    ("seed", pa.int64(), "the run's master seed"),
    ("match", pa.int64(), "match index"),
    ("hand", pa.int16(), "hand index within the match"),
    ("step", pa.int16(), "the decision's index in its hand (0 first; a hand's decisions number its turns)"),
    ("player", pa.int8(), "the deciding player: 0 or 1"),
    (
        "phase",
        _dict(),
        "the decision point (simkit.engine.actions.PHASE_NAMES): after a draw, after a claim, "
        "on the opponent's discard, on the opponent's added kong, bid, follow or fold",
    ),
    (
        "tile",
        _dict(),
        "the tile concerned in notation (the drawn tile, the opponent's discard or added tile); "
        "null if none (after a claim, the dealt 14, a bid)",
    ),
    (
        "action",
        _dict(pa.int16()),
        "the action taken (simkit.engine.actions.action_name: 'discard 6z', 'pung', 'win', ...)",
    ),
    ("action_code", pa.int16(), "the action's code (simkit.engine.actions: DISCARD + kind, ..., WIN, PUNG, PASS, ...)"),
    ("n_legal", pa.int16(), "the number of legal actions"),
    ("shanten_before", pa.int8(), "the deciding player's shanten at the decision"),
    ("shanten_after", pa.int8(), "their shanten right after the action, before any draw it leads to; -1 after a win"),
    ("counter_0", pa.float64(), "user counter 0: what the policy wrote in view.counters[0] (0 if nothing)"),
    ("counter_1", pa.float64(), "user counter 1"),
    ("counter_2", pa.float64(), "user counter 2"),
    ("counter_3", pa.float64(), "user counter 3"),
)


def decision_schema() -> pa.Schema:
    """The Arrow schema of a run's decision log (:data:`DECISION_COLUMNS`)."""
    return pa.schema(
        [pa.field(name, type_, nullable=name == "tile", metadata={"doc": doc}) for name, type_, doc in DECISION_COLUMNS]
    )


_ACTION_NAMES: tuple | None = None


def _action_names() -> tuple:
    global _ACTION_NAMES
    if _ACTION_NAMES is None:
        from .engine.actions import N_ACTIONS, action_name

        _ACTION_NAMES = tuple(action_name(a) for a in range(N_ACTIONS))
    return _ACTION_NAMES


def decisions_to_batch(dec: dict, *, seed: int, copy) -> pa.RecordBatch:
    """The decision log of :func:`simkit.simulate_matches` (``decisions=True``: its ``"decisions"``
    columns) as one RecordBatch of :func:`decision_schema`; ``copy`` an int, or an int8 array (a
    duplicate call's own ``copy`` column)."""
    from .engine.actions import PHASE_NAMES

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
    schema = decision_schema()
    arrays = []
    for field in schema:
        value = cols[field.name]
        if isinstance(value, np.ndarray):
            value = _arrow(np.ascontiguousarray(value), field.type)
        arrays.append(value)
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def item_names(rules) -> tuple[str, ...]:
    """Names of the rule set's scoring items (``simkit.scoring.<rule set>.ITEM_NAMES``).

    Raises
    ------
    SimkitError
        The rule set has no scoring table yet.
    """
    try:
        module = importlib.import_module(f"simkit.scoring.{rules.name}")
    except ModuleNotFoundError:
        raise InputValueError(f"rule set '{rules.name}' has no scoring table yet") from None
    return tuple(module.ITEM_NAMES)


def dataset_schema(items, *, item_type=pa.int16(), tai=True, extras=(), metadata: dict | None = None) -> pa.Schema:
    """The Arrow schema of a run: :data:`COLUMNS` with one ``item_<name>`` column per scoring item.

    Parameters
    ----------
    items : sequence of str
        Scoring item names (:func:`item_names`).
    item_type : pyarrow.DataType
        Type of the item columns (int16 tai; the engine's item dtype).
    tai : bool
        Whether the rule set pays in tai units (``base / tai_value``): the ``payment_tai`` column.
    extras : sequence of (name, pyarrow.DataType)
        Further engine columns, appended as they are (see :func:`schema_for`).
    metadata : dict, optional
        Schema-level key-value metadata (str -> str).
    """
    fields = []
    for name, type_, doc in COLUMNS:
        if name == "item_*":
            doc_items = doc if pa.types.is_integer(item_type) else doc.replace("tai", "value")
            fields.extend(
                pa.field(f"item_{item}", item_type, nullable=False, metadata={"doc": doc_items}) for item in items
            )
        elif name != "payment_tai" or tai:
            nullable = name in ("win_tile", "win_hand", "win_melds")
            fields.append(pa.field(name, type_, nullable=nullable, metadata={"doc": doc}))
    for name, type_ in extras:
        fields.append(
            pa.field(name, type_, nullable=False, metadata={"doc": "engine column (see simkit.simulate_matches)"})
        )
    return pa.schema(fields, metadata=metadata)


# engine result keys that COLUMNS covers (renamed, encoded or derived); any other 1-D column is kept as is
_ENGINE_KEYS = frozenset(
    (
        "match",
        "hand",
        "prevailing_wind",
        "dealer",
        "streak",
        "seat_wind_0",
        "winner",
        "payer",
        "win_type",
        "win_tile",
        "win_hand",
        "win_melds",
        "items",
        "hand_tai",
        "dealer_tai",
        "points",
        "score_0",
        "score_1",
        "turns",
        "tiles_left",
        "kongs_0",
        "kongs_1",
        "declared_0",
        "declared_1",
        "skipped_wins_0",
        "skipped_wins_1",
        "dealer_turn",
    )
)


def _pays_in_tai(rules) -> bool:
    return hasattr(rules.options, "base") and hasattr(rules.options, "tai_value")


#: Engine result columns that every rule set's dataset keeps beyond :data:`COLUMNS`.
SHARED_RESULT_COLUMNS = ("balance_0", "balance_1")


def _extra_columns(res: dict, keep) -> list[str]:
    """The engine's further 1-D columns (beyond :data:`COLUMNS`' sources) that are in ``keep``, in
    the engine's order."""
    return [key for key, value in res.items() if key not in _ENGINE_KEYS and np.ndim(value) == 1 and key in keep]


def schema_for(rules, res: dict, columns=None) -> pa.Schema:
    """The schema of a run of ``rules`` whose engine returns ``res`` (:func:`simkit.simulate_matches`).

    The same for every chunk of a run: :data:`COLUMNS`, the rule set's item columns (the engine's
    item dtype), and the engine's further columns that apply to the rule set
    (:data:`SHARED_RESULT_COLUMNS` and ``rules.result_columns``), in the engine's order; the engine
    returns every rule set's columns, zero where they do not apply, and those stay out. With
    ``columns`` (the names of a run's existing shards, when it is resumed) the further columns are
    the ones among those names, so that a run begun by an earlier version keeps one schema.
    """
    keep = set(SHARED_RESULT_COLUMNS) | set(rules.result_columns) if columns is None else set(columns)
    extras = [(key, pa.from_numpy_dtype(np.asarray(res[key]).dtype)) for key in _extra_columns(res, keep)]
    item_dtype = np.asarray(res["items"]).dtype
    return dataset_schema(
        item_names(rules), item_type=pa.from_numpy_dtype(item_dtype), tai=_pays_in_tai(rules), extras=extras
    )


# ---------------------------------------------------------------------------------------------
# engine rows -> RecordBatch

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
    import numba

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
    """A numpy column as an Arrow array of ``type_`` (no copy when it is contiguous and of that type)."""
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
    extras = _extra_columns(res, schema.names)
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
    if _pays_in_tai(rules):
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


# ---------------------------------------------------------------------------------------------
# files


def shard_name(chunk: int) -> str:
    """File name of chunk ``chunk``'s shard: ``part-000012.parquet``."""
    return f"{_SHARD_PREFIX}{chunk:06d}{_SHARD_SUFFIX}"


def _chunk_of(name: str) -> int | None:
    if not (name.startswith(_SHARD_PREFIX) and name.endswith(_SHARD_SUFFIX)):
        return None
    digits = name[len(_SHARD_PREFIX) : -len(_SHARD_SUFFIX)]
    if not (digits.isascii() and digits.isdigit()):
        return None
    chunk = int(digits)
    return chunk if name == shard_name(chunk) else None  # part-1.parquet is not chunk 1's shard


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_shard(directory, chunk: int, table: pa.Table, metadata: dict) -> Path:
    """Write ``table`` as a complete, fsync'ed temporary file in ``directory``; returns its path.

    The file is hidden (``.part-000012.parquet.<pid>.tmp``) until :func:`commit_shard` renames it.
    ``metadata`` (JSON-ready) is stored under :data:`METADATA_KEY` with the Arrow schema. On Linux the
    file is written unnamed (``O_TMPFILE``) and gets its temporary name only once complete and
    fsync'ed, so a process killed while writing (``kill -9`` included) leaves no file at all.
    """
    directory = Path(directory)
    tmp = directory / f".{shard_name(chunk)}.{os.getpid()}{_TMP_SUFFIX}"
    meta = dict(table.schema.metadata or {})
    meta[METADATA_KEY.encode()] = json.dumps(metadata, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)

    def write(f):
        pq.write_table(
            table,
            f,
            compression=COMPRESSION,
            row_group_size=max(1, table.num_rows),
            write_page_checksum=True,
            use_dictionary=[field.name for field in table.schema if pa.types.is_dictionary(field.type)],
            write_statistics=[name for name in STATISTICS_COLUMNS if name in table.schema.names],
        )
        f.flush()
        os.fsync(f.fileno())

    fd = _open_unnamed(directory)
    if fd is not None:
        try:
            with open(fd, "wb", closefd=False) as f:
                write(f)
            if _link_unnamed(fd, tmp):
                return tmp
        finally:
            os.close(fd)
    with open(tmp, "wb") as f:  # no O_TMPFILE here: a named temporary file from the start
        write(f)
    return tmp


def _open_unnamed(directory: Path) -> int | None:
    """A new unnamed file in ``directory`` (``O_TMPFILE``), or None where the system has none."""
    import errno

    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return None
    try:
        return os.open(directory, flag | os.O_WRONLY, 0o644)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def _link_unnamed(fd: int, path: Path) -> bool:
    """Give the unnamed file ``fd`` the name ``path`` (``linkat`` through ``/proc/self/fd``); False
    if this system cannot."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a stale file of an earlier process with this pid
    root = os.open("/", os.O_RDONLY)
    try:
        os.link(f"/proc/self/fd/{fd}", path, src_dir_fd=root, follow_symlinks=True)
    except OSError as exc:
        import errno

        if exc.errno in (errno.ENOENT, errno.EXDEV, errno.EPERM, errno.EOPNOTSUPP, errno.EINVAL):
            return False
        raise
    finally:
        os.close(root)
    return True


def file_digest(path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def shard_entry(path, chunk: int, meta: dict | None = None) -> dict:
    """The manifest's record of shard ``chunk`` whose bytes are at ``path`` (a temporary file about
    to be committed): file name, chunk, first match, matches, rows, byte size, SHA-256."""
    meta = meta if meta is not None else shard_metadata(path)
    return {
        "file": shard_name(chunk),
        "chunk": int(chunk),
        "first_match": int(meta.get("first_match", -1)),
        "matches": int(meta.get("matches", -1)),
        "rows": int(meta["rows"]),
        "bytes": os.path.getsize(path),
        "sha256": file_digest(path),
    }


def decision_file(chunk: int) -> str:
    """Path, relative to the run directory, of chunk ``chunk``'s decision shard:
    ``_decisions/part-000012.parquet``."""
    return f"{DECISIONS_DIR}/{shard_name(chunk)}"


def decision_entry(path, chunk: int, rows: int) -> dict:
    """The manifest's record of chunk ``chunk``'s decision shard whose bytes are at ``path`` (the
    ``"decisions"`` item of the chunk's shard entry): file, rows, byte size, SHA-256."""
    return {
        "file": decision_file(chunk),
        "rows": int(rows),
        "bytes": os.path.getsize(path),
        "sha256": file_digest(path),
    }


def commit_shard(tmp: Path, directory, chunk: int) -> Path:
    """Atomically rename a temporary shard to its final name and fsync the directory."""
    directory = Path(directory)
    final = directory / shard_name(chunk)
    os.replace(tmp, final)
    _fsync_dir(directory)
    return final


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.parent / f".{path.name}.{os.getpid()}{_TMP_SUFFIX}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def write_manifest(directory, manifest: dict) -> None:
    """Write the run manifest ``_simkit.json`` atomically."""
    _write_json_atomic(Path(directory) / MANIFEST, manifest)


def read_manifest(directory) -> dict:
    """The run manifest of ``directory``.

    Raises
    ------
    DatasetError
        No such directory, or it is not a simkit run (no readable manifest of this format).
    """
    directory = Path(directory)
    path = directory / MANIFEST
    try:
        if not directory.exists():
            raise DatasetError(f"{directory}: no such directory")
        if not directory.is_dir():
            raise DatasetError(f"{directory} is a file, not a simkit dataset directory")
        if not path.is_file():
            raise DatasetError(f"{directory} is not a simkit dataset (no {MANIFEST} manifest)")
        manifest = json.loads(path.read_text())
    except OSError as exc:  # e.g. a name too long, no permission
        raise DatasetError(f"{directory}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(f"{directory} is not a simkit dataset: its {MANIFEST} is not valid JSON ({text})") from None
    except RecursionError:  # e.g. 100,000 nested lists: deeper than the JSON parser goes
        manifest = None
    if manifest is None or _too_deep(manifest):
        raise DatasetError(
            f"{directory} is not a simkit dataset: its {MANIFEST} is nested more than {MAX_MANIFEST_DEPTH} levels deep"
        )
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DatasetError(f"{directory} is not a simkit dataset of format {FORMAT} ({MANIFEST} says otherwise)")
    problem = _manifest_problem(manifest)
    if problem:
        raise DatasetError(f"{directory} is not a simkit dataset: its {MANIFEST} {problem}")
    return manifest


#: Nesting a manifest may have (simkit writes about six levels): anything deeper is refused when
#: read, so that no later walk of it (a comparison, a copy, JSON output) can exhaust the stack.
MAX_MANIFEST_DEPTH = 32


def _too_deep(value, limit: int = MAX_MANIFEST_DEPTH) -> bool:
    """Whether the parsed JSON ``value`` nests lists and objects more than ``limit`` levels deep
    (walked without recursion)."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _manifest_problem(manifest: dict) -> str | None:
    """What makes a parsed manifest unusable (None if nothing)."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return "has no spec"
    rules = spec.get("rules")
    if not (isinstance(rules, dict) and isinstance(rules.get("name"), str) and isinstance(rules.get("options"), dict)):
        return "has no valid spec.rules"
    pols = spec.get("policies")
    if not (
        isinstance(pols, list)
        and len(pols) == 2
        and all(
            isinstance(p, dict)
            and isinstance(p.get("label"), str)
            and isinstance(p.get("name"), str)
            and isinstance(p.get("params"), list)
            for p in pols
        )
    ):
        return "has no valid spec.policies (two policies)"
    seed = spec.get("seed")
    if not (_is_int(seed) and 0 <= seed < 2**63):
        return "has no valid spec.seed"
    target = spec.get("target")
    if not (
        isinstance(target, dict)
        and len(target) == 1
        and next(iter(target)) in ("matches", "hands")
        and _is_int(next(iter(target.values())))
        and next(iter(target.values())) > 0
    ):
        return "has no valid spec.target"
    if not isinstance(spec.get("duplicate"), bool):
        return "has no valid spec.duplicate"
    if not (_is_int(spec.get("chunk_matches")) and spec["chunk_matches"] > 0):
        return "has no valid spec.chunk_matches"
    if not (isinstance(spec.get("items"), list) and all(isinstance(i, str) for i in spec["items"])):
        return "has no valid spec.items"
    if not isinstance(spec.get("decisions", False), bool):
        return "has no valid spec.decisions"
    if manifest.get("status") not in ("running", "complete", "overwriting"):
        return f"has an unknown status {manifest.get('status')!r}"
    shards = manifest.get("shards")
    if shards is not None and not _is_int(shards):  # a shard list (an int: the count, in a legacy manifest)
        if not isinstance(shards, list):
            return "has a malformed shard list"
        seen = set()
        decisions = spec.get("decisions", False)
        for e in shards:
            if (
                not (
                    isinstance(e, dict)
                    and _is_int(e.get("chunk"))
                    and e["chunk"] >= 0
                    and e.get("file") == shard_name(e["chunk"])
                    and _is_int(e.get("rows"))
                    and e["rows"] >= 0
                    and _is_int(e.get("bytes"))
                    and e["bytes"] > 0
                    and isinstance(e.get("sha256"), str)
                    and len(e["sha256"]) == 64
                )
                or e["chunk"] in seen
            ):
                return f"has a malformed shard entry {json.dumps(e)[:80]}"
            d = e.get("decisions")
            # every chunk of a run with decisions lists its decision shard (an interrupted overwrite
            # lists what is left to delete)
            if d is None and decisions and manifest.get("status") != "overwriting":
                return f"lists chunk {e['chunk']} without its decision shard"
            if d is not None and not (
                decisions
                and isinstance(d, dict)
                and d.get("file") == decision_file(e["chunk"])
                and _is_int(d.get("rows"))
                and d["rows"] >= 0
                and _is_int(d.get("bytes"))
                and d["bytes"] > 0
                and isinstance(d.get("sha256"), str)
                and len(d["sha256"]) == 64
            ):
                return f"has a malformed decision shard entry {json.dumps(d)[:80]}"
            seen.add(e["chunk"])
    return None


def is_legacy(manifest: dict) -> bool:
    """True for a manifest written before the shard list (its shards are checked through their footers)."""
    return not isinstance(manifest.get("shards"), list)


def write_common_metadata(directory, schema: pa.Schema, manifest: dict) -> None:
    """Write ``_common_metadata``: the schema and the whole manifest as Parquet key-value metadata."""
    directory = Path(directory)
    meta = {METADATA_KEY: json.dumps(manifest, sort_keys=True)}
    path = directory / COMMON_METADATA
    tmp = directory / f".{COMMON_METADATA}.{os.getpid()}{_TMP_SUFFIX}"
    pq.write_metadata(schema.with_metadata(meta), tmp)
    os.replace(tmp, path)
    _fsync_dir(directory)


def shard_metadata(path) -> dict:
    """The JSON description stored in a shard's key-value metadata (``{}`` if none).

    Read from the footer's bytes (:func:`_footer_value`; having pyarrow parse the whole footer, its
    schema and row-group statistics, takes several times as long), or through pyarrow when that
    finds nothing. A description nested too deeply to parse is a ``ValueError``, like one that is
    not JSON.
    """
    raw = _footer_value(path)
    try:
        if raw is not None:
            with contextlib.suppress(ValueError):
                meta = json.loads(raw)
                if isinstance(meta, dict):
                    return meta
        meta = pq.read_schema(path).metadata or {}
        raw = meta.get(METADATA_KEY.encode())
        return json.loads(raw) if raw else {}
    except RecursionError:
        raise ValueError("its metadata is nested too deeply") from None


# A Parquet footer (Thrift compact protocol) stores each key-value pair as a struct of two binary
# fields, 1 the key and 2 the value: header byte 0x18 (field delta 1, type binary), the length as a
# varint, the bytes. This is the key's encoding up to the value's header.
_FOOTER_KEY = b"\x18" + bytes([len(METADATA_KEY)]) + METADATA_KEY.encode() + b"\x18"


def _footer_value(path) -> bytes | None:
    """The value stored under :data:`METADATA_KEY` in a Parquet file's footer, read from the
    footer's bytes; None if the file is not Parquet or the key is not found (the caller then asks
    pyarrow). Only the footer is read."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 12:
            return None
        start = max(0, size - (1 << 16))
        tail = os.pread(f.fileno(), size - start, start)
        if tail[-4:] != b"PAR1":
            return None
        n = int.from_bytes(tail[-8:-4], "little")
        if n > size - 12:
            return None
        if n + 8 > len(tail):
            tail = os.pread(f.fileno(), n + 8, size - n - 8)
    footer = tail[len(tail) - 8 - n : len(tail) - 8]
    at = footer.rfind(_FOOTER_KEY)  # the pair is near the footer's end, after the schema and row groups
    if at < 0:
        return None
    j = at + len(_FOOTER_KEY)
    length = shift = 0
    while True:
        if j >= len(footer) or shift > 28:
            return None
        byte = footer[j]
        j += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return footer[j : j + length] if j + length <= len(footer) else None


def completed_chunks(directory, spec: dict) -> dict[int, dict]:
    """Chunks whose shard is in place: ``{chunk: shard metadata}``.

    A shard is in place only after its rename, so it is complete; its footer is read to check that
    it belongs to this run (``spec`` equal to the one it was written with).

    Raises
    ------
    DatasetError
        A shard that cannot be read or was written by a different run.
    """
    directory = Path(directory)
    done = {}
    for path in sorted(directory.iterdir()):
        chunk = _chunk_of(path.name)
        if chunk is None:
            continue
        try:
            meta = shard_metadata(path)
        except (OSError, pa.ArrowException) as exc:
            raise DatasetError(f"{path}: unreadable shard ({exc})") from None
        if meta.get("spec") != spec or meta.get("chunk") != chunk:
            raise DatasetError(f"{path} was not written by this run (its settings differ); use --overwrite")
        done[chunk] = meta
    return done


_TMP_PATTERN = re.compile(r"^\.(part-\d{6,}\.parquet|_simkit\.json|_common_metadata)\.\d+\.tmp$")


def _is_temporary(name: str) -> bool:
    """A temporary file simkit writes (``.part-000012.parquet.<pid>.tmp``, ``._simkit.json.<pid>.tmp``, ...)."""
    return _TMP_PATTERN.match(name) is not None


def temporary_files(directory, pid: int | None = None) -> list[Path]:
    """simkit's temporary files in ``directory`` and its decision log ``_decisions/`` (those of
    process ``pid`` only, if given)."""
    out = []
    directory = Path(directory)
    places = [directory]
    if (directory / DECISIONS_DIR).is_dir():
        places.append(directory / DECISIONS_DIR)
    for place in places:
        for path in place.iterdir():
            if _is_temporary(path.name) and (pid is None or path.name.endswith(f".{pid}{_TMP_SUFFIX}")):
                out.append(path)
    return out


def clean_temporary(directory, pid: int | None = None) -> int:
    """Remove simkit's temporary files left by killed runs or workers (of process ``pid`` only, if
    given); returns how many. Other hidden files are left alone."""
    n = 0
    for path in temporary_files(directory, pid):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            n += 1
    return n


def _is_data_like(name: str) -> bool:
    """A file a reader of the directory could take for data (``pandas.read_parquet(dir)`` reads every
    file not starting with ``_`` or ``.``): any ``part-*`` or ``*.parquet`` name."""
    return not name.startswith((".", "_")) and (name.startswith(_SHARD_PREFIX) or name.endswith(_SHARD_SUFFIX))


def _footer_problem(path: Path, spec: dict | None, chunk: int, table: str = "hands") -> str | None:
    """What makes the shard at ``path`` not chunk ``chunk`` of ``table`` in the run of ``spec``
    (``spec`` None: any run); None if nothing."""
    try:
        meta = shard_metadata(path)
    except (OSError, pa.ArrowException, ValueError) as exc:
        return f"is not a readable shard ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    if (spec is not None and meta.get("spec") != spec) or meta.get("chunk") != chunk:
        return "was written by another run (its footer's settings or chunk differ from the manifest's)"
    if meta.get("table", "hands") != table:
        return f"is not a shard of the run's {table} (its footer says {meta.get('table', 'hands')})"
    return None


def _extra(directory: Path, name: str) -> DatasetError:
    return DatasetError(
        f"{directory / name} is not a shard listed in the manifest (a stray or foreign file); remove it or "
        "move it out of the run directory"
    )


def _footer_chunk(directory: Path, name: str, spec: dict | None, table: str = "hands") -> int:
    """The chunk of shard file ``name`` whose footer must name ``spec`` (None: any run's), that chunk
    and ``table`` (``"decisions"`` in ``_decisions/``); a file that is not a shard, or a shard of
    another run, chunk or table, is a one-line :class:`DatasetError`."""
    chunk = _chunk_of(name)
    if chunk is None:
        raise _extra(directory, name)
    problem = _footer_problem(directory / name, spec, chunk, table)
    if problem:
        raise DatasetError(f"{directory / name} {problem}; remove it")
    return chunk


def _decision_names(directory: Path) -> list[str]:
    """Data-like file names in the run's ``_decisions/`` (none if it does not exist)."""
    place = directory / DECISIONS_DIR
    if not place.is_dir():
        return []
    return sorted(p.name for p in place.iterdir() if _is_data_like(p.name))


def check_shards(directory, manifest: dict, *, pending_ok: bool = False, missing_ok: bool = False):
    """The run's shards as its manifest describes them, checked against the directory (sizes, no
    extra files; a legacy manifest: the footers' chunks); checksums are checked by :func:`verify_shard`,
    and what the manifest says of the run against the shards' footers by :func:`check_manifest`.

    Returns ``(shards, pending)``: ``shards`` a tuple of ``(path, entry)`` in chunk order (``entry``
    the manifest's record; for a legacy manifest, one built from the footer without a checksum);
    ``pending`` the chunks of shards in place but not yet listed (a run killed, or being read, between
    committing a shard and listing it), whose footer says they belong to this run: allowed (and not
    read) in a ``running`` run or with ``pending_ok``, otherwise refused as extra files. With
    ``missing_ok`` (an overwrite, which deletes the listed shards) listed shards that are gone are
    skipped and a listed shard's size is not checked, and a legacy run's shards may name one spec
    other than the manifest's (an edited manifest); a shard naming yet another run is still refused
    (it is not the run's to delete). A run with decisions gets
    the same checks for each chunk's decision shard in ``_decisions/`` (its entry's ``"decisions"``;
    a chunk is pending when either of its shards is); a run without has no decision shard.

    Raises
    ------
    DatasetError
        One line naming the file: a listed shard missing or resized, an unlisted or foreign shard,
        or (legacy) shards whose count or rows differ from the manifest's totals.
    """
    directory = Path(directory)
    spec = manifest["spec"]
    names = sorted(p.name for p in directory.iterdir() if _is_data_like(p.name))
    decision_names = _decision_names(directory)
    decisions = bool(spec.get("decisions", False)) and not is_legacy(manifest)
    if decision_names and not decisions:
        raise DatasetError(
            f"{directory / DECISIONS_DIR / decision_names[0]} is a decision shard, but the run has no decisions "
            "(a stray or foreign file); remove it or move it out of the run directory"
        )
    shards, pending = [], []
    if not is_legacy(manifest):
        gone_ok = missing_ok or manifest.get("status") == "overwriting"

        def present(path, entry) -> bool:
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                if gone_ok:
                    return False  # already deleted (an interrupted overwrite), or being overwritten
                raise DatasetError(
                    f"{path} is missing (the manifest lists it); the run is incomplete: rerun it with --overwrite"
                ) from None
            if size != entry["bytes"] and not missing_ok:
                raise DatasetError(
                    f"{path} has {size:,} bytes, the manifest lists {entry['bytes']:,} (resized or "
                    "replaced); rerun the run with --overwrite"
                )
            return True

        listed = {e["file"]: e for e in manifest["shards"]}
        for entry in sorted(manifest["shards"], key=lambda e: e["chunk"]):
            path = directory / entry["file"]
            if entry.get("decisions") is not None:
                present(directory / entry["decisions"]["file"], entry["decisions"])
            if present(path, entry):
                shards.append((path, entry))
        for name in names:
            if name in listed:
                continue
            chunk = _footer_chunk(directory, name, spec)
            if not (pending_ok or manifest.get("status") == "running"):
                raise _extra(directory, name)
            pending.append(chunk)  # a running run's next shard, renamed but not yet listed: not read
        listed_decisions = {e["decisions"]["file"] for e in manifest["shards"] if e.get("decisions") is not None}
        for name in decision_names:
            if f"{DECISIONS_DIR}/{name}" in listed_decisions:
                continue
            chunk = _footer_chunk(directory / DECISIONS_DIR, name, spec, "decisions")
            if not (pending_ok or manifest.get("status") == "running"):
                raise _extra(directory / DECISIONS_DIR, name)
            if chunk not in pending:
                pending.append(chunk)  # committed before its chunk's shard, not yet listed
        return tuple(shards), sorted(pending)
    # legacy: the shards in place, each footer naming its own chunk (and the manifest's spec:
    # check_manifest; an overwrite takes a spec all of them name)
    specs = {}
    for name in names:
        chunk = _footer_chunk(directory, name, None)
        meta = shard_metadata(directory / name)
        specs[name] = meta.get("spec")
        shards.append(
            (
                directory / name,
                {
                    "file": name,
                    "chunk": chunk,
                    "first_match": meta.get("first_match"),
                    "matches": meta.get("matches"),
                    "rows": meta.get("rows"),
                },
            )
        )
    if missing_ok and len({_canonical(v) for v in specs.values()}) > 1:
        for name, their_spec in specs.items():
            if their_spec != spec:
                raise DatasetError(
                    f"{directory / name} was written by another run (its footer's settings differ "
                    "from the manifest's); remove it"
                )
    if manifest.get("status") == "complete" and not missing_ok:
        rows = sum(int(e["rows"] or 0) for _, e in shards)
        want_n, want_rows = manifest.get("shards"), manifest.get("rows")
        chunks = [e["chunk"] for _, e in shards]
        if (
            (want_n is not None and want_n != len(shards))
            or (want_rows is not None and want_rows != rows)
            or chunks != list(range(len(chunks)))
        ):
            raise DatasetError(
                f"{directory}: {len(shards)} shards with {rows:,} rows (chunks {chunks[:5]}{'...' if len(chunks) > 5 else ''}), "
                f"its manifest says {want_n} shards with {want_rows:,} rows: a shard is missing or extra"
            )
    return tuple(shards), pending


_DIGESTS: dict = {}  # (path, inode, size, mtime, ctime) -> SHA-256 already computed in this process


def verify_shard(path, entry: dict) -> None:
    """Check a listed shard's bytes against the manifest's SHA-256 (a legacy entry has none: nothing
    to check). Each file version is hashed once per process.

    Raises
    ------
    DatasetError
        The shard's content differs from what was written (corrupt or replaced).
    """
    want = entry.get("sha256")
    if want is None:
        return
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DatasetError(f"{path} is missing (the manifest lists it)") from None
    key = (str(path.absolute()), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = file_digest(path)
        if len(_DIGESTS) > 100_000:
            _DIGESTS.clear()
        _DIGESTS[key] = digest
    if digest != want:
        raise DatasetError(
            f"{path} is corrupt: its SHA-256 differs from the manifest's; rerun the run with --overwrite"
        )


def _canonical(value) -> str:
    """One text per JSON value (keys sorted, no spaces): equal texts, equal values, ``1`` and
    ``1.0`` and ``true`` told apart."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


_FOOTERS: dict = {}  # (device, inode, size, mtime, ctime) -> what check_manifest reads of the shard's footer


def _footer_facts(path: Path) -> tuple:
    """``(spec as canonical text, chunk, first_match, matches, rows, table)`` from a shard's footer,
    read once per process and file version.

    Raises
    ------
    DatasetError
        The footer cannot be read.
    """
    try:
        st = os.stat(path)
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        facts = _FOOTERS.get(key)
        if facts is None:
            meta = shard_metadata(path)
            facts = (
                _canonical(meta.get("spec")),
                *(meta.get(k) for k in ("chunk", "first_match", "matches", "rows")),
                meta.get("table", "hands"),
            )
            if len(_FOOTERS) > 100_000:
                _FOOTERS.clear()
            _FOOTERS[key] = facts
    except (OSError, pa.ArrowException, ValueError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(f"{path} is not a readable shard ({text}); rerun the run with --overwrite") from None
    return facts


_ABSENT = object()


def _same(a, b) -> bool:
    """Equal JSON values of the same type (``1`` is not ``1.0`` nor ``true``)."""
    return type(a) is type(b) and (a == b if not isinstance(a, (dict, list)) else _canonical(a) == _canonical(b))


def _first_difference(mine, theirs, where: str = ""):
    """``(field, my value, their value)`` at the first place two JSON values differ (``where`` the
    path so far: ``seed``, ``rules.options.migi_tai``, ``policies[0].label``); None if they are equal.
    A missing key is :data:`_ABSENT`."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for k in sorted(set(mine) | set(theirs)):
            found = _first_difference(mine.get(k, _ABSENT), theirs.get(k, _ABSENT), f"{where}.{k}" if where else k)
            if found:
                return found
        return None
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for i, (a, b) in enumerate(zip(mine, theirs)):
            found = _first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        return None
    if mine is _ABSENT or theirs is _ABSENT or _canonical(mine) != _canonical(theirs):
        return where, mine, theirs
    return None


def _shown(value) -> str:
    """A manifest value for a one-line message (JSON, cut at 60 characters)."""
    if value is _ABSENT:
        return "(none)"
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_manifest(directory, manifest: dict, shards, *, resuming: bool = False) -> None:
    """Check what the manifest says of its run against what the run's shards say of themselves.

    Every shard's footer holds the spec of the run that wrote it, its chunk, first match, matches
    and rows (a decision shard's, its table's rows); the manifest is a file anyone can edit. Each of
    ``shards`` (``(path, entry)`` from :func:`check_shards`) and its decision shard must name the
    manifest's spec exactly and what its entry lists; a complete run's totals must be the sum of its
    shards and its shards must reach its target; the manifest's rules must pass the rule set's own
    validation (:func:`rules_from_dict`). ``resuming``: the run is about to be finished, which
    rewrites its status and totals, so those are not checked.

    Only footers are read (a fraction of a millisecond a shard, once per process and file version).
    A run without shards yet has nothing to compare with: its spec is only validated, and the shards
    it goes on to write carry that spec.

    Raises
    ------
    DatasetError
        One line naming the field that differs and the way out: put the shards' value back in the
        manifest, or rerun the run with ``--overwrite``.
    """
    directory = Path(directory)
    spec = manifest["spec"]
    mine = _canonical(spec)
    footers = []  # (path, footer facts, what the manifest lists: {key: value}, table)
    for path, entry in shards:
        footers.append((path, _footer_facts(path), entry, "hands"))
        listed = entry.get("decisions")
        if listed is not None:
            listed = dict(
                listed, chunk=entry["chunk"], first_match=entry.get("first_match"), matches=entry.get("matches")
            )
            footers.append((directory / listed["file"], _footer_facts(directory / listed["file"]), listed, "decisions"))
    for path, facts, _, _ in footers:
        if facts[0] != mine:
            field, ours, theirs = _first_difference(spec, json.loads(facts[0]))
            field = field or "spec"
            if len({f[0] for _, f, _, _ in footers}) == 1:
                raise DatasetError(
                    f"{directory}: the manifest's {field} {_shown(ours)} differs from its shards' {_shown(theirs)}: "
                    f"{MANIFEST} was edited; put {_shown(theirs)} back, or rerun the run with --overwrite"
                )
            raise DatasetError(
                f"{path} was not written by this run: its footer's {field} {_shown(theirs)} differs from the "
                f"manifest's {_shown(ours)}; rerun the run with --overwrite"
            )
    for path, facts, listed, table in footers:
        if facts[5] != table:
            raise DatasetError(
                f"{path} is not a shard of the run's {table} (its footer says {facts[5]}); rerun the "
                "run with --overwrite"
            )
        for key, theirs in zip(("chunk", "first_match", "matches", "rows"), facts[1:5]):
            ours = listed.get(key)
            if ours is not None and theirs is not None and not _same(ours, theirs):
                raise DatasetError(
                    f"{path}: the manifest lists its {key} as {_shown(ours)}, its footer says {_shown(theirs)}: "
                    f"{MANIFEST} was edited; put {_shown(theirs)} back, or rerun the run with --overwrite"
                )
    if manifest.get("status") == "complete" and not resuming:
        _check_complete(directory, manifest, shards)
    try:
        rules_from_dict(spec["rules"])
    except (SimkitError, TypeError, ValueError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(
            f"{directory}: the manifest's rules are not valid ({text}); rerun the run with --overwrite"
        ) from None


def _check_complete(directory: Path, manifest: dict, shards) -> None:
    """A complete run's totals are its shards' sums, and its shards are chunks 0, 1, ... up to its target."""
    entries = [e for _, e in shards]

    def summed(values):  # None when a shard does not say (a legacy footer may not)
        values = list(values)
        return sum(values) if all(_is_int(v) for v in values) else None

    totals = {"rows": summed(e.get("rows") for e in entries), "matches": summed(e.get("matches") for e in entries)}
    if manifest["spec"].get("decisions", False) and not is_legacy(manifest):
        totals["decision_rows"] = summed((e.get("decisions") or {}).get("rows") for e in entries)
    for key, total in totals.items():
        if key in manifest and total is not None and not _same(manifest[key], total):
            raise DatasetError(
                f"{directory}: the manifest's {key} {_shown(manifest[key])} differs from its shards' {total}: "
                f"{MANIFEST} was edited; put {total} back, or rerun the run with --overwrite"
            )
    target = manifest["spec"]["target"]
    want, got = (target["matches"], totals["matches"]) if "matches" in target else (target["hands"], totals["rows"])
    chunks = [e["chunk"] for e in entries]
    if chunks != list(range(len(chunks))) or (
        got is not None and (("matches" in target and got != want) or got < want)
    ):
        what = "matches" if "matches" in target else "hands"
        raise DatasetError(
            f"{directory}: the manifest says the run is complete, but its shards hold "
            f"{'some' if got is None else format(got, ',')} of its {want:,} {what} "
            f"(chunks {chunks[:5]}{'...' if len(chunks) > 5 else ''}): {MANIFEST} was edited; finish the run "
            "with --resume"
        )


def begin_overwrite(directory) -> None:
    """Delete the run in ``directory`` so a new one can be written there, safely at any moment of a kill.

    Only a simkit dataset is overwritten: its manifest must parse and describe the directory (every
    ``part-*`` or ``*.parquet`` file a shard the manifest lists, or a shard whose footer names the
    manifest's run). The manifest is first rewritten with status ``overwriting`` and the list of the
    files to delete (readers refuse such a directory), then ``_common_metadata`` and the listed
    shards are deleted; nothing else is touched. A directory without a manifest must be empty (the
    lock and simkit's temporary files aside). The caller then writes the new run's manifest.

    Raises
    ------
    DatasetError
        Not a simkit dataset, or it holds files its manifest does not describe (named).
    """
    directory = Path(directory)
    others = [p.name for p in directory.iterdir() if p.name not in (_LOCK, MANIFEST) and not _is_temporary(p.name)]
    if not (directory / MANIFEST).exists():
        if others:
            raise DatasetError(f"refusing to overwrite {directory}: it is not a simkit dataset (no {MANIFEST})")
        return
    try:
        manifest = read_manifest(directory)
    except DatasetError as exc:
        raise DatasetError(f"refusing to overwrite: {exc}") from None
    try:
        shards, pending = check_shards(directory, manifest, pending_ok=True, missing_ok=True)
    except DatasetError as exc:
        raise DatasetError(f"refusing to overwrite {directory}: {exc}") from None
    entries = [e if "sha256" in e else shard_entry(p, e["chunk"]) for p, e in shards]
    listed = {e["chunk"] for e in entries}
    for entry in manifest["shards"] if not is_legacy(manifest) else ():
        if entry["chunk"] not in listed and entry.get("decisions") is not None:
            entries.append(entry)  # its shard is gone, its decision shard maybe not yet
    for c in pending:
        if (directory / shard_name(c)).exists() and c not in listed:
            entries.append(shard_entry(directory / shard_name(c), c))
    entries = [  # a chunk listed or pending whose decision shard is in place: delete it with the chunk
        dict(e, decisions=decision_entry(directory / decision_file(e["chunk"]), e["chunk"], 0))
        if e.get("decisions") is None and (directory / decision_file(e["chunk"])).exists()
        else e
        for e in entries
    ]
    described = {e["file"] for e in entries} | {COMMON_METADATA}
    decision_files = {e["decisions"]["file"] for e in entries if e.get("decisions") is not None}
    decision_files |= {decision_file(c) for c in pending}
    place = directory / DECISIONS_DIR
    if place.is_dir():
        inside = [p.name for p in place.iterdir() if not _is_temporary(p.name)]
        strays = [name for name in inside if f"{DECISIONS_DIR}/{name}" not in decision_files]
        if strays:
            raise DatasetError(
                f"refusing to overwrite {directory}: {place / strays[0]} is not part of the simkit run its manifest "
                "describes (move it out first)"
            )
        described.add(DECISIONS_DIR)
    unknown = [name for name in others if name not in described]
    if unknown:
        raise DatasetError(
            f"refusing to overwrite {directory}: {directory / unknown[0]} is not part of the simkit run its manifest "
            "describes (move it out first)"
        )
    manifest = dict(manifest, status="overwriting", shards=sorted(entries, key=lambda e: e["chunk"]))
    write_manifest(directory, manifest)  # from here on no reader takes the directory for the old run
    with contextlib.suppress(FileNotFoundError):
        (directory / COMMON_METADATA).unlink()
    for entry in manifest["shards"]:
        with contextlib.suppress(FileNotFoundError):
            (directory / entry["file"]).unlink()
    for name in sorted(decision_files):  # listed, and pending ones (found again by their footers if a kill stops this)
        with contextlib.suppress(FileNotFoundError):
            (directory / name).unlink()
    _fsync_dir(directory)
    if place.is_dir():
        with contextlib.suppress(OSError):
            for path in temporary_files(directory):
                if path.parent == place:
                    path.unlink()
            place.rmdir()
            _fsync_dir(directory)


@contextlib.contextmanager
def run_lock(directory):
    """Hold an exclusive lock on a run directory (released when the process dies, even by SIGKILL).

    Raises
    ------
    SimkitError
        Another process is writing the run.
    """
    fd = os.open(Path(directory) / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunError(f"another simkit process is writing {directory}") from None
        yield
    finally:
        os.close(fd)


def versions() -> dict:
    """Versions of simkit and of the libraries that make and write the data."""
    import numba

    return {
        "simkit": __version__,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pyarrow": pa.__version__,
        "python": platform.python_version(),
    }


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def command_line() -> list[str]:
    """The command line of this process, ``simkit`` first when run as the console script."""
    argv = list(sys.argv)
    if argv and (argv[0].endswith(os.sep + "simkit") or argv[0] == "simkit" or argv[0].endswith("__main__.py")):
        argv[0] = "simkit"
    return argv


# ---------------------------------------------------------------------------------------------
# reading


def _read_verified(path: Path, entry: dict, columns=None, filters=None) -> pa.Table:
    """A listed shard's table, its SHA-256 (:func:`verify_shard`), page checksums and rows checked."""
    verify_shard(path, entry)
    try:
        table = pq.read_table(path, columns=columns, filters=filters, page_checksum_verification=True)
    except OSError as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(f"{path} is unreadable or corrupt ({text}); rerun the run with --overwrite") from None
    if filters is None and entry.get("rows") is not None and table.num_rows != entry["rows"]:
        raise DatasetError(
            f"{path} has {table.num_rows:,} rows, the manifest lists {entry['rows']:,}; rerun the run with --overwrite"
        )
    return table


@dataclass(frozen=True)
class Run:
    """A run directory as its manifest describes it (:func:`open_run`).

    Attributes
    ----------
    path : Path
    manifest : dict
        The whole ``_simkit.json``.
    shards : tuple of Path
        The complete shards the manifest lists, in chunk (= row) order.
    entries : tuple of dict
        The manifest's record of each shard (chunk, matches, rows, bytes, SHA-256; a legacy run's are
        built from the footers, without checksums).
    legacy : bool
        The manifest predates the shard list (checked through the shards' footers instead).
    decision_shards : tuple of Path
        A run with decisions: the decision shards the manifest lists (``_decisions/part-*.parquet``),
        one per shard in :attr:`shards`, in the same order (checked for presence and size;
        their SHA-256 when read, :meth:`read_decision_shard`).
    decision_entries : tuple of dict
        The manifest's record of each decision shard (file, rows, bytes, SHA-256).
    """

    path: Path
    manifest: dict
    shards: tuple
    entries: tuple = ()
    legacy: bool = False
    decision_shards: tuple = ()
    decision_entries: tuple = ()

    @property
    def decisions(self) -> bool:
        """Whether the run has a decision log (written with ``decisions=True`` / ``--decisions``)."""
        return bool(self.spec.get("decisions", False))

    @property
    def spec(self) -> dict:
        """What determines the data: rules and options, policies, seed, target, duplicate, chunking."""
        return self.manifest["spec"]

    @property
    def complete(self) -> bool:
        """True once every chunk is written (the manifest's status is ``complete``)."""
        return self.manifest.get("status") == "complete"

    @property
    def rules(self):
        """The run's :class:`~simkit.rules.Rules`, every option as recorded."""
        return rules_from_dict(self.spec["rules"])

    @property
    def schema(self) -> pa.Schema:
        """The columns of the run (its first shard's Arrow schema, without key-value metadata)."""
        if not self.shards:
            raise DatasetError(f"{self.path} has no complete shards yet")
        return pq.read_schema(self.shards[0]).remove_metadata()

    @property
    def rows(self) -> int:
        """Rows in the complete shards (read from their footers)."""
        return sum(pq.ParquetFile(p).metadata.num_rows for p in self.shards)

    def read_shard(self, path, columns=None, filters=None) -> pa.Table:
        """One listed shard, its SHA-256 and page checksums verified (``filters`` as
        ``pyarrow.parquet.read_table`` takes them).

        Raises
        ------
        DatasetError
            The shard is not listed, is missing, or its bytes differ from what was written.
        """
        path = Path(path)
        entry = dict(zip(self.shards, self.entries)).get(path)
        if entry is None:
            raise DatasetError(f"{path} is not a shard of {self.path}")
        return _read_verified(path, entry, columns, filters)

    def read_decision_shard(self, path, columns=None, filters=None) -> pa.Table:
        """One listed decision shard, verified like :meth:`read_shard` (SHA-256, page checksums, rows).

        Raises
        ------
        DatasetError
            The run has no decisions, the shard is not listed, is missing, or its bytes differ from
            what was written.
        """
        path = Path(path)
        entry = dict(zip(self.decision_shards, self.decision_entries)).get(path)
        if entry is None:
            raise DatasetError(f"{path} is not a decision shard of {self.path}")
        return _read_verified(path, entry, columns, filters)

    @property
    def decision_schema(self) -> pa.Schema:
        """The columns of the run's decision log (its first decision shard's schema)."""
        if not self.decision_shards:
            raise DatasetError(f"{self.path} has no decision shards")
        return pq.read_schema(self.decision_shards[0]).remove_metadata()

    def read(self, columns=None) -> pa.Table:
        """All complete shards as one Arrow table, in row order (each verified, :meth:`read_shard`)."""
        if not self.shards:
            raise DatasetError(f"{self.path} has no complete shards yet")
        return pa.concat_tables([self.read_shard(p, columns=columns) for p in self.shards])

    def to_pandas(self, columns=None):
        """All complete shards as a pandas DataFrame (categories for the dictionary columns)."""
        return self.read(columns).to_pandas()

    @property
    def wall_settings(self) -> dict:
        """The run's wall design, ``{"deal": ..., "wall": ...}`` (:func:`wall_settings_of`)."""
        return wall_settings_of(self.spec)

    def replay(self, row, *, allow_changed: bool = False):
        """Replay the hand of one row under the run's rules, wall design and recorded policies:
        :func:`simkit.replay`'s record.

        ``row`` is a mapping (a DataFrame row, a dict) with ``seed``, ``match``, ``hand``,
        ``policy_0`` and ``policy_1`` (the labels of the seats in that row, so a copy-1 row of a
        duplicate run replays with the seats swapped). A policy that is not built in is imported
        from the module the run recorded; if that module's source changed since the run, the replay
        is refused unless ``allow_changed=True``.
        """
        from .engine.matches import replay

        need = ("seed", "match", "hand", "policy_0", "policy_1")
        try:
            missing = [c for c in need if c not in row]
        except TypeError:
            raise DatasetError(
                f"a row to replay is a mapping with {', '.join(need)}, got {type(row).__name__}"
            ) from None
        if missing:
            raise DatasetError(
                f"the row lacks column{'s' if len(missing) > 1 else ''} {', '.join(missing)}: replay needs "
                f"{', '.join(need)} (load them, e.g. analysis.load(path, columns=[...]))"
            )
        policies = self._policies_of(str(row["policy_0"]), str(row["policy_1"]), allow_changed)
        return replay(int(row["seed"]), int(row["match"]), int(row["hand"]), self.rules, policies, **self.wall_settings)

    def _policies_of(self, label0, label1, allow_changed=False):
        from .engine.policy_spec import from_record

        out = []
        for label in (label0, label1):
            found = [p for p in self.spec["policies"] if p["label"] == label]
            if not found:
                labels = ", ".join(p["label"] for p in self.spec["policies"])
                raise DatasetError(f"the run has no policy {label!r} (its policies: {labels})")
            out.append(from_record(found[0], allow_changed=allow_changed))
        return tuple(out)


def wall_settings_of(spec: dict) -> dict:
    """The wall design of a run's spec as ``{"deal": ..., "wall": ...}``; a run written before
    simkit had wall designs used the deal ``"dealer"`` with a shared wall."""
    return {"deal": spec.get("deal", "dealer"), "wall": spec.get("wall", "shared")}


def rules_from_dict(record: dict):
    """The :class:`~simkit.rules.Rules` of a provenance record (``Rules.to_dict()``, as in a manifest).

    An option the record lacks because it was written before the option existed takes the value
    the run was played with (the rule-set module's ``OPTIONS_OF_EARLIER_RECORDS``: for_two's
    ``fold_passes_deal=False``), not today's default."""
    from .rules import get_rules, rules_module

    earlier = getattr(rules_module(record["name"]), "OPTIONS_OF_EARLIER_RECORDS", {})
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in record["options"].items()}
    return get_rules(record["name"], **{**earlier, **options})


def open_run(path, *, verify: bool = True) -> Run:
    """Open a run directory: the manifest checked, the shards it lists, in chunk order, checked
    against the directory (:func:`check_shards`), what it says of the run against their footers
    (:func:`check_manifest`) and, with ``verify``, the shards against their SHA-256
    (:func:`verify_shard`; hashed once per process and file version). A run's decision shards are
    checked for presence and size here, and against their SHA-256 when read
    (:meth:`Run.read_decision_shard`).

    Raises
    ------
    DatasetError
        Not a simkit dataset, an interrupted ``--overwrite``, a missing, extra, foreign, resized or
        corrupt shard (one line naming the file), or a manifest that its shards contradict (one line
        naming the field).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(f"a run is its directory, a str or os.PathLike, got {show(path)}")
    directory = Path(path)
    manifest = read_manifest(directory)
    if manifest["status"] == "overwriting":
        raise DatasetError(
            f"{directory}: an --overwrite of this run was interrupted (its old shards are being deleted); "
            "run simkit simulate --overwrite again"
        )
    pairs, _ = check_shards(directory, manifest)
    if verify:
        for p, entry in pairs:
            verify_shard(p, entry)
    check_manifest(directory, manifest, pairs)  # after the checksums: a damaged footer is called corrupt
    decided = [e["decisions"] for _, e in pairs if e.get("decisions") is not None]
    return Run(
        path=directory,
        manifest=manifest,
        shards=tuple(p for p, _ in pairs),
        entries=tuple(e for _, e in pairs),
        legacy=is_legacy(manifest),
        decision_shards=tuple(directory / d["file"] for d in decided),
        decision_entries=tuple(decided),
    )


def read_run(path, columns=None):
    """A run's rows as a pandas DataFrame (:meth:`Run.to_pandas`)."""
    return open_run(path).to_pandas(columns)
