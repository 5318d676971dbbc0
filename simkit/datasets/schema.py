"""The dataset's Arrow schema, declared once: the hand columns (:data:`COLUMNS`, with the rule
set's scoring items as ``item_<name>`` columns, :func:`item_names`), the decision log's
(:data:`DECISION_COLUMNS`), the run format's names (manifest, metadata key, decision directory)
and :class:`DatasetError`."""

from __future__ import annotations

import importlib

import numpy as np
import pyarrow as pa

from ..errors import InputValueError, SimkitError

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
    "OBSERVATION_COLUMNS",
    "decision_schema",
    "DatasetError",
    "item_names",
    "dataset_schema",
    "schema_for",
    "STATISTICS_COLUMNS",
    "SHARED_RESULT_COLUMNS",
    "LATER_COLUMNS",
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


#: ``win_type`` categories, indexed by the engine's code (0 exhaustive draw ... 3 robbed kong, 4 for_two's fold).
WIN_TYPES = ("draw", "self_drawn", "discard", "robbed_kong", "fold")


#: Wind categories of ``prevailing_wind`` and ``seat_wind_*``, indexed by kind - 27.
WINDS = ("E", "S", "W", "N")


#: ``declared_*`` categories, indexed by the engine's code (0 none, 1 ready, 2 MIGI).
DECLARATIONS = ("none", "ready", "migi")


#: Subdirectory of a run holding its decision log (a second dataset; ``_``: readers of the run skip it).
DECISIONS_DIR = "_decisions"


class DatasetError(SimkitError, ValueError):
    """A directory is not a simkit run, or its files contradict its manifest."""


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
    (
        "winner_policy",
        _dict(),
        "the winner's policy: policy_0 or policy_1 as winner says; null when nobody won (an exhaustive "
        "draw, for_two's fold)",
    ),
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


#: Columns a run's decision log has in addition with observations (``simulate(...,
#: decisions="observations")``, ``--decisions observations``): the decider's legal actions and what
#: their view held beyond the log's other columns (the :class:`~simkit.engine.actions.View`'s fields
#: of these names; their rivers follow from the hand's logged discards and claims).
#: :func:`simkit.analysis.decision_arrays` turns them into the environments' observation.
OBSERVATION_COLUMNS: tuple = (
    (
        "legal",
        pa.binary(19),
        "the legal actions: bit a % 8 of byte a // 8 is action code a (numpy.unpackbits(..., count=148, "
        "bitorder='little'))",
    ),
    ("view_hand", pa.binary(34), "the decider's concealed tiles: byte k holds their copies of kind k"),
    (
        "view_melds",
        pa.binary(8),
        "the decider's melds: (type code of simkit.melds.MELD_TYPES, kind; a chow's lowest) as int8 pairs, "
        "-1 after the last",
    ),
    ("view_opp_melds", pa.binary(8), "the opponent's melds, as view_melds"),
    ("view_n_river", pa.int8(), "discards the decider has made in the hand"),
    ("view_opp_n_river", pa.int8(), "discards the opponent has made"),
    ("view_tiles_left", pa.int16(), "drawable tiles left"),
    ("view_seat_wind", pa.int8(), "the decider's seat wind (kind: 27 East ... 30 North)"),
    ("view_prevailing_wind", pa.int8(), "the prevailing wind (kind)"),
    ("view_dealer", pa.int8(), "1 when the decider is the dealer"),
    ("view_streak", pa.int16(), "the dealer's streak"),
    ("view_declared", pa.int8(), "the decider's declaration: 0 none, 1 ready, 2 MIGI"),
    ("view_opp_declared", pa.int8(), "the opponent's declaration"),
    ("view_declared_at", pa.int8(), "the index in the decider's discards of their declaring discard (-1: none)"),
    ("view_opp_declared_at", pa.int8(), "the opponent's"),
    ("view_bid", pa.int8(), "for_two: the banker's bid (0 before it)"),
    ("view_skipped_win", pa.int64(), "the kinds under the decider's Skipped Win (bit k: kind k)"),
    ("view_score", pa.float64(), "the decider's result in the match so far"),
    ("view_opp_score", pa.float64(), "the opponent's"),
)


def decision_schema(observations: bool = False) -> pa.Schema:
    """The Arrow schema of a run's decision log (:data:`DECISION_COLUMNS`, then with
    ``observations`` :data:`OBSERVATION_COLUMNS`)."""
    columns = DECISION_COLUMNS + (OBSERVATION_COLUMNS if observations else ())
    return pa.schema(
        [pa.field(name, type_, nullable=name == "tile", metadata={"doc": doc}) for name, type_, doc in columns]
    )


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
            nullable = name in ("winner_policy", "win_tile", "win_hand", "win_melds")
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


def pays_in_tai(rules) -> bool:
    return hasattr(rules.options, "base") and hasattr(rules.options, "tai_value")


#: Columns of :data:`COLUMNS` that runs written by an earlier version lack: a resumed run keeps
#: the columns of its shards (:func:`schema_for`), and readers take a run with or without them.
LATER_COLUMNS = ("winner_policy",)


#: Engine result columns that every rule set's dataset keeps beyond :data:`COLUMNS`.
SHARED_RESULT_COLUMNS = ("balance_0", "balance_1")


def extra_columns(res: dict, keep) -> list[str]:
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
    extras = [(key, pa.from_numpy_dtype(np.asarray(res[key]).dtype)) for key in extra_columns(res, keep)]
    item_dtype = np.asarray(res["items"]).dtype
    schema = dataset_schema(
        item_names(rules), item_type=pa.from_numpy_dtype(item_dtype), tai=pays_in_tai(rules), extras=extras
    )
    for name in LATER_COLUMNS if columns is not None else ():
        if name not in columns:
            schema = schema.remove(schema.get_field_index(name))
    return schema
