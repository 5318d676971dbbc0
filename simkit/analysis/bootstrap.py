"""The match bootstrap: a percentile interval for a per-row mean, resampling whole matches.

The clustered interval of :func:`~simkit.analysis.intervals.clustered_mean` is a normal
approximation; with few matches and heavy-tailed match totals it is too narrow. The bootstrap
here resamples the clusters (matches, both copies of a duplicate match together) with
replacement, recomputes the ratio estimator ``sum(sums) / sum(counts)`` on each resample, and
takes the 2.5% and 97.5% quantiles of those (the *percentile* bootstrap, not BCa). The resamples
come from ``numpy.random.default_rng(seed)``, so a seed gives the same interval.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputValueError, check_int, show

__all__ = ["match_bootstrap", "BOOTSTRAP_RESAMPLES", "MAX_RESAMPLES"]

BOOTSTRAP_RESAMPLES = 2000  #: resamples of :func:`match_bootstrap` by default
MIN_RESAMPLES = 100  #: fewer resamples cannot place a 2.5% quantile
MAX_RESAMPLES = 1_000_000  #: the most resamples taken
_CHUNK = 4_000_000  #: resample weights held at once (resamples x clusters)


def _clusters_of(sums, counts, label) -> tuple[np.ndarray, np.ndarray]:
    try:
        sums = np.asarray(sums, np.float64)
        counts = np.asarray(counts, np.float64)
    except (TypeError, ValueError):
        raise InputValueError(f"{label}: sums and counts are arrays of numbers, got {show(sums)}") from None
    if sums.ndim != 1 or sums.shape != counts.shape:
        raise InputValueError(
            f"{label}: sums and counts are 1-D arrays of one length (one entry per match), got shapes "
            f"{sums.shape} and {counts.shape}"
        )
    if not (np.isfinite(sums).all() and np.isfinite(counts).all()) or (len(counts) and counts.min() < 1):
        raise InputValueError(f"{label}: sums must be finite and counts at least 1")
    return sums, counts


def match_bootstrap(sums, counts, *, minus=None, resamples=BOOTSTRAP_RESAMPLES, seed=0, level=0.95):
    """Percentile bootstrap interval of ``sum(sums) / sum(counts)``, resampling matches.

    Parameters
    ----------
    sums, counts : array of float, shape (G,)
        Per match: the sum of the values of its rows and its number of rows (counts all 1 for a
        mean per match).
    minus : (sums, counts), optional
        A second ratio over the same G matches, subtracted on every resample (two runs paired by
        match: their per-row means' difference).
    resamples : int
        Bootstrap resamples (100 to 1,000,000; default 2,000).
    seed : int
        Seed of ``numpy.random.default_rng`` drawing the resamples.
    level : float
        Coverage of the interval, strictly between 0 and 1 (default 0.95).

    Returns
    -------
    (estimate, low, high)
        The estimate on the data, and the quantiles ``(1 - level) / 2`` and ``(1 + level) / 2`` of
        the resampled estimates; ``(estimate, nan, nan)`` with fewer than two matches.
    """
    sums, counts = _clusters_of(sums, counts, "match_bootstrap")
    if minus is not None:
        if not isinstance(minus, tuple) or len(minus) != 2:
            raise InputValueError(f"minus is a (sums, counts) pair, got {show(minus)}")
        sums_b, counts_b = _clusters_of(*minus, "match_bootstrap minus")
        if len(sums_b) != len(sums):
            raise InputValueError(f"minus has {len(sums_b)} matches, the data {len(sums)}: pair them by match")
    resamples = check_int(resamples, "resamples", MIN_RESAMPLES, MAX_RESAMPLES)
    seed = check_int(seed, "seed", 0, 2**63 - 1)
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise InputValueError(f"level is a number strictly between 0 and 1, got {show(level)}")
    g = len(sums)
    if g == 0:
        raise InputValueError("match_bootstrap needs at least one match")

    def ratio(weights, s, c):
        return (weights @ s) / (weights @ c)

    ones = np.ones((1, g))
    estimate = ratio(ones, sums, counts)[0] - (ratio(ones, sums_b, counts_b)[0] if minus is not None else 0.0)
    if g < 2:
        return float(estimate), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    p = np.full(g, 1.0 / g)
    out = np.empty(resamples)
    step = max(1, _CHUNK // g)
    for start in range(0, resamples, step):
        k = min(step, resamples - start)
        w = rng.multinomial(g, p, size=k).astype(np.float64)  # times each match is drawn
        stat = ratio(w, sums, counts)
        if minus is not None:
            stat -= ratio(w, sums_b, counts_b)
        out[start : start + k] = stat
    low, high = np.quantile(out, [(1 - level) / 2, (1 + level) / 2])
    return float(estimate), float(low), float(high)
