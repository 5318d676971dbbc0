"""What a player cannot see, and worlds drawn from it: the one belief simkit's searches share.

A player sees their own concealed tiles, both players' melds and both rivers (a claimed discard
once: it is also a tile of the claimer's meld). Every other copy of the rule set's tiles is
**unseen**: the opponent's concealed tiles, then the wall from the next draw on (the kept-back
tiles included). Given what the player has seen, every arrangement of the unseen tiles into the
opponent's hand and the wall is equally likely -- the wall is a uniform shuffle, whatever the wall
design -- except that a declared opponent's hand is ready. So a **world** (a completion of the
position) is drawn by shuffling the unseen tiles uniformly and, for a declared opponent, drawing
again until the opponent's part is ready (rejection: exactly the uniform law restricted to the
ready hands).

* :func:`view_unseen` counts the unseen tiles from a policy's :class:`~simkit.engine.actions.View`;
  :func:`table_unseen` the same from the engine's Table (the two agree by construction and in the
  tests);
* :func:`sample_hidden` draws a world from the counts: the tiles in their order (the opponent's
  concealed tiles first, then the wall) and the opponent's hand as counts;
* :func:`sample_view_world` does both for a policy, from its View and its random stream.

``simkit advise`` (:func:`simkit.rollouts`), the ``search`` policy and the responder of
:func:`simkit.exploitability` draw their worlds with :func:`sample_hidden`, and the tests compare
its frequencies with exact counts on small positions. The belief is the uniform one: it does not
weigh a world by how likely the opponent's own discards and claims made it.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..hand.shanten import shanten_kernel
from ..melds import MELD_CHOW, MELD_PUNG
from .rng import bounded

__all__ = ["MAX_TRIES", "view_unseen", "table_unseen", "sample_hidden", "sample_view_world"]

#: Draws :func:`sample_hidden` makes for a declared opponent before it gives up (no completion
#: leaves them ready: the position is impossible).
MAX_TRIES = 100_000


@jit(inline="always")
def _add_melds(melds, n_melds, out):  # pragma: no cover - compiled
    for m in range(n_melds):
        code = melds[m, 0]
        kind = melds[m, 1]
        if code == MELD_CHOW:
            out[kind] += 1
            out[kind + 1] += 1
            out[kind + 2] += 1
        else:
            out[kind] += 3 if code == MELD_PUNG else 4


@jit(inline="always")
def _take_unclaimed(river, claimed, n_river, out):  # pragma: no cover - compiled
    for i in range(n_river):
        if not claimed[i]:
            out[river[i]] -= 1


@jit
def view_unseen(view, out):  # pragma: no cover - compiled
    """Fill ``out`` (int64[34]) with the copies of each kind the deciding player of ``view`` cannot
    see: four of each kind of the rule set's tile set, less their concealed tiles, both players'
    melds and both rivers' unclaimed discards. Returns their number (the opponent's concealed
    tiles and the whole wall left, kept-back tiles included)."""
    for k in range(34):
        out[k] = 0
    t = view.tables
    for i in range(t.kinds.shape[0]):
        out[t.kinds[i]] = 4
    for k in range(34):
        out[k] -= view.hand[k]
    taken = np.zeros(34, np.int64)
    _add_melds(view.melds, view.n_melds, taken)
    _add_melds(view.opp_melds, view.opp_n_melds, taken)
    n = 0
    for k in range(34):
        out[k] -= taken[k]
    _take_unclaimed(view.river, view.river_claimed, view.n_river, out)
    _take_unclaimed(view.opp_river, view.opp_river_claimed, view.opp_n_river, out)
    for k in range(34):
        n += out[k]
    return n


@jit(inline="always")
def table_unseen(T, p, kinds, out):  # pragma: no cover - compiled
    """:func:`view_unseen` from the engine's Table ``T`` for player ``p`` (``kinds``: the rule set's
    tile kinds); returns their number."""
    for k in range(34):
        out[k] = 0
    for i in range(kinds.shape[0]):
        out[kinds[i]] = 4
    n = 0
    for k in range(34):
        out[k] -= T.hand[p, k] + T.meld_counts[0, k] + T.meld_counts[1, k]
    for x in range(2):
        _take_unclaimed(T.river[x], T.claimed[x], T.n_river[x], out)
    for k in range(34):
        n += out[k]
    return n


@jit
def sample_hidden(unseen, n_opp, opp_n_melds, opp_ready, tables, state, tiles, opp, work):  # pragma: no cover
    """Draw a world: a uniform shuffle of the unseen tiles (counts ``unseen`` int64[34]) into
    ``tiles`` (int8, at least their number: the opponent's ``n_opp`` concealed tiles first, then the
    wall from the next draw on) from the random stream ``state`` (uint64[1]), and the opponent's
    part as counts in ``opp`` (uint8[34]). With ``opp_ready`` (a declared opponent, holding
    ``opp_n_melds`` melds) it draws again until that part is ready (``tables``: the rule set's hand
    tables; ``work``: int64[20] scratch of the shanten kernel), at most :data:`MAX_TRIES` times.

    Returns the number of unseen tiles, or -1 when no draw left a declared opponent ready. The
    shuffle is Fisher-Yates (:func:`simkit.engine.deal.shuffle_wall`'s), so the same stream
    gives the same world wherever it is drawn."""
    n = 0
    for k in range(34):
        n += unseen[k]
    for attempt in range(MAX_TRIES):
        i = 0
        for k in range(34):
            for _ in range(unseen[k]):
                tiles[i] = k
                i += 1
        for k in range(n - 1):
            j = k + bounded(state, n - k)
            x = tiles[k]
            tiles[k] = tiles[j]
            tiles[j] = x
        for k in range(34):
            opp[k] = 0
        for k in range(n_opp):
            opp[tiles[k]] += 1
        if not opp_ready or shanten_kernel(opp, opp_n_melds, tables, work) == 0:
            return n
    return -1


@jit
def sample_view_world(view, state, tiles, opp):  # pragma: no cover - compiled
    """A world for the deciding player of ``view`` (:func:`view_unseen`, :func:`sample_hidden`), from
    the random stream ``state`` (uint64[1], e.g. the policy's ``rng``): ``tiles`` (int8[136]) gets
    the opponent's concealed tiles and then the wall from the next draw on, ``opp`` (uint8[34]) the
    opponent's hand as counts. Returns the number of unseen tiles (``tiles[:n]`` is the world), or
    -1 when none leaves a declared opponent ready. The opponent holds ``13 - 3 * opp_n_melds``
    concealed tiles at any decision of the other player after the deal."""
    unseen = np.zeros(34, np.int64)
    view_unseen(view, unseen)
    work = np.zeros(20, np.int64)
    n_opp = 13 - 3 * view.opp_n_melds
    return sample_hidden(unseen, n_opp, view.opp_n_melds, view.opp_declared != 0, view.tables, state, tiles, opp, work)
