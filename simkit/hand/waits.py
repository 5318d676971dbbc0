"""Wait kernels: the winning kinds of a ready concealed part.

For a concealed part of ``13 - 3k`` tiles, the waits are the kinds ``w`` of the tile set such that
adding one ``w`` completes the hand (:mod:`simkit.hand.win`), except kinds of which the player
already holds all 4 copies (concealed part plus own exposed melds). Returned as an int64 bitmask
over the 34 kinds (bit ``w`` set when ``w`` is a wait).
"""

import numpy as np

from .._jit import borrow, jit, pjit, prange
from ..errors import HandError, check_int
from .tables import COMPLETE, WAIT_MASK, borrowed_hand_tables
from .win import pung_complete, pung_group, pung_has_pair, suit_code

__all__ = ["waits_kernel", "waits_batch_kernel", "mask_to_kinds", "popcount"]

_HIST_POW = (0, 1, 10, 100, 1000)


@jit(inline="always")
def _suit_waits(t, base, code):  # pragma: no cover - compiled
    """Kinds (bitmask) whose addition makes the suit starting at kind ``base`` complete."""
    bits = np.int64(t.info[code] & WAIT_MASK)
    return bits << base


@jit(inline="always")
def _pung_waits(counts, t, h, want_pair):  # pragma: no cover - compiled
    """Kinds whose addition makes the pung-only group complete, with a pair iff ``want_pair``."""
    mask = np.int64(0)
    for i in range(t.n_pung):
        k = t.pung_kinds[i]
        c = counts[k]
        if c == 1 or c == 2:
            h2 = h - _HIST_POW[c] + _HIST_POW[c + 1]
            if pung_complete(h2) and pung_has_pair(h2) == want_pair:
                mask |= np.int64(1) << k
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
    # group -1 is the pung-only group, 0..n_suits-1 the suits
    h, total = pung_group(counts, t)
    r = total % 3
    n_one = 1 if r == 1 else 0
    n_two = 1 if r == 2 else 0
    p_ok = r != 1 and pung_complete(h)
    bad = 0 if (r == 1 or p_ok) else 1  # complete-able groups (3n, 3n+2) that are not complete
    one = -2
    one_code = np.int64(0)
    two_a = -2
    two_b = -2
    code_a = np.int64(0)
    code_b = np.int64(0)
    a_ok = False
    b_ok = False
    if r == 1:
        one = -1
    elif r == 2:
        two_a = -1
        a_ok = p_ok
    for s in range(t.n_suits):
        code, size = suit_code(counts, t.suit_base[s])
        total += size
        rs = size % 3
        if rs == 1:
            n_one += 1
            one = s
            one_code = code
        else:
            complete = (t.info[code] & COMPLETE) != 0
            if not complete:
                bad += 1
            if rs == 2:
                n_two += 1
                if two_a == -2:
                    two_a, code_a, a_ok = s, code, complete
                else:
                    two_b, code_b, b_ok = s, code, complete
    if total != 13 - 3 * n_melds:
        return np.int64(0)
    mask = np.int64(0)
    if n_one == 1 and n_two == 0 and bad == 0:
        if one == -1:
            mask = _pung_waits(counts, t, h, True)
        else:
            mask = _suit_waits(t, t.suit_base[one], one_code)
    elif n_one == 0 and n_two == 2 and bad <= 2:
        # one 3n+2 group turns into melds, the other keeps its pair; the rest must be complete
        others_bad = bad - (0 if a_ok else 1) - (0 if b_ok else 1)
        if others_bad == 0:
            if b_ok:
                if two_a == -1:
                    mask |= _pung_waits(counts, t, h, False)
                else:
                    mask |= _suit_waits(t, t.suit_base[two_a], code_a)
            if a_ok:
                mask |= _suit_waits(t, t.suit_base[two_b], code_b)
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
    rows = borrow(counts)  # no reference counts per row and call (see borrowed_hand_tables)
    melds = borrow(meld_counts)
    tb = borrowed_hand_tables(t)
    for i in prange(counts.shape[0]):
        out[i] = waits_kernel(rows[i], n_melds[i], melds[i], tb)


def mask_to_kinds(mask: int) -> list[int]:
    """Kinds whose bits are set in a waits bitmask, ascending."""

    mask = check_int(mask, "a waits mask", 0, 2**34 - 1, HandError)
    return [k for k in range(34) if (mask >> k) & 1]
