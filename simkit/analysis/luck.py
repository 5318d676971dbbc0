"""The luck of the draw, removed from a paired comparison by a control variate (AIVAT-style).

Pairing (``--duplicate``, or two runs on the same deals) cancels the luck the paired games share;
what it leaves is the luck after their play diverges: which tile each draw brings.
:func:`draw_luck` measures it and :func:`simkit.analysis.compare` (``correct_luck=True``)
subtracts it, after the method of Burch, Schmid, Moravčík, Morrill and Bowling, "AIVAT: A New
Variance Reduction Technique for Agent Evaluation in Imperfect Information Games" (AAAI 2018):

* every draw is a chance event whose law is known exactly -- given everything on the table the
  drawn tile is uniform over the wall's remaining tiles (:mod:`simkit.engine.luck`); so is every
  pick of for_two's end phase (a joker, a waited tile, or a miss);
* a value function ``V`` estimates the hand's value after the draw (``a - b`` in a duplicate run,
  a player's result across runs); the draw's **luck term** is
  ``V(the tile drawn) - mean of V over the tiles the draw could have been``;
* the luck terms have mean zero whatever ``V`` is (each is a centred function of a uniform draw),
  so the hand's value minus the sum of its luck terms is an unbiased estimate of the same mean;
  the better ``V`` predicts the hand, the more of the draws' luck it removes.

``V`` here is a table, learned from the run itself with **cross-fitting**: the matches are split
into :data:`FOLDS` parts by ``match % FOLDS``, and the luck terms of one part use the table fitted
on the others, so that ``V`` never depends on the draws it corrects (which keeps the terms' mean at
zero). A cell of the table is the mean value of the hands in which a draw left the drawer in that
situation: whether the drawer is the player the value is of (``a``), both players' declarations,
the opponent's shanten (0, 1, 2, 3+), the tiles left (in steps of :data:`TILES_LEFT_STEP`; an
end-phase pick is a step of its own) and the drawer's hand after the draw (complete, ready, 1, 2, 3+ from ready); cells with few hands are
shrunk towards their situation's mean (:data:`PRIOR_HANDS`).

Draws are replayed in the compiled engine from the run's seed and recorded policies (the replay
must reproduce every hand's result, or :func:`draw_luck` refuses): about 12 s for 5,000 duplicate
matches of douque greedy play on two cores (``examples/bench_duplicate.py``), after a one-time
compile.
"""

from __future__ import annotations

import numpy as np

from ..datasets import rules_from_dict, wall_settings_of
from ..engine.luck import (
    L_CLASS,
    L_CLASS_COUNTS,
    L_DECLARED,
    L_END_PHASE,
    L_HAND,
    L_MATCH,
    L_OPP_DECLARED,
    L_OPP_SHANTEN,
    L_PLAYER,
    L_TILES_LEFT,
    N_DRAW_CLASSES,
)
from ..engine.rulesets import engine_spec
from ..errors import InputValueError, show
from ..play.draw_luck import draw_records
from ..play.runtime import resolve_policy
from ..policies.spec import from_record
from ..progress import progress_bar
from .loading import _is_path, _player_result, _require, load

__all__ = ["draw_luck", "FOLDS", "TILES_LEFT_STEP", "PRIOR_HANDS"]

FOLDS = 2  #: cross-fitting folds (matches split by ``match % FOLDS``)
TILES_LEFT_STEP = 6  #: tiles-left buckets of the value table: 0-5, 6-11, ..., the last open-ended
TILES_LEFT_BUCKETS = 7
N_LEFT_STEPS = TILES_LEFT_BUCKETS + 1  #: the tiles-left buckets and, last, for_two's end-phase picks
PRIOR_HANDS = 5.0  #: shrinkage of a table cell towards its situation's mean, in hands
PROGRESS_FROM = 20_000  #: matches (both copies counted) from which the replay shows its progress
BLOCK_MATCHES = 10_000  #: matches replayed at a time (the draw records of a block are in memory at once)
KEEP_RECORDS_UP_TO = 50_000  #: matches (both copies counted) up to which the draws are replayed once, not twice


def draw_luck(df, *, value: str | None = None, folds: int = FOLDS) -> np.ndarray:
    """The luck of the draw in every row of a run: float64, aligned with ``df``'s rows.

    ``df``: a run (a directory or a DataFrame from :func:`simkit.analysis.load` with ``seed``,
    ``match``, ``hand``, ``policy_0``, ``policy_1``, the results, and ``copy`` in a duplicate run).
    ``value``: what the luck is of -- ``None`` (a ``--duplicate`` run): ``a - b``, ``a`` the policy
    of player 0 in copy 0; ``"result_0"`` / ``"result_1"``: that player's result (score minus fee),
    in any run. A row's luck is the sum of its hand's luck terms, so the value minus it estimates
    the same mean with less variance.

    Raises
    ------
    SimkitError
        A run without its manifest, ``value=None`` on a run that is not a duplicate run, another
        ``value``, a plain-Python policy (the draws are replayed in the compiled engine), or a
        replay that does not reproduce the run's results.
    """

    df = load(df) if _is_path(df) else df
    manifest = df.attrs.get("manifest")
    if manifest is None:
        raise InputValueError(
            "the luck of the draw needs the run's seed, rules and policies: give a run directory or a "
            "DataFrame from simkit.analysis.load"
        )
    spec_record = manifest["spec"]
    fees = [f for f in ("fee_0", "fee_1") if f in manifest.get("columns", ())]  # a result is score - fee
    _require(
        df,
        "match",
        "hand",
        "policy_0",
        "policy_1",
        "score_0",
        "score_1",
        *fees,
        *(("copy",) if spec_record.get("duplicate") else ()),
    )
    if value is None and not spec_record.get("duplicate"):
        raise InputValueError(
            "the luck of a - b is measured in a --duplicate run; in another run give value='result_0' or 'result_1'"
        )
    if value not in (None, "result_0", "result_1"):
        raise InputValueError(f"value must be None (a - b in a duplicate run), 'result_0' or 'result_1'; got {value!r}")
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise InputValueError(f"folds must be an integer of at least 2 (cross-fitting), got {show(folds)}")
    n_matches = int(df["match"].nunique())
    if folds > max(2, n_matches):  # the folds split the matches: more would be empty (and cost memory)
        raise InputValueError(
            f"folds must be at most the data's {n_matches:,} matches (each fold holds whole matches), got {folds:,}"
        )

    rules = rules_from_dict(spec_record["rules"])
    design = wall_settings_of(spec_record)
    spec = engine_spec(rules, design["deal"], design["wall"])
    seed = int(spec_record["seed"])
    if "seed" in df.columns and len(df) and not (df["seed"].to_numpy() == seed).all():
        raise InputValueError(
            f"the data holds rows of seeds other than its run's ({seed}): the luck of the draw is measured run by run"
        )
    records = {p["label"]: p for p in spec_record["policies"]}
    copy = df["copy"].to_numpy().astype(np.int64) if "copy" in df.columns else np.zeros(len(df), np.int64)
    p0, p1 = df["policy_0"].astype(str).to_numpy(), df["policy_1"].astype(str).to_numpy()
    seatings = {}  # copy -> (label of player 0, label of player 1)
    for c in np.unique(copy).tolist():
        pairs = set(zip(p0[copy == c].tolist(), p1[copy == c].tolist()))
        if len(pairs) != 1:
            raise InputValueError(f"copy {c} holds more than one pair of policies: {sorted(pairs)}")
        seatings[c] = pairs.pop()
    # each policy as the engine plays it: its vector built from the run's rule set (engine_params)
    calls = {label: resolve_policy(from_record(records[label]), rules) for pair in seatings.values() for label in pair}
    matches = df["match"].to_numpy().astype(np.int64)
    hands = df["hand"].to_numpy().astype(np.int64)
    results = np.stack([_player_result(df, 0), _player_result(df, 1)], axis=1)
    if value is None:
        if 0 not in seatings:
            raise InputValueError("the luck of a - b needs the rows of copy 0 of the duplicate run")
        a = seatings[0][0]
        focus = np.where(p0 == a, 0, 1)  # a's seat in each row
        target = np.where(focus == 0, results[:, 0] - results[:, 1], results[:, 1] - results[:, 0])
    else:
        focus = np.full(len(df), int(value[-1]), np.int64)
        target = results[:, int(value[-1])]

    # the run's matches in blocks of consecutive ids, each replayed in each seating: twice (the value
    # tables need every fold's sums first) unless the run is small enough to keep its records
    order = np.argsort(matches, kind="stable")
    sorted_matches = matches[order]
    match_ids = np.unique(matches)
    breaks = np.flatnonzero(np.diff(match_ids) != 1) + 1
    blocks = [
        (int(r[i]), min(BLOCK_MATCHES, len(r) - i))
        for r in np.split(match_ids, breaks)
        for i in range(0, len(r), BLOCK_MATCHES)
    ]
    keep_records = len(match_ids) * len(seatings) <= KEEP_RECORDS_UP_TO
    n_context = 2 * 2 * 2 * 4 * N_LEFT_STEPS
    n_cells = n_context * N_DRAW_CLASSES
    sums = np.zeros((folds, n_cells), np.float64)
    hands_in = np.zeros((folds, n_cells), np.float64)
    total = len(match_ids) * len(seatings) * (1 if keep_records else 2)
    bar = progress_bar(total, unit="match", desc="draws", enabled=total >= PROGRESS_FROM)
    max_hands = int(spec.max_hands)

    def block_records(start, n, c):
        """(rows, cells, class counts) of the draws of matches start .. start + n - 1 in copy c."""
        first, second = seatings[c]
        out = draw_records(spec, calls[first], calls[second], seed, start, n, progress=bar)
        lo, hi = np.searchsorted(sorted_matches, [start, start + n])
        at = np.full((n, max_hands), -1, np.int64)  # the run's row of each replayed hand (-1: not in the run)
        mine = order[lo:hi][copy[order[lo:hi]] == c]
        at[matches[mine] - start, hands[mine]] = mine
        _check_replay(out, results, at, start, c)
        recs = out.records
        rows = at[recs[:, L_MATCH], recs[:, L_HAND]]
        keep = rows >= 0  # hands the run holds (a partial run: its complete shards)
        recs, rows = recs[keep], rows[keep]
        focus_draws = (recs[:, L_PLAYER] == focus[rows]).astype(np.int64)
        cells = _context(recs, focus_draws) * N_DRAW_CLASSES + recs[:, L_CLASS]
        return rows, cells, recs[:, L_CLASS_COUNTS : L_CLASS_COUNTS + N_DRAW_CLASSES].astype(np.float64)

    kept = []
    for start, n in blocks:  # pass 1: every fold's sums
        for c in seatings:
            rows, cells, counts = block_records(start, n, c)
            fold = matches[rows] % folds
            for f in range(folds):
                sums[f] += np.bincount(cells[fold == f], weights=target[rows[fold == f]], minlength=n_cells)
                hands_in[f] += np.bincount(cells[fold == f], minlength=n_cells)
            if keep_records:
                kept.append((rows, cells, counts))
    # each fold's table from the other folds' draws (cross-fitting)
    tables = [
        _value_table(sums.sum(axis=0) - sums[f], hands_in.sum(axis=0) - hands_in[f], n_context) for f in range(folds)
    ]
    luck = np.zeros(len(df), np.float64)
    parts = iter(kept) if keep_records else (block_records(start, n, c) for start, n in blocks for c in seatings)
    for rows, cells, counts in parts:  # pass 2: the luck terms
        fold = matches[rows] % folds
        terms = np.empty(len(rows), np.float64)
        for f in range(folds):
            sel = fold == f
            values = tables[f][cells[sel] // N_DRAW_CLASSES]  # [n, classes]
            expected = (values * counts[sel]).sum(axis=1) / counts[sel].sum(axis=1)
            terms[sel] = values[np.arange(values.shape[0]), cells[sel] % N_DRAW_CLASSES] - expected
        np.add.at(luck, rows, terms)
    bar.close()
    return luck


def _context(recs, focus_draws) -> np.ndarray:
    """The situation of each draw record as an index of the value table (``focus_draws``: 1 where
    the drawer is the player whose value is corrected, ``a`` in a duplicate comparison)."""

    opp = np.minimum(recs[:, L_OPP_SHANTEN].astype(np.int64), 3)
    left = np.minimum(recs[:, L_TILES_LEFT].astype(np.int64) // TILES_LEFT_STEP, TILES_LEFT_BUCKETS - 1)
    left = np.where(recs[:, L_END_PHASE] != 0, TILES_LEFT_BUCKETS, left)
    return (((focus_draws * 2 + recs[:, L_DECLARED]) * 2 + recs[:, L_OPP_DECLARED]) * 4 + opp) * N_LEFT_STEPS + left


def _value_table(sums, hands, n_context) -> np.ndarray:
    """float64[n_context, N_DRAW_CLASSES]: the mean value per (situation, class) from its ``sums``
    and ``hands`` (flat, situation-major), shrunk by :data:`PRIOR_HANDS` towards the situation's
    mean, itself shrunk towards the overall mean."""

    s = sums.reshape(n_context, N_DRAW_CLASSES)
    n = hands.reshape(n_context, N_DRAW_CLASSES)
    overall = float(s.sum() / n.sum()) if n.sum() else 0.0
    base = (s.sum(axis=1) + PRIOR_HANDS * overall) / (n.sum(axis=1) + PRIOR_HANDS)
    return (s + PRIOR_HANDS * base[:, None]) / (n + PRIOR_HANDS)


def _check_replay(out, results, at, start, copy) -> None:
    """Refuse a replay whose hands' results differ from the run's (another policy, another engine):
    ``at`` int64[n, max_hands], the run's row of each replayed hand (-1: not in the run)."""
    played = np.arange(at.shape[1])[None, :] < out.n_hands[:, None]
    i, h = np.nonzero(played & (at >= 0))
    bad = np.flatnonzero(np.abs(out.results[i, h] - results[at[i, h]]).max(axis=1, initial=0) > 1e-9)
    missing = np.nonzero((at >= 0) & ~played)[0]
    if len(bad) or len(missing):
        k = bad[0] if len(bad) else None
        where = (
            f"match {start + int(i[k])} (copy {copy}, hand {int(h[k])})"
            if k is not None
            else f"match {start + int(missing[0])} (copy {copy})"
        )
        raise InputValueError(
            f"replaying {where} does not give the run's hands: the run was played by other policies or another "
            "version of the engine, so its draws cannot be measured"
        )
