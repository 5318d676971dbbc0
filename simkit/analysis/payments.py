"""Payments and results: :func:`expected_payment`, the mean payment or a player's mean result per
hand and per match, with 95% intervals clustered by match.
"""

from __future__ import annotations

import numpy as np

from ..errors import SimkitError
from .groups import PLAYER_KEYS, _check_keys, _key_columns, _keys, _player_key
from .intervals import _clusters, clustered_mean
from .loading import _data, _player_result, _require

#: Values of :func:`expected_payment` that are a player's, not the hand's.
_PLAYER_VALUES = ("result", "won")


def expected_payment(df, by=None, value=None):
    """Mean payment (or a player's mean result) per hand and per match, with intervals clustered by match.

    Parameters
    ----------
    df : DataFrame or path
    by : str or list of str, optional
        Grouping keys. With a player key (``player``, ``policy``, ``role``, ``seat_wind``) every hand
        counts once for each player, in that player's group.
    value : str, optional
        What is averaged: a numeric column of the hand (default ``points``: the payment of the hand,
        0 on a draw; e.g. ``payment_tai``), or, with a player key, ``result`` (default: the player's
        ``score`` minus their ``fee``, + won, - paid) or ``won`` (1 when the player won the hand).

    Returns
    -------
    DataFrame with columns ``*by, value, hands, matches, mean, low, high, per_match,
    per_match_low, per_match_high``: ``hands`` rows (player-hands with a player key) in the group and
    their ``mean`` with a 95% interval clustered by match (both copies of a ``--duplicate`` match form
    one cluster); ``per_match`` = the group's total per match (``matches`` = matches in the data,
    each copy counted), with its interval clustered the same way.
    """
    import pandas as pd

    keys = _keys(by)
    player_level = any(k in PLAYER_KEYS for k in keys)
    if value is None:
        value = "result" if player_level else "points"
    if not isinstance(value, str):
        raise SimkitError(f"value must be a column name, 'result' or 'won'; got {value!r}")
    if value in _PLAYER_VALUES and not player_level:
        raise SimkitError(
            f"value={value!r} is a player's: group by a player key ({', '.join(PLAYER_KEYS)}), e.g. by='player'"
        )

    def needed(rules, names):
        cols = ["match", "copy", "seed", *_key_columns(keys)]
        if value == "result":
            cols += ["score_0", "score_1", "fee_0", "fee_1"]
        elif value == "won":
            cols += ["winner"]
        else:
            cols.append(value)
        return cols

    df = _data(df, needed)
    _require(df, "match")
    _check_keys(df, keys)
    if value == "result":
        _require(df, "score_0", "score_1")
    elif value == "won":
        _require(df, "winner")
    else:
        _require(df, value)
        if not pd.api.types.is_numeric_dtype(df[value].dtype) or pd.api.types.is_bool_dtype(df[value].dtype):
            raise SimkitError(f"value {value!r} is not a numeric column")
    cluster, game = _clusters(df)
    if player_level:
        parts = []
        for p in (0, 1):
            cols = {k: (_player_key(df, k, p) if k in PLAYER_KEYS else df[k].array) for k in keys}
            if value == "result":
                v = _player_result(df, p)
            elif value == "won":
                v = (df["winner"].to_numpy() == p).astype(np.float64)
            else:
                v = df[value].to_numpy().astype(np.float64)
            parts.append(pd.DataFrame({**cols, "_v": v, "_c": cluster}))
        frame = pd.concat(parts, ignore_index=True)
    else:
        cols = {k: df[k].array for k in keys}
        frame = pd.DataFrame({**cols, "_v": df[value].to_numpy().astype(np.float64), "_c": cluster})
    # games per cluster (1, or 2 with --duplicate), over every cluster of the data
    clusters = np.unique(cluster)
    games = pd.Series(game).groupby(cluster).nunique().reindex(clusters).to_numpy()
    n_games = int(games.sum())
    agg = frame.groupby([*keys, "_c"], observed=True, sort=True)["_v"].agg(["sum", "size"]).reset_index()
    groups = agg.groupby(keys, observed=True, sort=True) if keys else [((), agg)]
    rows = []
    for gkey, part in groups:
        sums = part["sum"].to_numpy()
        sizes = part["size"].to_numpy()
        mean, lo, hi = clustered_mean(sums, sizes)
        full = pd.Series(sums, index=part["_c"].to_numpy()).reindex(clusters, fill_value=0.0).to_numpy()
        pm, pm_lo, pm_hi = clustered_mean(full, games)
        rows.append((*gkey, value, int(sizes.sum()), n_games, mean, lo, hi, pm, pm_lo, pm_hi))
    columns = [*keys, "value", "hands", "matches", "mean", "low", "high", "per_match", "per_match_low", "per_match_high"]
    return pd.DataFrame(rows, columns=columns)
