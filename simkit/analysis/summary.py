"""What ``simkit summarize`` prints: :func:`summarize` streams over a run's shards into a
:class:`Summary` (outcomes, tai, payments with intervals, top items; ``--json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import datasets
from ..datasets import wall_settings_of
from ..errors import InputValueError
from ..rules import get_rules
from ..stats import wilson_interval
from .distributions import WIN_VALUES
from .intervals import clustered_mean

#: The keys :func:`summarize` groups by (``simkit summarize --by``): the policy or the role
#: (dealer / non-dealer) of each player in each hand, or how the hand ended (``win_type``).
SUMMARY_KEYS = ("policy", "role", "win_type")


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
    by: str | None = None  #: the grouping key of :attr:`groups` (:data:`SUMMARY_KEYS`), or None
    groups: list = field(default_factory=list)  #: one dict per group when ``by`` is given (:meth:`group_rows`)

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
            "items": {
                name: {"wins": int(c), "tai": int(self.item_tai[name])} for name, c in self.item_count.items() if c
            },
            **({"by": {"key": self.by, "groups": self.group_rows()}} if self.by else {}),
        }

    def group_rows(self) -> list:
        """The groups of ``summarize(path, by=...)`` as JSON-ready dicts: the key's value, ``hands``
        (player-hands for ``policy`` and ``role``: each hand counts once per player), ``wins``,
        ``win_rate`` (``policy`` / ``role``: wins per hand) or ``share_of_hands`` (``win_type``) as
        ``{count, rate, low, high}`` (Wilson), ``mean_<value>_per_win`` (the rule set's value of a
        win, ``None`` without wins) and ``result_per_hand`` (the player's score minus fee) or
        ``payment_per_hand`` (``win_type``: the hand's points) as ``[mean, low, high]`` clustered by match."""
        out = []
        for g in self.groups:
            k, n = (g["wins"], g["hands"]) if self.by != "win_type" else (g["hands"], max(self.rows, 1))
            lo, hi = wilson_interval(int(k), int(n))
            rate = {"count": int(k), "rate": int(k) / n if n else float("nan"), "low": lo, "high": hi}
            out.append(
                {
                    self.by: g["label"],
                    "hands": int(g["hands"]),
                    "wins": int(g["wins"]),
                    ("share_of_hands" if self.by == "win_type" else "win_rate"): rate,
                    f"mean_{g['measure']}_per_win": g["measure_sum"] / g["wins"] if g["wins"] else None,
                    ("payment_per_hand" if self.by == "win_type" else "result_per_hand"): list(g["mean"]),
                }
            )
        return out

    @property
    def decided(self) -> int:
        """Hands that ended with a win."""
        return int(self.wins.sum())

    def table(self) -> str:
        """The summary as a readable text table."""

        spec = self.manifest["spec"]
        pol = spec["policies"]
        status = self.manifest.get("status", "?")
        note = "" if status == "complete" else f" ({status}; {self.shards} shards so far — finish it with --resume)"

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
            lines.append(
                f'  decisions  {k:,} ({k / max(n, 1):.2f} per hand): simkit.analysis.load(path, table="decisions")'
            )
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
        if self.by:
            lines += self._group_table()
            lines.append("")
        top = sorted(self.item_count.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
        lines.append(f"  {'most frequent items':<34}{'wins':>9}   share of wins   mean tai")
        for name, count in top:
            if count == 0:
                break
            share = count / self.decided if self.decided else 0.0
            lines.append(f"  {name:<34}{count:>9,}   {share:>12.2%}   {self.item_tai[name] / count:>8.2f}")
        return "\n".join(lines)

    def _group_table(self) -> list:
        rows = self.group_rows()
        hand_key = self.by == "win_type"
        measure = self.groups[0]["measure"].replace("_", " ") if self.groups else "value"
        rate_head = "share of hands" if hand_key else "win rate"
        mean_head = "payment per hand" if hand_key else "result per hand"
        width = max([34] + [len(str(r[self.by])) + 4 for r in rows])
        lines = [
            f"  {'by ' + self.by.replace('_', ' '):<{width}}{'hands':>9}{'wins':>9}   {rate_head + ' [95%]':<27}"
            f"{measure + ' per win':>17}   {mean_head} [95%, clustered by match]"
        ]
        for r in rows:
            rate = r["share_of_hands" if hand_key else "win_rate"]
            per_win = r[f"mean_{self.groups[0]['measure']}_per_win"]
            m = r["payment_per_hand" if hand_key else "result_per_hand"]
            rate_text = f"{rate['rate']:.2%} [{rate['low']:.2%}, {rate['high']:.2%}]"
            lines.append(
                f"  {str(r[self.by]):<{width}}{r['hands']:>9,}{r['wins']:>9,}   {rate_text:<27}"
                f"{'-' if per_win is None else f'{per_win:.3f}':>17}   {m[0]:.3f} [{m[1]:.3f}, {m[2]:.3f}]"
            )
        return lines

    def __str__(self) -> str:
        return self.table()


def summarize(path, by=None) -> Summary:
    """Summary statistics of a run directory: outcomes, tai, payments with intervals, top items.

    Parameters
    ----------
    path : str or Path
        A run directory.
    by : str, optional
        Also the summary per group (:attr:`Summary.groups`, a section of :meth:`Summary.table`, and
        ``by`` in :meth:`Summary.to_dict`), one of :data:`SUMMARY_KEYS`: ``policy`` or ``role``
        (each player of each hand in their group: hands, wins, win rate, mean value per win, result
        per hand) or ``win_type`` (each hand by how it ended: hands, share of hands, mean value per
        win, payment per hand); means per hand have 95% intervals clustered by match.

    Raises
    ------
    simkit.datasets.DatasetError
        ``path`` is not a simkit dataset (or has no complete shard), or its files contradict its
        manifest (:func:`simkit.datasets.open_run`: what the summary reports of the run is its shards').
    SimkitError
        ``by`` is not one of :data:`SUMMARY_KEYS`.
    """

    if by is not None and by not in SUMMARY_KEYS:
        raise InputValueError(f"summarize groups by one of {', '.join(SUMMARY_KEYS)}; got by={by!r}")
    run = datasets.open_run(path)
    if not run.shards:
        raise datasets.DatasetError(f"{run.path} has no complete shards yet")
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
    columns = (
        [
            "match",
            "winner",
            "dealer",
            "win_type",
            "hand_tai",
            "dealer_tai",
            "points",
            "score_0",
            "score_1",
            "policy_0",
            "policy_1",
        ]
        + (["payment_tai"] if has_tai else [])
        + items
    )
    measure = WIN_VALUES.get(spec["rules"]["name"], ("hand_tai",))[0]
    fees = [f"fee_{p}" for p in (0, 1) if f"fee_{p}" in run.schema.names]
    if by is not None:
        columns += [c for c in (measure, *fees) if c not in columns]
        names = {
            "policy": list(dict.fromkeys(labels)),
            "role": ["dealer", "non-dealer"],
            "win_type": list(datasets.WIN_TYPES),
        }[by]
        acc = {g: {"sums": [], "counts": [], "wins": 0, "measure_sum": 0.0} for g in names}
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
        if by is not None:
            _accumulate_groups(acc, by, t, starts, measure, len(fees) == 2)
    rows = np.concatenate(cluster_rows)
    out.points = clustered_mean(np.concatenate(cluster_points), rows)
    if has_tai:
        out.payment_tai = clustered_mean(np.concatenate(cluster_tai), rows)
    out.score_0 = clustered_mean(np.concatenate(cluster_s0), rows)
    for label, (sums, seats) in cluster_policy.items():
        out.by_policy[label] = clustered_mean(np.concatenate(sums), np.concatenate(seats))
    if by is not None:
        out.by = by
        for label, a in acc.items():
            sums, counts = np.concatenate(a["sums"]), np.concatenate(a["counts"])
            seen = counts > 0  # the matches in which the group occurs are its clusters
            if not seen.any():
                continue
            out.groups.append(
                {
                    "label": label,
                    "hands": int(counts.sum()),
                    "wins": int(a["wins"]),
                    "measure": measure,
                    "measure_sum": float(a["measure_sum"]),
                    "mean": clustered_mean(sums[seen], counts[seen]),
                }
            )
    return out


def _accumulate_groups(acc, by, t, starts, measure, has_fees):
    """Add one shard's rows to the per-group, per-match sums of :func:`summarize`'s ``by`` groups."""
    winner = t.column("winner").to_numpy()
    value = t.column(measure).to_numpy().astype(np.float64)
    if by == "win_type":  # one row per hand: its payment
        parts = [(_labels(t.column("win_type")), t.column("points").to_numpy().astype(np.float64), winner >= 0)]
    else:  # one row per player and hand: the player's result
        dealer = t.column("dealer").to_numpy()
        parts = []
        for p in (0, 1):
            key = _labels(t.column(f"policy_{p}")) if by == "policy" else np.where(dealer == p, "dealer", "non-dealer")
            result = t.column(f"score_{p}").to_numpy().astype(np.float64)
            if has_fees:
                result = result - t.column(f"fee_{p}").to_numpy()
            parts.append((key, result, winner == p))
    for label, a in acc.items():
        v = np.zeros(len(winner))
        c = np.zeros(len(winner), np.int64)
        for key, result, won in parts:
            mine = key == label
            v += np.where(mine, result, 0.0)
            c += mine
            a["wins"] += int(np.count_nonzero(mine & won))
            a["measure_sum"] += float(value[mine & won].sum())
        a["sums"].append(np.add.reduceat(v, starts))
        a["counts"].append(np.add.reduceat(c, starts))


def _labels(column) -> np.ndarray:
    """The strings of a dictionary column as a numpy array (decoded through its dictionary)."""
    arr = column.combine_chunks()
    return np.asarray(arr.dictionary.to_pylist(), dtype=object)[arr.indices.to_numpy(zero_copy_only=False)]
