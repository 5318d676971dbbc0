"""Round robins of policies in duplicate play: every pair in every rule set, one table, one heat map.

:func:`round_robin` plays every pair of the given policies as a ``--duplicate`` run per rule set
(:func:`simkit.simulate` with the default wall design: tiles follow the policies, stable walls), one
run directory per pair under ``directory`` (an existing complete run is reused, an interrupted one
resumed), and compares each pair with :func:`simkit.analysis.compare`. :func:`plot_tournament`
draws the result as one heat map per rule set, :func:`item_edges` says what a rule set rewards:
which scoring items the stronger policy of a pair scores more often, and what they are worth per
hand. :meth:`Tournament.ratings` puts the policies on one scale per rule set
(:mod:`simkit.evaluation.ratings`). ``simkit tournament`` runs it from the command line;
``notebooks/strategy_tournament.ipynb`` shows a study.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .analysis import compare, item_frequencies
from .datasets import MANIFEST
from .errors import InputTypeError, InputValueError, SimkitError, show
from .evaluation.ratings import pair_matches, ratings
from .policies.spec import as_policy
from .rules import resolve_rules
from .runs.simulation import simulate

__all__ = [
    "Tournament",
    "round_robin",
    "plot_tournament",
    "item_edges",
    "RULE_SETS",
    "POLICIES",
    "UNITS",
]

RULE_SETS = ("douque", "night_market", "duel", "for_two")
POLICIES = ("random", "greedy", "value")  #: the built-in policies
#: what a hand's result is counted in, by rule set (for axis labels)
UNITS = {"douque": "points", "night_market": "points", "duel": "stakes", "for_two": "stakes"}


@dataclass(repr=False)
class Tournament:
    """The outcome of :func:`round_robin`: ``print(t)`` shows each rule set's matrix and ratings.

    Attributes
    ----------
    table : DataFrame
        One row per ordered pair (both orders) and rule set: ``rules``, ``policy``, ``opponent``,
        ``mean``, ``low``, ``high`` (``policy``'s result minus ``opponent``'s per hand, 95%
        interval clustered by match: :attr:`simkit.analysis.Comparison.per_hand`), ``per_match``,
        ``hands``, ``matches``, ``variance_reduction`` (unpaired / paired variance per hand) and
        ``run`` (the duplicate run's directory).
    policies, rules : tuple of str
    matches, seed : int
    runs : dict
        ``(rules, policy, opponent)`` -> the pair's run directory, in the order played.
    comparisons : dict
        The pairs' :class:`simkit.analysis.Comparison` (plain and luck-corrected), kept once computed.
    """

    table: object
    policies: tuple
    rules: tuple
    matches: int
    seed: int
    runs: dict = field(default_factory=dict)  #: (rules, policy, opponent) -> run directory, as played
    #: (rules, policy, opponent, correct_luck) -> the pair's Comparison, computed once
    comparisons: dict = field(default_factory=dict, compare=False)

    def _rules_played(self, rules) -> str:
        name = str(rules)
        if name not in self.rules:
            raise InputValueError(f"the tournament played no rule set {name!r}; it played {', '.join(self.rules)}")
        return name

    def matrix(self, rules: str, column: str = "mean"):
        """``column`` of one rule set as a policy x opponent DataFrame (NaN on the diagonal)."""
        rules = self._rules_played(rules)
        t = self.table[self.table["rules"] == rules]
        m = t.pivot(index="policy", columns="opponent", values=column)
        return m.reindex(index=list(self.policies), columns=list(self.policies))

    def run_of(self, rules: str, a: str, b: str) -> Path:
        """The run directory of the pair ``a``, ``b`` in ``rules`` (either order)."""
        key = (rules, a, b) if (rules, a, b) in self.runs else (rules, b, a)
        if key not in self.runs:
            raise InputValueError(f"the tournament played no {a} vs {b} in {rules}")
        return self.runs[key]

    def comparison(self, rules: str, a: str, b: str, *, correct_luck: bool = False):
        """:func:`simkit.analysis.compare` of the pair's duplicate run (as played: ``a`` may be its
        ``b``), computed once and kept."""
        path = self.run_of(self._rules_played(rules), a, b)
        key = next(k for k in self.runs if k[0] == str(rules) and set(k[1:]) == {a, b}) + (bool(correct_luck),)
        if key not in self.comparisons:
            self.comparisons[key] = compare(path, correct_luck=bool(correct_luck))
        return self.comparisons[key]

    def ratings(
        self, rules=None, *, method: str = "payment", correct_luck: bool = True, n_boot: int = 1000, seed: int = 0
    ):
        """One rating per policy and rule set, with a 95% interval bootstrapped by match.

        Payment ratings (the default) are each policy's mean ``a - b`` per hand against the
        field: a least-squares fit of ``r_a - r_b`` to every pair's mean difference, summing to
        zero; in this complete round robin ``r_a`` is the mean of ``a``'s row of :meth:`matrix`
        with a zero diagonal, in the rule set's payment unit (:data:`UNITS`). ``method=
        "bradley_terry"`` rates the deals won instead. The bootstrap draws the matches once per
        replicate for every pair (they share deals). :func:`simkit.evaluation.ratings` says why.

        Parameters
        ----------
        rules : str, optional
            One rule set of the tournament (default: all).
        method : {"payment", "bradley_terry"}
        correct_luck : bool
            Rate the luck-corrected differences (:func:`simkit.analysis.compare` with
            ``correct_luck``: unbiased, narrower intervals; replays each run's draws once). With
            False the payment ratings are the row means of :meth:`matrix` exactly.
        n_boot, seed : int
            Bootstrap replicates and their seed (the same seed, the same intervals).

        Returns
        -------
        DataFrame
            ``rules``, ``policy``, ``rating``, ``low``, ``high``, ``rank`` (1 the best), best first
            within each rule set; ``attrs["units"]``: rule set -> what a rating is counted in.
        """
        import pandas as pd

        if not isinstance(correct_luck, (bool, np.bool_)):
            raise InputValueError(f"correct_luck must be True or False, got {correct_luck!r}")
        chosen = list(self.rules) if rules is None else [self._rules_played(rules)]
        parts, units = [], {}
        for r in chosen:
            pairs = [self.comparison(r, a, b, correct_luck=correct_luck) for (rr, a, b) in self.runs if rr == r]
            frame = ratings(pair_matches(pairs), method=method, n_boot=n_boot, seed=seed)
            frame.insert(0, "rules", r)
            parts.append(frame)
            units[r] = f"{_unit(r)} per hand" if method == "payment" else frame.attrs["scale"]
        out = pd.concat(parts, ignore_index=True)
        out.attrs.update(parts[0].attrs, units=units, correct_luck=bool(correct_luck))
        return out

    def text(self, ratings=None) -> str:
        """Each rule set's matrix (row minus column per hand, 95% interval clustered by match) and
        its ratings as a text table; ``ratings`` default :meth:`ratings` without luck correction
        (the matrix's own values)."""
        if ratings is None:
            ratings = self.ratings(correct_luck=False)
        corrected = bool(ratings.attrs.get("correct_luck", False))
        lines = [
            f"round robin of {', '.join(self.policies)}: {self.matches:,} duplicate matches per pair, seed {self.seed}"
        ]
        for r in self.rules:
            mean, low, high = self.matrix(r, "mean"), self.matrix(r, "low"), self.matrix(r, "high")
            cells = {
                (a, b): "-"
                if a == b
                else f"{_short(mean.loc[a, b])} [{_short(low.loc[a, b])}, {_short(high.loc[a, b])}]"
                for a in self.policies
                for b in self.policies
            }
            width = max(len(p) for p in self.policies) + 2
            cell = max(max(len(c) for c in cells.values()), max(len(p) for p in self.policies)) + 3
            lines += ["", f"{r}: row - column, {_unit(r)} per hand [95% interval, clustered by match]"]
            lines.append(" " * width + "".join(f"{p:>{cell}}" for p in self.policies))
            lines += [f"{a:<{width}}" + "".join(f"{cells[a, b]:>{cell}}" for b in self.policies) for a in self.policies]
            g = ratings[ratings["rules"] == r]
            if len(g):
                what = "luck-corrected " if corrected else ""
                lines.append(
                    f"ratings: {what}mean a - b per hand against the field, {_unit(r)} "
                    f"[95% bootstrap interval by match]"
                )
                lines += [
                    f"  {int(row.rank)}  {row.policy:<{width}}{_short(row.rating):>8}  "
                    f"[{_short(row.low)}, {_short(row.high)}]"
                    for row in g.itertuples()
                ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        try:
            return self.text()
        except (SimkitError, OSError):  # runs moved or deleted: the matrices alone
            return self.text(ratings=_no_ratings())

    __str__ = __repr__

    def _repr_html_(self) -> str:
        try:
            rated = self.ratings(correct_luck=False)
        except (SimkitError, OSError):
            rated = _no_ratings()
        parts = [
            f"<p>round robin of {', '.join(self.policies)}: {self.matches:,} duplicate matches per pair, "
            f"seed {self.seed}</p>"
        ]
        for r in self.rules:
            mean, low, high = self.matrix(r, "mean"), self.matrix(r, "low"), self.matrix(r, "high")
            cells = mean.copy().astype(object)
            for a in self.policies:
                for b in self.policies:
                    cells.loc[a, b] = (
                        "-" if a == b else f"{mean.loc[a, b]:+.3g} [{low.loc[a, b]:+.3g}, {high.loc[a, b]:+.3g}]"
                    )
            parts.append(f"<h4>{r}: row - column, {_unit(r)} per hand</h4>")
            parts.append(cells.to_html())
            g = rated[rated["rules"] == r].drop(columns="rules")
            if len(g):
                parts.append(g.to_html(index=False, float_format=lambda x: f"{x:+.3g}"))
        return "\n".join(parts)


def _unit(rules: str) -> str:
    """What a hand's result is counted in under ``rules`` (a rule set's name, perhaps with options)."""
    return UNITS.get(rules.split("(")[0], "points")


def _no_ratings():
    import pandas as pd

    return pd.DataFrame(columns=["rules", "policy", "rating", "low", "high", "rank"])


def _rules_tag(rules) -> str:
    """The rule set's name, with a short hash of its options when they are not the defaults."""

    changed = rules.non_default_options()
    if not changed:
        return rules.name
    return rules.name + "-" + hashlib.sha1(json.dumps(changed, sort_keys=True, default=str).encode()).hexdigest()[:8]


def _label(p) -> str:
    return as_policy(p).label


def round_robin(
    policies=POLICIES,
    rules=RULE_SETS,
    matches: int = 2000,
    seed: int = 0,
    directory="data/tournament",
    *,
    progress: bool = False,
) -> Tournament:
    """Play every pair of ``policies`` in every rule set of ``rules`` as duplicate runs and compare them.

    Parameters
    ----------
    policies : sequence
        At least two policies as :func:`simkit.simulate` takes them (names such as ``"value"`` or
        ``"greedy{claim=0}"``, functions); their labels must differ.
    rules : sequence of str or Rules
    matches, seed : int
        Duplicate matches per pair (each played in both seatings) and the master seed: every pair
        plays the same deals.
    directory : path
        Where the runs go, one directory per pair and rule set (created; a complete run there is
        reused, an interrupted one finished).
    progress : bool
        Show each run's progress, after a line on stderr naming its pair.

    Returns
    -------
    Tournament
    """
    import pandas as pd

    if isinstance(policies, (str, bytes)) or not isinstance(policies, (list, tuple)):
        raise InputTypeError(f"policies must be a list or tuple of at least two policies, got {show(policies)}")
    if isinstance(rules, (list, tuple)) and not rules:
        raise InputValueError("rules must name at least one rule set, got none")
    labels = [_label(p) for p in policies]
    if len(labels) < 2:
        raise InputValueError(f"a round robin needs at least two policies, got {len(labels)}")
    if len(set(labels)) != len(labels):
        raise InputValueError(f"the policies' labels must differ (give them labels: name=policy{{...}}), got {labels}")
    if not isinstance(rules, (list, tuple)):
        rules = [rules]  # one rule set (a name or a Rules object; resolve_rules names what is wrong)
    rule_sets = [resolve_rules(r) for r in rules]
    named = [str(r) for r in rule_sets]
    twice = sorted({n for n in named if named.count(n) > 1})
    if twice:
        raise InputValueError(f"each rule set may be played once in a round robin; given more than once: {twice}")
    directory = Path(directory)
    rows = []
    runs = {}
    comparisons = {}
    pairs = [(r, *pair) for r in rule_sets for pair in itertools.combinations(enumerate(labels), 2)]
    for k, (r, (i, a), (j, b)) in enumerate(pairs):
        if progress:
            print(f"round robin: pair {k + 1} of {len(pairs)}, {a} vs {b} in {r}", file=sys.stderr, flush=True)
        out = directory / f"{_rules_tag(r)}_{a}-vs-{b}_seed{seed}_{matches}matches"
        resume = (out / MANIFEST).is_file()
        run = simulate(
            out,
            rules=r,
            policies=(policies[i], policies[j]),
            matches=matches,
            seed=seed,
            duplicate=True,
            resume=resume,
            progress=progress,
        )
        runs[(str(r), a, b)] = run.path
        c = compare(run.path)
        comparisons[(str(r), a, b, False)] = c
        for pol, opp, sign in ((a, b, 1.0), (b, a, -1.0)):
            m, lo, hi = (sign * x for x in c.per_hand)
            if sign < 0:
                lo, hi = hi, lo
            rows.append(
                dict(
                    rules=str(r),
                    policy=pol,
                    opponent=opp,
                    mean=m,
                    low=lo,
                    high=hi,
                    per_match=sign * c.per_match[0],
                    hands=c.rows,
                    matches=c.matches,
                    variance_reduction=c.per_hand_variance_reduction,
                    run=str(run.path),
                )
            )
    table = pd.DataFrame(rows)
    return Tournament(table, tuple(labels), tuple(str(r) for r in rule_sets), matches, seed, runs, comparisons)


def _short(x: float) -> str:
    """A signed number in at most about 6 characters, without exponents."""
    a = abs(x)
    if a >= 100:
        return f"{x:+,.0f}"
    if a >= 10:
        return f"{x:+.1f}"
    return f"{x:+.2f}" if a >= 1 else f"{x:+.3f}"


def plot_tournament(t: Tournament, axes=None):
    """One heat map per rule set: row policy's result minus the column's per hand (color, on a
    symmetric log scale per rule set: their units differ), with the value and its 95% interval in
    each cell."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import SymLogNorm

    n = len(t.rules)
    if axes is None:
        cols = min(n, 2)
        fig, axes = plt.subplots(
            (n + cols - 1) // cols,
            cols,
            figsize=(6.2 * cols, 4.6 * ((n + cols - 1) // cols)),
            squeeze=False,
            layout="constrained",
        )
        axes = axes.ravel()
        for ax in axes[n:]:
            ax.set_visible(False)
    for ax, rules in zip(axes, t.rules):
        mean = t.matrix(rules, "mean").to_numpy(float)
        low = t.matrix(rules, "low").to_numpy(float)
        high = t.matrix(rules, "high").to_numpy(float)
        scale = np.nanmax(np.abs(mean)) or 1.0
        # symmetric log colors: a pair of close policies stays visible next to one against random
        norm = SymLogNorm(linthresh=scale / 100, vmin=-scale, vmax=scale)
        im = ax.imshow(mean, cmap="RdBu", norm=norm)
        k = len(t.policies)
        ax.set_xticks(range(k), t.policies)
        ax.set_yticks(range(k), t.policies)
        ax.set_xlabel("opponent (column)")
        ax.set_ylabel("policy (row)")
        for i in range(k):
            for j in range(k):
                if i == j:
                    ax.text(j, i, "-", ha="center", va="center", color="0.5")
                    continue
                dark = abs(float(norm(mean[i, j])) - 0.5) > 0.3
                ax.text(
                    j,
                    i,
                    f"{_short(mean[i, j])}\n[{_short(low[i, j])}, {_short(high[i, j])}]",
                    ha="center",
                    va="center",
                    fontsize=8.5,
                    color="white" if dark else "black",
                )
        unit = _unit(rules)
        ax.set_title(f"{rules}: row - column, {unit} per hand", fontsize=10)
        ticks = [-scale, -scale / 10, 0.0, scale / 10, scale]
        bar = ax.figure.colorbar(im, ax=ax, shrink=0.8, label=f"{unit} per hand", ticks=ticks)
        bar.ax.set_yticklabels([_short(x) if x else "0" for x in ticks])
    return axes


def item_edges(t: Tournament, a: str, b: str, top: int | None = None):
    """What each rule set rewards: for the pair ``a``, ``b``, every scoring item with how often
    each policy scores it per hand it plays (``a_per_hand``, ``b_per_hand``) and what it brings per
    hand (``a_value_per_hand``, ``b_value_per_hand``: the item's tai, fan or points summed over the
    policy's wins / its hands), and ``edge`` = ``a_value_per_hand - b_value_per_hand``. Rows by
    rule set, then by ``|edge|`` (largest first; ``top`` keeps that many per rule set)."""
    import pandas as pd

    parts = []
    for rules in t.rules:
        f = item_frequencies(t.run_of(rules, a, b), by="policy")
        wide = {}
        for who in (a, b):
            g = f[f["policy"] == who].set_index("item")
            wide[f"{'a' if who == a else 'b'}_per_hand"] = g["per_hand"]
            wide[f"{'a' if who == a else 'b'}_value_per_hand"] = g["value_per_hand"]
        frame = pd.DataFrame(wide).fillna(0.0)
        frame["edge"] = frame["a_value_per_hand"] - frame["b_value_per_hand"]
        frame = frame.reindex(frame["edge"].abs().sort_values(ascending=False, kind="stable").index)
        if top is not None:
            frame = frame.head(top)
        frame = frame.rename_axis("item").reset_index()
        frame.insert(0, "rules", rules)
        parts.append(frame)
    out = pd.concat(parts, ignore_index=True)
    out.attrs.update(a=a, b=b)
    return out
