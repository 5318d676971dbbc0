"""Matplotlib figures of the analysis tables (matplotlib is imported here only, when a plot is drawn):
:func:`plot_tai_distribution`, :func:`plot_item_frequencies`, :func:`plot_expected_payment`,
:func:`plot_comparison`.
"""

from __future__ import annotations

import numpy as np

from ..errors import SimkitError


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
