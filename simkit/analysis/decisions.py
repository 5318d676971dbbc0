"""A run's decision log as numpy arrays for learning: :func:`decision_arrays` gives every logged
decision's observation (the environments' encoding of the decider's view), legal mask, action and
the log's other columns in one call, from a run written with ``decisions="observations"``."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import datasets
from ..engine.actions import N_ACTIONS, PHASE_NAMES
from ..engine.observation import OBSERVATION_SIZE, encode_logged_kernel
from ..engine.table import DECISION_FIELDS, N_COUNTERS
from ..errors import InputValueError, show
from ..hand.tables import hand_tables
from ..tiles import TILE_NAMES

__all__ = ["decision_arrays", "DECISION_ARRAY_COLUMNS"]

#: The log's columns :func:`decision_arrays` returns beside ``observation``, ``legal`` and ``policy``
#: (codes: ``phase`` as ``simkit.engine.actions.PHASE_*``, ``tile`` as a kind or -1, ``action`` as
#: the action code).
DECISION_ARRAY_COLUMNS = (
    ("deal_id", "copy", "seed", "match", "hand", "step")
    + DECISION_FIELDS
    + tuple(f"counter_{i}" for i in range(N_COUNTERS))
)

#: Observed facts the decoder reads, as (column, dtype of its numbers)
_NUMBERS = (
    ("view_n_river", np.int8),
    ("view_opp_n_river", np.int8),
    ("view_tiles_left", np.int16),
    ("view_seat_wind", np.int8),
    ("view_prevailing_wind", np.int8),
    ("view_dealer", np.int8),
    ("view_streak", np.int16),
    ("view_declared", np.int8),
    ("view_opp_declared", np.int8),
    ("view_bid", np.int8),
    ("view_score", np.float64),
    ("view_opp_score", np.float64),
    ("view_skipped_win", np.int64),
    ("view_declared_at", np.int8),
    ("view_opp_declared_at", np.int8),
)


def decision_arrays(path, *, player=None, policy=None) -> dict:
    """Every logged decision of a run written with ``decisions="observations"`` (``simkit simulate
    --decisions observations``) as numpy arrays, in the order played: what behaviour cloning or any
    learning from the run's decisions needs, in one call.

    Parameters
    ----------
    path : str or Path
        The run directory (every decision shard read is verified against the manifest).
    player : 0 or 1, optional
        Only the decisions of this player.
    policy : str, optional
        Only the decisions of the player with this policy label (in a ``--duplicate`` run the label
        follows the policy across the seats; the labels are the run's, ``df.attrs["policies"]`` of
        :func:`simkit.analysis.load`).

    Returns
    -------
    dict
        numpy arrays of ``n`` rows, the decisions kept. ``observation``: float32[n,
        OBSERVATION_SIZE], the decider's observation, equal bit for bit to
        :func:`simkit.envs.encode_view` of the view their policy was given (the environments'
        encoding, :data:`simkit.engine.observation.OBSERVATION_LAYOUT`). ``legal``: bool[n,
        N_ACTIONS], the legal actions (the mask their policy was given). ``action``: int16[n], the
        action taken (its code). ``policy``: str[n], the decider's policy label. And the decision
        log's other columns (:data:`DECISION_ARRAY_COLUMNS`, as
        :data:`simkit.datasets.DECISION_COLUMNS` describes them): ``deal_id``, ``copy``, ``seed``,
        ``match``, ``hand``, ``step``, ``player``, ``phase`` (code), ``tile`` (kind, -1 for none),
        ``n_legal``, ``shanten_before``, ``shanten_after``, ``counter_0`` .. ``counter_3``.

    Raises
    ------
    simkit.datasets.DatasetError
        Not a run, a damaged one (:func:`simkit.datasets.open_run`), or a run whose decision log has
        no observations (written without ``--decisions`` or with the plain ``--decisions``).
    SimkitError
        A ``player`` other than 0 or 1, a ``policy`` the run does not have.
    """
    run = datasets.open_run(path, verify=False)  # a decision shard is verified (SHA-256) when read below
    setting = run.spec.get("decisions", False)
    if setting != "observations":
        how = "without decision logging" if not setting else "with the plain decision log (--decisions)"
        raise datasets.DatasetError(
            f"{run.path} has no observations in its decision log: it was written {how}; rerun it with "
            "--decisions observations (simulate(..., decisions='observations'))"
        )
    labels = check_filters(run, player, policy)
    if not run.shards:
        raise datasets.DatasetError(f"{run.path} has no complete shards yet")
    tables = hand_tables(run.rules)  # the hand features' shanten is the run's rule set's
    parts = [
        _shard_arrays(run.read_decision_shard(p), labels, player, policy, tables, run.path) for p in run.decision_shards
    ]
    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


def check_filters(run, player, policy) -> list:
    """Check :func:`decision_arrays`' ``player`` and ``policy`` filters against ``run`` (an open
    run); returns the run's policy labels."""
    if player is not None and (isinstance(player, (bool, np.bool_)) or player not in (0, 1)):
        raise InputValueError(f"player must be 0 or 1, got {show(player)}")
    labels = [p["label"] for p in run.spec["policies"]]
    if policy is not None and policy not in labels:
        raise InputValueError(f"the run has no policy {show(policy)} (its policies: {', '.join(labels)})")
    return labels


def _shard_arrays(table: pa.Table, labels, player, policy, tables, where) -> dict:
    """:func:`decision_arrays` of one decision shard (whole hands, in order)."""
    n = table.num_rows
    col = {name: _numbers(table, name) for name in ("deal_id", "copy", "player", "action_code")}
    phase = _codes(table, "phase", PHASE_NAMES)
    tile = _codes(table, "tile", TILE_NAMES)
    decider = np.where(col["copy"] == 0, col["player"], 1 - col["player"])  # the decider's policy's index
    names = np.asarray(labels, dtype=object)[decider]
    keep = np.ones(n, np.bool_)
    if player is not None:
        keep &= col["player"] == player
    if policy is not None:
        keep &= names == policy
    rows = np.full(n, -1, np.int64)
    rows[keep] = np.arange(int(keep.sum()))
    out = np.zeros((int(keep.sum()), OBSERVATION_SIZE), np.float32)
    facts = {name: _numbers(table, name).astype(dtype, copy=False) for name, dtype in _NUMBERS}
    bad = encode_logged_kernel(
        col["deal_id"] * 2 + col["copy"],
        col["player"].astype(np.int64),
        phase,
        tile,
        col["action_code"].astype(np.int64),
        _bytes(table, "view_hand", 34),
        _bytes(table, "view_melds", 8).view(np.int8).reshape(n, 4, 2),
        _bytes(table, "view_opp_melds", 8).view(np.int8).reshape(n, 4, 2),
        facts["view_n_river"],
        facts["view_opp_n_river"],
        facts["view_tiles_left"],
        facts["view_seat_wind"],
        facts["view_prevailing_wind"],
        facts["view_dealer"],
        facts["view_streak"],
        facts["view_declared"],
        facts["view_opp_declared"],
        facts["view_bid"],
        facts["view_score"],
        facts["view_opp_score"],
        facts["view_skipped_win"],
        facts["view_declared_at"],
        facts["view_opp_declared_at"],
        tables,
        rows,
        out,
    )
    if bad >= 0:
        deal = int(col["deal_id"][bad])
        raise datasets.DatasetError(
            f"{where}: the decision log of match {deal >> 16}, hand {deal & 0xFFFF} does not follow its discards "
            "(its rows are not whole or not in order)"
        )
    legal = np.unpackbits(_bytes(table, "legal", 19)[keep], axis=1, count=N_ACTIONS, bitorder="little").view(np.bool_)
    arrays = {"observation": out, "legal": legal, "action": col["action_code"][keep].astype(np.int16)}
    arrays["policy"] = names[keep].astype(str)
    for name in DECISION_ARRAY_COLUMNS:
        if name == "phase":
            value = phase.astype(np.int8)
        elif name == "tile":
            value = tile.astype(np.int8)
        elif name == "action":
            continue
        else:
            value = col[name] if name in col else _numbers(table, name)
        arrays[name] = value[keep]
    return arrays


def _numbers(table: pa.Table, name: str) -> np.ndarray:
    """A column without nulls as a numpy array."""
    return table.column(name).combine_chunks().to_numpy(zero_copy_only=False)


def _bytes(table: pa.Table, name: str, width: int) -> np.ndarray:
    """A fixed-size binary column as uint8[n, width] (no copy)."""
    array = table.column(name).combine_chunks()
    data = np.frombuffer(array.buffers()[1], np.uint8)
    return data[array.offset * width : (array.offset + len(array)) * width].reshape(len(array), width)


def _codes(table: pa.Table, name: str, categories) -> np.ndarray:
    """A dictionary column of ``categories``' names as their indices (int64; -1 for null)."""
    parts = []
    for array in table.column(name).chunks:  # each chunk with its own dictionary
        lookup = np.array([categories.index(v) for v in array.dictionary.to_pylist()] + [-1], np.int64)
        parts.append(lookup[array.indices.fill_null(len(lookup) - 1).to_numpy(zero_copy_only=False)])
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)
