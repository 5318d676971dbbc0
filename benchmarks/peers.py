"""Peers on the 136-tile set: win check (14 tiles), shanten (13 tiles) and shanten (14 tiles) on
``--peer-hands`` dealt hands (``for_two``: 34 kinds, standard form, no melds) through simkit's batch
kernels at 1 and 2 threads, its public batch calls (every row checked) at 1 and 2 threads,
RiichiEnv (``riichienv.calculate_shanten``, from the optional ``bench`` extra:
``pip install -e '.[bench]'``; without it a note says so and the rest is measured) and the
``mahjong`` package (the first ``--peer-n`` hands), and waits on random ready hands (simkit's
kernel and ``simkit.waits_batch`` only), every answer checked against simkit's on every hand
measured (the bench stops on the first disagreement); in ns per hand per core, with the ratios
public call / kernel, the kernel's 2-thread speed-up and peer / kernel.

Usage: ``python3 benchmarks/peers.py [--peer-hands 200000] [--peer-n 20000] [--repeat 3] [--seed 2026] [--json OUT]``
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _common import main_for

FAMILY = "peers"
OPTIONS = ("peer_hands", "peer_n", "seed", "repeat")


def run(args, rec) -> None:
    _peer_section(args.peer_hands, args.peer_n, args.seed, args.repeat, rec)


def _special_forms(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distances of seven pairs (seven different kinds paired) and thirteen orphans, as riichi
    counts them (RiichiEnv and the ``mahjong`` package): shanten ``6 - pairs + max(0, 7 - kinds)``
    and ``13 - terminal and honor kinds held - (a pair of one of them)``."""
    held = counts > 0
    seven = 6 - (counts >= 2).sum(axis=1) + np.maximum(0, 7 - held.sum(axis=1))
    orphans = np.array([0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33])
    thirteen = 13 - held[:, orphans].sum(axis=1) - (counts[:, orphans] >= 2).any(axis=1)
    return seven.astype(np.int64), thirteen.astype(np.int64)


def _tile_ids(counts: np.ndarray) -> list[list[int]]:
    """Each hand as the list of its 136-tile ids (``4 * kind + copy``), RiichiEnv's input."""
    flat = counts.ravel().astype(np.int64)
    kinds = np.repeat(np.tile(np.arange(34, dtype=np.int64), len(counts)), flat)
    starts = np.repeat(np.cumsum(flat) - flat, flat)
    ids = 4 * kinds + (np.arange(len(kinds)) - starts)
    return ids.reshape(len(counts), -1).tolist()


def _disagree(what: str, peer: str, hands: np.ndarray, ours: np.ndarray, theirs: np.ndarray) -> None:
    """Stop the bench, naming the first hand on which ``peer`` and simkit differ."""
    from simkit.tiles import format_tiles

    bad = np.flatnonzero(np.asarray(ours) != np.asarray(theirs))
    if len(bad):
        i = int(bad[0])
        raise SystemExit(
            f"bench: {peer} and simkit disagree on {what} for {len(bad):,} hand{'s' if len(bad) > 1 else ''}; first, hand {i} "
            f"{format_tiles(hands[i])}: simkit {ours[i]}, {peer} {theirs[i]}"
        )


def _peer_section(n: int, mahjong_n: int, seed: int, repeat: int, rec=None) -> None:
    """Win check and shanten on the 136-tile set (``for_two``: 34 kinds, standard form, no melds):
    ``n`` dealt 14-tile and 13-tile hands through simkit's kernels at 1 and 2 threads, its public
    batch calls at 1 and 2 threads (and waits on ``n`` random ready hands, simkit only), RiichiEnv (``riichienv.calculate_shanten``, its fastest call
    reachable from Python; a win is shanten -1) and, on the first ``mahjong_n`` hands, the
    ``mahjong`` package; every answer checked against simkit's on every hand measured. Figures are
    ns per hand per core (wall time x threads / hands), best of ``repeat``; at each thread count
    the kernel and its public call are measured in turn within each repeat."""
    import numba

    import simkit
    from simkit.hand.sample import random_ready_hands
    from simkit.hand.shanten import shanten_batch_kernel
    from simkit.hand.tables import hand_tables
    from simkit.hand.waits import waits_batch_kernel
    from simkit.hand.win import is_win_batch_kernel

    rules = simkit.get_rules("for_two")
    t = hand_tables(rules)
    h14, h13 = simkit.deal_hands(n, seed=seed, rules=rules)
    ready, _ = random_ready_hands(n, seed=seed, rules=rules)
    k = np.zeros(n, np.int64)
    no_melds = np.zeros_like(ready)
    win = np.empty(n, np.bool_)
    sh13 = np.empty(n, np.int8)
    sh14 = np.empty(n, np.int8)
    waits = np.empty(n, np.int64)
    threads = sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)})
    print(
        f"\n  peers: win check and shanten on the 136-tile set (for_two: 34 kinds, standard form, no melds), "
        f"{n:,} dealt 14- and 13-tile hands, best of {repeat}; ns per hand per core (wall x threads / hands)"
    )
    peer_figures = ("win check, 14 tiles", "shanten, 13 tiles", "shanten, 14 tiles")
    figures = peer_figures + ("waits, ready 13 tiles",)  # waits: simkit only (its API against its kernel)
    hands = {
        "win check, 14 tiles": h14,
        "shanten, 13 tiles": h13,
        "shanten, 14 tiles": h14,
        "waits, ready 13 tiles": ready,
    }
    kernel = {
        "win check, 14 tiles": lambda: is_win_batch_kernel(h14, k, t, win),
        "shanten, 13 tiles": lambda: shanten_batch_kernel(h13, k, t, sh13),
        "shanten, 14 tiles": lambda: shanten_batch_kernel(h14, k, t, sh14),
        "waits, ready 13 tiles": lambda: waits_batch_kernel(ready, k, no_melds, t, waits),
    }
    api = {
        "win check, 14 tiles": lambda: simkit.is_win_batch(h14, rules=rules),
        "shanten, 13 tiles": lambda: simkit.shanten_batch(h13, rules=rules),
        "shanten, 14 tiles": lambda: simkit.shanten_batch(h14, rules=rules),
        "waits, ready 13 tiles": lambda: simkit.waits_batch(ready, rules=rules),
    }
    columns = {}  # (column, figure) -> best seconds
    default_threads = numba.get_num_threads()
    try:
        for fig in figures:  # compile or load first
            kernel[fig]()
            api[fig]()
        for th in threads:  # the kernel and its public call alternate; the thread count changes once
            numba.set_num_threads(th)
            for fig in figures:
                kernel[fig]()  # untimed: the first calls after a change of thread count wake the pool
            for _ in range(repeat):
                for fig in figures:
                    for col, fn in ((f"kernel {th}t", kernel[fig]), (f"API {th}t", api[fig])):
                        t0 = time.perf_counter()
                        fn()
                        dt = (time.perf_counter() - t0) * th
                        columns[col, fig] = min(columns.get((col, fig), float("inf")), dt)
    finally:
        numba.set_num_threads(default_threads)
    ours = {
        "win check, 14 tiles": win.copy(),
        "shanten, 13 tiles": sh13.astype(np.int64),
        "shanten, 14 tiles": sh14.astype(np.int64),
        "waits, ready 13 tiles": waits.copy(),
    }
    for fig in figures:  # the public calls agree with the kernels
        _disagree(fig, "simkit's public batch call", hands[fig], ours[fig], api[fig]())
    notes = []
    m = min(mahjong_n, n)
    seven = {fig: _special_forms(hands[fig]) for fig in peer_figures}
    peers = {
        "RiichiEnv": _riichienv_times(hands, peer_figures, ours, seven, repeat, notes),
        "mahjong": _mahjong_times(hands, peer_figures, ours, m, notes),
    }
    names = [f"kernel {th}t" for th in threads] + [f"API {th}t" for th in threads]
    header = names + [
        f"RiichiEnv {peers['RiichiEnv'].get('version', '')}".strip(),
        f"mahjong {peers['mahjong'].get('version', '')}".strip(),
    ]
    print("  (kernel: simkit's batch kernel; API: simkit's public batch call, rows checked; Nt: N threads)")
    print(f"  {'ns per hand per core':<22}" + "".join(f"{h:>17}" for h in header))
    for fig in figures:
        cells = [f"{columns[c, fig] * 1e9 / n:>17,.1f}" for c in names]
        for peer in ("RiichiEnv", "mahjong"):
            v = peers[peer].get(fig)
            cells.append(f"{v:>17,.1f}" if v is not None else f"{'-':>17}")
        print(f"  {fig:<22}" + "".join(cells))
        if rec is not None:
            for c in names:
                rec.add(f"{fig}, {c}", columns[c, fig] * 1e9 / n, "ns/hand/core", n=n, rules="for_two")
            for peer in ("RiichiEnv", "mahjong"):
                v = peers[peer].get(fig)
                if v is not None:
                    rec.add(
                        f"{fig}, {peer}",
                        v,
                        "ns/hand",
                        n=n if peer == "RiichiEnv" else m,
                        repeat=repeat if peer == "RiichiEnv" else 1,
                        rules="for_two",
                        version=peers[peer]["version"],
                    )
    print(
        f"  {'ratios':<22}   API / kernel (1 thread; {threads[-1]} threads), 2-thread speed-up of the kernel "
        "(throughput), peer / simkit kernel at 1 thread"
    )
    for fig in figures:
        k1 = columns["kernel 1t", fig]
        api_r = "; ".join(f"{columns[f'API {th}t', fig] / columns[f'kernel {th}t', fig]:.2f}x" for th in threads)
        speedup = f"{threads[-1] * k1 / columns[f'kernel {threads[-1]}t', fig]:.2f}x" if len(threads) > 1 else "-"
        rel = []
        for peer in ("RiichiEnv", "mahjong"):
            v = peers[peer].get(fig)
            rel.append(f"{peer} {v / (k1 * 1e9 / n):,.1f}x" if v is not None else f"{peer} -")
        print(f"  {fig:<22}   API/kernel {api_r}, speed-up {speedup}, {', '.join(rel)}")
    for note in notes:
        print(f"  {note}")


def _riichienv_times(hands, figures, ours, special, repeat: int, notes: list) -> dict:
    """ns per call of ``riichienv.calculate_shanten`` on every hand, best of ``repeat`` (a Python
    loop over prepared lists of tile ids); its answers checked against simkit's: RiichiEnv counts
    seven pairs and thirteen orphans too, taking them when the regular form is above 0, so simkit's
    regular-form figure is combined with the two closed forms the same way before comparing."""
    try:
        from importlib.metadata import version

        from riichienv import calculate_shanten
    except ImportError:
        notes.append(
            "RiichiEnv not measured: it is not installed (pip install -e '.[bench]' in the checkout, "
            "or pip install riichienv)."
        )
        return {}
    out = {"version": version("riichienv")}
    ids = {}
    for fig in figures:
        key = id(hands[fig])
        if key not in ids:
            ids[key] = _tile_ids(hands[fig])
    calculate_shanten([])
    empty = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(100_000):
            calculate_shanten([])
        empty = min(empty, (time.perf_counter() - t0) / 100_000)
    specials = 0
    for fig in figures:
        lists = ids[id(hands[fig])]
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            got = [calculate_shanten(h) for h in lists]
            best = min(best, time.perf_counter() - t0)
        got = np.array(got, np.int64)
        seven, thirteen = special[fig]
        # simkit's regular form (the win check: the same hands' shanten, its wins checked against it)
        regular = ours["shanten, 14 tiles"] if fig.startswith("win") else ours[fig]
        expected = np.where(regular <= 0, regular, np.minimum(regular, np.minimum(seven, thirteen)))
        if fig.startswith("win"):
            _disagree(fig, "simkit's shanten (-1)", hands[fig], ours[fig], regular == -1)
            _disagree(fig, "RiichiEnv", hands[fig], expected == -1, got == -1)
        else:
            specials += int((expected != regular).sum())
            _disagree(fig, "RiichiEnv", hands[fig], expected, got)
        out[fig] = best * 1e9 / len(lists)
    notes.append(
        f"RiichiEnv {out['version']}: riichienv.calculate_shanten(list of 136-tile ids) in a Python loop, every hand "
        f"(a win is -1); an empty call costs {empty * 1e9:.0f} ns. It counts seven pairs and thirteen orphans too: "
        f"checked against simkit's regular form combined with their closed forms ({specials:,} shanten answers "
        "decided by them); all agree."
    )
    return out


def _mahjong_times(hands, figures, ours, m: int, notes: list) -> dict:
    """ns per call of the ``mahjong`` package on the first ``m`` hands (one run: it is slow):
    ``Agari.is_agari`` (which counts seven pairs and thirteen orphans too, so those complete hands
    are allowed for) and ``Shanten.calculate_shanten_for_regular_hand``, checked against simkit."""
    try:
        from importlib.metadata import version

        from mahjong.agari import Agari
        from mahjong.shanten import Shanten
    except ImportError as exc:
        notes.append(f"mahjong package not measured: {exc} (pip install mahjong)")
        return {}
    out = {"version": version("mahjong")}
    for fig in figures:
        lists = [row.tolist() for row in hands[fig][:m]]
        fn = Agari.is_agari if fig.startswith("win") else Shanten.calculate_shanten_for_regular_hand
        t0 = time.perf_counter()
        got = [fn(h) for h in lists]
        out[fig] = (time.perf_counter() - t0) * 1e9 / m
        if fig.startswith("win"):
            seven, thirteen = _special_forms(hands[fig][:m])
            expected = ours[fig][:m] | (seven < 0) | (thirteen < 0)
            _disagree(fig, "the mahjong package", hands[fig][:m], expected, np.array(got, bool))
        else:
            _disagree(fig, "the mahjong package", hands[fig][:m], ours[fig][:m], np.array(got, np.int64))
    notes.append(
        f"mahjong {out['version']}: Agari.is_agari and Shanten.calculate_shanten_for_regular_hand on the first "
        f"{m:,} hands, one run, one thread; all agree."
    )
    return out


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
