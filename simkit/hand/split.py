"""Every split of a complete concealed part into melds and a pair.

Scoring needs all of them: concealed pungs, single waits and all-pungs depend on the split. A split
is ``4 - k`` melds and one pair, each part a row ``(part type, lowest kind)`` with part types
:data:`PART_PUNG`, :data:`PART_CHOW`, :data:`PART_PAIR`. Two splits are different when their
multisets of parts differ (``111222333m`` has two: three pungs, or three ``123m`` chows). Seven
pairs is not a split; see :func:`simkit.hand.win.is_seven_pairs`.
"""

import numpy as np

from .._jit import jit

__all__ = ["PART_PUNG", "PART_CHOW", "PART_PAIR", "PART_NAMES", "MAX_SPLITS", "splits_kernel"]

PART_PUNG = 0  #: split part: three identical tiles
PART_CHOW = 1  #: split part: three consecutive tiles of a suit, stored by its lowest kind
PART_PAIR = 2  #: split part: the pair
PART_NAMES = ("pung", "chow", "pair")

MAX_SPLITS = 64  #: capacity of the output; no 14-tile hand has more (checked exhaustively in tests)


@jit
def splits_kernel(counts, n_melds, t, out):  # pragma: no cover - compiled
    """Write every split of ``counts`` (uint8[34]) into ``out`` (int8[MAX_SPLITS, 5, 2]).

    Row ``s`` of ``out`` holds the ``4 - n_melds`` melds in ascending order followed by the pair;
    unused rows are left as they were. Returns the number of splits (0 when not complete).
    """
    need = 4 - n_melds
    total = 0
    for i in range(t.kinds.shape[0]):
        total += counts[t.kinds[i]]
    if total != 3 * need + 2:
        return 0
    work = np.empty(34, np.int64)
    melds = np.empty((4, 2), np.int64)
    n_out = 0
    for pair_i in range(t.kinds.shape[0]):
        pair = t.kinds[pair_i]
        if counts[pair] < 2:
            continue
        # branch choices: bit d of `choice` picks chow (1) or pung (0) at depth d where both fit;
        # where only one fits, the bit must be 0 so every split is produced exactly once.
        for choice in range(1 << need):
            for k in range(34):
                work[k] = counts[k]
            work[pair] -= 2
            k = 0
            ok = True
            chow_at = -1  # a chow was taken at this kind: no pung there after it (pungs come first)
            for depth in range(need):
                while k < 34 and work[k] == 0:
                    k += 1
                if k == 34:
                    ok = False
                    break
                can_pung = work[k] >= 3 and chow_at != k
                can_chow = t.chow_start[k] and work[k + 1] > 0 and work[k + 2] > 0
                bit = (choice >> depth) & 1
                if can_pung and can_chow:
                    use_chow = bit == 1
                elif bit == 1:
                    ok = False
                    break
                elif can_pung:
                    use_chow = False
                elif can_chow:
                    use_chow = True
                else:
                    ok = False
                    break
                if use_chow:
                    work[k] -= 1
                    work[k + 1] -= 1
                    work[k + 2] -= 1
                    melds[depth, 0] = 1
                    chow_at = k
                else:
                    work[k] -= 3
                    melds[depth, 0] = 0
                melds[depth, 1] = k
            if not ok:
                continue
            # bits above `need` are never read; `choice < 1 << need` keeps them zero
            if n_out < out.shape[0]:
                for depth in range(need):
                    out[n_out, depth, 0] = melds[depth, 0]
                    out[n_out, depth, 1] = melds[depth, 1]
                out[n_out, need, 0] = 2
                out[n_out, need, 1] = pair
            n_out += 1
    return n_out
