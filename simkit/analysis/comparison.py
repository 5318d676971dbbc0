"""Paired comparisons: :func:`compare` and its result :class:`Comparison` -- the two policies of a
``--duplicate`` run, or two runs on the same deals (same seed and wall design).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..datasets import wall_settings_of
from ..errors import InputValueError, check_int, show
from ..rules import get_rules
from .bootstrap import BOOTSTRAP_RESAMPLES, MAX_RESAMPLES, MIN_RESAMPLES, match_bootstrap
from .intervals import _clusters, _cr1, _interval, _ratio_terms, _reduction, clustered_mean
from .loading import _data, _is_path, _player_result, _require, load
from .luck import draw_luck

INTERVALS = ("clustered", "bootstrap")  #: the paired intervals :func:`compare` gives


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
    luck_corrected : bool
        Whether the paired estimates (and ``deals``) are corrected by the luck of the draw
        (``compare(run, correct_luck=True)``); the unpaired ones never are.
    interval : str
        How the paired intervals (:attr:`per_hand`, :attr:`per_match`) were made: ``"clustered"``
        (the normal approximation with the cluster-robust standard error) or ``"bootstrap"`` (the
        percentile bootstrap over matches, :func:`simkit.analysis.bootstrap.match_bootstrap`,
        with :attr:`resamples` resamples from :attr:`seed`). The unpaired intervals, each side's
        mean and the variance reductions are always the clustered ones.
    resamples, seed : int
        The bootstrap's resamples and seed (0 and 0 for ``"clustered"``).
    match_totals : DataFrame or None
        Within a duplicate run, one row per match (the cluster of the intervals): ``seed``,
        ``match``, ``hands`` (its rows in both copies) and ``total`` (``a - b`` summed over them,
        corrected when :attr:`luck_corrected`), so that :attr:`per_hand`'s mean is
        ``total.sum() / hands.sum()`` -- what a resampling of matches needs
        (:func:`simkit.evaluation.ratings`). None across runs.
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
    luck_corrected: bool = False  #: the paired estimates are corrected by the luck of the draw
    match_totals: object = None  #: within a duplicate run: per match, its hands and total a - b
    interval: str = "clustered"  #: how the paired intervals were made: "clustered" or "bootstrap"
    resamples: int = 0  #: bootstrap resamples (0: clustered)
    seed: int = 0  #: the bootstrap's seed

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
        paired = self._paired_label()
        rows = [
            (f"{diff}, {paired}", "hand", *self.per_hand, self.per_hand_variance_reduction),
            (f"{diff}, unpaired", "hand", *self.per_hand_unpaired, float("nan")),
            (f"{diff}, {paired}", "match", *self.per_match, self.per_match_variance_reduction),
            (f"{diff}, unpaired", "match", *self.per_match_unpaired, float("nan")),
            (f"{self.a}", "hand", *self.a_mean, float("nan")),
            (f"{self.b}", "hand", *self.b_mean, float("nan")),
        ]
        return pd.DataFrame(rows, columns=["estimate", "per", "mean", "low", "high", "variance_reduction"])

    def _paired_label(self) -> str:
        label = "paired, luck corrected" if self.luck_corrected else "paired"
        return label + (", bootstrap" if self.interval == "bootstrap" else "")

    def table(self) -> str:
        """The comparison as a readable text table."""
        what = "result" if self.value == "result" else self.value
        if self.across_runs:
            head = (
                f"run a: {self.a}\nrun b: {self.b}\n{what}, run a - run b: {self.matches:,} matches on the same "
                f"deals, {self.rows:,} hands in each run (deal {self.deal}, wall {self.wall})"
            )
        else:
            head = (
                f"{self.a} vs {self.b}: {self.matches:,} matches played in both seatings, {self.rows:,} hands "
                f"(deal {self.deal}, wall {self.wall})"
            )
        if self.interval == "bootstrap":
            head += (
                f"\npaired intervals: percentile bootstrap over matches, {self.resamples:,} resamples, seed "
                f"{self.seed}; the others clustered"
            )
        a, b = ("a", "b") if self.across_runs else (self.a, self.b)
        paired = self._paired_label()
        width = max(34, len(f"{a} - {b} per match, {paired}") + 2)
        lines = [head, f"  {'points' if what in ('result', 'points') else what:<{width}}{'mean':>10}   95% interval"]

        def line(label, est):
            return f"  {label:<{width}}{est[0]:>10.2f}   [{est[1]:.2f}, {est[2]:.2f}]"

        lines += [
            line(f"{a} - {b} per hand, {paired}", self.per_hand),
            line("  unpaired", self.per_hand_unpaired),
            line(f"{a} - {b} per match, {paired}", self.per_match),
            line("  unpaired", self.per_match_unpaired),
            line(f"{a} per hand", self.a_mean),
            line(f"{b} per hand", self.b_mean),
            f"  variance reduction by pairing{' and luck correction' if self.luck_corrected else ''} "
            f"(unpaired / paired variance): {self.per_hand_variance_reduction:.2f}x "
            f"per hand, {self.per_match_variance_reduction:.2f}x per match",
        ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _design_of(df, which="the data") -> tuple[str, str]:
    spec = (df.attrs.get("manifest") or {}).get("spec") if hasattr(df, "attrs") else None
    if spec is None:
        raise InputValueError(
            f"cannot tell the wall design of {which}: compare runs by path or by DataFrames from simkit.analysis.load"
        )

    w = wall_settings_of(spec)
    return w["deal"], w["wall"]


def compare(a, b=None, *, value=None, correct_luck=False, interval="clustered", resamples=BOOTSTRAP_RESAMPLES, seed=0):
    """Paired comparison: the two policies of a duplicate run, or two runs on the same deals.

    ``compare(run)``: a ``--duplicate`` run, policy ``a`` (player 0 of copy 0) against ``b``; the
    value of a hand is ``a``'s result minus ``b``'s.

    ``compare(run_a, run_b)``: two runs with the same seed and wall design (both duplicate or
    neither) that differ in their policies, a policy's parameters or a rule option; rows are paired
    by ``(match, copy, deal_id)`` over the matches both runs played. The value compared is
    ``value``: ``"result_0"`` / ``"result_1"`` (a player's ``score`` minus ``fee``) or a numeric
    column (``"points"``, ``"hand_tai"``, ...); default the result of the seat whose policy differs
    when exactly one seat's does, else ``"points"``.

    With ``correct_luck``, each hand's value (``a - b`` in a duplicate run; across runs a player's
    result, ``value`` ``"result_0"`` or ``"result_1"``, in each run) is corrected by the luck of
    its draws (:func:`simkit.analysis.luck.draw_luck`: an AIVAT-style control variate, unbiased;
    the runs' draws are replayed in the compiled engine): the paired estimates and the deals use
    the corrected values, the unpaired intervals and each side's own mean stay those without
    correction, so the variance reduction says how many times more matches plain independent runs
    would need.

    Parameters
    ----------
    a, b : DataFrame or path
        Runs (directories, or DataFrames from :func:`load`).
    value : str, optional
        Across runs: what is compared (see above).
    correct_luck : bool
        Remove the luck of the draw (see above).
    interval : {"clustered", "bootstrap"}
        The paired intervals: clustered by match (a normal approximation, the default) or the
        percentile bootstrap resampling matches (:func:`simkit.analysis.bootstrap.match_bootstrap`),
        which does not lean on the normal approximation when match totals are heavy-tailed
        (docs/duplicate.md measures both intervals' coverage).
    resamples, seed : int
        The bootstrap's resamples (100 to 1,000,000; default 2,000) and seed: the same seed gives
        the same interval.

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
    if not isinstance(correct_luck, (bool, np.bool_)):
        raise InputValueError(f"correct_luck must be True or False, got {correct_luck!r}")
    if not (isinstance(interval, str) and interval in INTERVALS):
        raise InputValueError(f"interval is one of {', '.join(map(repr, INTERVALS))}, got {show(interval)}")
    resamples = check_int(resamples, "resamples", MIN_RESAMPLES, MAX_RESAMPLES)
    seed = check_int(seed, "seed", 0, 2**63 - 1)
    boot = dict(resamples=resamples, seed=seed) if interval == "bootstrap" else None
    if b is None:
        if value is not None:
            raise InputValueError("value applies to a comparison of two runs; a duplicate run compares results")
        return _compare_copies(a, bool(correct_luck), boot)
    return _compare_runs(a, b, value, bool(correct_luck), boot)


def _bootstrapped(comparison, boot, per_hand, per_match):
    """``comparison`` with its paired intervals replaced by the match bootstrap's (``boot``: its
    resamples and seed; ``per_hand`` / ``per_match``: the arguments of :func:`match_bootstrap`)."""
    if boot is None:
        return comparison
    comparison.per_hand = match_bootstrap(*per_hand[:2], minus=per_hand[2] if len(per_hand) > 2 else None, **boot)
    comparison.per_match = match_bootstrap(*per_match, **boot)
    comparison.interval = "bootstrap"
    comparison.resamples, comparison.seed = boot["resamples"], boot["seed"]
    return comparison


def _result_columns(rules, names):
    return [
        "deal_id",
        "copy",
        "seed",
        "match",
        "hand",
        "dealer",
        "policy_0",
        "policy_1",
        "score_0",
        "score_1",
        "fee_0",
        "fee_1",
    ]


def _compare_copies(df, correct_luck=False, boot=None):
    import pandas as pd

    df = _data(df, _result_columns)
    _require(df, "deal_id", "copy", "match", "hand", "dealer", "policy_0", "policy_1", "score_0", "score_1")
    copy = df["copy"].to_numpy()
    if not ((copy == 0).any() and (copy == 1).any()):
        have = ", ".join(str(c) for c in sorted(set(copy.tolist()))) or "none"
        raise InputValueError(f"compare needs a --duplicate run (rows of copy 0 and copy 1); this data has copy {have}")
    p0 = df["policy_0"].astype(str).to_numpy()
    p1 = df["policy_1"].astype(str).to_numpy()
    pairs = set(zip(p0[copy == 0].tolist(), p1[copy == 0].tolist()))
    if len(pairs) != 1:
        raise InputValueError(f"copy 0 holds more than one pair of policies: {sorted(pairs)}")
    ((a, b),) = pairs
    if a == b:
        raise InputValueError(f"both seats play {a!r}: nothing to compare")
    if set(zip(p0[copy == 1].tolist(), p1[copy == 1].tolist())) != {(b, a)}:
        raise InputValueError(f"copy 1 is not copy 0 with the seats swapped ({b}, {a})")
    deal, wall = _design_of(df) if "manifest" in df.attrs else ("unknown", "unknown")
    r0, r1 = _player_result(df, 0), _player_result(df, 1)
    a_first = p0 == a
    a_res = np.where(a_first, r0, r1)
    b_res = np.where(a_first, r1, r0)
    raw = a_res - b_res
    if correct_luck:
        diff = raw - draw_luck(df)
    else:
        diff = raw
    cluster, game = _clusters(df)
    _, inv = np.unique(cluster, return_inverse=True)
    inv = inv.reshape(-1)
    _, game_inv = np.unique(game, return_inverse=True)
    game_inv = game_inv.reshape(-1)

    def clustered(v, ids):
        return clustered_mean(np.bincount(ids, weights=v), np.bincount(ids))

    per_hand = clustered(diff, inv)
    per_hand_unpaired = clustered(raw, game_inv)  # independent runs, without correction
    # per match: a match's total a - b, the mean of its two copies; unpaired: each copy's total alone
    game_totals = np.bincount(game_inv, weights=raw)
    match_totals = np.bincount(inv, weights=diff) / 2
    per_match = _interval(match_totals.mean(), match_totals.var(ddof=1) / len(match_totals))
    per_match_unpaired = _interval(game_totals.mean(), game_totals.var(ddof=1) / len(game_totals))
    seed = df["seed"].to_numpy() if "seed" in df.columns else np.zeros(len(df), np.int64)
    frame = pd.DataFrame(
        {
            "_cl": inv,
            "seed": seed,
            "match": df["match"].to_numpy(),
            "hand": df["hand"].to_numpy(),
            "deal_id": df["deal_id"].to_numpy(),
            "copy": copy,
            "diff": diff,
            "dealer": df["dealer"].to_numpy(),
        }
    )
    wide = frame.pivot_table(
        index=["_cl", "seed", "match", "hand", "deal_id"],
        columns="copy",
        values=["diff", "dealer"],
        aggfunc="first",
        observed=True,
        sort=True,
    )
    wide = wide.dropna()
    if not len(wide):
        raise InputValueError("no deal was played in both copies")
    keys = wide.index.to_frame(index=False)
    deals = pd.DataFrame(
        {
            "match": keys["match"].to_numpy(),
            "hand": keys["hand"].to_numpy(),
            "deal_id": keys["deal_id"].to_numpy(),
            "a_side": wide[("diff", 0)].to_numpy(),
            "b_side": wide[("diff", 1)].to_numpy(),
        }
    )
    if "seed" in df.columns and df["seed"].nunique() > 1:
        deals.insert(0, "seed", keys["seed"].to_numpy())
    deals["difference"] = (deals["a_side"] + deals["b_side"]) / 2
    deals["same_dealer"] = wide[("dealer", 0)].to_numpy() == wide[("dealer", 1)].to_numpy()
    first = np.unique(inv, return_index=True)[1]  # a row of each match, in cluster order
    match_totals = pd.DataFrame(
        {
            "seed": seed[first],
            "match": df["match"].to_numpy()[first],
            "hands": np.bincount(inv),
            "total": np.bincount(inv, weights=diff),
        }
    )
    comparison = Comparison(
        a=a,
        b=b,
        value="result",
        per_hand=per_hand,
        per_hand_unpaired=per_hand_unpaired,
        per_hand_variance_reduction=_reduction(per_hand_unpaired, per_hand),
        per_match=per_match,
        per_match_unpaired=per_match_unpaired,
        per_match_variance_reduction=_reduction(per_match_unpaired, per_match),
        deals=deals,
        a_mean=clustered(a_res, inv),
        b_mean=clustered(b_res, inv),
        rows=len(df),
        matches=int(inv.max()) + 1 if len(inv) else 0,
        deal=deal,
        wall=wall,
        luck_corrected=correct_luck,
        match_totals=match_totals,
    )
    hands = match_totals["hands"].to_numpy()
    totals = match_totals["total"].to_numpy()
    return _bootstrapped(comparison, boot, (totals, hands), (totals / 2, np.ones(len(totals))))


def _run_label(df) -> str:
    attrs = df.attrs
    spec = attrs["manifest"]["spec"]
    defaults = None
    try:
        defaults = get_rules(spec["rules"]["name"]).to_dict()["options"]
    except Exception:  # pragma: no cover - an unknown rule set is refused elsewhere
        pass
    options = {k: v for k, v in spec["rules"]["options"].items() if defaults is None or defaults.get(k) != v}
    opts = "".join(f" {k}={v}" for k, v in options.items())
    return f"{spec['rules']['name']}{opts}, {' vs '.join(p['label'] for p in spec['policies'])}"


def _compare_runs(run_a, run_b, value, correct_luck=False, boot=None):
    import pandas as pd

    frames = []
    for which, run in (("run a", run_a), ("run b", run_b)):
        df = run if not _is_path(run) else load(run)
        if "manifest" not in df.attrs:
            raise InputValueError(
                f"cannot tell the seed and wall design of {which}: give a run directory or a DataFrame "
                "from simkit.analysis.load"
            )
        frames.append(df)
    da, db = frames
    sa, sb = da.attrs["manifest"]["spec"], db.attrs["manifest"]["spec"]
    for what, x, y in (
        ("seed", sa["seed"], sb["seed"]),
        ("wall design", _design_of(da), _design_of(db)),
        ("duplicate setting", bool(sa["duplicate"]), bool(sb["duplicate"])),
        ("rule set", sa["rules"]["name"], sb["rules"]["name"]),
    ):
        if x != y:
            raise InputValueError(f"runs on different deals cannot be paired: {what} {x!r} (run a) vs {y!r} (run b)")
    if value is None:
        differ = [p for p in (0, 1) if sa["policies"][p] != sb["policies"][p]]
        value = f"result_{differ[0]}" if len(differ) == 1 else "points"
    if not isinstance(value, str):
        raise InputValueError(f"value must be 'result_0', 'result_1' or a numeric column; got {value!r}")
    if correct_luck and value not in ("result_0", "result_1"):
        raise InputValueError(
            f"correct_luck across runs corrects a player's result: value 'result_0' or 'result_1', not {value!r}"
        )
    sides = []
    for df in (da, db):
        if value in ("result_0", "result_1"):
            p = int(value[-1])
            _require(df, f"score_{p}")
            v = _player_result(df, p)
        else:
            _require(df, value)
            if not pd.api.types.is_numeric_dtype(df[value].dtype) or pd.api.types.is_bool_dtype(df[value].dtype):
                raise InputValueError(f"value {value!r} is not a numeric column")
            v = df[value].to_numpy().astype(np.float64)
        _require(df, "match", "hand", "deal_id", "dealer")
        copy = df["copy"].to_numpy().astype(np.int64) if "copy" in df.columns else np.zeros(len(df), np.int64)
        if correct_luck:
            corrected = v - draw_luck(df, value=value)
        else:
            corrected = v
        sides.append(
            pd.DataFrame(
                {
                    "match": df["match"].to_numpy().astype(np.int64),
                    "copy": copy,
                    "hand": df["hand"].to_numpy(),
                    "deal_id": df["deal_id"].to_numpy(),
                    "dealer": df["dealer"].to_numpy(),
                    "v": corrected,
                    "raw": v,
                }
            )
        )
    common = np.intersect1d(sides[0]["match"].unique(), sides[1]["match"].unique())
    if len(common) < 2:
        raise InputValueError(
            f"the runs have {len(common)} match{'es' if len(common) != 1 else ''} in common; pairing needs two or more"
        )
    sides = [s[s["match"].isin(common)] for s in sides]
    n_copies = 2 if sa["duplicate"] else 1
    # paired estimates from the (corrected) values "v", unpaired ones and each run's mean from "raw"
    terms, unpaired_var, raw_means, raw_totals, means, totals, clusters = [], 0.0, [], [], [], [], []
    for s in sides:
        _, inv = np.unique(s["match"].to_numpy(), return_inverse=True)
        counts = np.bincount(inv).astype(np.float64)
        for col, mean_out, total_out in (("v", means, totals), ("raw", raw_means, raw_totals)):
            sums = np.bincount(inv, weights=s[col].to_numpy())
            mean, t = _ratio_terms(sums, counts)
            if col == "v":
                terms.append(t)
                clusters.append((sums, counts))
            else:
                unpaired_var += _cr1(t)
            mean_out.append(_interval(mean, _cr1(t)))
            total_out.append(sums / n_copies)  # per match (the mean of both copies' totals)
    per_hand = _interval(means[0][0] - means[1][0], _cr1(terms[0] - terms[1]))
    per_hand_unpaired = _interval(raw_means[0][0] - raw_means[1][0], unpaired_var)
    d = totals[0] - totals[1]
    m = len(d)
    per_match = _interval(d.mean(), d.var(ddof=1) / m)
    raw_d = raw_totals[0] - raw_totals[1]
    per_match_unpaired = _interval(raw_d.mean(), (raw_totals[0].var(ddof=1) + raw_totals[1].var(ddof=1)) / m)
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
    comparison = Comparison(
        a=la,
        b=lb,
        value=value,
        per_hand=per_hand,
        per_hand_unpaired=per_hand_unpaired,
        per_hand_variance_reduction=_reduction(per_hand_unpaired, per_hand),
        per_match=per_match,
        per_match_unpaired=per_match_unpaired,
        per_match_variance_reduction=_reduction(per_match_unpaired, per_match),
        deals=deals,
        a_mean=raw_means[0],
        b_mean=raw_means[1],
        rows=int(min(len(sides[0]), len(sides[1]))),
        matches=m,
        deal=deal,
        wall=wall,
        across_runs=True,
        luck_corrected=correct_luck,
    )
    return _bootstrapped(comparison, boot, (*clusters[0], clusters[1]), (d, np.ones(m)))
