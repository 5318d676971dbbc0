"""Wait kernels: the winning kinds of a ready concealed part.

For a concealed part of ``13 - 3k`` tiles, the waits are the kinds ``w`` of the tile set such that
adding one ``w`` completes the hand (:mod:`simkit.hand.win`), except kinds of which the player
already holds all 4 copies (concealed part plus own exposed melds). Returned as an int64 bitmask
over the 34 kinds (bit ``w`` set when ``w`` is a wait).
"""

import numpy as np

from .._jit import jit, pjit, prange
from .tables import COMPLETE, WAIT_MASK
from .win import group_code

__all__ = ["waits_kernel", "waits_batch_kernel", "mask_to_kinds", "popcount"]


@jit(inline="always")
def _group_waits(t, g, code):  # pragma: no cover - compiled
    """Kinds (bitmask) whose addition makes group ``g`` (table index ``code``) complete."""
    bits = t.info[code] & WAIT_MASK
    mask = np.int64(0)
    r = 0
    while bits:
        if bits & 1:
            mask |= np.int64(1) << t.group_kinds[g, r]
        bits >>= 1
        r += 1
    return mask


@jit
def waits_kernel(counts, n_melds, meld_counts, t):  # pragma: no cover - compiled
    """Bitmask of winning kinds for ``counts`` (uint8[34]) with ``n_melds`` exposed melds.

    ``meld_counts`` (uint8[34]) are the tiles in the player's own melds; they only matter for the
    rule that a kind held 4 times is never a winning tile. Returns 0 for a hand of the wrong size.

    Adding a tile changes one group. With the other groups complete, the hand (3n+1 tiles) wins
    either when its one 3n+1 group takes the pair, or, with two 3n+2 groups, when one of them turns
    into melds while the other keeps its pair.
    """
    total = 0
    n_one = 0
    n_two = 0
    bad = 0  # 3n and 3n+2 groups that are not complete
    g_one = -1
    c_one = 0
    g_a = -1
    c_a = 0
    g_b = -1
    c_b = 0
    a_ok = False
    b_ok = False
    for g in range(t.n_groups):
        code, size = group_code(counts, t, g)
        total += size
        r = size % 3
        if r == 1:
            n_one += 1
            g_one = g
            c_one = code
        else:
            complete = (t.info[code] & COMPLETE) != 0
            if r == 2:
                n_two += 1
                if g_a < 0:
                    g_a, c_a, a_ok = g, code, complete
                else:
                    g_b, c_b, b_ok = g, code, complete
            elif not complete:
                bad += 1
    if total != 13 - 3 * n_melds:
        return np.int64(0)
    mask = np.int64(0)
    if bad == 0:
        if n_one == 1 and n_two == 0:
            mask = _group_waits(t, g_one, c_one)
        elif n_one == 0 and n_two == 2:
            if b_ok:
                mask |= _group_waits(t, g_a, c_a)
            if a_ok:
                mask |= _group_waits(t, g_b, c_b)
    if t.seven_pairs and n_melds == 0:
        odd = -1
        n_odd = 0
        for i in range(t.kinds.shape[0]):
            k = t.kinds[i]
            if counts[k] & 1:
                n_odd += 1
                odd = k
        if n_odd == 1:
            mask |= np.int64(1) << odd
    if mask:
        for i in range(t.kinds.shape[0]):
            k = t.kinds[i]
            if (mask >> k) & 1 and counts[k] + meld_counts[k] >= 4:
                mask &= ~(np.int64(1) << k)
    return mask


@jit(inline="always")
def popcount(mask):  # pragma: no cover - compiled
    """Number of set bits of a non-negative int64."""
    c = 0
    while mask:
        mask &= mask - 1
        c += 1
    return c


@pjit
def waits_batch_kernel(counts, n_melds, meld_counts, t, out):  # pragma: no cover - compiled
    """Batch waits: ``counts``/``meld_counts`` uint8[N, 34], ``n_melds`` int64[N], ``out`` int64[N]."""
    for i in prange(counts.shape[0]):
        out[i] = waits_kernel(counts[i], n_melds[i], meld_counts[i], t)


def mask_to_kinds(mask: int) -> list[int]:
    """Kinds whose bits are set in a waits bitmask, ascending."""
    mask = int(mask)
    return [k for k in range(34) if (mask >> k) & 1]
