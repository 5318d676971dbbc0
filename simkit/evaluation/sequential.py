"""Sequential decisions: play duplicate matches block by block until it is clear whether one policy
beats another by a margin.

:func:`decide` grows one duplicate run (:func:`simkit.simulate` with ``duplicate=True``) a block of
matches at a time -- block ``k`` plays matches ``[k * block, (k + 1) * block)`` of one seed, so the
whole sequence is the first chunks of an ordinary run, the same on any worker count -- and after
each block looks at the paired ``a - b`` per hand, luck-corrected (:func:`simkit.analysis.compare`
with ``correct_luck``), through an **anytime-valid confidence sequence**: intervals ``C_t`` for the
true difference per hand ``theta`` such that the chance that *any* of them, at any number of
matches ``t``, misses ``theta`` is at most ``alpha``. Looking after every block and stopping when
the answer is clear therefore costs no validity, unlike repeated fixed-sample tests.

The sequence is the asymptotic confidence sequence of Waudby-Smith, Arnold, Wu and Ramdas
("Time-uniform central limit theory and asymptotic confidence sequences", Annals of Statistics,
2024): Robbins' two-sided normal-mixture boundary on the running mean with the variance estimated,

    C_t = theta_t +- sigma_t * sqrt(2 (t rho^2 + 1) / (t^2 rho^2) * log(sqrt(t rho^2 + 1) / alpha)),

where ``t`` counts matches, ``theta_t`` is the mean per hand (the matches' total ``a - b`` over
their hands, a ratio), ``sigma_t`` the standard deviation of a match's linearised contribution
``(total_i - theta_t * hands_i) / mean hands`` (the cluster-robust standard error of
:func:`simkit.analysis.compare` times ``sqrt(t)``), and ``rho`` tunes the boundary to be tightest
at :func:`tuned_at` matches (any ``rho`` is valid). The unit of observation is the **match** (both
seatings of its deals): hands within a match are dependent, matches are independent.

The decision, for ``H0: theta <= margin`` against ``H1: theta > margin``: ``"a_better"`` as soon as
``C_t`` lies above the margin, ``"not_a_better"`` as soon as it lies below, ``"undecided"`` at
``max_matches``. A wrong decision needs ``C_t`` to miss ``theta`` at some look, so the probability
of either error is at most ``alpha`` -- asymptotically: the boundary is exact for Gaussian
observations of known variance and the CLT carries it over (with the variance estimated, and the
luck correction's table refitted on the matches so far at every look, whose effect on the running
mean vanishes as the table settles). For ``theta`` different from the margin the width shrinks
like ``sqrt(log t / t)``, so the test decides with probability one given matches enough.
"""

from __future__ import annotations

import math
import shutil
import statistics
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow.compute as pc

from ..analysis.comparison import compare
from ..analysis.loading import load
from ..errors import InputTypeError, InputValueError, check_flag, check_int, show
from ..paths import check_run_directory
from ..policies.spec import as_policy
from ..progress import progress_bar
from ..rules import resolve_rules
from ..runs.simulation import MAX_MATCHES, simulate

__all__ = [
    "decide",
    "Decision",
    "confidence_sequence",
    "boundary",
    "tuned_at",
    "fixed_sample_matches",
    "DECISIONS",
]

#: The decisions: ``a`` beats ``b`` by more than the margin, it does not, or no decision within ``max_matches``.
DECISIONS = ("a_better", "not_a_better", "undecided")
_Z = statistics.NormalDist()


def boundary(t, alpha: float = 0.05, tuned: float = 100.0):
    """The normal-mixture boundary of the mean of ``t`` observations of unit variance.

    ``sqrt(2 (t rho^2 + 1) / (t^2 rho^2) * log(sqrt(t rho^2 + 1) / alpha))``: for i.i.d. standard
    normal observations the running mean crosses ``+- boundary(t)`` at some ``t`` with probability
    at most ``alpha`` (Ville's inequality on Robbins' normal-mixture martingale). ``rho`` makes it
    tightest at ``tuned`` observations (Waudby-Smith et al., 2024).

    Parameters
    ----------
    t : int or array of int
        Observations so far (at least 1).
    alpha : float
        The probability of ever crossing, in (0, 1).
    tuned : float
        Where the boundary is tightest, in observations.

    Returns
    -------
    float or float64 array, the shape of ``t``.
    """
    t = np.asarray(t, np.float64)
    lg = -2.0 * math.log(alpha)
    rho2 = (lg + math.log(lg + 1.0)) / tuned
    out = np.sqrt(2.0 * (t * rho2 + 1.0) / (t * t * rho2) * np.log(np.sqrt(t * rho2 + 1.0) / alpha))
    return float(out) if out.ndim == 0 else out


def tuned_at(block: int, max_matches: int) -> float:
    """Where :func:`decide` tunes its boundary: the geometric middle of its first and last look,
    ``sqrt(block * max_matches)`` matches (a decision is expected in between)."""
    return math.sqrt(block * max_matches)


def confidence_sequence(totals, hands=None, *, alpha: float = 0.05, tuned: float = 100.0):
    """The running estimate and asymptotic confidence sequence of a ratio of means, at every prefix.

    Observation ``i`` is a cluster (a match) with value ``totals[i]`` summed over ``hands[i]``
    units; the estimate after ``t`` observations is ``sum(totals[:t]) / sum(hands[:t])`` and its
    interval ``estimate +- sigma_t * boundary(t)``, ``sigma_t`` the sample standard deviation of
    the linearised terms ``(totals_i - estimate * hands_i) / mean(hands)`` (the delta method; with
    ``hands`` None, every observation one unit: a plain mean and its standard deviation).

    Parameters
    ----------
    totals : 1-D array of float
    hands : 1-D array of positive float, optional
    alpha : float
        The sequence misses the true ratio at some ``t`` with probability at most ``alpha``,
        asymptotically.
    tuned : float
        Observations at which the boundary is tightest (:func:`boundary`).

    Returns
    -------
    (estimate, low, high) : three float64 arrays of ``len(totals)``; ``low`` and ``high`` are nan
    for ``t < 2``.
    """
    alpha = _probability(alpha, "alpha")
    y = np.asarray(totals, np.float64)
    h = np.ones_like(y) if hands is None else np.asarray(hands, np.float64)
    if y.ndim != 1 or h.shape != y.shape:
        raise InputValueError(f"totals and hands are 1-D arrays of one length, got shapes {y.shape} and {h.shape}")
    if not (np.isfinite(y).all() and np.isfinite(h).all()) or (len(h) and h.min() <= 0):
        raise InputValueError("totals must be finite and hands finite and positive")
    if not (isinstance(tuned, (int, float, np.integer, np.floating)) and tuned > 0):
        raise InputValueError(f"tuned must be a positive number of observations, got {show(tuned)}")
    t = np.arange(1, len(y) + 1, dtype=np.float64)
    sy, sh = np.cumsum(y), np.cumsum(h)
    syy, syh, shh = np.cumsum(y * y), np.cumsum(y * h), np.cumsum(h * h)
    est = sy / sh
    # sum over i <= t of (y_i - est_t * h_i)^2, and the linearised terms' variance (ddof 1)
    ss = np.maximum(syy - 2.0 * est * syh + est * est * shh, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(ss / (t - 1.0)) / (sh / t)
    half = sd * boundary(t, alpha, float(tuned))
    half[t < 2] = np.nan
    return est, est - half, est + half


def fixed_sample_matches(difference: float, sd: float, alpha: float = 0.05, power: float = 0.9) -> float:
    """Matches a fixed-size two-sided z-test at level ``alpha`` needs to detect ``difference``
    with probability ``power``: ``((z_{1-alpha/2} + z_{power}) * sd / difference)^2``, ``sd`` the
    standard deviation of one match's contribution (in the difference's unit); inf for a zero
    difference."""
    alpha = _probability(alpha, "alpha")
    power = _probability(power, "power")
    if difference == 0 or not math.isfinite(difference) or not math.isfinite(sd):
        return float("inf")
    return ((_Z.inv_cdf(1 - alpha / 2) + _Z.inv_cdf(power)) * sd / abs(difference)) ** 2


@dataclass
class Decision:
    """What :func:`decide` decided, and on how much play.

    Attributes
    ----------
    decision : str
        ``"a_better"`` (the confidence sequence lies above the margin: ``a`` beats ``b`` by more
        than ``margin`` per hand), ``"not_a_better"`` (it lies below) or ``"undecided"``
        (``max_matches`` reached with the margin inside).
    a, b : str
        The policies (their text).
    rules : str
    matches, hands : int
        Matches played at the stop (each in both seatings) and hands in all.
    estimate, low, high : float
        ``a - b`` per hand (half of it is what ``a`` wins from ``b``; the rule set's payment unit:
        points or stakes per hand) and the confidence sequence at the stop.
    margin, alpha, power : float
        ``margin`` per hand, in the same unit; the probability of a wrong decision is at most
        ``alpha``; ``power`` is that of the fixed-size comparison.
    sd : float
        Standard deviation of one match's contribution to the per-hand estimate, at the stop.
    fixed_matches : float
        Matches a fixed-size two-sided z-test at ``alpha`` needs for ``power`` against the
        observed ``estimate - margin`` with ``sd`` (:func:`fixed_sample_matches`); inf if they are equal.
    method : str
    trace : DataFrame
        One row per look: ``matches``, ``hands``, ``estimate``, ``low``, ``high`` and ``sd`` (of one
        match's contribution: the fixed-sample interval is ``estimate +- z * sd / sqrt(matches)``).
    seed, block, max_matches : int
    luck_corrected : bool
    seconds : float
        Wall time.
    run : str or None
        The run directory kept (``out``), else None.
    """

    decision: str
    a: str
    b: str
    rules: str
    matches: int
    hands: int
    estimate: float
    low: float
    high: float
    margin: float
    alpha: float
    power: float
    sd: float
    fixed_matches: float
    method: str
    trace: object = field(repr=False, default=None)
    seed: int = 0
    block: int = 0
    max_matches: int = 0
    luck_corrected: bool = True
    seconds: float = 0.0
    run: str | None = None

    def __str__(self) -> str:
        verdict = {
            "a_better": f"{self.a} beats {self.b} by more than {self.margin:g} per hand",
            "not_a_better": f"{self.a} does not beat {self.b} by {self.margin:g} per hand",
            "undecided": f"undecided after {self.max_matches:,} matches: the margin {self.margin:g} is inside the interval",
        }[self.decision]
        if math.isfinite(self.fixed_matches):
            n = math.ceil(self.fixed_matches)
            fixed = f"{n:,} match{'es' if n != 1 else ''}"
        else:
            fixed = "no finite number of matches"
        luck = ", luck-corrected" if self.luck_corrected else ""
        return "\n".join(
            [
                f"{verdict} ({self.rules})",
                f"  {self.a} - {self.b} per hand: {self.estimate:+.2f}, {100 * (1 - self.alpha):g}% confidence "
                f"sequence [{self.low:+.2f}, {self.high:+.2f}]{luck}",
                f"  stopped after {self.matches:,} matches x 2 seatings, {self.hands:,} hands "
                f"(looks every {self.block:,} matches, seed {self.seed})",
                f"  a fixed-size z-test at alpha {self.alpha:g} needs {fixed} for power "
                f"{self.power:g} against this difference",
                f"  method: {self.method}",
            ]
        )

    def to_dict(self) -> dict:
        """The decision as plain JSON-ready values (the trace as a list of rows)."""
        trace = [] if self.trace is None else self.trace.to_dict(orient="records")
        fixed = self.fixed_matches if math.isfinite(self.fixed_matches) else None
        return {
            "decision": self.decision,
            "a": self.a,
            "b": self.b,
            "rules": self.rules,
            "matches": self.matches,
            "hands": self.hands,
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "margin": self.margin,
            "alpha": self.alpha,
            "power": self.power,
            "sd": self.sd,
            "fixed_matches": fixed,
            "method": self.method,
            "seed": self.seed,
            "block": self.block,
            "max_matches": self.max_matches,
            "luck_corrected": self.luck_corrected,
            "seconds": self.seconds,
            "trace": trace,
        }

    def plot(self, ax=None, legend: bool = True):
        """The confidence sequence narrowing look by look (a band, and a bar at each look), the
        margin, the stop and the fixed-size number of matches: a matplotlib Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 4))
        tr = self.trace
        t = tr["matches"].to_numpy()
        ax.fill_between(t, tr["low"], tr["high"], color="C0", alpha=0.2, lw=0)
        ax.errorbar(
            t,
            tr["estimate"],
            yerr=[tr["estimate"] - tr["low"], tr["high"] - tr["estimate"]],
            fmt="o-",
            ms=3,
            color="C0",
            capsize=3,
            label=f"estimate, {100 * (1 - self.alpha):g}% confidence sequence",
        )
        half = _Z.inv_cdf(1 - self.alpha / 2) * tr["sd"].to_numpy() / np.sqrt(t)
        for sign in (-1, 1):
            ax.plot(
                t,
                tr["estimate"] + sign * half,
                color="C0",
                lw=0.8,
                ls="-.",
                label=None if sign < 0 else "fixed-sample interval",
            )
        ax.axhline(self.margin, color="k", lw=1, ls="--", label=f"margin {self.margin:g}")
        ax.axvline(self.matches, color="C3", lw=1, zorder=0, label=f"stop: {self.decision} at {self.matches:,}")
        if math.isfinite(self.fixed_matches):
            n = math.ceil(self.fixed_matches)
            ax.axvline(n, color="C2", lw=1, ls=":", label=f"fixed-size z-test, power {self.power:g}: {n:,}")
        ax.set_xlabel("matches (each in both seatings)")
        ax.set_ylabel(f"{self.a} - {self.b} per hand")
        ax.set_title(f"{self.rules}: {self.a} vs {self.b}")
        ax.set_xlim(0, max(self.matches, self.fixed_matches if math.isfinite(self.fixed_matches) else 0) * 1.05)
        if legend:
            ax.legend(fontsize="small", loc="best")
        return ax


def _probability(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"{name} must be a number between 0 and 1, got {show(value)}")
    if not 0 < value < 1:
        raise InputValueError(f"{name} must be between 0 and 1 (exclusive), got {show(value)}")
    return float(value)


def _margin(value) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"margin must be a number (a - b per hand, the rule set's unit), got {show(value)}")
    if not math.isfinite(value):
        raise InputValueError(f"margin must be finite, got {show(value)}")
    return float(value)


def _look(directory, t: int, correct_luck: bool):
    """The per-match values of the first ``t`` matches of the run: ``(totals, hands)``."""
    with warnings.catch_warnings():  # the run is unfinished on purpose
        warnings.filterwarnings("ignore", message=".* is not complete", category=UserWarning)
        df = load(directory, filters=pc.field("match") < t)
    per_match = compare(df, correct_luck=correct_luck).match_totals
    return per_match["total"].to_numpy(np.float64), per_match["hands"].to_numpy(np.float64)


def decide(
    policy_a,
    policy_b,
    rules="douque",
    margin: float = 0.0,
    seed: int = 0,
    *,
    alpha: float = 0.05,
    power: float = 0.9,
    block: int = 100,
    max_matches: int = 5000,
    correct_luck: bool = True,
    out=None,
    workers: int = 1,
    progress: bool = False,
) -> Decision:
    """Whether ``policy_a`` beats ``policy_b`` by more than ``margin`` per hand: duplicate matches,
    block by block, until an anytime-valid confidence sequence decides (see the module docstring).

    Parameters
    ----------
    policy_a, policy_b
        Two different policies: anything :func:`simkit.as_policy` takes, jitted.
    rules : str or Rules
        The rule set with its options.
    margin : float
        The difference ``a - b`` per hand to beat, in the rule set's payment unit (points or
        stakes per hand; without fees, twice what ``a`` wins from ``b``). 0: whether ``a`` is better
        at all.
    seed : int
        The run's seed: the same arguments give the same decision on any worker count.
    alpha : float
        The probability of a wrong decision, at most (asymptotically).
    power : float
        The power of the fixed-size z-test the result is compared with (:attr:`Decision.fixed_matches`).
    block : int
        Matches per look (at least 2); each block is one chunk of the run.
    max_matches : int
        Matches at most; then ``"undecided"``.
    correct_luck : bool
        Remove the luck of the draw from every match (:func:`simkit.analysis.compare`): fewer
        matches for the same decision, at the price of replaying the run's draws at every look.
    out : path, optional
        Keep the run there: a new directory, or the unfinished run of an earlier call with the same
        arguments (its blocks are reused). Default a temporary directory, removed afterwards.
    workers : int
        Worker processes (:func:`simkit.simulate`).
    progress : bool
        Show the matches played and the interval.

    Returns
    -------
    Decision
    """
    import pandas as pd

    t_start = time.perf_counter()
    rules = resolve_rules(rules)
    margin = _margin(margin)
    seed = check_int(seed, "seed", 0, 2**63 - 1)
    alpha = _probability(alpha, "alpha")
    power = _probability(power, "power")
    block = check_int(block, "block", 2, MAX_MATCHES)
    max_matches = check_int(max_matches, "max_matches", 2, MAX_MATCHES)
    if max_matches < block:
        raise InputValueError(f"max_matches ({max_matches:,}) must be at least one block ({block:,})")
    correct_luck = check_flag(correct_luck, "correct_luck")
    progress = check_flag(progress, "progress")
    workers = check_int(workers, "workers", 1, 256)
    a, b = as_policy(policy_a), as_policy(policy_b)
    if a == b:
        raise InputValueError(f"policy_a and policy_b are the same policy ({a.text()}): nothing to decide")
    if out is not None:
        out = check_run_directory(out)

    tuned = tuned_at(block, max_matches)
    made = out is None
    directory = Path(tempfile.mkdtemp(prefix="simkit-decide-")) if made else Path(out)
    resume = not made and directory.is_dir() and any(directory.iterdir())
    rows, verdict = [], "undecided"
    bar = progress_bar(max_matches, unit="match", desc="decide", enabled=progress)
    try:
        t = 0
        while t < max_matches and verdict == "undecided":
            t = min(t + block, max_matches)
            simulate(
                directory,
                rules=rules,
                policies=(a, b),
                matches=max_matches,
                seed=seed,
                duplicate=True,
                chunk_matches=block,
                workers=workers,
                resume=resume,
                until=t,
            )
            resume = True
            totals, hands = _look(directory, t, correct_luck)
            est, low, high = (x[-1] for x in confidence_sequence(totals, hands, alpha=alpha, tuned=tuned))
            sd = float(np.std((totals - est * hands) / hands.mean(), ddof=1))
            rows.append((t, int(hands.sum()), est, low, high, sd))
            if low > margin:
                verdict = "a_better"
            elif high < margin:
                verdict = "not_a_better"
            bar.update(t - bar.n)
            if hasattr(bar, "set_postfix_str"):
                bar.set_postfix_str(f"{est:+.2f} [{low:+.2f}, {high:+.2f}]")
    finally:
        bar.close()
        if made:
            shutil.rmtree(directory, ignore_errors=True)
    trace = pd.DataFrame(rows, columns=["matches", "hands", "estimate", "low", "high", "sd"])
    luck = "luck-corrected " if correct_luck else ""
    return Decision(
        decision=verdict,
        a=a.text(),
        b=b.text(),
        rules=rules.name,
        matches=t,
        hands=int(hands.sum()),
        estimate=float(est),
        low=float(low),
        high=float(high),
        margin=margin,
        alpha=alpha,
        power=power,
        sd=sd,
        fixed_matches=fixed_sample_matches(est - margin, sd, alpha, power),
        method=(
            f"asymptotic confidence sequence (two-sided normal mixture, Waudby-Smith et al. 2024) on the "
            f"{luck}duplicate a - b of each match, tightest at {tuned:,.0f} matches"
        ),
        trace=trace,
        seed=seed,
        block=block,
        max_matches=max_matches,
        luck_corrected=correct_luck,
        seconds=time.perf_counter() - t_start,
        run=None if made else str(directory),
    )
