"""The lookup tables: rebuilt from scratch they equal the cache, and they agree with brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import reference as ref

from simkit.hand import tables as T


@pytest.fixture(scope="module")
def fresh():
    return T.build_tables()


def test_rebuilt_tables_equal_the_cached_ones(fresh):
    cached = T.load_tables()
    for name in T.Tables._fields:
        assert np.array_equal(getattr(fresh, name), getattr(cached, name)), name


def test_cache_roundtrip(tmp_path, monkeypatch, fresh):
    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(T, "_LOADED", None)
    built = T.load_tables()
    assert T.cache_dir() == tmp_path / "tables"
    files = sorted(p.name for p in (tmp_path / "tables").iterdir())
    assert files == sorted(f"hand_{f}_v{T.TABLES_VERSION}.npy" for f in T.Tables._fields)
    monkeypatch.setattr(T, "_LOADED", None)
    loaded = T.load_tables()  # now from disk
    for name in T.Tables._fields:
        assert np.array_equal(getattr(built, name), getattr(loaded, name))
    # a corrupt cache file is rebuilt, not trusted
    (tmp_path / "tables" / f"hand_dist_v{T.TABLES_VERSION}.npy").write_bytes(b"not a numpy file")
    monkeypatch.setattr(T, "_LOADED", None)
    assert np.array_equal(T.load_tables().dist, fresh.dist)
    monkeypatch.setattr(T, "_LOADED", None)  # leave no tmp-path tables behind


def test_packing_roundtrip(fresh):
    rows = T.unpack_dist(fresh.dist)
    assert np.array_equal(T.pack_dist(rows), fresh.dist)
    dist, _ = T.suit_tables(9, chows=True)
    assert np.array_equal(rows, dist)


def _ref_row(kinds, chows, counts):
    row = ref._group_costs(tuple(kinds), chows, tuple(int(c) for c in counts))
    return [min(int(v), T.INF) for v in row]


def _codes_to_counts(codes, ranks):
    return (np.asarray(codes)[:, None] // 5 ** np.arange(ranks)) % 5


def test_suit_distance_rows_against_brute_force(fresh):
    rng = np.random.default_rng(0)
    small = [sum(c * 5**r for r, c in enumerate(cs)) for cs in itertools.product(range(5), repeat=9) if sum(cs) <= 3]
    codes = np.concatenate([small, rng.integers(0, 5**9, 20_000)])
    for code, counts in zip(codes, _codes_to_counts(codes, 9)):
        assert list(T.unpack_dist(fresh.dist[code])) == _ref_row(range(9), True, counts), counts


def test_suit_info_against_brute_force(fresh):
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 5**9, 200_000)
    counts_all = _codes_to_counts(codes, 9)
    keep = counts_all.sum(1) <= 14  # the tables describe hands of at most 4 melds + a pair
    for code, counts in list(zip(codes[keep], counts_all[keep]))[:20_000]:
        n = int(counts.sum())
        c34 = tuple(int(x) for x in counts) + (0,) * 25
        complete = n % 3 != 1 and ref._decomposes(c34, n % 3 == 2)
        assert bool(fresh.info[code] & T.COMPLETE) == complete, counts
        waits = 0
        if n % 3 and n < 14:
            for r in range(9):
                if counts[r] < 4:
                    plus = list(c34)
                    plus[r] += 1
                    if ref._decomposes(tuple(plus), (n + 1) % 3 == 2):
                        waits |= 1 << r
        assert int(fresh.info[code]) & T.WAIT_MASK == waits, counts


@pytest.mark.parametrize("size", [7, 9])
def test_histogram_rows_against_brute_force(fresh, size):
    table = fresh.hdist7 if size == 7 else fresh.hdist9
    kinds = list(range(27, 34)) if size == 7 else [9, 17, *range(27, 34)]
    seen = 0
    for n in itertools.product(range(size + 1), repeat=4):
        if sum(n) > size:
            continue
        counts = [1] * n[0] + [2] * n[1] + [3] * n[2] + [4] * n[3]
        counts += [0] * (size - len(counts))
        # any arrangement of the same histogram has the same row
        perm = np.random.default_rng(seen).permutation(counts)
        assert list(table[T.hist_code(perm)]) == _ref_row(kinds, False, perm), perm
        seen += 1
    assert seen == len({T.hist_code(c) for c in itertools.product(range(5), repeat=size)})


@pytest.mark.parametrize("size", [7, 9])
def test_histogram_moves_against_the_rows(fresh, size):
    """hist_moves: the rows, then for every histogram a group of ``size`` kinds can hold, the
    entries adding a tile to a kind of c tiles lowers, and those removing one from a kind of c
    tiles keeps, read off the rows of the two histograms themselves; zero where no kind holds c
    tiles."""
    table = fresh.hdist7 if size == 7 else fresh.hdist9
    moves = T.hist_moves(table, size)
    assert moves.dtype == np.uint16 and np.array_equal(moves[:, :10], table)
    seen = 0
    for n in itertools.product(range(size + 1), repeat=4):
        if sum(n) > size:
            continue
        held = [size - sum(n), *n]  # kinds holding 0, 1, 2, 3, 4 tiles
        h = sum(T.HIST_POW[c] * held[c] for c in range(1, 5))
        for c in range(5):
            up = h - T.HIST_POW[c] + T.HIST_POW[c + 1] if c < 4 and held[c] else None
            down = h - T.HIST_POW[c] + T.HIST_POW[c - 1] if c > 0 and held[c] else None
            lower = 0 if up is None else sum(1 << j for j in range(1, 10) if table[up, j] < table[h, j])
            keep = 0 if down is None else sum(1 << j for j in range(10) if table[down, j] == table[h, j])
            added = int(moves[h, T.HIST_ADD + c]) if c < 4 else 0
            removed = int(moves[h, T.HIST_REMOVE + c]) if c > 0 else 0
            assert (added, removed) == (lower, keep), (n, c)
        assert moves[h, T.HIST_ADD + 4] == moves[h, T.HIST_REMOVE] == 0  # the unused columns
        seen += 1
    assert seen > 0


def test_unsupported_tile_set_is_refused():
    with pytest.raises(ValueError, match="unsupported tile set"):
        T.layout_tables((0, 1, 2, 27), False)
