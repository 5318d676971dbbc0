"""What the pure-Python reference scorers share, written once: the arrangements of a winning hand,
the best of them, and random consistent hands.

Obviously correct and independent of simkit's kernels: the splits are :func:`reference.ref_splits`
(every split of the concealed part, by plain recursion); an arrangement is a split and, where the
rule set scores it, the part holding the winning tile (identical parts are one place), or the
hand's seven pairs; the best is the largest total, ties going to the lexicographically largest item
vector in the rule set's table order (the README's tie rule), the first of equal ones kept.
"""

from __future__ import annotations

import functools

try:  # tests/ on sys.path (conftest.py) ...
    from reference import ref_splits
except ImportError:  # ... or tests as a package
    from tests.reference import ref_splits

N_KINDS = 34


def splits(c: tuple[int, ...], k: int) -> list[tuple]:
    """Every split of the concealed part ``c`` (with ``k`` melds), sorted (as in ``ref_splits``)."""
    return sorted(ref_splits(c, k))


@functools.lru_cache(maxsize=1 << 16)
def placements(c: tuple[int, ...], k: int, win_tile: int) -> tuple[tuple[tuple, int], ...]:
    """Every ``(split, index of the part holding the winning tile)``, in sorted order; identical
    parts are the same place (two 123m chows: one placement)."""
    out = []
    for split in splits(c, k):
        seen = set()
        for idx, part in enumerate(split):
            shape, kind = part
            holds = (kind <= win_tile <= kind + 2) if shape == "chow" else (kind == win_tile)
            if holds and part not in seen:
                seen.add(part)
                out.append((split, idx))
    return tuple(out)


def seven_pairs(c: tuple[int, ...], melds) -> tuple[int, ...] | None:
    """The pairs of a seven-pairs hand (no melds, 14 tiles, every count even; a kind held four
    times is two pairs), or None."""
    if melds or sum(c) != 14 or any(x % 2 for x in c):
        return None
    return tuple(kind for kind in range(N_KINDS) for _ in range(c[kind] // 2))


def best(candidates, item_names: tuple[str, ...]):
    """The best of ``candidates``, each a tuple whose first element is its items ``{name: value}``:
    the largest sum, ties to the lexicographically largest vector in ``item_names`` order, the
    first of equal ones. None when there is none."""
    top = None
    for cand in candidates:
        items = cand[0]
        key = (sum(items.values()), tuple(items.get(name, 0) for name in item_names))
        if top is None or key > top[0]:
            top = (key, cand)
    return None if top is None else top[1]


# --------------------------------------------------------------------------- random hands


def random_melds(rng, k: int, types: tuple[str, ...], pool, chow_starts, left: dict, size: dict) -> list | None:
    """``k`` random melds: a type from ``types``, a kind from ``pool`` (a chow: its first kind from
    ``chow_starts``), taken from the tiles ``left`` (updated) when they are there. None when one
    did not fit (or a chow was drawn with no start to take)."""
    melds = []
    for _ in range(k):
        typ = rng.choice(types)
        if typ == "chow":
            if not chow_starts:
                break
            s = rng.choice(chow_starts)
            if all(left[s + d] for d in range(3)):
                for d in range(3):
                    left[s + d] -= 1
                melds.append((typ, s))
        else:
            kind = rng.choice(pool)
            if left[kind] >= size[typ]:
                left[kind] -= size[typ]
                melds.append((typ, kind))
    return melds if len(melds) == k else None


def take_identical(rng, pool, left: dict, c: list, n: int) -> bool:
    """Draw a kind from ``pool`` and move ``n`` tiles of it from ``left`` into ``c``; False (nothing
    moved) when fewer are left."""
    kind = rng.choice(pool)
    if left[kind] < n:
        return False
    left[kind] -= n
    c[kind] += n
    return True


def random_concealed(rng, k: int, pool, chow_starts, left: dict, p_chow: float) -> list[int] | None:
    """A random complete concealed part beside ``k`` melds: ``4 - k`` sets (a chow from
    ``chow_starts`` with probability ``p_chow`` when its tiles are left, else a pung from ``pool``)
    and a pair from ``pool``, taken from ``left`` (updated). Counts[34], or None when the tiles ran
    out."""
    c = [0] * N_KINDS
    ok = True
    for _ in range(4 - k):
        if chow_starts and rng.random() < p_chow:
            s = rng.choice(chow_starts)
            if all(left[s + d] for d in range(3)):
                for d in range(3):
                    left[s + d] -= 1
                    c[s + d] += 1
                continue
        if not take_identical(rng, pool, left, c, 3):
            ok = False
            break
    pair = take_identical(rng, pool, left, c, 2)  # drawn even after a failure: the streams stay as they were
    return c if ok and pair else None


def random_hand(rng, k: int, types, pool, chow_starts, left: dict, size: dict, p_chow: float):
    """``(melds, counts, win_tile)``: :func:`random_melds`, :func:`random_concealed` and
    :func:`random_win_tile` in turn, or None when the tiles did not fit."""
    melds = random_melds(rng, k, types, pool, chow_starts, left, size)
    if melds is None:
        return None
    c = random_concealed(rng, k, pool, chow_starts, left, p_chow)
    if c is None:
        return None
    return melds, c, random_win_tile(rng, c)


def random_win_tile(rng, c) -> int:
    """A winning tile drawn from the hand ``c`` by count."""
    return rng.choice([t for t in range(N_KINDS) for _ in range(c[t])])
