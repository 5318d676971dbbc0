"""What wins are worth and what they score: :func:`tai_distribution` (the value of a win per rule
set), :func:`item_frequencies` (every scoring item per hand and per win) and :func:`item_pairs`
(items scored together), with 95% Wilson intervals.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputValueError
from ..stats import wilson_interval
from .groups import _check_keys, _hands_per_group, _key_columns, _keys, _winner_keys
from .intervals import _wilson_columns
from .loading import _as_list, _data, _require, _rules_name

#: The value of a win per rule set (:func:`tai_distribution`'s default measures). ``total_tai`` is
#: ``hand_tai + dealer_tai``.
WIN_VALUES = {
    "douque": ("hand_tai", "total_tai"),
    "night_market": ("fan",),
    "duel": ("fan", "multiple"),
    "for_two": ("combination_points",),
}
_DERIVED = {"total_tai": ("hand_tai", "dealer_tai")}


def _measures(df, values):
    if values is not None:
        return _as_list(values, "values")
    name = _rules_name(df)
    if name in WIN_VALUES:
        return list(WIN_VALUES[name])
    raise InputValueError("cannot tell the rule set of the data (load it with simkit.analysis.load, or pass values=)")


def _measure(df, name):
    if name in _DERIVED:
        _require(df, *_DERIVED[name])
        a, b = _DERIVED[name]
        return df[a].to_numpy().astype(np.int64) + df[b].to_numpy()
    _require(df, name)
    return df[name].to_numpy()


def tai_distribution(df, by=None, values=None):
    """Counts and shares of the value of a win: per win, optionally per group.

    Parameters
    ----------
    df : DataFrame or path
        Rows of a run (:func:`load`), or a run directory.
    by : str or list of str, optional
        Grouping keys (a column, or a player key taken at the winner: ``player``, ``policy``,
        ``role``, ``seat_wind``).
    values : str or list of str, optional
        The measures (columns, or ``total_tai`` = hand + dealer tai). Default per rule set
        (:data:`WIN_VALUES`): douque ``hand_tai`` and ``total_tai``; night_market ``fan``; duel
        ``fan`` and ``multiple``; for_two ``combination_points``.

    Returns
    -------
    DataFrame with columns ``*by, measure, value, count, wins, share, share_low, share_high``: per
    group and measure, one row per value that occurs; ``wins`` = wins in the group,
    ``share = count / wins`` with its 95% Wilson interval.
    """
    import pandas as pd

    keys = _keys(by)

    def needed(rules, names):
        ms = _as_list(values, "values") if values is not None else list(WIN_VALUES.get(rules, ()))
        cols = ["winner", *_key_columns(keys)]
        for m in ms:
            cols.extend(_DERIVED.get(m, (m,)))
        return cols

    df = _data(df, needed)
    _require(df, "winner")
    _check_keys(df, keys)
    measures = _measures(df, values)
    won = df["winner"].to_numpy() >= 0
    kv = _winner_keys(df, keys, won)
    frames = []
    for m in measures:
        v = _measure(df, m)[won]
        frame = pd.DataFrame({**kv, "value": v})
        counts = frame.groupby([*keys, "value"], observed=True, sort=True).size().rename("count").reset_index()
        if keys:
            wins = frame.groupby(keys, observed=True, sort=True).size().rename("wins").reset_index()
            counts = counts.merge(wins, on=keys, how="left")
        else:
            counts["wins"] = int(won.sum())
        counts.insert(len(keys), "measure", m)
        frames.append(counts)
    out = pd.concat(frames, ignore_index=True)
    _wilson_columns(out, "count", "wins", "share")
    return out


def _item_columns(df):
    items = [c for c in df.columns if c.startswith("item_")]
    if not items:
        raise InputValueError("the data has no item_* columns (load them: columns=['item_*', ...])")
    return items


def item_frequencies(df, by=None):
    """How often each scoring item is scored, per hand and per win, with 95% Wilson intervals.

    Parameters
    ----------
    df : DataFrame or path
    by : str or list of str, optional
        Grouping keys; player keys describe the winner (see the module docstring for the per-hand
        denominators).

    Returns
    -------
    DataFrame with columns ``*by, item, hands, wins, count, per_hand, per_hand_low, per_hand_high,
    per_win, per_win_low, per_win_high, mean_value, value_per_hand``: ``count`` wins score the item
    (value not 0); ``per_hand = count / hands``, ``per_win = count / wins``; ``mean_value`` is the
    item's mean value (tai, fan, points) when scored and ``value_per_hand`` its contribution to the
    mean value per hand (``sum / hands``). Rows in group order, then by ``count`` (most frequent first).
    """
    import pandas as pd

    keys = _keys(by)
    df = _data(df, lambda rules, names: ["winner", *_key_columns(keys), *[n for n in names if n.startswith("item_")]])
    _require(df, "winner")
    _check_keys(df, keys)
    items = _item_columns(df)
    won = df["winner"].to_numpy() >= 0
    values = df[items].to_numpy()[won]
    frame = pd.DataFrame({**_winner_keys(df, keys, won)})
    scored = pd.DataFrame(values != 0, columns=items).astype(np.int64)
    total = pd.DataFrame(values.astype(np.float64), columns=items)
    if keys:
        hands = _hands_per_group(df, keys)  # every group a winner can be in
        g_count = pd.concat([frame, scored], axis=1).groupby(keys, observed=True, sort=True)[items].sum()
        g_sum = pd.concat([frame, total], axis=1).groupby(keys, observed=True, sort=True)[items].sum()
        wins = frame.groupby(keys, observed=True, sort=True).size().reindex(hands.index, fill_value=0)
        count = g_count.reindex(hands.index, fill_value=0).stack().rename("count")
        vsum = g_sum.reindex(hands.index, fill_value=0.0).stack().rename("value_sum")
        out = pd.concat([count, vsum], axis=1)
        out.index = out.index.set_names([*keys, "item"])
        out = out.reset_index()
        sizes = pd.concat([hands.rename("hands"), wins.rename("wins")], axis=1).reset_index()
        out = sizes.merge(out, on=keys, how="right")[[*keys, "item", "hands", "wins", "count", "value_sum"]]
    else:
        out = pd.DataFrame(
            {
                "item": items,
                "hands": len(df),
                "wins": int(won.sum()),
                "count": scored.sum().to_numpy(),
                "value_sum": total.sum().to_numpy(),
            }
        )
    out["item"] = out["item"].str.removeprefix("item_")
    out["count"] = out["count"].astype(np.int64)
    _wilson_columns(out, "count", "hands", "per_hand")
    _wilson_columns(out, "count", "wins", "per_win")
    with np.errstate(invalid="ignore", divide="ignore"):
        out["mean_value"] = out["value_sum"] / out["count"]
        out["value_per_hand"] = out["value_sum"] / out["hands"]
    out = out.drop(columns="value_sum")
    order = [*keys, "count", "item"]
    out = out.sort_values(order, ascending=[True] * len(keys) + [False, True], kind="stable").reset_index(drop=True)
    return out


def item_pairs(df, by=None, top=10):
    """The items most often scored together in one win.

    Returns
    -------
    DataFrame with columns ``*by, item_a, item_b, wins, count, share, share_low, share_high,
    lift``: per group, the ``top`` pairs by ``count`` (wins scoring both), ``share = count / wins``
    with its Wilson interval, and ``lift = share / (share of a x share of b)`` (1 when the two
    items are independent).
    """
    import pandas as pd

    keys = _keys(by)
    df = _data(df, lambda rules, names: ["winner", *_key_columns(keys), *[n for n in names if n.startswith("item_")]])
    _require(df, "winner")
    _check_keys(df, keys)
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise InputValueError(f"top must be a positive integer, got {top!r}")
    items = _item_columns(df)
    names = [c.removeprefix("item_") for c in items]
    won = df["winner"].to_numpy() >= 0
    scored = (df[items].to_numpy()[won] != 0).astype(np.int64)
    if keys:
        frame = pd.DataFrame(_winner_keys(df, keys, won))
        groups = frame.groupby(keys, observed=True, sort=True).indices
    else:
        groups = {(): np.arange(len(scored))}
    rows = []
    iu = np.triu_indices(len(items), 1)
    for gkey, idx in groups.items():
        b = scored[idx]
        co = b.T @ b
        single = np.diag(co)
        pair = co[iu]
        order = np.lexsort((np.arange(len(pair)), -pair))[:top]
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        n = len(idx)
        for j in order:
            if pair[j] == 0:
                break
            a, c = iu[0][j], iu[1][j]
            lo, hi = wilson_interval(int(pair[j]), n)
            lift = pair[j] * n / (single[a] * single[c])
            rows.append((*gkey, names[a], names[c], n, int(pair[j]), pair[j] / n, lo, hi, float(lift)))
    return pd.DataFrame(
        rows, columns=[*keys, "item_a", "item_b", "wins", "count", "share", "share_low", "share_high", "lift"]
    )
