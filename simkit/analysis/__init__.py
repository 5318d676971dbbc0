"""Analysis of simulation runs: load a dataset, and the numbers and plots of a study with 95% intervals.

* :func:`load`: a run directory (:mod:`simkit.io`) as a pandas DataFrame, only the columns and rows
  asked for, with the run's description in ``df.attrs``.
* :func:`tai_distribution`: counts and shares of the value of a win (hand tai and total tai for
  douque; fan, multiple or combination points for the other rule sets).
* :func:`item_frequencies`, :func:`item_pairs`: how often each scoring item is scored, per hand and
  per win, and which items come together.
* :func:`expected_payment`: mean payment, or a player's mean result, per hand and per match.
* :func:`compare`: the paired difference between the two policies of a ``--duplicate`` run, or
  between two runs on the same deals (same seed and wall design).
* ``plot_*``: matplotlib figures of the above (matplotlib is imported only by them).
* :func:`summarize`: what ``simkit summarize`` prints (streams over the shards).

Every function takes a DataFrame from :func:`load` (or a run directory, which it loads with only the
columns it needs) and returns a tidy DataFrame: one row per group and value, plain columns.

Grouping (``by``): a column name of the data (``win_type``, ``streak``, ``prevailing_wind``,
``copy``, ...), or one of the *player keys* :data:`PLAYER_KEYS`:

* ``player``: player 0 or 1; ``policy``: the player's policy label; ``role``: ``dealer`` or
  ``non-dealer``; ``seat_wind``: the player's seat wind (E or W).

In the per-win statistics a player key describes the winner. Per hand, the rate of a group counts
the hands in which a player of that group sits (a hand with both players in the group counts once).

Intervals are 95%: Wilson intervals (:func:`simkit.stats.wilson_interval`) for shares and rates of
independent wins or hands; for means per hand, a ratio estimator with standard errors clustered by
match (:func:`clustered_mean`): hands of one match are correlated through the dealer streak and the
score, and with ``--duplicate`` both copies of a match form one cluster. Rates per hand with a Wilson
interval treat hands as independent, which the scoring items nearly are; use
:func:`expected_payment` with ``value="won"`` for a clustered win rate.
"""

from __future__ import annotations

import fnmatch
import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import SimkitError
from ..stats import wilson_interval

__all__ = [
    "load",
    "load_many",
    "players",
    "tai_distribution",
    "item_frequencies",
    "item_pairs",
    "expected_payment",
    "compare",
    "Comparison",
    "plot_tai_distribution",
    "plot_item_frequencies",
    "plot_expected_payment",
    "plot_comparison",
    "summarize",
    "Summary",
    "clustered_mean",
    "PLAYER_KEYS",
    "WIN_VALUES",
]

_Z95 = 1.959963984540054

#: Grouping keys that describe a player rather than a hand (see the module docstring).
PLAYER_KEYS = ("player", "policy", "role", "seat_wind")
#: The value of a win per rule set (:func:`tai_distribution`'s default measures). ``total_tai`` is
#: ``hand_tai + dealer_tai``.
WIN_VALUES = {
    "douque": ("hand_tai", "total_tai"),
    "night_market": ("fan",),
    "duel": ("fan", "multiple"),
    "for_two": ("combination_points",),
}
_DERIVED = {"total_tai": ("hand_tai", "dealer_tai")}
#: Values of :func:`expected_payment` that are a player's, not the hand's.
_PLAYER_VALUES = ("result", "won")


def clustered_mean(sums, counts) -> tuple[float, float, float]:
    """Mean per row and its 95% interval, from per-cluster sums and row counts.

    ``mean = sum(sums) / sum(counts)``; the standard error is the cluster-robust (CR1) one of the
    ratio estimator: ``sqrt(G / (G - 1) * sum((s_g - mean * n_g)^2)) / N``.

    Returns
    -------
    (mean, low, high); the interval is ``(nan, nan)`` with fewer than two clusters.
    """
    sums = np.asarray(sums, np.float64)
    counts = np.asarray(counts, np.float64)
    n = counts.sum()
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    mean = sums.sum() / n
    g = len(sums)
    if g < 2:
        return float(mean), float("nan"), float("nan")
    resid = sums - mean * counts
    se = math.sqrt(g / (g - 1) * float(np.dot(resid, resid))) / n
    return float(mean), float(mean - _Z95 * se), float(mean + _Z95 * se)


# ---------------------------------------------------------------------------------------------
# loading


def _as_list(value, what) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        out = list(value)
    except TypeError:
        raise SimkitError(f"{what} must be a column name or a list of them, got {value!r}") from None
    if not all(isinstance(v, str) for v in out):
        raise SimkitError(f"{what} must be a column name or a list of them, got {value!r}")
    return out


def _unknown(names, available, what="column") -> SimkitError:
    names = sorted(set(names))
    s = "s" if len(names) > 1 else ""
    return SimkitError(
        f"unknown {what}{s} {', '.join(repr(n) for n in names)}; the dataset has: {', '.join(available)}"
    )


def _filter_columns(filters) -> list[str]:
    """Column names used by DNF filters (``[(col, op, value), ...]`` or a list of such lists)."""
    if not isinstance(filters, (list, tuple)):
        raise SimkitError(
            "filters must be a list of (column, op, value) tuples, a list of such lists (OR of ANDs), "
            f"or a pyarrow.compute.Expression; got {type(filters).__name__}"
        )
    groups = filters if filters and all(isinstance(f, (list, tuple)) and f and isinstance(f[0], (list, tuple)) for f in filters) else [filters]
    cols = []
    for group in groups:
        for term in group:
            if not (isinstance(term, (list, tuple)) and len(term) == 3 and isinstance(term[0], str)):
                raise SimkitError(f"bad filter {term!r}: expected a (column, op, value) tuple")
            cols.append(term[0])
    return cols


def load(path, columns=None, filters=None, table="hands"):
    """A simkit run as a pandas DataFrame: only the columns and rows asked for.

    Parameters
    ----------
    path : str or Path
        A run directory written by :func:`simkit.simulate` (checked through its manifest).
    columns : str or list of str, optional
        Columns to read (default all). Shell patterns select several: ``"item_*"``.
    filters : list or pyarrow.compute.Expression, optional
        Rows to read, as pyarrow's DNF filters: ``[("match", "<", 100), ("winner", ">=", 0)]`` (AND),
        a list of such lists (OR of ANDs), or an expression (``pyarrow.compute.field("hand_tai") > 8``).
        Applied while reading each shard; filter columns need not be among ``columns``.
    table : str
        ``"hands"`` (default): one row per hand. ``"decisions"``: the run's decision log, one row
        per decision taken in the order played (:data:`simkit.io.DECISION_COLUMNS`; a run written
        with ``--decisions``); ``deal_id`` and ``copy`` join a decision to its hand's row.

    Returns
    -------
    pandas.DataFrame
        One row per hand in row order (match, copy, hand) (with ``table="decisions"``: one row per
        decision, in (match, copy, hand, step) order; ``phase``, ``tile`` and ``action`` are categoricals). Dictionary-encoded columns (policies,
        winds, ``win_type``, ``win_tile``, declarations) are categoricals. ``df.attrs`` holds the
        run's description: ``path``, ``rules`` (rule set name), ``options``, ``items`` (scoring item
        names), ``policies`` (labels of player 0 and 1 in copy 0), ``seed``, ``duplicate``,
        ``deal`` and ``wall`` (the wall design), ``complete``, ``legacy`` (a manifest without a shard
        list, checked through the shards' footers: :func:`simkit.io.check_shards`) and the whole
        ``manifest``.

    Raises
    ------
    simkit.io.DatasetError
        ``path`` is not a simkit dataset, has no complete shard yet, or a shard is missing, extra,
        foreign, resized or corrupt (:func:`simkit.io.open_run`; every shard read is verified);
        ``table="decisions"`` of a run written without ``--decisions``.
    SimkitError
        An unknown column (in ``columns`` or ``filters``), a malformed filter, or an unknown ``table``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from .. import io

    if table not in ("hands", "decisions"):
        raise SimkitError(f"table must be 'hands' or 'decisions', got {table!r}")
    decisions = table == "decisions"
    run = io.open_run(path, verify=not decisions)  # a shard is verified (SHA-256) when read below
    if decisions and not run.decisions:
        raise io.DatasetError(
            f"{run.path} has no decisions table: it was written without decision logging; rerun it with --decisions "
            "(simkit simulate ... --decisions, or simulate(..., decisions=True))"
        )
    if not run.shards:
        raise io.DatasetError(f"{run.path} has no complete shards yet")
    names = run.decision_schema.names if decisions else run.schema.names
    shards = run.decision_shards if decisions else run.shards
    read = run.read_decision_shard if decisions else run.read_shard
    wanted = None
    if columns is not None:
        wanted = []
        for pattern in _as_list(columns, "columns"):
            hits = [n for n in names if fnmatch.fnmatchcase(n, pattern)] if any(c in pattern for c in "*?[") else (
                [pattern] if pattern in names else []
            )
            if not hits:
                raise _unknown([pattern], names)
            wanted.extend(h for h in hits if h not in wanted)
    if filters is not None and not isinstance(filters, pc.Expression):
        missing = [c for c in _filter_columns(filters) if c not in names]
        if missing:
            raise _unknown(missing, names, "filter column")
        if not filters:
            filters = None
    tables = []
    for shard in shards:
        try:
            tables.append(read(shard, columns=wanted, filters=filters))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
            raise SimkitError(f"cannot apply filters {filters!r} to {run.path}: {exc}".splitlines()[0]) from None
    df = pa.concat_tables(tables, promote_options="permissive").to_pandas()
    spec = run.spec
    labels = [p["label"] for p in spec["policies"]]
    for col in ("policy_0", "policy_1"):
        if col in df.columns:  # the same categories in every load of this run, whatever the rows
            df[col] = df[col].cat.set_categories(sorted(set(labels)))
    if not run.complete:
        warnings.warn(
            f"{run.path} is not complete (status {run.manifest.get('status')!r}): {len(run.shards)} shards so far; "
            "finish it with simkit simulate --out DIR --resume",
            stacklevel=2,
        )
    df.attrs.update(
        path=str(run.path),
        rules=spec["rules"]["name"],
        options=dict(spec["rules"]["options"]),
        items=list(spec["items"]),
        policies=labels,
        seed=spec["seed"],
        duplicate=bool(spec["duplicate"]),
        **run.wall_settings,
        complete=run.complete,
        legacy=run.legacy,
        manifest=run.manifest,
        table=table,
    )
    return df


def load_many(runs, columns=None, filters=None):
    """Several runs as one DataFrame with a ``run`` column (their labels, a categorical in the
    order given): ``runs`` is ``{label: path}`` (or a list of paths, labelled by directory name).

    The runs must share a rule set (their options may differ: a sweep); mixing rule sets is refused,
    since every analysis of the frame reads one rule set's items and payments. ``df.attrs`` keeps
    the common ``rules`` and, under ``runs``, each run's own attributes (options, policies, seed,
    wall design, path) from :func:`load`.
    """
    import pandas as pd

    from pathlib import Path

    if isinstance(runs, dict):
        items = list(runs.items())
    elif isinstance(runs, (list, tuple)):
        items = [(Path(p).name, p) for p in runs]
    else:
        raise SimkitError(f"runs is a dict {{label: path}} or a list of paths, got {type(runs).__name__}")
    if not items:
        raise SimkitError("runs is empty")
    labels = [str(label) for label, _ in items]
    if len(set(labels)) != len(labels):
        raise SimkitError(f"two runs have the same label: {labels}")
    frames, attrs = [], {}
    for label, path in items:
        df = load(path, columns=columns, filters=filters)
        frames.append(df)
        attrs[str(label)] = {k: v for k, v in df.attrs.items() if k != "manifest"}
    rule_sets = {a["rules"] for a in attrs.values()}
    if len(rule_sets) > 1:
        shown = ", ".join(f"{label}: {a['rules']}" for label, a in attrs.items())
        raise SimkitError(f"the runs are of different rule sets ({shown}); load_many combines runs of one rule set")
    for f, label in zip(frames, labels):
        f.insert(0, "run", label)
    out = pd.concat(frames, ignore_index=True)
    out["run"] = pd.Categorical(out["run"], categories=labels)
    for col in ("policy_0", "policy_1"):
        if col in out.columns and not isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].astype("category")
    out.attrs.update(rules=rule_sets.pop(), runs=attrs, items=attrs[labels[0]].get("items", []))
    return out


def players(df):
    """The hands in long form: one row per hand and player, with what that player did -- the
    view in which "the winner's policy", "the dealer's result" or "how often policy X deals in"
    are one ``groupby`` away.

    Columns: the hand's identity (``run`` when present, ``seed``, ``match``, ``copy``, ``hand``,
    ``deal_id`` when loaded), ``player`` (0 / 1), ``policy`` and ``opponent_policy`` (labels),
    ``role`` (``dealer`` / ``non-dealer``), ``won``, ``self_drawn``, ``dealt_in`` (paid the
    opponent's win on a discard or a robbed kong), ``draw`` (no winner), and ``result`` (the
    player's score minus fee: what a player made in the hand). ``df.attrs`` is kept.
    """
    import pandas as pd

    _require(df, "winner", "payer", "win_type", "dealer", "policy_0", "policy_1", "score_0", "score_1")
    ident = [c for c in ("run", "seed", "match", "copy", "hand", "deal_id") if c in df.columns]
    winner = df["winner"].to_numpy()
    payer = df["payer"].to_numpy()
    win_type = np.asarray(df["win_type"].astype(str))
    parts = []
    for p in (0, 1):
        part = {c: df[c].array for c in ident}
        part["player"] = np.full(len(df), p, np.int8)
        part["policy"] = df[f"policy_{p}"].array
        part["opponent_policy"] = df[f"policy_{1 - p}"].array
        part["role"] = pd.Categorical.from_codes(np.where(df["dealer"].to_numpy() == p, 0, 1), ["dealer", "non-dealer"])
        part["won"] = winner == p
        part["self_drawn"] = (winner == p) & (win_type == "self_drawn")
        part["dealt_in"] = (payer == p) & (winner == 1 - p) & np.isin(win_type, ("discard", "robbed_kong"))
        part["draw"] = winner < 0
        part["result"] = _player_result(df, p)
        parts.append(pd.DataFrame(part))
    out = pd.concat(parts, ignore_index=True)
    order = [c for c in ("run", "seed", "match", "copy", "hand") if c in out.columns] + ["player"]
    out = out.sort_values(order, kind="stable").reset_index(drop=True)
    for col in ("policy", "opponent_policy"):
        if not isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].astype("category")
    out.attrs.update(df.attrs)
    return out


def _is_path(data) -> bool:
    return isinstance(data, (str, os.PathLike))


def _data(data, needed):
    """``data`` as a DataFrame: a DataFrame as it is, or a run directory loaded with only the columns
    ``needed(rules name, column names)`` returns."""
    import pandas as pd

    from .. import io

    if _is_path(data):
        run = io.open_run(data)
        if not run.shards:
            raise io.DatasetError(f"{run.path} has no complete shards yet")
        names = run.schema.names
        cols = [c for c in needed(run.spec["rules"]["name"], names) if c in names]
        return load(data, columns=cols)
    if not isinstance(data, pd.DataFrame):
        raise SimkitError(f"expected a DataFrame from simkit.analysis.load or a run directory, got {type(data).__name__}")
    return data


def _require(df, *names):
    missing = [n for n in names if n not in df.columns]
    if missing:
        loaded = df.attrs.get("manifest", {}).get("columns", ())
        hint = " (it is in the dataset: load it)" if all(m in loaded for m in missing) else ""
        s = "s" if len(missing) > 1 else ""
        raise SimkitError(f"the data has no column{s} {', '.join(repr(m) for m in missing)}{hint}")


def _rules_name(df):
    name = df.attrs.get("rules")
    if name:
        return name
    return "douque" if "payment_tai" in df.columns or "hand_tai" in df.columns and "fan" not in df.columns else None


# ---------------------------------------------------------------------------------------------
# grouping keys


def _keys(by) -> list[str]:
    keys = _as_list(by, "by")
    if len(set(keys)) != len(keys):
        raise SimkitError(f"by names a key twice: {keys}")
    return keys


def _key_columns(keys) -> list[str]:
    """Columns the keys are computed from."""
    cols = []
    for k in keys:
        if k == "player":
            cols += ["winner"]
        elif k == "policy":
            cols += ["policy_0", "policy_1"]
        elif k == "role":
            cols += ["dealer"]
        elif k == "seat_wind":
            cols += ["seat_wind_0", "seat_wind_1"]
        else:
            cols.append(k)
    return cols


def _check_keys(df, keys):
    bad = [k for k in keys if k not in PLAYER_KEYS and k not in df.columns]
    if bad:
        raise SimkitError(
            f"unknown grouping key{'s' if len(bad) > 1 else ''} {', '.join(repr(b) for b in bad)}: use a column of the "
            f"data or one of {', '.join(PLAYER_KEYS)}"
        )
    for k in keys:
        if k in PLAYER_KEYS:
            _require(df, *(c for c in _key_columns([k]) if c != "winner"))


def _player_key(df, key, player: int):
    """The value of a player key for player ``player`` in every row (numpy or pandas array)."""
    import pandas as pd

    n = len(df)
    if key == "player":
        return np.full(n, player, np.int8)
    if key == "policy":
        return df[f"policy_{player}"].array
    if key == "seat_wind":
        return df[f"seat_wind_{player}"].array
    if key == "role":
        dealer = df["dealer"].to_numpy() == player
        return pd.Categorical.from_codes(np.where(dealer, 0, 1), ["dealer", "non-dealer"])
    raise AssertionError(key)


def _pick(a0, a1, first):
    """Row-wise ``a0`` where ``first`` else ``a1``, keeping categoricals categorical."""
    import pandas as pd

    if isinstance(a0, pd.Categorical) or isinstance(getattr(a0, "dtype", None), pd.CategoricalDtype):
        c0, c1 = pd.Categorical(a0), pd.Categorical(a1)
        cats = c0.categories.union(c1.categories) if not c0.categories.equals(c1.categories) else c0.categories
        c0 = c0.set_categories(cats)
        c1 = c1.set_categories(cats)
        return pd.Categorical.from_codes(np.where(first, c0.codes, c1.codes), cats)
    return np.where(first, np.asarray(a0), np.asarray(a1))


def _winner_keys(df, keys, won):
    """Key columns of the won rows (``won`` bool[n]), player keys taken at the winner: dict name -> array."""
    first = df["winner"].to_numpy() == 0
    out = {}
    for k in keys:
        if k == "player":
            out[k] = df["winner"].to_numpy()[won].astype(np.int8)
        elif k in PLAYER_KEYS:
            out[k] = _pick(_player_key(df, k, 0), _player_key(df, k, 1), first)[won]
        else:
            out[k] = df[k].array[won]
    return out


def _hands_per_group(df, keys):
    """Hands in which a player of each group sits (each hand once): a Series indexed by the keys."""
    import pandas as pd

    n = len(df)
    if not keys:
        return None
    if not any(k in PLAYER_KEYS for k in keys):
        frame = pd.DataFrame({k: df[k].array for k in keys})
        return frame.groupby(keys, observed=True, sort=True).size()
    parts = []
    for p in (0, 1):
        cols = {"_row": np.arange(n)}
        for k in keys:
            cols[k] = _player_key(df, k, p) if k in PLAYER_KEYS else df[k].array
        parts.append(pd.DataFrame(cols))
    frame = pd.concat(parts, ignore_index=True).drop_duplicates()
    return frame.groupby(keys, observed=True, sort=True).size()


def _wilson_columns(out, count, total, prefix):
    lows, highs = [], []
    for k, n in zip(out[count].to_numpy(), out[total].to_numpy()):
        lo, hi = wilson_interval(int(k), int(n))
        lows.append(lo)
        highs.append(hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[prefix] = out[count].to_numpy() / out[total].to_numpy()
    out[f"{prefix}_low"] = lows
    out[f"{prefix}_high"] = highs


# ---------------------------------------------------------------------------------------------
# the value of a win


def _measures(df, values):
    if values is not None:
        return _as_list(values, "values")
    name = _rules_name(df)
    if name in WIN_VALUES:
        return list(WIN_VALUES[name])
    raise SimkitError("cannot tell the rule set of the data (load it with simkit.analysis.load, or pass values=)")


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


# ---------------------------------------------------------------------------------------------
# scoring items


def _item_columns(df):
    items = [c for c in df.columns if c.startswith("item_")]
    if not items:
        raise SimkitError("the data has no item_* columns (load them: columns=['item_*', ...])")
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
        out = pd.DataFrame({
            "item": items,
            "hands": len(df),
            "wins": int(won.sum()),
            "count": scored.sum().to_numpy(),
            "value_sum": total.sum().to_numpy(),
        })
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
        raise SimkitError(f"top must be a positive integer, got {top!r}")
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
    return pd.DataFrame(rows, columns=[*keys, "item_a", "item_b", "wins", "count", "share", "share_low", "share_high", "lift"])


# ---------------------------------------------------------------------------------------------
# payments


def _clusters(df):
    """Cluster (match) and game (match, copy) codes of every row: int64 arrays."""
    match = df["match"].to_numpy().astype(np.int64)
    if "seed" in df.columns and df["seed"].nunique() > 1:
        _, match = np.unique(np.stack([df["seed"].to_numpy(), match]), axis=1, return_inverse=True)
        match = match.reshape(-1).astype(np.int64)
    copy = df["copy"].to_numpy().astype(np.int64) if "copy" in df.columns else np.zeros(len(df), np.int64)
    return match, match * 2 + copy


def _player_result(df, p):
    r = df[f"score_{p}"].to_numpy().astype(np.float64)
    if f"fee_{p}" in df.columns:
        r = r - df[f"fee_{p}"].to_numpy()
    return r


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


# ---------------------------------------------------------------------------------------------
# paired comparison: the two policies of a duplicate run, or two runs on the same deals


@dataclass
class Comparison:
    """A paired comparison (:func:`compare`): ``a - b`` per hand and per match, paired and unpaired.

    Within a ``--duplicate`` run, ``a`` and ``b`` are its two policies and the value of a hand is
    ``a``'s result minus ``b``'s (a player's ``score`` minus their ``fee``; in a zero-sum game twice
    ``a``'s mean result against ``b``); copy 1 replays every match with the seats swapped. Across
    two runs on the same seed and wall design, ``a`` and ``b`` are the runs and the value of a hand
    is :attr:`value` in run ``a`` minus in run ``b``, rows paired by ``(match, copy, hand)``.

    Every interval is 95% and clustered by match: the hands of a match are correlated (dealer,
    streak, score), and what the pairing cancels leaves the interval only if the paired hands
    share a cluster. *Unpaired* is the interval the same estimate would have from independent
    runs (the copies of a duplicate run, or the two runs, as if their deals were unrelated). The
    variance reduction is ``unpaired variance / paired variance`` everywhere in simkit: above 1 the
    pairing helped (it equals how many times more matches independent runs would need).

    Attributes
    ----------
    a, b : str
        The policies (``a`` is player 0 in copy 0), or the runs' descriptions.
    value : str
        What is compared: ``"result"`` (within a duplicate run), ``"result_0"`` / ``"result_1"``
        (a player's result) or a numeric column such as ``"points"``.
    per_hand, per_hand_unpaired : (mean, low, high)
        ``a - b`` per hand, with its paired and its unpaired interval.
    per_match, per_match_unpaired : (mean, low, high)
        ``a - b`` per match (a match's total; with both copies, their mean).
    per_hand_variance_reduction, per_match_variance_reduction : float
    deals : DataFrame
        One row per deal played on both sides: ``match``, ``hand``, ``deal_id`` (and ``copy`` across
        duplicate runs), ``a_side`` and ``b_side`` (within a run: ``a - b`` in copy 0 and in copy 1;
        across runs: the value in run ``a`` and in run ``b``), ``difference`` (within a run their
        mean, across runs ``a_side - b_side``) and ``same_dealer`` (the same seat dealt on both sides).
    a_mean, b_mean : (mean, low, high)
        Within a run: each policy's own result per hand; across runs: the value per hand in each run.
    rows, matches : int
        Rows compared, and matches (each with both copies, and in both runs).
    deal, wall : str
        The wall design the rows were played with (see :func:`simkit.engine.rulesets.wall_design`).
    """

    a: str
    b: str
    value: str
    per_hand: tuple
    per_hand_unpaired: tuple
    per_hand_variance_reduction: float
    per_match: tuple
    per_match_unpaired: tuple
    per_match_variance_reduction: float
    deals: object
    a_mean: tuple
    b_mean: tuple
    rows: int
    matches: int
    deal: str = "unknown"
    wall: str = "unknown"
    across_runs: bool = False  #: True for two runs, False for the copies of one duplicate run

    # the per-hand estimate under its shorter names
    @property
    def difference(self) -> tuple:
        """``a - b`` per hand with its paired 95% interval (:attr:`per_hand`)."""
        return self.per_hand

    @property
    def unpaired(self) -> tuple:
        """:attr:`per_hand_unpaired`."""
        return self.per_hand_unpaired

    @property
    def variance_reduction(self) -> float:
        """:attr:`per_hand_variance_reduction`."""
        return self.per_hand_variance_reduction

    def frame(self):
        """The estimates as a DataFrame: ``estimate, per, mean, low, high, variance_reduction``."""
        import pandas as pd

        diff = f"{self.a} - {self.b}"
        rows = [
            (f"{diff}, paired", "hand", *self.per_hand, self.per_hand_variance_reduction),
            (f"{diff}, unpaired", "hand", *self.per_hand_unpaired, float("nan")),
            (f"{diff}, paired", "match", *self.per_match, self.per_match_variance_reduction),
            (f"{diff}, unpaired", "match", *self.per_match_unpaired, float("nan")),
            (f"{self.a}", "hand", *self.a_mean, float("nan")),
            (f"{self.b}", "hand", *self.b_mean, float("nan")),
        ]
        return pd.DataFrame(rows, columns=["estimate", "per", "mean", "low", "high", "variance_reduction"])

    def table(self) -> str:
        """The comparison as a readable text table."""
        what = "result" if self.value == "result" else self.value
        if self.across_runs:
            head = (f"run a: {self.a}\nrun b: {self.b}\n{what}, run a - run b: {self.matches:,} matches on the same "
                    f"deals, {self.rows:,} hands in each run (deal {self.deal}, wall {self.wall})")
        else:
            head = (f"{self.a} vs {self.b}: {self.matches:,} matches played in both seatings, {self.rows:,} hands "
                    f"(deal {self.deal}, wall {self.wall})")
        a, b = ("a", "b") if self.across_runs else (self.a, self.b)
        width = max(34, len(f"{a} - {b} per match, paired") + 2)
        lines = [head, f"  {'points' if what in ('result', 'points') else what:<{width}}{'mean':>10}   95% interval"]

        def line(label, est):
            return f"  {label:<{width}}{est[0]:>10.2f}   [{est[1]:.2f}, {est[2]:.2f}]"

        lines += [
            line(f"{a} - {b} per hand, paired", self.per_hand),
            line("  unpaired", self.per_hand_unpaired),
            line(f"{a} - {b} per match, paired", self.per_match),
            line("  unpaired", self.per_match_unpaired),
            line(f"{a} per hand", self.a_mean),
            line(f"{b} per hand", self.b_mean),
            f"  variance reduction by pairing (unpaired / paired variance): {self.per_hand_variance_reduction:.2f}x "
            f"per hand, {self.per_match_variance_reduction:.2f}x per match",
        ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _se(interval) -> float:
    return (interval[2] - interval[1]) / (2 * _Z95)


def _reduction(unpaired, paired) -> float:
    se_p = _se(paired)
    return float(_se(unpaired) ** 2 / se_p**2) if se_p > 0 else float("nan")


def _interval(mean, variance):
    half = _Z95 * math.sqrt(variance) if variance == variance else float("nan")
    return (float(mean), float(mean - half), float(mean + half))


def _ratio_terms(sums, counts):
    """Mean of a ratio estimator and its linearised per-cluster terms (their squared sum, times
    ``G / (G - 1)``, is its variance)."""
    n = counts.sum()
    mean = sums.sum() / n
    return mean, (sums - mean * counts) / n


def _cr1(terms) -> float:
    g = len(terms)
    return g / (g - 1) * float(np.dot(terms, terms)) if g > 1 else float("nan")


def _design_of(df, which="the data") -> tuple[str, str]:
    spec = (df.attrs.get("manifest") or {}).get("spec") if hasattr(df, "attrs") else None
    if spec is None:
        raise SimkitError(
            f"cannot tell the wall design of {which}: compare runs by path or by DataFrames from simkit.analysis.load"
        )
    from ..io import wall_settings_of

    w = wall_settings_of(spec)
    return w["deal"], w["wall"]


def compare(a, b=None, *, value=None):
    """Paired comparison: the two policies of a duplicate run, or two runs on the same deals.

    ``compare(run)``: a ``--duplicate`` run, policy ``a`` (player 0 of copy 0) against ``b``; the
    value of a hand is ``a``'s result minus ``b``'s.

    ``compare(run_a, run_b)``: two runs with the same seed and wall design (both duplicate or
    neither) that differ in their policies, a policy's parameters or a rule option; rows are paired
    by ``(match, copy, deal_id)`` over the matches both runs played. The value compared is
    ``value``: ``"result_0"`` / ``"result_1"`` (a player's ``score`` minus ``fee``) or a numeric
    column (``"points"``, ``"hand_tai"``, ...); default the result of the seat whose policy differs
    when exactly one seat's does, else ``"points"``.

    Parameters
    ----------
    a, b : DataFrame or path
        Runs (directories, or DataFrames from :func:`load`).
    value : str, optional
        Across runs: what is compared (see above).

    Returns
    -------
    Comparison

    Raises
    ------
    SimkitError
        One run that is not a duplicate run or has the same policy in both seats; two runs with
        different seeds, wall designs or duplicate settings, or without a match in common; an
        unknown ``value``.
    """
    if b is None:
        if value is not None:
            raise SimkitError("value applies to a comparison of two runs; a duplicate run compares results")
        return _compare_copies(a)
    return _compare_runs(a, b, value)


def _result_columns(rules, names):
    return ["deal_id", "copy", "seed", "match", "hand", "dealer", "policy_0", "policy_1", "score_0", "score_1",
            "fee_0", "fee_1"]


def _compare_copies(df):
    import pandas as pd

    df = _data(df, _result_columns)
    _require(df, "deal_id", "copy", "match", "hand", "dealer", "policy_0", "policy_1", "score_0", "score_1")
    copy = df["copy"].to_numpy()
    if not ((copy == 0).any() and (copy == 1).any()):
        have = ", ".join(str(c) for c in sorted(set(copy.tolist()))) or "none"
        raise SimkitError(f"compare needs a --duplicate run (rows of copy 0 and copy 1); this data has copy {have}")
    p0 = df["policy_0"].astype(str).to_numpy()
    p1 = df["policy_1"].astype(str).to_numpy()
    pairs = set(zip(p0[copy == 0].tolist(), p1[copy == 0].tolist()))
    if len(pairs) != 1:
        raise SimkitError(f"copy 0 holds more than one pair of policies: {sorted(pairs)}")
    ((a, b),) = pairs
    if a == b:
        raise SimkitError(f"both seats play {a!r}: nothing to compare")
    if set(zip(p0[copy == 1].tolist(), p1[copy == 1].tolist())) != {(b, a)}:
        raise SimkitError(f"copy 1 is not copy 0 with the seats swapped ({b}, {a})")
    deal, wall = _design_of(df) if "manifest" in df.attrs else ("unknown", "unknown")
    r0, r1 = _player_result(df, 0), _player_result(df, 1)
    a_first = p0 == a
    a_res = np.where(a_first, r0, r1)
    b_res = np.where(a_first, r1, r0)
    diff = a_res - b_res
    cluster, game = _clusters(df)
    _, inv = np.unique(cluster, return_inverse=True)
    inv = inv.reshape(-1)
    _, game_inv = np.unique(game, return_inverse=True)
    game_inv = game_inv.reshape(-1)

    def clustered(v, ids):
        return clustered_mean(np.bincount(ids, weights=v), np.bincount(ids))

    per_hand = clustered(diff, inv)
    per_hand_unpaired = clustered(diff, game_inv)
    # per match: a match's total a - b, the mean of its two copies; unpaired: each copy's total alone
    game_totals = np.bincount(game_inv, weights=diff)
    match_totals = np.bincount(inv, weights=diff) / 2
    per_match = _interval(match_totals.mean(), match_totals.var(ddof=1) / len(match_totals))
    per_match_unpaired = _interval(game_totals.mean(), game_totals.var(ddof=1) / len(game_totals))
    seed = df["seed"].to_numpy() if "seed" in df.columns else np.zeros(len(df), np.int64)
    frame = pd.DataFrame({"_cl": inv, "seed": seed, "match": df["match"].to_numpy(), "hand": df["hand"].to_numpy(),
                          "deal_id": df["deal_id"].to_numpy(), "copy": copy, "diff": diff,
                          "dealer": df["dealer"].to_numpy()})
    wide = frame.pivot_table(index=["_cl", "seed", "match", "hand", "deal_id"], columns="copy",
                             values=["diff", "dealer"], aggfunc="first", observed=True, sort=True)
    wide = wide.dropna()
    if not len(wide):
        raise SimkitError("no deal was played in both copies")
    keys = wide.index.to_frame(index=False)
    deals = pd.DataFrame({
        "match": keys["match"].to_numpy(),
        "hand": keys["hand"].to_numpy(),
        "deal_id": keys["deal_id"].to_numpy(),
        "a_side": wide[("diff", 0)].to_numpy(),
        "b_side": wide[("diff", 1)].to_numpy(),
    })
    if "seed" in df.columns and df["seed"].nunique() > 1:
        deals.insert(0, "seed", keys["seed"].to_numpy())
    deals["difference"] = (deals["a_side"] + deals["b_side"]) / 2
    deals["same_dealer"] = wide[("dealer", 0)].to_numpy() == wide[("dealer", 1)].to_numpy()
    return Comparison(
        a=a, b=b, value="result", per_hand=per_hand, per_hand_unpaired=per_hand_unpaired,
        per_hand_variance_reduction=_reduction(per_hand_unpaired, per_hand), per_match=per_match,
        per_match_unpaired=per_match_unpaired, per_match_variance_reduction=_reduction(per_match_unpaired, per_match),
        deals=deals, a_mean=clustered(a_res, inv), b_mean=clustered(b_res, inv), rows=len(df),
        matches=int(inv.max()) + 1 if len(inv) else 0, deal=deal, wall=wall,
    )


def _run_label(df) -> str:
    attrs = df.attrs
    spec = attrs["manifest"]["spec"]
    defaults = None
    try:
        from ..rules import get_rules

        defaults = get_rules(spec["rules"]["name"]).to_dict()["options"]
    except Exception:  # pragma: no cover - an unknown rule set is refused elsewhere
        pass
    options = {k: v for k, v in spec["rules"]["options"].items() if defaults is None or defaults.get(k) != v}
    opts = "".join(f" {k}={v}" for k, v in options.items())
    return f"{spec['rules']['name']}{opts}, {' vs '.join(p['label'] for p in spec['policies'])}"


def _compare_runs(run_a, run_b, value):
    import pandas as pd

    frames = []
    for which, run in (("run a", run_a), ("run b", run_b)):
        df = run if not _is_path(run) else load(run)
        if "manifest" not in df.attrs:
            raise SimkitError(f"cannot tell the seed and wall design of {which}: give a run directory or a DataFrame "
                              "from simkit.analysis.load")
        frames.append(df)
    da, db = frames
    sa, sb = da.attrs["manifest"]["spec"], db.attrs["manifest"]["spec"]
    for what, x, y in (("seed", sa["seed"], sb["seed"]), ("wall design", _design_of(da), _design_of(db)),
                       ("duplicate setting", bool(sa["duplicate"]), bool(sb["duplicate"])),
                       ("rule set", sa["rules"]["name"], sb["rules"]["name"])):
        if x != y:
            raise SimkitError(f"runs on different deals cannot be paired: {what} {x!r} (run a) vs {y!r} (run b)")
    labels_a = [p["label"] for p in sa["policies"]]
    labels_b = [p["label"] for p in sb["policies"]]
    if value is None:
        differ = [p for p in (0, 1) if sa["policies"][p] != sb["policies"][p]]
        value = f"result_{differ[0]}" if len(differ) == 1 else "points"
    if not isinstance(value, str):
        raise SimkitError(f"value must be 'result_0', 'result_1' or a numeric column; got {value!r}")
    sides = []
    for df in (da, db):
        if value in ("result_0", "result_1"):
            p = int(value[-1])
            _require(df, f"score_{p}")
            v = _player_result(df, p)
        else:
            _require(df, value)
            if not pd.api.types.is_numeric_dtype(df[value].dtype) or pd.api.types.is_bool_dtype(df[value].dtype):
                raise SimkitError(f"value {value!r} is not a numeric column")
            v = df[value].to_numpy().astype(np.float64)
        _require(df, "match", "hand", "deal_id", "dealer")
        copy = df["copy"].to_numpy().astype(np.int64) if "copy" in df.columns else np.zeros(len(df), np.int64)
        sides.append(pd.DataFrame({"match": df["match"].to_numpy().astype(np.int64), "copy": copy,
                                   "hand": df["hand"].to_numpy(), "deal_id": df["deal_id"].to_numpy(),
                                   "dealer": df["dealer"].to_numpy(), "v": v}))
    common = np.intersect1d(sides[0]["match"].unique(), sides[1]["match"].unique())
    if len(common) < 2:
        raise SimkitError(f"the runs have {len(common)} match{'es' if len(common) != 1 else ''} in common; "
                          "pairing needs two or more")
    sides = [s[s["match"].isin(common)] for s in sides]
    n_copies = 2 if sa["duplicate"] else 1
    terms, unpaired_var, means, totals = [], 0.0, [], []
    for s in sides:
        _, inv = np.unique(s["match"].to_numpy(), return_inverse=True)
        sums, counts = np.bincount(inv, weights=s["v"].to_numpy()), np.bincount(inv)
        mean, t = _ratio_terms(sums, counts.astype(np.float64))
        terms.append(t)
        unpaired_var += _cr1(t)
        means.append(_interval(mean, _cr1(t)))
        totals.append(sums / n_copies)  # per match (the mean of both copies' totals)
    per_hand_mean = means[0][0] - means[1][0]
    per_hand = _interval(per_hand_mean, _cr1(terms[0] - terms[1]))
    per_hand_unpaired = _interval(per_hand_mean, unpaired_var)
    d = totals[0] - totals[1]
    m = len(d)
    per_match = _interval(d.mean(), d.var(ddof=1) / m)
    per_match_unpaired = _interval(d.mean(), (totals[0].var(ddof=1) + totals[1].var(ddof=1)) / m)
    keys = ["match", "copy", "hand", "deal_id"]
    joined = sides[0].merge(sides[1], on=keys, suffixes=("_a", "_b"), how="inner", sort=True)
    deals = pd.DataFrame({k: joined[k].to_numpy() for k in keys if k != "copy" or n_copies == 2})
    deals["a_side"] = joined["v_a"].to_numpy()
    deals["b_side"] = joined["v_b"].to_numpy()
    deals["difference"] = deals["a_side"] - deals["b_side"]
    deals["same_dealer"] = joined["dealer_a"].to_numpy() == joined["dealer_b"].to_numpy()
    la, lb = _run_label(da), _run_label(db)
    if la == lb:
        la, lb = da.attrs.get("path", "run a"), db.attrs.get("path", "run b")
    deal, wall = _design_of(da)
    return Comparison(
        a=la, b=lb, value=value, per_hand=per_hand, per_hand_unpaired=per_hand_unpaired,
        per_hand_variance_reduction=_reduction(per_hand_unpaired, per_hand), per_match=per_match,
        per_match_unpaired=per_match_unpaired, per_match_variance_reduction=_reduction(per_match_unpaired, per_match),
        deals=deals, a_mean=means[0], b_mean=means[1], rows=int(min(len(sides[0]), len(sides[1]))),
        matches=m, deal=deal, wall=wall, across_runs=True,
    )


# ---------------------------------------------------------------------------------------------
# plots (matplotlib is imported here only)


def _axes(ax, figsize=(7, 4)):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _group_labels(frame, keys):
    if not keys:
        return [("", frame)]
    out = []
    for gkey, part in frame.groupby(keys, observed=True, sort=True):
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        out.append((", ".join(f"{k}={v}" for k, v in zip(keys, gkey)), part))
    return out


def _by_of(frame, known):
    return [c for c in frame.columns if c not in known]


def plot_tai_distribution(dist, measure=None, ax=None, max_value=None):
    """Bar chart of :func:`tai_distribution`: share of wins per value, 95% Wilson intervals as error bars.

    Parameters
    ----------
    dist : DataFrame
        :func:`tai_distribution`'s result (any ``by``: one bar series per group).
    measure : str, optional
        Which measure (default the first in ``dist``).
    ax : matplotlib Axes, optional
    max_value : number, optional
        Values above it are left out of the plot (not of the shares).

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    measures = list(dict.fromkeys(dist["measure"]))
    measure = measures[0] if measure is None else measure
    if measure not in measures:
        raise SimkitError(f"measure {measure!r} is not in the distribution ({', '.join(measures)})")
    part = dist[dist["measure"] == measure]
    if max_value is not None:
        part = part[part["value"] <= max_value]
    keys = _by_of(part, {"measure", "value", "count", "wins", "share", "share_low", "share_high"})
    groups = _group_labels(part, keys)
    width = 0.8 / len(groups)
    for i, (label, g) in enumerate(groups):
        x = g["value"].to_numpy(np.float64) + (i - (len(groups) - 1) / 2) * width
        share = g["share"].to_numpy()
        err = np.vstack([share - g["share_low"].to_numpy(), g["share_high"].to_numpy() - share])
        ax.bar(x, share, width=width, yerr=err, capsize=2, label=label or None, error_kw={"elinewidth": 0.8})
    ax.set_xlabel(measure.replace("_", " "))
    ax.set_ylabel("share of wins")
    wins = int(part.drop_duplicates(keys or ["measure"])["wins"].sum()) if len(part) else 0
    ax.set_title(f"{measure.replace('_', ' ')} per win ({wins:,} wins; 95% Wilson intervals)")
    if keys:
        ax.legend()
    return ax


def plot_item_frequencies(freq, per="win", top=15, ax=None):
    """Horizontal bars of :func:`item_frequencies`: the ``top`` items by count, rate per win or per hand,
    with 95% Wilson intervals (one bar series per group when ``by`` was given).

    Returns
    -------
    matplotlib Axes
    """
    if per not in ("win", "hand"):
        raise SimkitError(f"per must be 'win' or 'hand', got {per!r}")
    known = {"item", "hands", "wins", "count", "mean_value", "value_per_hand"} | {
        f"per_{p}{s}" for p in ("hand", "win") for s in ("", "_low", "_high")
    }
    keys = _by_of(freq, known)
    totals = freq.groupby("item", sort=False)["count"].sum().sort_values(ascending=False, kind="stable")
    items = [i for i in totals.index[:top] if totals[i] > 0][::-1]
    ax = _axes(ax, figsize=(7, 0.3 * len(items) + 1.2))
    groups = _group_labels(freq[freq["item"].isin(items)], keys)
    height = 0.8 / len(groups)
    col = f"per_{per}"
    for i, (label, g) in enumerate(groups):
        g = g.set_index("item").reindex(items)
        y = np.arange(len(items)) + (i - (len(groups) - 1) / 2) * height
        v = g[col].fillna(0).to_numpy()
        err = np.vstack([v - g[f"{col}_low"].fillna(0).to_numpy(), g[f"{col}_high"].fillna(0).to_numpy() - v])
        ax.barh(y, v, height=height, xerr=err, capsize=2, label=label or None, error_kw={"elinewidth": 0.8})
    ax.set_yticks(np.arange(len(items)), [i.replace("_", " ") for i in items])
    ax.set_xlabel(f"share of {'wins' if per == 'win' else 'hands'} scoring the item")
    ax.set_title(f"scoring items per {per} (95% Wilson intervals)")
    if keys:
        ax.legend()
    return ax


def plot_expected_payment(ep, x=None, ax=None, per="hand"):
    """Means of :func:`expected_payment` with their clustered 95% intervals, one point per group.

    Parameters
    ----------
    ep : DataFrame
        :func:`expected_payment`'s result.
    x : str, optional
        The key on the x axis (default the last ``by`` key); other keys make separate series.
    per : "hand" or "match"

    Returns
    -------
    matplotlib Axes
    """
    if per not in ("hand", "match"):
        raise SimkitError(f"per must be 'hand' or 'match', got {per!r}")
    ax = _axes(ax)
    known = {"value", "hands", "matches", "mean", "low", "high", "per_match", "per_match_low", "per_match_high"}
    keys = _by_of(ep, known)
    m, lo, hi = ("mean", "low", "high") if per == "hand" else ("per_match", "per_match_low", "per_match_high")
    if not keys:
        ax.errorbar([0], ep[m], yerr=[ep[m] - ep[lo], ep[hi] - ep[m]], fmt="o", capsize=4)
        ax.set_xticks([0], ["all hands"])
    else:
        x = keys[-1] if x is None else x
        if x not in keys:
            raise SimkitError(f"x={x!r} is not a key of the table ({', '.join(keys)})")
        rest = [k for k in keys if k != x]
        cats = list(dict.fromkeys(ep[x].tolist()))
        numeric = all(isinstance(c, (int, float, np.integer, np.floating)) for c in cats)
        groups = _group_labels(ep, rest)
        for i, (label, g) in enumerate(groups):
            pos = g[x].to_numpy(np.float64) if numeric else np.array([cats.index(c) for c in g[x]], np.float64)
            pos = pos + (i - (len(groups) - 1) / 2) * 0.1
            mean = g[m].to_numpy()
            ax.errorbar(pos, mean, yerr=[mean - g[lo].to_numpy(), g[hi].to_numpy() - mean], fmt="o-" if numeric else "o",
                        capsize=3, label=label or None)
        if not numeric:
            ax.set_xticks(range(len(cats)), [str(c) for c in cats])
        ax.set_xlabel(x.replace("_", " "))
        if rest:
            ax.legend()
    ax.axhline(0, color="0.6", linewidth=0.8)
    value = ep["value"].iloc[0] if len(ep) else ""
    ax.set_ylabel(f"mean {value} per {per}")
    ax.set_title(f"{value} per {per} (95% intervals clustered by match)")
    return ax


def plot_comparison(cmp, axes=None, bins=60):
    """Two panels for a :class:`Comparison`: the paired differences per deal (histogram; deals with
    the same dealer seat on both sides apart), and ``a - b`` per hand with its paired and unpaired
    95% intervals, the variance reduction (unpaired / paired variance) in the title.

    Returns
    -------
    array of two matplotlib Axes
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained", width_ratios=(3, 2))
    h, e = axes
    d = cmp.deals["difference"].to_numpy()
    same = cmp.deals["same_dealer"].to_numpy()
    edges = np.histogram_bin_edges(d, bins=bins)
    h.hist([d[same], d[~same]], bins=edges, stacked=True, color=["C0", "C7"],
           label=[f"same dealer seat ({same.sum():,})", f"other dealer seat ({(~same).sum():,})"])
    h.axvline(0, color="0.3", linewidth=0.8)
    a, b = ("run a", "run b") if cmp.across_runs else (cmp.a, cmp.b)
    unit = "points" if cmp.value in ("result", "points") or cmp.value.startswith("result_") else cmp.value
    h.set_xlabel(f"{a} - {b} per deal ({unit}{'' if cmp.across_runs else ', mean of both copies'})")
    h.set_ylabel("deals")
    h.set_yscale("log")
    h.set_title("paired difference per deal", fontsize=10)
    h.legend(fontsize=8)
    estimates = [("paired", cmp.per_hand, "C0"), ("unpaired", cmp.per_hand_unpaired, "C7")]
    for i, (_, est, color) in enumerate(estimates):
        e.errorbar([i], [est[0]], yerr=[[est[0] - est[1]], [est[2] - est[0]]], fmt="o", capsize=6, color=color)
    low, high = e.get_ylim()
    if low <= 0 <= high:  # zero inside the intervals' range; otherwise it would squash them to a dot
        e.axhline(0, color="0.6", linewidth=0.8)
    e.set_xticks(range(len(estimates)), [lbl for lbl, _, _ in estimates])
    e.set_xlim(-0.6, len(estimates) - 0.4)
    e.set_ylabel(f"{a} - {b} per hand ({unit})")
    e.set_title(f"95% intervals; variance reduction {cmp.per_hand_variance_reduction:.2f}x", fontsize=10)
    return axes


# ---------------------------------------------------------------------------------------------
# summarize (streams over the shards)


@dataclass
class Summary:
    """Summary statistics of a run (:func:`summarize`); :meth:`table` formats them."""

    path: Path
    manifest: dict
    rows: int = 0
    matches: int = 0
    shards: int = 0
    wins: np.ndarray = field(default_factory=lambda: np.zeros(2, np.int64))  #: by player
    dealer_wins: int = 0
    draws: int = 0
    win_types: dict = field(default_factory=dict)  #: category -> rows
    hand_tai_sum: int = 0
    total_tai_sum: int = 0
    item_count: dict = field(default_factory=dict)  #: item -> winning hands scoring it
    item_tai: dict = field(default_factory=dict)  #: item -> tai summed over those hands
    points: tuple = ()  #: (mean, low, high) payment per hand in points
    payment_tai: tuple = ()  #: (mean, low, high) payment per hand in tai units
    score_0: tuple = ()  #: (mean, low, high) player 0's result per hand
    by_policy: dict = field(default_factory=dict)  #: label -> (mean, low, high) result per hand
    policy_wins: dict = field(default_factory=dict)  #: label -> hands won by that policy (whatever its seat)

    def to_dict(self) -> dict:
        """The summary as JSON-ready data (``simkit summarize --json``): counts, rates and the
        intervals as ``[mean, low, high]``."""
        n = max(self.rows, 1)

        def share(k):
            lo, hi = wilson_interval(int(k), n)
            return {"count": int(k), "rate": int(k) / n, "low": lo, "high": hi}

        spec = self.manifest["spec"]
        return {
            "path": str(self.path),
            "status": self.manifest.get("status"),
            "rules": spec["rules"],
            "policies": [p["label"] for p in spec["policies"]],
            "seed": spec["seed"],
            "duplicate": bool(spec["duplicate"]),
            "hands": int(self.rows),
            "matches": int(self.matches),
            "shards": int(self.shards),
            "wins_by_player": [share(k) for k in self.wins],
            "wins_by_policy": {label: share(k) for label, k in self.policy_wins.items()},
            "dealer_wins": share(self.dealer_wins),
            "draws": share(self.draws),
            "win_types": {name: share(k) for name, k in self.win_types.items()},
            "mean_hand_tai_per_win": self.hand_tai_sum / self.decided if self.decided and self.payment_tai else None,
            "payment_points_per_hand": list(self.points),
            "payment_tai_per_hand": list(self.payment_tai) or None,
            "player_0_result_per_hand": list(self.score_0),
            "result_per_hand_by_policy": {label: list(m) for label, m in self.by_policy.items()},
            "items": {name: {"wins": int(c), "tai": int(self.item_tai[name])} for name, c in self.item_count.items() if c},
        }

    @property
    def decided(self) -> int:
        """Hands that ended with a win."""
        return int(self.wins.sum())

    def table(self) -> str:
        """The summary as a readable text table."""
        from ..io import wall_settings_of

        spec = self.manifest["spec"]
        pol = spec["policies"]
        status = self.manifest.get("status", "?")
        note = "" if status == "complete" else f" ({status}; {self.shards} shards so far — finish it with --resume)"
        from ..rules import get_rules

        r = spec["rules"]
        defaults = get_rules(r["name"]).to_dict()["options"]
        changed = {k: v for k, v in r["options"].items() if v != defaults.get(k)}
        rules_text = r["name"] + (
            " (" + ", ".join(f"{k}={v}" for k, v in changed.items()) + ")" if changed else " (default options)"
        )
        n = self.rows
        lines = [
            f"simkit run {self.path}{note}",
            f"  rules      {rules_text}",
            f"  policies   player 0 {pol[0]['label']}, player 1 {pol[1]['label']}"
            + ("; every match also played with the seats swapped (copy 1)" if spec["duplicate"] else ""),
            f"  seed       {spec['seed']}",
            "  wall       deal {deal}, wall {wall}".format(**wall_settings_of(spec)),
            f"  rows       {n:,} hands in {self.matches:,} matches ({n / max(self.matches, 1):.2f} per match"
            + (", both copies" if spec["duplicate"] else "")
            + f"), {self.shards} shard{'s' if self.shards != 1 else ''}",
        ]
        if spec.get("decisions", False):
            shards = self.manifest.get("shards") or []
            k = sum(e["decisions"]["rows"] for e in shards if isinstance(e, dict) and e.get("decisions"))
            lines.append(f"  decisions  {k:,} ({k / max(n, 1):.2f} per hand): simkit.analysis.load(path, table=\"decisions\")")
        lines += [
            "",
            f"  {'outcome (share of hands)':<34}{'rate':>9}   95% interval",
        ]

        def rate(label, k):
            lo, hi = wilson_interval(int(k), n)
            lines.append(f"  {label:<34}{k / n:>9.2%}   [{lo:.2%}, {hi:.2%}]   {int(k):,}")

        if self.policy_wins:  # two policies, possibly in both seats (duplicate): wins by policy
            for label, k in self.policy_wins.items():
                rate(f"{label} wins", k)
        else:
            rate("player 0 wins", self.wins[0])
            rate("player 1 wins", self.wins[1])
        rate("dealer wins", self.dealer_wins)
        rate("non-dealer wins", self.decided - self.dealer_wins)
        rate("exhaustive draws", self.draws)
        for name in ("self_drawn", "discard", "robbed_kong"):
            rate(f"  won {name.replace('_', ' ')}", self.win_types.get(name, 0))
        lines.append("")
        if self.decided and self.payment_tai:
            lines.append(f"  mean hand tai per win              {self.hand_tai_sum / self.decided:9.3f}")
            lines.append(f"  mean hand + dealer tai per win     {self.total_tai_sum / self.decided:9.3f}")
        lines.append(f"  {'per hand (draws count as 0)':<34}{'mean':>9}   95% interval, clustered by match")

        def mean(label, m):
            lines.append(f"  {label:<34}{m[0]:>9.3f}   [{m[1]:.3f}, {m[2]:.3f}]")

        mean("payment (points)", self.points)
        if self.payment_tai:
            mean("payment (tai units)", self.payment_tai)
        mean("player 0 result (points)", self.score_0)
        for label, m in self.by_policy.items():
            mean(f"{label} result (points)", m)
        lines.append("")
        top = sorted(self.item_count.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
        lines.append(f"  {'most frequent items':<34}{'wins':>9}   share of wins   mean tai")
        for name, count in top:
            if count == 0:
                break
            share = count / self.decided if self.decided else 0.0
            lines.append(f"  {name:<34}{count:>9,}   {share:>12.2%}   {self.item_tai[name] / count:>8.2f}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def summarize(path) -> Summary:
    """Summary statistics of a run directory: outcomes, tai, payments with intervals, top items.

    Raises
    ------
    simkit.io.DatasetError
        ``path`` is not a simkit dataset (or has no complete shard).
    """
    from .. import io

    run = io.open_run(path)
    if not run.shards:
        raise io.DatasetError(f"{run.path} has no complete shards yet")
    spec = run.spec
    items = [f"item_{name}" for name in spec["items"]]
    labels = [p["label"] for p in spec["policies"]]
    compare = labels[0] != labels[1]
    out = Summary(path=run.path, manifest=run.manifest, shards=len(run.shards))
    out.item_count = {name: 0 for name in spec["items"]}
    out.item_tai = {name: 0 for name in spec["items"]}
    cluster_rows, cluster_points, cluster_tai, cluster_s0 = [], [], [], []
    cluster_policy = {label: ([], []) for label in labels} if compare else {}
    has_tai = "payment_tai" in run.schema.names
    columns = ["match", "winner", "dealer", "win_type", "hand_tai", "dealer_tai", "points", "score_0", "score_1",
               "policy_0", "policy_1"] + (["payment_tai"] if has_tai else []) + items
    for shard in run.shards:
        t = run.read_shard(shard, columns=columns)  # the manifest's checksums and the page checksums verified
        match = t.column("match").to_numpy()
        winner = t.column("winner").to_numpy()
        won = winner >= 0
        out.rows += len(match)
        out.wins += np.bincount(winner[won], minlength=2)[:2]
        out.dealer_wins += int(np.count_nonzero(winner == t.column("dealer").to_numpy()))
        out.draws += int(np.count_nonzero(~won))
        wt = t.column("win_type").combine_chunks()
        counts = np.bincount(wt.indices.to_numpy(zero_copy_only=False), minlength=len(wt.dictionary))
        for name, k in zip(wt.dictionary.to_pylist(), counts):
            out.win_types[name] = out.win_types.get(name, 0) + int(k)
        hand_tai = t.column("hand_tai").to_numpy().astype(np.int64)
        out.hand_tai_sum += int(hand_tai[won].sum())
        out.total_tai_sum += int((hand_tai + t.column("dealer_tai").to_numpy())[won].sum())
        for col, name in zip(items, spec["items"]):
            v = t.column(col).to_numpy()
            out.item_count[name] += int(np.count_nonzero(v))
            out.item_tai[name] += int(v.sum(dtype=np.int64))
        # clusters: matches (rows of a match are contiguous, and a match never spans shards)
        starts = np.flatnonzero(np.r_[True, match[1:] != match[:-1]])
        out.matches += len(np.unique(match))
        cluster_rows.append(np.diff(np.r_[starts, len(match)]))
        cluster_points.append(np.add.reduceat(t.column("points").to_numpy(), starts))
        if has_tai:
            cluster_tai.append(np.add.reduceat(t.column("payment_tai").to_numpy(), starts))
        s0 = t.column("score_0").to_numpy()
        cluster_s0.append(np.add.reduceat(s0, starts))
        if compare:
            s1 = t.column("score_1").to_numpy()
            p0 = _labels(t.column("policy_0"))
            p1 = _labels(t.column("policy_1"))
            for label in labels:
                out.policy_wins[label] = out.policy_wins.get(label, 0) + int(
                    np.count_nonzero((winner == 0) & (p0 == label)) + np.count_nonzero((winner == 1) & (p1 == label))
                )
                res = np.where(p0 == label, s0, 0.0) + np.where(p1 == label, s1, 0.0)
                seated = (p0 == label).astype(np.int64) + (p1 == label)
                cluster_policy[label][0].append(np.add.reduceat(res, starts))
                cluster_policy[label][1].append(np.add.reduceat(seated, starts))
    rows = np.concatenate(cluster_rows)
    out.points = clustered_mean(np.concatenate(cluster_points), rows)
    if has_tai:
        out.payment_tai = clustered_mean(np.concatenate(cluster_tai), rows)
    out.score_0 = clustered_mean(np.concatenate(cluster_s0), rows)
    for label, (sums, seats) in cluster_policy.items():
        out.by_policy[label] = clustered_mean(np.concatenate(sums), np.concatenate(seats))
    return out


def _labels(column) -> np.ndarray:
    """The strings of a dictionary column as a numpy array (decoded through its dictionary)."""
    arr = column.combine_chunks()
    return np.asarray(arr.dictionary.to_pylist(), dtype=object)[arr.indices.to_numpy(zero_copy_only=False)]
