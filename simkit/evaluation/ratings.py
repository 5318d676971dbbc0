"""Ratings of policies from duplicate runs of pairs: one number per policy, with a bootstrap interval.

A round robin (:func:`simkit.tournament.round_robin`) gives a matrix of paired differences; a
rating puts every policy on one scale, so that a researcher reads off which is best and by how much.

**Payment ratings** (the default, ``method="payment"``) are a least-squares (Massey) fit of
``r_a - r_b`` to ``d_ab``, the mean per hand of ``a``'s result minus ``b``'s over the pair's
duplicate run, one equation per pair played, with the ratings summing to zero. In a complete round
robin the fit has a closed form: ``r_a = (1/n) sum_b d_ab`` over the ``n`` policies (``d_aa = 0``),
the mean of ``a``'s row of the matrix with its zero diagonal; with two policies ``r_a`` is
``d_ab / 2``, ``a``'s mean result against ``b`` in a zero-sum game. The unit is the rule set's
payment per hand: payments, not counts of wins, are what a policy is played for, and a fit on win
counts would rate a policy that wins many small hands above one that wins fewer, bigger ones.

**Bradley-Terry ratings** (``method="bradley_terry"``) fit the win probability of each deal instead:
a deal is won by ``a`` when its ``a - b``, the mean of its two seatings, is positive (a tie counts
half to each); ``P(a wins a deal against b) = 1 / (1 + exp(r_b - r_a))``, ratings in log-odds with
mean zero. Each pair gets half a deal won by each side as a prior, so that a policy that wins no
deal keeps a finite rating. The scale says how often, not how much.

**Intervals** are 95% percentile bootstrap intervals by match, the unit the duplicate design pairs:
every pair of a round robin plays the same deals (the same seed and matches), so each replicate
draws the match indices once, with replacement, and uses them for every pair; this keeps the
correlation between pairs that share deals, which a resampling of each pair on its own would
break. A replicate's ``d_ab`` is the ratio estimate ``sum(totals) / sum(hands)`` over its matches,
as :func:`simkit.analysis.compare` computes ``d_ab`` itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..analysis.comparison import Comparison, compare
from ..errors import InputTypeError, InputValueError, check_int, show

__all__ = ["ratings", "pair_matches", "plot_ratings", "RATING_METHODS"]

RATING_METHODS = ("payment", "bradley_terry")  #: the rating models of :func:`ratings`
_PAIR_COLUMNS = ("a", "b", "match", "hands", "total")
_BT_PRIOR = 0.5  #: deals won by each side of a pair before any is played (Bradley-Terry)
_BT_ITERATIONS = 500  #: MM iterations of the Bradley-Terry fit at most
_LEVEL = 0.95


def pair_matches(comparisons) -> object:
    """Each pair's duplicate run as one row per match, the input of :func:`ratings`.

    Parameters
    ----------
    comparisons : sequence of Comparison or path
        :func:`simkit.analysis.compare` of each pair's ``--duplicate`` run (a run directory is
        compared without luck correction).

    Returns
    -------
    DataFrame
        ``a``, ``b`` (the pair's policies), ``match`` (with ``seed`` when the runs have several),
        ``hands`` (the match's rows in both copies), ``total`` (``a - b`` summed over them), and
        ``a_deals``, ``b_deals`` (deals of the match won by each, on the mean of both seatings;
        a tie counts half to each).
    """
    import pandas as pd

    if isinstance(comparisons, (str, bytes, Path, Comparison)) or not hasattr(comparisons, "__iter__"):
        raise InputTypeError(f"comparisons must be a list of Comparison or run directories, got {show(comparisons)}")
    parts = []
    for c in comparisons:
        if not isinstance(c, Comparison):
            c = compare(c)
        if c.match_totals is None:
            raise InputValueError(f"{c.a} vs {c.b} compares two runs: ratings need each pair's --duplicate run")
        frame = c.match_totals.copy()
        d = c.deals
        sign = np.sign(d["difference"].to_numpy())
        won = pd.DataFrame({"match": d["match"].to_numpy(), "a": (sign > 0) + 0.5 * (sign == 0)})
        won["b"] = 1.0 - won["a"]
        if "seed" in d.columns:
            won.insert(0, "seed", d["seed"].to_numpy())
        keys = ["seed", "match"] if "seed" in d.columns else ["match"]
        deals = won.groupby(keys, sort=False)[["a", "b"]].sum()
        joined = frame.join(deals, on=keys)
        frame["a_deals"] = joined["a"].fillna(0.0).to_numpy()
        frame["b_deals"] = joined["b"].fillna(0.0).to_numpy()
        frame.insert(0, "b", c.b)
        frame.insert(0, "a", c.a)
        parts.append(frame)
    if not parts:
        raise InputValueError("ratings need at least one pair, got none")
    out = pd.concat(parts, ignore_index=True)
    if out["seed"].nunique() == 1:
        out = out.drop(columns="seed")
    return out


def _design(pairs: list, policies: list) -> np.ndarray:
    """The least-squares design: one row per pair, +1 for ``a``, -1 for ``b``."""
    x = np.zeros((len(pairs), len(policies)))
    for k, (a, b) in enumerate(pairs):
        x[k, policies.index(a)] = 1.0
        x[k, policies.index(b)] = -1.0
    return x


def _bradley_terry(wins: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths (mean zero) by Hunter's MM algorithm, for each row of ``wins``.

    ``wins`` is ``(replicates, pairs, 2)``: the deals won by ``a`` and by ``b`` of each pair (the
    prior included, so every count is positive); ``x`` the design of :func:`_design`.
    """
    a_of = np.argmax(x > 0, axis=1)
    b_of = np.argmax(x < 0, axis=1)
    n_pol = x.shape[1]
    total_wins = np.zeros((wins.shape[0], n_pol))
    np.add.at(total_wins.T, a_of, wins[:, :, 0].T)
    np.add.at(total_wins.T, b_of, wins[:, :, 1].T)
    games = wins.sum(axis=2)
    p = np.ones((wins.shape[0], n_pol))
    for _ in range(_BT_ITERATIONS):
        rate = games / (p[:, a_of] + p[:, b_of])
        denominator = np.zeros_like(p)
        np.add.at(denominator.T, a_of, rate.T)
        np.add.at(denominator.T, b_of, rate.T)
        new = total_wins / denominator
        new /= np.exp(np.log(new).mean(axis=1, keepdims=True))
        done = np.max(np.abs(new - p)) < 1e-12
        p = new
        if done:
            break
    return np.log(p)


def ratings(pairs, *, method: str = "payment", n_boot: int = 1000, seed: int = 0):
    """One rating per policy from the duplicate runs of pairs, with 95% bootstrap intervals.

    The models and the bootstrap are in the module docstring: payment ratings (a least-squares
    fit of ``r_a - r_b`` to each pair's mean ``a - b`` per hand, summing to zero) or Bradley-Terry
    ratings of the deals won; intervals resample matches, the same ones for every pair.

    Parameters
    ----------
    pairs : DataFrame or sequence of Comparison or path
        :func:`pair_matches`' frame (columns ``a, b, match, hands, total``, and ``a_deals``,
        ``b_deals`` for Bradley-Terry), or what it takes. The pairs must connect every policy.
    method : {"payment", "bradley_terry"}
    n_boot : int
        Bootstrap replicates.
    seed : int
        Seed of the bootstrap: the same seed gives the same intervals.

    Returns
    -------
    DataFrame
        ``policy``, ``rating``, ``low``, ``high``, ``rank`` (1 the best), best first;
        ``attrs``: ``method``, ``scale`` (what a rating is counted in), ``n_boot``, ``seed``,
        ``matches``.
    """
    import pandas as pd

    if method not in RATING_METHODS:
        raise InputValueError(f"method must be one of {', '.join(RATING_METHODS)}, got {show(method)}")
    n_boot = check_int(n_boot, "n_boot", 1, 10**6)
    seed = check_int(seed, "seed", 0, 2**63 - 1)
    if not isinstance(pairs, pd.DataFrame):
        pairs = pair_matches(pairs)
    needed = _PAIR_COLUMNS + (("a_deals", "b_deals") if method == "bradley_terry" else ())
    missing = [c for c in needed if c not in pairs.columns]
    if missing:
        raise InputValueError(
            f"the pairs' table lacks the column{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
        )
    if not len(pairs):
        raise InputValueError("ratings need at least one pair, got none")
    a_col, b_col = pairs["a"].astype(str).to_numpy(), pairs["b"].astype(str).to_numpy()
    if (a_col == b_col).any():
        raise InputValueError(f"a pair of a policy with itself: {a_col[a_col == b_col][0]!r}")
    # each unordered pair once, as (a, b) in first-seen order; a row of (b, a) enters with its sign flipped
    policies, pair_list, pair_index = [], [], {}
    for a, b in zip(a_col, b_col):
        for p in (a, b):
            if p not in policies:
                policies.append(p)
        if (a, b) not in pair_index and (b, a) not in pair_index:
            pair_index[(a, b)] = len(pair_list)
            pair_list.append((a, b))
    flip = np.array([(a, b) not in pair_index for a, b in zip(a_col, b_col)])
    k = np.array([pair_index[(b, a) if f else (a, b)] for a, b, f in zip(a_col, b_col, flip)], np.int64)
    x = _design(pair_list, policies)
    if np.linalg.matrix_rank(x) < len(policies) - 1:
        raise InputValueError(f"the pairs do not connect all the policies {policies}: no common scale")
    key_cols = ["seed", "match"] if "seed" in pairs.columns else ["match"]
    keys = pd.MultiIndex.from_frame(pairs[key_cols])
    codes, uniques = pd.factorize(keys)
    n_matches = len(uniques)
    if n_matches < 2:
        raise InputValueError(f"a bootstrap by match needs two or more matches, got {n_matches}")
    # per pair and match: its sums (pairs x matches); a match a pair did not play adds nothing
    shape = (len(pair_list), n_matches)
    hands = np.zeros(shape)
    np.add.at(hands, (k, codes), pairs["hands"].to_numpy(np.float64))
    if method == "payment":
        sign = np.where(flip, -1.0, 1.0)
        totals = np.zeros(shape)
        np.add.at(totals, (k, codes), sign * pairs["total"].to_numpy(np.float64))
        if (hands.sum(axis=1) == 0).any():
            raise InputValueError("a pair without hands: nothing to rate it by")
        projection = np.linalg.pinv(x)  # the minimum-norm least-squares solution sums to zero

        def fit(weights):  # weights: (replicates, matches) -> ratings (replicates, policies)
            with np.errstate(invalid="ignore"):  # a replicate without a pair's matches: NaN, left out
                d = (weights @ totals.T) / (weights @ hands.T)
            return d @ projection.T

        scale = "payment per hand"
    else:
        deals = np.zeros(shape + (2,))
        won_a = np.where(flip, pairs["b_deals"].to_numpy(np.float64), pairs["a_deals"].to_numpy(np.float64))
        won_b = np.where(flip, pairs["a_deals"].to_numpy(np.float64), pairs["b_deals"].to_numpy(np.float64))
        np.add.at(deals[:, :, 0], (k, codes), won_a)
        np.add.at(deals[:, :, 1], (k, codes), won_b)

        def fit(weights):
            wins = np.einsum("rm,pmj->rpj", weights, deals) + _BT_PRIOR
            return _bradley_terry(wins, x)

        scale = "log-odds of winning a deal"
    rating = fit(np.ones((1, n_matches)))[0]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_matches, size=(n_boot, n_matches))
    weights = np.zeros((n_boot, n_matches))
    np.add.at(weights, (np.repeat(np.arange(n_boot), n_matches), draws.ravel()), 1.0)
    boot = fit(weights)
    tail = (1 - _LEVEL) / 2 * 100
    low, high = np.nanpercentile(boot, [tail, 100 - tail], axis=0)
    out = pd.DataFrame({"policy": policies, "rating": rating, "low": low, "high": high})
    out = out.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    out["rank"] = np.arange(1, len(out) + 1)
    out.attrs.update(method=method, scale=scale, n_boot=n_boot, seed=seed, matches=n_matches)
    return out


def plot_ratings(table, axes=None, *, units: Mapping | None = None):
    """Ratings with their intervals, one panel per rule set: a dot per policy, best at the top.

    Parameters
    ----------
    table : DataFrame or Tournament
        :func:`ratings`' frame, with a ``rules`` column for several rule sets
        (:meth:`simkit.tournament.Tournament.ratings`), or a tournament (its default ratings).
    axes : sequence of matplotlib Axes, optional
        One per rule set; default a new figure.
    units : mapping, optional
        Rule set -> axis label (default ``table.attrs["units"]``, else the rating's scale).

    Returns
    -------
    array of Axes
    """
    import matplotlib.pyplot as plt

    if callable(getattr(table, "ratings", None)):  # a Tournament: its default ratings
        table = table.ratings()
    missing = [c for c in ("policy", "rating", "low", "high") if c not in getattr(table, "columns", ())]
    if missing:
        raise InputValueError(f"plot_ratings takes a table of ratings; it lacks {', '.join(missing)}")
    groups = list(table.groupby("rules", sort=False)) if "rules" in table.columns else [("", table)]
    units = dict(units if units is not None else table.attrs.get("units", {}))
    if axes is None:
        n = len(groups)
        height = max(1.8, 0.55 * max(len(g) for _, g in groups) + 1.0)
        fig, axes = plt.subplots(1, n, figsize=(4.2 * n, height), squeeze=False, layout="constrained")
        axes = axes.ravel()
    axes = np.atleast_1d(axes)
    for ax, (rules, g) in zip(axes, groups):
        g = g.sort_values("rating", kind="stable")
        y = np.arange(len(g))
        rating = g["rating"].to_numpy(float)
        err = np.vstack([rating - g["low"].to_numpy(float), g["high"].to_numpy(float) - rating])
        ax.errorbar(rating, y, xerr=err, fmt="o", color="C0", ecolor="C0", capsize=3)
        ax.axvline(0.0, color="0.6", lw=0.8, zorder=0)
        for yi, (r, lo, hi) in enumerate(zip(rating, g["low"].to_numpy(float), g["high"].to_numpy(float))):
            ax.annotate(
                f"{r:+.3g} [{lo:+.3g}, {hi:+.3g}]",
                (r, yi),
                xytext=(0, 7),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=8,
            )
        ax.set_yticks(y, g["policy"].astype(str))
        ax.set_ylim(-0.5, len(g) - 0.2)
        ax.margins(x=0.25)
        ax.set_xlabel(units.get(rules, table.attrs.get("scale", "rating")))
        if rules:
            ax.set_title(str(rules), fontsize=10)
    return axes
