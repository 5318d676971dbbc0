"""95% intervals of the analysis layer: means per row clustered by match (the CR1 ratio estimator),
Wilson columns for shares, and the paired / unpaired interval helpers of :mod:`.comparison`.

The Wilson interval itself is :func:`simkit.stats.wilson_interval` (shared with the CLI).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputValueError, show
from ..stats import wilson_interval

_Z95 = 1.959963984540054


def clustered_mean(sums, counts) -> tuple[float, float, float]:
    """Mean per row and its 95% interval, from per-cluster sums and row counts.

    ``mean = sum(sums) / sum(counts)``; the standard error is the cluster-robust (CR1) one of the
    ratio estimator: ``sqrt(G / (G - 1) * sum((s_g - mean * n_g)^2)) / N``.

    Returns
    -------
    (mean, low, high); the interval is ``(nan, nan)`` with fewer than two clusters.
    """
    try:
        sums = np.asarray(sums, np.float64)
        counts = np.asarray(counts, np.float64)
    except (TypeError, ValueError):
        raise InputValueError(f"sums and counts are arrays of numbers, got {show(sums)} and {show(counts)}") from None
    if sums.ndim != 1 or counts.ndim != 1 or len(sums) != len(counts):
        raise InputValueError(
            f"sums and counts are 1-D arrays of one length (one entry per cluster), got shapes "
            f"{sums.shape} and {counts.shape}"
        )
    if not (np.isfinite(sums).all() and np.isfinite(counts).all()):
        raise InputValueError("sums and counts must be finite")
    if len(counts) and (counts.min() < 1 or not (counts == np.round(counts)).all()):
        raise InputValueError(
            f"counts are the rows of each cluster: whole numbers of at least 1, got {show(counts.tolist())}"
        )
    return _clustered_mean(sums, counts)


def _clustered_mean(sums: np.ndarray, counts: np.ndarray) -> tuple[float, float, float]:
    """:func:`clustered_mean` of checked float64 arrays."""
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


def _clusters(df):
    """Cluster (match) and game (match, copy) codes of every row: int64 arrays."""
    match = df["match"].to_numpy().astype(np.int64)
    if "seed" in df.columns and df["seed"].nunique() > 1:
        _, match = np.unique(np.stack([df["seed"].to_numpy(), match]), axis=1, return_inverse=True)
        match = match.reshape(-1).astype(np.int64)
    copy = df["copy"].to_numpy().astype(np.int64) if "copy" in df.columns else np.zeros(len(df), np.int64)
    return match, match * 2 + copy


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
