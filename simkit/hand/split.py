"""Every split of a complete concealed part into melds and a pair.

Scoring needs all of them: concealed pungs, single waits and all-pungs depend on the split. A split
is ``4 - k`` melds and one pair, each part a row ``(part type, lowest kind)`` with part types
:data:`PART_PUNG`, :data:`PART_CHOW`, :data:`PART_PAIR`. Two splits are different when their
multisets of parts differ (``111222333m`` has two: three pungs, or three ``123m`` chows). Seven
pairs is not a split; see :func:`simkit.hand.win.is_seven_pairs`.
"""

from .._jit import jit
from .tables import COMPLETE
from .win import pung_complete, pung_group, pung_has_pair, suit_code

__all__ = ["PART_PUNG", "PART_CHOW", "PART_PAIR", "PART_NAMES", "MAX_SPLITS", "SCRATCH", "splits_kernel"]

PART_PUNG = 0  #: split part: three identical tiles
PART_CHOW = 1  #: split part: three consecutive tiles of a suit, stored by its lowest kind
PART_PAIR = 2  #: split part: the pair
PART_NAMES = ("pung", "chow", "pair")

MAX_SPLITS = 64  #: capacity of the output; no 14-tile hand has more (checked exhaustively in tests)
SCRATCH = 80  #: length of the int64 scratch array of :func:`splits_kernel`


@jit(inline="always")
def _melds_only(counts, t):  # pragma: no cover - compiled
    """Whether ``counts`` splits into melds with no pair (every group complete, none 3n+2)."""
    h, _ = pung_group(counts, t)
    if not pung_complete(h) or pung_has_pair(h):
        return False
    for s in range(t.n_suits):
        code, size = suit_code(counts, t.suit_base[s])
        if size % 3 != 0 or not (t.info[code] & COMPLETE):
            return False
    return True


@jit(called_by_symbol=True)
def splits_kernel(counts, n_melds, t, out, scratch):  # pragma: no cover - compiled
    """Write every split of ``counts`` (uint8[34]) into ``out`` (int8[MAX_SPLITS, 5, 2]).

    Row ``s`` of ``out`` holds the ``4 - n_melds`` melds in ascending order followed by the pair;
    unused rows are left as they were. ``scratch`` is int64[SCRATCH] work space. Returns the
    number of splits (0 when not complete).

    For each pair candidate whose removal leaves only complete meld groups (a table lookup), the
    melds are enumerated depth-first from the lowest tile: it must start a pung or a chow.
    """
    need = 4 - n_melds
    total = 0
    for i in range(t.kinds.shape[0]):
        total += counts[t.kinds[i]]
    if total != 3 * need + 2:
        return 0
    base = scratch[0:34]
    work = scratch[34:68]
    for k in range(34):
        base[k] = counts[k]
    n_out = 0
    for pair_i in range(t.kinds.shape[0]):
        pair = t.kinds[pair_i]
        if counts[pair] < 2:
            continue
        base[pair] -= 2
        if not _melds_only(base, t):
            base[pair] += 2
            continue
        # branch choices: bit d of `choice` picks chow (1) or pung (0) at depth d where both fit;
        # where only one fits, the bit must be 0 so every split is produced exactly once.
        for choice in range(1 << need):
            for k in range(34):
                work[k] = base[k]
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
                    scratch[68 + 2 * depth] = PART_CHOW
                    chow_at = k
                else:
                    work[k] -= 3
                    scratch[68 + 2 * depth] = PART_PUNG
                scratch[69 + 2 * depth] = k
            if not ok:
                continue
            if n_out < out.shape[0]:
                for depth in range(need):
                    out[n_out, depth, 0] = scratch[68 + 2 * depth]
                    out[n_out, depth, 1] = scratch[69 + 2 * depth]
                out[n_out, need, 0] = PART_PAIR
                out[n_out, need, 1] = pair
            n_out += 1
        base[pair] += 2
    return n_out
