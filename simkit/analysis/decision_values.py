"""Each legal action's value at sampled decisions of a run: the Q values of learning from advice.

A decision is replayed from the run's own decision log (the match dealt again from its seed, every
logged action applied in order), checked against the observation logged there, and its legal
actions are ranked by :func:`simkit.rollouts` from the decider's position.
"""

from __future__ import annotations

import numpy as np

from .. import datasets
from ..engine import actions as A
from ..engine.observation import encode_view
from ..errors import InputValueError, SimkitError, check_int, show
from ..play.position import position_of
from ..play.rollouts import rollouts as rollouts_at
from ..play.runtime import prepare_match
from ..play.stepper import GameState
from ..progress import progress_bar
from .decisions import check_filters, decision_arrays

__all__ = ["decision_values", "POSITION_PHASES"]

#: the phases a position stands at (after a draw, after a claim, on the opponent's discard): the
#: decisions rollouts can value
POSITION_PHASES = (A.PHASE_DRAW, A.PHASE_PUNG, A.PHASE_REACT)


def decision_values(
    path,
    *,
    sample: int = 100,
    rollouts: int = 1000,
    policies=("greedy", "greedy"),
    seed: int = 0,
    player=None,
    policy=None,
    decisions=None,
    progress: bool = True,
) -> dict:
    """The value of each legal action at sampled decisions of a run written with
    ``decisions="observations"``: targets for learning from advice beside the run's observations.

    Each decision is replayed from the run's decision log, its observation compared with the
    logged one (a difference is an error: the run and this simkit no longer play the same games),
    and its legal actions are ranked by :func:`simkit.rollouts` from the decider's position:
    ``rollouts`` paired continuations per action with ``policies``, the unseen tiles resampled
    (the decider's information, not the true deal). A position does not carry Skipped Win or
    Skipped Pung in force, so the rollouts do not either.

    Parameters
    ----------
    path : str or Path
        The run directory.
    sample : int
        Decisions drawn uniformly (from ``seed``) among those that have more than one legal action
        and stand at a position (after a draw, after a claim, on the opponent's discard:
        :data:`POSITION_PHASES`), after the ``player`` / ``policy`` filters.
    rollouts : int
        Continuations per legal action.
    policies : pair
        The rollout policies (the decider's after the action, the opponent's).
    seed : int
        The sample and the rollouts' streams (decision ``k`` of the sample: ``seed + k``).
    player, policy :
        As :func:`decision_arrays`: only this player's, or this policy label's, decisions.
    decisions : sequence of int, optional
        Instead of a sample: these rows of ``decision_arrays(path, player=, policy=)``.
    progress : bool
        A progress bar over the decisions.

    Returns
    -------
    dict
        numpy arrays of ``k`` rows, one per decision valued, in the log's order. ``decision``:
        int64[k], its row in ``decision_arrays(path, player=, policy=)``; ``q``: float64[k,
        N_ACTIONS], each legal action's mean result per hand for the decider (score minus fee, the
        rule set's payment unit), NaN for an illegal action; ``q_low`` / ``q_high``: its 95%
        interval; ``observation``, ``legal`` and ``action``: the decision's, as
        :func:`decision_arrays` gives them; ``rollouts``: the continuations per action.

    Raises
    ------
    simkit.datasets.DatasetError
        Not a run, no observations in its log (:func:`decision_arrays`), or a replay that does not
        reach the logged observation.
    SimkitError
        A bad ``sample``, ``rollouts``, ``seed`` or ``decisions``.
    """
    sample = check_int(sample, "sample", 1, 10**7)
    rollouts = check_int(rollouts, "rollouts", 1, 10**9)
    seed = check_int(seed, "seed", 0, 2**62)
    run = datasets.open_run(path, verify=False)
    check_filters(run, player, policy)
    everything = decision_arrays(path)  # every decision: a replay needs both players' actions
    keep = np.ones(len(everything["action"]), np.bool_)
    if player is not None:
        keep &= everything["player"] == player
    if policy is not None:
        keep &= everything["policy"] == policy
    kept = np.flatnonzero(keep)  # row in decision_arrays(path, player=, policy=) -> row in everything
    if decisions is None:
        candidates = np.flatnonzero(
            (everything["n_legal"][kept] > 1) & np.isin(everything["phase"][kept], POSITION_PHASES)
        )
        rng = np.random.default_rng(seed)
        picked = np.sort(rng.choice(candidates, size=min(sample, len(candidates)), replace=False))
    else:
        picked = _check_rows(decisions, len(kept), everything, kept)
    spec = prepare_match(run.rules, ("random", "random"), **datasets.wall_settings_of(run.spec))[0]
    run_seed = int(run.spec["seed"])
    k = len(picked)
    q = np.full((k, A.N_ACTIONS), np.nan)
    q_low, q_high = q.copy(), q.copy()
    targets = kept[picked]
    key = everything["match"] * 2 + everything["copy"]
    bar = progress_bar(k, unit="decision", desc="decision values", enabled=bool(progress))
    for game in np.unique(key[targets]):  # each (match, copy) replayed once, up to its last target
        rows = np.flatnonzero(key == game)
        wanted = set(targets[key[targets] == game].tolist())
        last = max(wanted)
        state = GameState.new_match(spec, run_seed, int(everything["match"][rows[0]]))
        for r in rows.tolist():
            if state.over:
                state.next_hand()
            if r in wanted:
                _check_replay(state, everything, r, run.path)
                j = int(np.searchsorted(targets, r))
                df = rollouts_at(position_of(state), n=rollouts, policies=policies, seed=seed + j)
                codes = df["code"].to_numpy()
                q[j, codes] = df["mean"].to_numpy()
                q_low[j, codes] = df["mean_low"].to_numpy()
                q_high[j, codes] = df["mean_high"].to_numpy()
                bar.update(1)
            if r == last:
                break
            try:
                state.apply(int(everything["action"][r]))
            except SimkitError:  # an action the replayed game does not allow: not the run's game
                _check_replay(state, everything, r, run.path, force=True)
    bar.close()
    return {
        "decision": picked.astype(np.int64),
        "q": q,
        "q_low": q_low,
        "q_high": q_high,
        "observation": everything["observation"][targets],
        "legal": everything["legal"][targets],
        "action": everything["action"][targets],
        "rollouts": rollouts,
    }


def _check_rows(decisions, n_rows: int, everything, kept) -> np.ndarray:
    """``decisions`` as sorted distinct rows of the filtered arrays, each at a position."""
    rows = np.asarray(decisions)
    if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer) or len(rows) == 0:
        raise InputValueError(f"decisions is a non-empty sequence of row numbers, got {show(decisions)}")
    if rows.min() < 0 or rows.max() >= n_rows:
        raise InputValueError(f"decisions are rows 0 to {n_rows - 1} of the run's decisions, got {int(rows.max())}")
    rows = np.unique(rows)
    phases = everything["phase"][kept[rows]]
    off = rows[~np.isin(phases, POSITION_PHASES)]
    if len(off):
        r = int(off[0])
        raise InputValueError(
            f"decision {r} is {A.PHASE_NAMES[int(everything['phase'][kept[r]])]}: rollouts value a decision "
            "after a draw, after a claim or on the opponent's discard"
        )
    return rows


def _check_replay(state, everything, r: int, where, force: bool = False) -> None:
    """The replayed state stands at logged decision ``r``: the same decider and observation
    (``force``: it does not, the logged action was refused)."""
    same = (
        not force
        and state.player == int(everything["player"][r])
        and np.array_equal(encode_view(state.view()), everything["observation"][r])
    )
    if not same:
        raise datasets.DatasetError(
            f"{where}: replaying match {int(everything['match'][r])} (copy {int(everything['copy'][r])}) does not "
            f"reach its logged decision {int(everything['step'][r])} of hand {int(everything['hand'][r])}: "
            "the run was played by a simkit that plays other games"
        )
