"""Reading runs: :func:`load` (one run as a DataFrame), :func:`load_many` (several runs of one rule
set, a ``run`` column), :func:`players` (one row per hand and player), and the data helpers every
analysis function uses (a run directory or a frame, required columns, the rule set, a player's result).
"""

from __future__ import annotations

import fnmatch
import os
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import datasets
from ..errors import InputTypeError, InputValueError, SimkitError


def _as_list(value, what) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        out = list(value)
    except TypeError:
        raise InputValueError(f"{what} must be a column name or a list of them, got {value!r}") from None
    if not all(isinstance(v, str) for v in out):
        raise InputValueError(f"{what} must be a column name or a list of them, got {value!r}")
    return out


def _unknown(names, available, what="column") -> SimkitError:
    names = sorted(set(names))
    s = "s" if len(names) > 1 else ""
    return InputValueError(
        f"unknown {what}{s} {', '.join(repr(n) for n in names)}; the dataset has: {', '.join(available)}"
    )


def _filter_columns(filters) -> list[str]:
    """Column names used by DNF filters (``[(col, op, value), ...]`` or a list of such lists)."""
    if not isinstance(filters, (list, tuple)):
        raise InputValueError(
            "filters must be a list of (column, op, value) tuples, a list of such lists (OR of ANDs), "
            f"or a pyarrow.compute.Expression; got {type(filters).__name__}"
        )
    groups = (
        filters
        if filters and all(isinstance(f, (list, tuple)) and f and isinstance(f[0], (list, tuple)) for f in filters)
        else [filters]
    )
    cols = []
    for group in groups:
        for term in group:
            if not (isinstance(term, (list, tuple)) and len(term) == 3 and isinstance(term[0], str)):
                raise InputValueError(f"bad filter {term!r}: expected a (column, op, value) tuple")
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
        per decision taken in the order played (:data:`simkit.datasets.DECISION_COLUMNS`; a run written
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
        list, checked through the shards' footers: :func:`simkit.datasets.check_shards`) and the whole
        ``manifest``.

    Raises
    ------
    simkit.datasets.DatasetError
        ``path`` is not a simkit dataset, has no complete shard yet, a shard is missing, extra,
        foreign, resized or corrupt, or its manifest says what its shards' footers contradict (an
        edited seed, rule option, label, target...: :func:`simkit.datasets.open_run`; every shard read is
        verified); ``table="decisions"`` of a run written without ``--decisions``.
    SimkitError
        An unknown column (in ``columns`` or ``filters``), a malformed filter, or an unknown ``table``.
    """

    if table not in ("hands", "decisions"):
        raise InputValueError(f"table must be 'hands' or 'decisions', got {table!r}")
    decisions = table == "decisions"
    run = datasets.open_run(path, verify=not decisions)  # a shard is verified (SHA-256) when read below
    if decisions and not run.decisions:
        raise datasets.DatasetError(
            f"{run.path} has no decisions table: it was written without decision logging; rerun it with --decisions "
            "(simkit simulate ... --decisions, or simulate(..., decisions=True))"
        )
    if not run.shards:
        raise datasets.DatasetError(f"{run.path} has no complete shards yet")
    names = run.decision_schema.names if decisions else run.schema.names
    shards = run.decision_shards if decisions else run.shards
    read = run.read_decision_shard if decisions else run.read_shard
    wanted = None
    if columns is not None:
        wanted = []
        for pattern in _as_list(columns, "columns"):
            hits = (
                [n for n in names if fnmatch.fnmatchcase(n, pattern)]
                if any(c in pattern for c in "*?[")
                else ([pattern] if pattern in names else [])
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
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OverflowError, TypeError) as exc:
            raise InputValueError(f"cannot apply filters {filters!r} to {run.path}: {exc}".splitlines()[0]) from None
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

    if isinstance(runs, dict):
        items = list(runs.items())
    elif isinstance(runs, (list, tuple)):
        items = [(Path(p).name, p) for p in runs]
    else:
        raise InputValueError(f"runs is a dict {{label: path}} or a list of paths, got {type(runs).__name__}")
    if not items:
        raise InputValueError("runs is empty")
    labels = [str(label) for label, _ in items]
    if len(set(labels)) != len(labels):
        raise InputValueError(f"two runs have the same label: {labels}")
    frames, attrs = [], {}
    for label, path in items:
        df = load(path, columns=columns, filters=filters)
        frames.append(df)
        attrs[str(label)] = {k: v for k, v in df.attrs.items() if k != "manifest"}
    rule_sets = {a["rules"] for a in attrs.values()}
    if len(rule_sets) > 1:
        shown = ", ".join(f"{label}: {a['rules']}" for label, a in attrs.items())
        raise InputValueError(f"the runs are of different rule sets ({shown}); load_many combines runs of one rule set")
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

    if _is_path(data):
        run = datasets.open_run(data)
        if not run.shards:
            raise datasets.DatasetError(f"{run.path} has no complete shards yet")
        names = run.schema.names
        cols = [c for c in needed(run.spec["rules"]["name"], names) if c in names]
        return load(data, columns=cols)
    if not isinstance(data, pd.DataFrame):
        raise InputValueError(
            f"expected a DataFrame from simkit.analysis.load or a run directory, got {type(data).__name__}"
        )
    return data


def _require(df, *names):
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(f"expected a DataFrame from simkit.analysis.load, got {type(df).__name__}")
    missing = [n for n in names if n not in df.columns]
    if missing:
        loaded = df.attrs.get("manifest", {}).get("columns", ())
        hint = " (it is in the dataset: load it)" if all(m in loaded for m in missing) else ""
        s = "s" if len(missing) > 1 else ""
        raise InputValueError(f"the data has no column{s} {', '.join(repr(m) for m in missing)}{hint}")


def _rules_name(df):
    name = df.attrs.get("rules")
    if name:
        return name
    return "douque" if "payment_tai" in df.columns or "hand_tai" in df.columns and "fan" not in df.columns else None


def _player_result(df, p):
    r = df[f"score_{p}"].to_numpy().astype(np.float64)
    if f"fee_{p}" in df.columns:
        r = r - df[f"fee_{p}"].to_numpy()
    return r
