"""Payments and results: :func:`expected_payment` (the mean payment or a player's mean result per
hand and per match) and :func:`deal_value` (the value of the dealer's tenure from a streak until the
deal passes), with 95% intervals clustered by match.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputValueError
from .groups import PLAYER_KEYS, _check_keys, _key_columns, _keys, _pick, _player_key
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
        counts once for each player, in that player's group, with that player's value.
    value : str, optional
        What is averaged: without a player key, a numeric column of the hand (default ``points``:
        the payment of the hand, 0 on a draw; e.g. ``payment_tai``); with a player key, ``result``
        (default: the player's ``score`` minus their ``fee``, + won, - paid) or ``won`` (1 when the
        player won the hand). A column of the hand is the same for both players, so a player key
        cannot split it: that combination is refused (:class:`~simkit.errors.InputValueError`).

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
        raise InputValueError(f"value must be a column name, 'result' or 'won'; got {value!r}")
    if value in _PLAYER_VALUES and not player_level:
        raise InputValueError(
            f"value={value!r} is a player's: group by a player key ({', '.join(PLAYER_KEYS)}), e.g. by='player'"
        )
    if player_level and value not in _PLAYER_VALUES:
        # a hand's value is the same for both players: every hand would count once in each player's
        # group (identical rows by role, player or seat wind; twice in one group under self-play)
        raise InputValueError(
            f"value={value!r} is the hand's, the same for both players, so a player key "
            f"({', '.join(k for k in keys if k in PLAYER_KEYS)}) cannot split it: use value='result' (each "
            "player's points received minus paid, less their fee) or 'won', or group by columns of the hand"
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
            raise InputValueError(f"value {value!r} is not a numeric column")
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
    columns = [
        *keys,
        "value",
        "hands",
        "matches",
        "mean",
        "low",
        "high",
        "per_match",
        "per_match_low",
        "per_match_high",
    ]
    return pd.DataFrame(rows, columns=columns)


def deal_value(df, by=None):
    """The value of the deal: the dealer's summed result over the rest of the tenure, by streak.

    A *tenure* is a run of consecutive hands of one game (match and copy) dealt by the same player;
    it ends when the deal passes to the other player or the match ends. Every hand dealt with streak
    ``s`` starts the rest of a tenure at ``s``; its value is the sum of the dealer's results (their
    ``score`` minus their ``fee``) over that hand and the later hands of the same tenure. The mean
    over those starts is what holding the deal at streak ``s`` is worth to the dealer, the future
    streaks' dealer tai, wins and losses included -- what :func:`expected_payment` by streak (one
    hand each) leaves out.

    Parameters
    ----------
    df : DataFrame or path
        Every hand of each match from its first hand read on (load whole matches: a gap in a
        match's hand numbers is refused).
    by : str or list of str, optional
        Further grouping keys besides ``streak``: a column of the data (``run``, ``copy``, ...) or
        a player key taken at the dealer (``player``: the dealer's seat, ``policy``, ``seat_wind``).

    Returns
    -------
    DataFrame with columns ``*by, streak, tenures, matches, hands_left, mean, low, high``, one row
    per group and streak: ``tenures`` hands dealt with that streak (each starts the rest of a
    tenure), ``matches`` the matches they come from, ``hands_left`` the mean number of hands left in
    the tenure (this one included), and ``mean`` the dealer's mean summed result over them with a
    95% interval clustered by match (both copies of a ``--duplicate`` match form one cluster;
    ``nan`` bounds with fewer than two matches).

    Raises
    ------
    SimkitError
        ``by`` names ``role`` (always the dealer here) or an unknown key; a column is missing; a
        match's hands are not consecutive.
    """
    import pandas as pd

    keys = [k for k in _keys(by) if k != "streak"]
    if "role" in keys:
        raise InputValueError(
            "deal_value is the dealer's: by='role' has one value (dealer); group by policy, player or seat_wind"
        )

    def needed(rules, names):
        return [
            "run",
            "seed",
            "match",
            "copy",
            "hand",
            "dealer",
            "streak",
            "score_0",
            "score_1",
            "fee_0",
            "fee_1",
            *(c for c in _key_columns(keys) if c != "winner"),
        ]

    df = _data(df, needed)
    _require(df, "match", "hand", "dealer", "streak", "score_0", "score_1")
    _check_keys(df, keys)
    n = len(df)
    game_cols = [c for c in ("run", "seed", "match", "copy") if c in df.columns]
    game = np.zeros(n, np.int64)
    if n:
        game_frame = pd.DataFrame(
            {c: df[c].to_numpy() if c != "run" else df[c].astype(str).to_numpy() for c in game_cols}
        )
        game = game_frame.groupby(game_cols, sort=True).ngroup().to_numpy().astype(np.int64)
    hand = df["hand"].to_numpy().astype(np.int64)
    order = np.lexsort((hand, game))
    game, hand = game[order], hand[order]
    dealer = df["dealer"].to_numpy()[order]
    new_game = np.r_[True, game[1:] != game[:-1]] if n else np.zeros(0, bool)
    gap = ~new_game & (hand != np.r_[0, hand[:-1]] + 1)
    if gap.any():
        i = int(np.flatnonzero(gap)[0])
        where = ", ".join(f"{c} {df[c].to_numpy()[order][i]}" for c in game_cols)
        raise InputValueError(
            f"deal_value needs every hand of a match: {where} jumps from hand {hand[i - 1]} to hand {hand[i]} "
            "(load whole matches)"
        )
    result = np.where(dealer == 0, _player_result(df, 0)[order], _player_result(df, 1)[order])
    # tenures: a new game or another dealer starts one; the rest of a tenure from row i is the
    # tenure's running total at its last row minus the running total before row i
    tenure = np.cumsum(new_game | np.r_[True, dealer[1:] != dealer[:-1]]) - 1 if n else np.zeros(0, np.int64)
    last = np.r_[np.flatnonzero(tenure[1:] != tenure[:-1]), n - 1] if n else np.zeros(0, np.int64)
    running = np.cumsum(result)
    before = running - result
    rest = running[last[tenure]] - before
    hands_left = (last[tenure] - np.arange(n) + 1).astype(np.float64)
    cluster = _clusters(df)[0][order]
    cols = {}
    for k in keys:
        if k in PLAYER_KEYS:
            v0, v1 = _player_key(df, k, 0), _player_key(df, k, 1)
            cols[k] = _pick(v0, v1, df["dealer"].to_numpy() == 0)[order]
        else:
            cols[k] = df[k].array[order]
    frame = pd.DataFrame(
        {**cols, "streak": df["streak"].to_numpy()[order], "_v": rest, "_h": hands_left, "_c": cluster}
    )
    group = [*keys, "streak"]
    agg = (
        frame.groupby([*group, "_c"], observed=True, sort=True)
        .agg(s=("_v", "sum"), h=("_h", "sum"), n=("_v", "size"))
        .reset_index()
    )
    rows = []
    for gkey, part in agg.groupby(group, observed=True, sort=True):
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        count = part["n"].to_numpy()
        mean, lo, hi = clustered_mean(part["s"].to_numpy(), count)
        rows.append((*gkey, int(count.sum()), len(part), float(part["h"].sum() / count.sum()), mean, lo, hi))
    return pd.DataFrame(rows, columns=[*group, "tenures", "matches", "hands_left", "mean", "low", "high"])
