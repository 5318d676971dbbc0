"""Matplotlib figures of the analysis tables (matplotlib is imported here only, when a plot is drawn):
:func:`plot_tai_distribution`, :func:`plot_item_frequencies`, :func:`plot_expected_payment`,
:func:`plot_deal_value`, :func:`plot_comparison`.

Every helper draws into ``ax`` (or a new figure with constrained layout), labels a group by its
values (``greedy, dealer``), wraps a title that would not fit its panel, and draws on zero counts.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from ..errors import InputValueError
from ..stats import wilson_interval


def _axes(ax, figsize=(7, 4)):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _label(key, value) -> str:
    """A group's value as a legend label: a name as it is (``greedy``, ``dealer``), a number with its
    key (``player 0``, ``streak 2``)."""
    if isinstance(value, (bool, np.bool_, int, float, np.integer, np.floating)):
        return f"{key.replace('_', ' ')} {value}"
    return str(value)


def _group_labels(frame, keys):
    """``[(label, rows)]`` per group of ``keys``; labels read ``greedy, dealer`` (see :func:`_label`)."""
    if not keys:
        return [("", frame)]
    out = []
    for gkey, part in frame.groupby(keys, observed=True, sort=True):
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        out.append((", ".join(_label(k, v) for k, v in zip(keys, gkey)), part))
    return out


def _by_of(frame, known):
    return [c for c in frame.columns if c not in known]


def _fit_title(ax, fontsize=None):
    """Wrap the title of ``ax`` onto more lines when it is wider than the panel (the figure's
    constrained layout then makes room for it), so that no title runs into its neighbour or off the
    figure. Every title a helper set in the figure is fitted again, to the panels as the layout
    places them now (a later panel can narrow an earlier one)."""
    title = ax.title
    if fontsize is not None:
        title.set_fontsize(fontsize)
    ax._simkit_title = " ".join(title.get_text().split())
    fig = ax.figure
    # a helper's title as it set it (wrapped or not); a title set afterwards by the user is left alone
    fitted = [
        a
        for a in fig.axes
        if getattr(a, "_simkit_title", "") and " ".join(a.title.get_text().split()) == a._simkit_title
    ]
    for a in fitted:  # the panels' widths without the titles: a title that overflows widens the margins
        a.title.set_text("")
    engine = fig.get_layout_engine()
    if engine is not None:  # measure the panels where the layout puts them, not where they were created
        engine.execute(fig)
    try:
        renderer = fig.canvas.get_renderer()  # Agg canvases (the default, Jupyter's inline backend)
    except AttributeError:  # other canvases: the renderer matplotlib's own layouts use
        renderer = fig._get_renderer()
    for a in fitted:
        _wrap_title(a, a._simkit_title, renderer)


def _wrap_title(ax, text, renderer):
    title = ax.title
    title.set_text(text)
    room = ax.get_window_extent(renderer).width
    width = title.get_window_extent(renderer).width
    if width <= 0.95 * room:
        return
    lines = math.ceil(width / (0.9 * room))  # balanced lines, each well inside the panel
    chars = max(12, min(math.ceil(len(text) / lines) + 4, int(len(text) * 0.9 * room / width)))
    title.set_text(textwrap.fill(text, chars, break_on_hyphens=False))


def _dist_groups(part, keys, groups):
    """The groups of one measure's distribution: ``[(label, rows)]``, restricted to ``groups``
    (labels, in that order) when given."""
    found = _group_labels(part, keys)
    if groups is None:
        return found
    labels = [label for label, _ in found]
    wanted = [str(g) for g in groups]
    missing = [g for g in wanted if g not in labels]
    if missing:
        raise InputValueError(
            f"no group {', '.join(repr(m) for m in missing)} in the distribution (its groups: "
            f"{', '.join(repr(lbl) for lbl in labels) or 'none'})"
        )
    return [found[labels.index(g)] for g in wanted]


def plot_tai_distribution(dist, measure=None, ax=None, max_value=None, kind="share", groups=None):
    """The value of a win per group (:func:`tai_distribution`): shares, their difference, or the CDF.

    Parameters
    ----------
    dist : DataFrame
        :func:`tai_distribution`'s result (any ``by``: one series per group).
    measure : str, optional
        Which measure (default the first in ``dist``).
    ax : matplotlib Axes, optional
    max_value : number, optional
        Values above it are left out of the plot (not of the shares).
    kind : ``"share"``, ``"difference"`` or ``"cdf"``
        ``"share"`` (default): bars of the share of wins per value, 95% Wilson intervals as error
        bars. ``"difference"``: two groups whose distributions differ by a few percent, as the share
        of group A minus the share of group B per value with its 95% Newcombe interval (the
        difference of two independent Wilson intervals, method 10 of Newcombe 1998) and a zero
        line; a value that occurs in one group only counts 0 in the other. ``"cdf"``: the cumulative
        share of wins up to each value, one step line per group with its pointwise 95% Wilson band
        (a shift of the whole distribution shows as one curve lying right of the other).
    groups : list of str, optional
        The groups to draw, by legend label (``"dealer"``, ``"greedy, dealer"``, ``"player 0"``),
        in this order; ``kind="difference"`` needs exactly two: A, B (default the two groups of
        ``dist``, in its order).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    SimkitError
        An unknown ``measure``, ``kind`` or group; ``kind="difference"`` without exactly two groups.
    """

    if kind not in ("share", "difference", "cdf"):
        raise InputValueError(f"kind must be 'share', 'difference' or 'cdf', got {kind!r}")
    measures = list(dict.fromkeys(dist["measure"]))
    if measure is None:
        measure = measures[0] if measures else "value"
    elif measure not in measures and len(dist):
        raise InputValueError(f"measure {measure!r} is not in the distribution ({', '.join(measures)})")
    whole = dist[dist["measure"] == measure]
    keys = _by_of(whole, {"measure", "value", "count", "wins", "share", "share_low", "share_high"})
    found = _dist_groups(whole, keys, groups)
    if kind == "difference" and len(found) != 2:
        raise InputValueError(
            f"kind='difference' compares two groups; the distribution has {len(found)} "
            f"({', '.join(repr(lbl) for lbl, _ in found) or 'none'}): group it by a key with two values "
            "(by='role') or pick two with groups=[a, b]"
        )
    ax = _axes(ax)
    name = measure.replace("_", " ")
    wins = int(sum(int(g["wins"].iloc[0]) for _, g in found if len(g)))
    keep = (lambda v: v <= max_value) if max_value is not None else (lambda v: np.ones(len(v), bool))
    if kind == "share":
        width = 0.8 / max(len(found), 1)
        for i, (label, g) in enumerate(found):
            g = g[keep(g["value"].to_numpy())]
            x = g["value"].to_numpy(np.float64) + (i - (len(found) - 1) / 2) * width
            share = g["share"].to_numpy()
            err = np.vstack([share - g["share_low"].to_numpy(), g["share_high"].to_numpy() - share])
            ax.bar(x, share, width=width, yerr=err, capsize=2, label=label or None, error_kw={"elinewidth": 0.8})
        ax.set_ylabel("share of wins")
        ax.set_title(f"{name} per win ({wins:,} wins; 95% Wilson intervals)")
    elif kind == "difference":
        (la, a), (lb, b) = found
        values = np.union1d(a["value"].to_numpy(), b["value"].to_numpy())
        na, nb = int(a["wins"].iloc[0]), int(b["wins"].iloc[0])
        ka = a.set_index("value")["count"].reindex(values, fill_value=0).to_numpy()
        kb = b.set_index("value")["count"].reindex(values, fill_value=0).to_numpy()
        rows = []
        for x, i, j in zip(values, ka, kb):
            (la_, ua), (lb_, ub) = wilson_interval(int(i), na), wilson_interval(int(j), nb)
            pa, pb = i / na, j / nb
            d = pa - pb
            rows.append((x, d, d - np.hypot(pa - la_, ub - pb), d + np.hypot(ua - pa, pb - lb_)))
        r = np.array(rows, np.float64).reshape(-1, 4)
        r = r[keep(r[:, 0])]
        ax.errorbar(
            r[:, 0],
            r[:, 1],
            yerr=np.vstack([r[:, 1] - r[:, 2], r[:, 3] - r[:, 1]]),
            fmt="o",
            ms=4,
            capsize=2,
            elinewidth=0.8,
        )
        ax.axhline(0, color="0.4", linewidth=0.8)
        ax.set_ylabel(f"share of wins: {la} - {lb}")
        ax.set_title(f"{name} per win, {la} ({na:,} wins) - {lb} ({nb:,} wins); 95% Newcombe intervals")
    else:
        for label, g in found:
            g = g.sort_values("value")
            n = int(g["wins"].iloc[0]) if len(g) else 0
            cum = np.cumsum(g["count"].to_numpy())
            bounds = np.array([wilson_interval(int(k), n) for k in cum], np.float64).reshape(-1, 2)
            x = g["value"].to_numpy(np.float64)
            shown = keep(x)
            x, cum, bounds = x[shown], cum[shown], bounds[shown]
            if not len(x):
                continue
            line = ax.step(x, cum / n, where="post", label=label or None)[0]
            ax.fill_between(x, bounds[:, 0], bounds[:, 1], step="post", alpha=0.2, color=line.get_color(), lw=0)
        ax.set_ylabel("share of wins up to the value")
        ax.set_title(f"{name} per win, cumulative ({wins:,} wins; 95% Wilson bands)")
    ax.set_xlabel(name)
    if keys and kind != "difference" and found:
        ax.legend()
    _fit_title(ax)
    return ax


def plot_item_frequencies(freq, per="win", top=15, ax=None):
    """Horizontal bars of :func:`item_frequencies`: the ``top`` items by count, rate per win or per hand,
    with 95% Wilson intervals (one bar series per group when ``by`` was given).

    Returns
    -------
    matplotlib Axes
    """
    if per not in ("win", "hand"):
        raise InputValueError(f"per must be 'win' or 'hand', got {per!r}")
    known = {"item", "hands", "wins", "count", "mean_value", "value_per_hand"} | {
        f"per_{p}{s}" for p in ("hand", "win") for s in ("", "_low", "_high")
    }
    keys = _by_of(freq, known)
    totals = freq.groupby("item", sort=False)["count"].sum().sort_values(ascending=False, kind="stable")
    items = [i for i in totals.index[:top] if totals[i] > 0][::-1]
    ax = _axes(ax, figsize=(7, 0.3 * len(items) + 1.2))
    groups = _group_labels(freq[freq["item"].isin(items)], keys)
    height = 0.8 / max(len(groups), 1)
    col = f"per_{per}"
    for i, (label, g) in enumerate(groups):
        g = g.set_index("item").reindex(items)
        y = np.arange(len(items)) + (i - (len(groups) - 1) / 2) * height
        v = g[col].fillna(0).to_numpy()
        err = np.vstack([v - g[f"{col}_low"].fillna(0).to_numpy(), g[f"{col}_high"].fillna(0).to_numpy() - v])
        ax.barh(y, v, height=height, xerr=err, capsize=2, label=label or None, error_kw={"elinewidth": 0.8})
    ax.set_yticks(np.arange(len(items)), [i.replace("_", " ") for i in items])
    ax.set_xlabel(f"share of {'wins' if per == 'win' else 'hands'} scoring the item")
    ax.set_title(f"scoring items per {per} (95% Wilson intervals)" + ("" if items else ": none scored"))
    if keys and items:
        ax.legend()
    _fit_title(ax)
    return ax


def plot_expected_payment(ep, x=None, ax=None, per="hand"):
    """Means of :func:`expected_payment` with their clustered 95% intervals, one point per group.

    The y axis follows the intervals: a rate or a payment is not stretched down to 0 (which would
    flatten the differences); a zero line is drawn for a player's ``result`` (its sign is the
    point) and wherever the intervals reach across 0.

    Parameters
    ----------
    ep : DataFrame
        :func:`expected_payment`'s result.
    x : str, optional
        The key on the x axis (default the last ``by`` key); other keys make separate series,
        labelled by their values (``greedy, dealer``; a number with its key: ``player 0``).
    per : "hand" or "match"

    Returns
    -------
    matplotlib Axes
    """
    if per not in ("hand", "match"):
        raise InputValueError(f"per must be 'hand' or 'match', got {per!r}")
    known = {"value", "hands", "matches", "mean", "low", "high", "per_match", "per_match_low", "per_match_high"}
    m, lo, hi = ("mean", "low", "high") if per == "hand" else ("per_match", "per_match_low", "per_match_high")
    value = ep["value"].iloc[0] if len(ep) else ""
    ax = _plot_means(ep, _by_of(ep, known), x, m, lo, hi, ax, zero=value == "result")
    what = "win rate" if value == "won" else str(value).replace("_", " ")
    ax.set_ylabel(f"{what} per {per}" if value == "won" else f"mean {what} per {per}")
    ax.set_title(f"{what} per {per} (95% intervals clustered by match)")
    _fit_title(ax)
    return ax


def plot_deal_value(dv, x="streak", ax=None):
    """The value of the deal (:func:`deal_value`): the dealer's mean result over the rest of the
    tenure from each streak, with its 95% interval clustered by match, one series per ``by`` group
    (labelled by its values), and a zero line.

    Parameters
    ----------
    dv : DataFrame
        :func:`deal_value`'s result.
    x : str
        The key on the x axis (default ``streak``).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    known = {"tenures", "matches", "hands_left", "mean", "low", "high"}
    ax = _plot_means(dv, _by_of(dv, known), x, "mean", "low", "high", ax, zero=True)
    ax.set_ylabel("dealer's result, rest of the tenure")
    ax.set_title("value of holding the deal from each streak until it passes (95% intervals clustered by match)")
    _fit_title(ax)
    return ax


def _plot_means(table, keys, x, m, lo, hi, ax, zero):
    """Points with error bars of ``table[m]`` in ``[lo, hi]``: ``x`` on the x axis, one series per
    value of the other keys; a zero line when ``zero`` or when the intervals reach across 0."""
    ax = _axes(ax)
    if not len(table):
        pass
    elif not keys:
        ax.errorbar([0], table[m], yerr=[table[m] - table[lo], table[hi] - table[m]], fmt="o", capsize=4)
        ax.set_xticks([0], ["all hands"])
    else:
        x = keys[-1] if x is None else x
        if x not in keys:
            raise InputValueError(f"x={x!r} is not a key of the table ({', '.join(keys)})")
        rest = [k for k in keys if k != x]
        cats = list(dict.fromkeys(table[x].tolist()))
        numeric = all(isinstance(c, (int, float, np.integer, np.floating)) for c in cats)
        groups = _group_labels(table, rest)
        for i, (label, g) in enumerate(groups):
            pos = g[x].to_numpy(np.float64) if numeric else np.array([cats.index(c) for c in g[x]], np.float64)
            pos = pos + (i - (len(groups) - 1) / 2) * 0.1
            mean = g[m].to_numpy()
            ax.errorbar(
                pos,
                mean,
                yerr=[mean - g[lo].to_numpy(), g[hi].to_numpy() - mean],
                fmt="o-" if numeric else "o",
                capsize=3,
                label=label or None,
            )
        if not numeric:
            ax.set_xticks(range(len(cats)), [str(c) for c in cats])
        ax.set_xlabel(x.replace("_", " "))
        if rest:
            ax.legend()
    low, high = ax.get_ylim()
    if zero or low <= 0 <= high:
        ax.axhline(0, color="0.6", linewidth=0.8)
    return ax


def plot_comparison(cmp, axes=None, bins=60):
    """Two panels for a :class:`Comparison`: the paired differences per deal (histogram; deals with
    the same dealer seat on both sides apart), and ``a - b`` per hand with its paired and unpaired
    95% intervals, the variance reduction (unpaired / paired variance) in the title; a comparison
    with ``correct_luck`` says so in the first panel's title and the paired estimate's label.

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
    h.hist(
        [d[same], d[~same]],
        bins=edges,
        stacked=True,
        color=["C0", "C7"],
        label=[f"same dealer seat ({same.sum():,})", f"other dealer seat ({(~same).sum():,})"],
    )
    h.axvline(0, color="0.3", linewidth=0.8)
    a, b = ("run a", "run b") if cmp.across_runs else (cmp.a, cmp.b)
    unit = "points" if cmp.value in ("result", "points") or cmp.value.startswith("result_") else cmp.value
    h.set_xlabel(f"{a} - {b} per deal ({unit}{'' if cmp.across_runs else ', mean of both copies'})")
    h.set_ylabel("deals")
    h.set_yscale("log")
    h.set_title("paired difference per deal" + (", luck corrected" if cmp.luck_corrected else ""), fontsize=10)
    _fit_title(h)
    h.legend(fontsize=8)
    paired = "paired,\nluck corrected" if cmp.luck_corrected else "paired"
    estimates = [(paired, cmp.per_hand, "C0"), ("unpaired", cmp.per_hand_unpaired, "C7")]
    for i, (_, est, color) in enumerate(estimates):
        e.errorbar([i], [est[0]], yerr=[[est[0] - est[1]], [est[2] - est[0]]], fmt="o", capsize=6, color=color)
    low, high = e.get_ylim()
    if low <= 0 <= high:  # zero inside the intervals' range; otherwise it would squash them to a dot
        e.axhline(0, color="0.6", linewidth=0.8)
    e.set_xticks(range(len(estimates)), [lbl for lbl, _, _ in estimates])
    e.set_xlim(-0.6, len(estimates) - 0.4)
    e.set_ylabel(f"{a} - {b} per hand ({unit})")
    e.set_title(f"95% intervals; variance reduction {cmp.per_hand_variance_reduction:.2f}x", fontsize=10)
    _fit_title(e)
    return axes
