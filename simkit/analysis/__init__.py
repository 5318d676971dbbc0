"""Analysis of simulation runs: load a dataset, and the numbers and plots of a study with 95% intervals.

* :func:`load`: a run directory (:mod:`simkit.datasets`) as a pandas DataFrame, only the columns and rows
  asked for, with the run's description in ``df.attrs``.
* :func:`decision_arrays`: a run's decision log as numpy arrays for learning: every decision's
  observation, legal mask and action (a run written with ``decisions="observations"``).
* :func:`decision_values`: each legal action's rollout value (Q) at sampled decisions of such a
  run, each decision replayed from the log: targets for learning from advice.
* :func:`tai_distribution`: counts and shares of the value of a win (hand tai and total tai for
  douque; fan, multiple or combination points for the other rule sets).
* :func:`item_frequencies`, :func:`item_pairs`: how often each scoring item is scored, per hand and
  per win, and which items come together.
* :func:`expected_payment`: mean payment, or a player's mean result, per hand and per match.
* :func:`deal_value`: the value of the dealer's tenure from a streak until the deal passes.
* :func:`compare`: the paired difference between the two policies of a ``--duplicate`` run, or
  between two runs on the same deals (same seed and wall design); ``correct_luck=True`` removes
  the luck of the draw (:func:`draw_luck`, an unbiased control variate).
* ``plot_*``: matplotlib figures of the above (matplotlib is imported only by them).
* :func:`summarize`: what ``simkit summarize`` prints (streams over the shards).

One concern per file: ``loading.py`` (:func:`load`, :func:`load_many`, :func:`players` and the data
helpers), ``decisions.py`` (:func:`decision_arrays`), ``decision_values.py`` (:func:`decision_values`), ``groups.py`` (the grouping keys), ``intervals.py`` (:func:`clustered_mean` and the
interval helpers), ``distributions.py`` (:func:`tai_distribution`, :func:`item_frequencies`,
:func:`item_pairs`), ``payments.py`` (:func:`expected_payment`, :func:`deal_value`),
``comparison.py`` (:func:`compare`, :class:`Comparison`), ``luck.py`` (:func:`draw_luck`),
``summary.py`` (:func:`summarize`, :class:`Summary`) and ``plots.py`` (``plot_*``); every public name
is imported from here.

Every function takes a DataFrame from :func:`load` (or a run directory, which it loads with only the
columns it needs) and returns a tidy DataFrame: one row per group and value, plain columns.

Grouping (``by``): a column name of the data (``win_type``, ``streak``, ``prevailing_wind``,
``copy``, ...), or one of the *player keys* :data:`PLAYER_KEYS`:

* ``player``: player 0 or 1; ``policy``: the player's policy label; ``role``: ``dealer`` or
  ``non-dealer``; ``seat_wind``: the player's seat wind (E or W).

In the per-win statistics a player key describes the winner. Per hand, the rate of a group counts
the hands in which a player of that group sits (a hand with both players in the group counts once).

Intervals are 95%: Wilson intervals (:func:`simkit.stats.wilson_interval`) for shares and rates of
independent wins or hands; for means per hand, a ratio estimator with standard errors clustered by
match (:func:`clustered_mean`): hands of one match are correlated through the dealer streak and the
score, and with ``--duplicate`` both copies of a match form one cluster. Rates per hand with a Wilson
interval treat hands as independent, which the scoring items nearly are; use
:func:`expected_payment` with ``value="won"`` for a clustered win rate.
"""

from __future__ import annotations

from .comparison import Comparison, compare
from .decision_values import decision_values
from .decisions import decision_arrays
from .distributions import WIN_VALUES, item_frequencies, item_pairs, tai_distribution
from .groups import PLAYER_KEYS
from .intervals import clustered_mean
from .loading import load, load_many, players
from .luck import draw_luck
from .payments import deal_value, expected_payment
from .plots import (
    plot_comparison,
    plot_deal_value,
    plot_expected_payment,
    plot_item_frequencies,
    plot_tai_distribution,
)
from .summary import Summary, summarize

__all__ = [
    "load",
    "decision_arrays",
    "decision_values",
    "load_many",
    "players",
    "tai_distribution",
    "item_frequencies",
    "item_pairs",
    "expected_payment",
    "deal_value",
    "compare",
    "Comparison",
    "draw_luck",
    "plot_tai_distribution",
    "plot_item_frequencies",
    "plot_expected_payment",
    "plot_deal_value",
    "plot_comparison",
    "summarize",
    "Summary",
    "clustered_mean",
    "PLAYER_KEYS",
    "WIN_VALUES",
]
