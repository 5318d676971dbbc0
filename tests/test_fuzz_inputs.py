"""Fuzz: random malformed inputs thrown at the public API and the command.

Every input must end in a ``SimkitError`` / ``ValueError`` (an ``InputTypeError`` is a SimkitError)
or a normal return / a clean exit -- never another exception, a traceback, a signal, or a changed
file outside the run directory. The inputs are drawn from fixed seeds (numpy and ``random``), so a
failure reproduces: the report names the case number and the input.

The cases run in a child process (a crash in a kernel would kill it, not pytest): the API cases
and the command's cases through ``simkit.cli.main`` in-process, then a few through the real
``python -m simkit`` in their own processes. The default run throws 1,200 API inputs and 300
command lines (about 10 s once the kernels are compiled); ``-m slow`` throws 20,000 + 2,000 with
other seeds.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent

# ------------------------------------------------------------------ malformed values

_NOTATION = "123456789mpsz0 ,*-+MPSZ\t\u4e00"
_MELD_TYPES = ("pung", "kong", "added_kong", "concealed_kong", "chow", "PUNG", "pong", "", "pung pung")
_RULES = ("douque", "night_market", "duel", "for_two", "Night-Market", "mahjong", "", " douque ")


def _notation(py: random.Random) -> str:
    if py.random() < 0.5:  # near-valid: digits then a suit letter
        parts = []
        for _ in range(py.randrange(1, 6)):
            parts.append("".join(py.choice("123456789") for _ in range(py.randrange(0, 9))) + py.choice("mpsz"))
        text = "".join(parts)
        if py.random() < 0.3 and text:
            i = py.randrange(len(text))
            text = text[:i] + py.choice(_NOTATION) + text[i + 1 :]
        return text
    return "".join(py.choice(_NOTATION) for _ in range(py.randrange(0, 24)))


def _scalar(py: random.Random):
    """A scalar of any type: ints of every size, floats (nan, inf), bools, strings, None, numpy scalars."""
    return py.choice(
        [
            0,
            1,
            2,
            3,
            -1,
            -7,
            4,
            5,
            33,
            34,
            255,
            256,
            1000,
            10**6,
            2**31,
            2**53,
            2**63 - 1,
            2**63,
            2**64,
            -(2**63),
            10**30,
            0.5,
            1.0,
            -0.0,
            1e20,
            1e308,
            float("nan"),
            float("inf"),
            True,
            False,
            None,
            "",
            "1",
            "yes",
            "x",
            np.int8(-1),
            np.uint8(255),
            np.int64(2**62),
            np.uint64(2**64 - 1),
            np.float32(1.5),
            np.bool_(True),
            [1],
            (),
            b"1",
            object(),
            1j,
        ]
    )


def _counts_array(rng: np.random.Generator, py: random.Random, rows=None):
    n = rows if rows is not None else py.choice([0, 1, 2, 3])
    shape = py.choice([(n, 34), (n, 34), (n, 34), (n, 33), (34,), (n, 34, 1), (n, 35), ()])
    dtype = py.choice([np.uint8, np.int64, np.int8, np.int16, np.uint64, np.float64, np.bool_, object])
    base = rng.integers(0, 3, size=shape) if shape else np.int64(1)
    arr = np.asarray(base).astype(np.int64)
    if arr.size and py.random() < 0.6:
        idx = tuple(rng.integers(0, s) for s in arr.shape)
        arr[idx] = py.choice([-1, 5, 255, 256, 2**31, -(2**40), 4])
    if dtype is object:
        return arr.astype(object)
    with np.errstate(all="ignore"):
        return arr.astype(dtype) if dtype is not np.bool_ else arr > 0


def _hand(rng, py):
    r = py.random()
    if r < 0.45:
        return _notation(py)
    if r < 0.8:
        if py.random() < 0.5:
            arr = _counts_array(rng, py, rows=1)
            return arr[0] if arr.ndim and len(arr) else arr
        return list(rng.integers(-2, 6, size=py.choice([34, 33, 35])))
    return _scalar(py)


def _meld(py):
    r = py.random()
    if r < 0.7:
        return f"{py.choice(_MELD_TYPES)} {_notation(py)}"
    return _scalar(py)


def _melds(py):
    r = py.random()
    if r < 0.2:
        return None
    if r < 0.8:
        return [_meld(py) for _ in range(py.randrange(0, 6))]
    return _scalar(py) if py.random() < 0.5 else _meld(py)


#: Rule sets whose engine the cases may run (compiling an engine takes a minute when its cache is
#: cold, so the default run plays only douque: other rule sets get inputs the checks refuse first).
ENGINES = ("douque",)


def _engine_rules(py):
    """A rule set for a call that may play a hand: one of :data:`ENGINES`, or a name that fails."""
    return py.choice(ENGINES) if py.random() < 0.85 else py.choice(["mahjong", "", 5, None])


def _rules(py):
    import simkit

    r = py.random()
    if r < 0.6:
        return py.choice(_RULES[:4])
    if r < 0.8:
        return py.choice(_RULES)
    if r < 0.9:
        try:
            return simkit.get_rules(py.choice(_RULES[:4]))
        except Exception:  # noqa: BLE001
            return "douque"
    return _scalar(py)


_OPTIONS = {
    "douque": (
        "heavenly_tai",
        "human_tai",
        "migi_tai",
        "declare_ready_tai",
        "skipped_pung",
        "fully_melded_single_wait",
        "base",
        "tai_value",
        "streak_cap",
    ),
    "night_market": ("base", "fan_value", "match_hands"),
    "duel": ("stake", "fee", "chips", "multiple_cap", "match_hands"),
    "for_two": (
        "stake",
        "combination_points",
        "self_drawn_multiplier",
        "fold_payment",
        "match_hands",
        "fold_passes_deal",
    ),
}


def _option_text(py):
    return py.choice(
        [
            "0",
            "1",
            "-1",
            "16",
            "2.5",
            "1e20",
            "1e308",
            "inf",
            "nan",
            "-inf",
            "none",
            "unlimited",
            "true",
            "false",
            "maybe",
            "",
            "5,4,3,2,1",
            "5,4,3,2",
            "(1 2 3 4 1e300)",
            "100000000000000000000",
            "9" * 400,
            "0x10",
            "1_000",
            "hand",
            "turn",
            "24",
            "8",
            "4",
            str(2**63),
            "10001",
        ]
    )


# ------------------------------------------------------------------ API cases


def _api_case(i: int, rng: np.random.Generator, py: random.Random):
    """(name, arguments text, thunk) of API case ``i``."""
    import simkit
    from simkit.engine.deal import wall_template

    pick = py.randrange(25)
    if pick >= 20:
        return _api_case_more(pick, rng, py)
    if pick == 19:
        rules = _engine_rules(py)
        mostly = lambda good, bad: py.choice(good) if py.random() < 0.8 else py.choice(bad)  # noqa: E731
        n = mostly([1, 2], [0, -1, 1.0, True, 2**63, 10**15, "1"])
        seed, start = mostly([0, 3], [-1, 2**63, 1.5]), mostly([0, 5, 2**63 - 2], [2**63 - 1, -1, None])
        kw = {
            key: py.choice(values)
            for key, values in (
                ("check", [True, False, 1, "yes"]),
                ("duplicate", [True, False, 0, None]),
                ("deal", ["seat", "dealer", "x", 1, None]),
                ("wall", ["stable", "shared", "brick", 0, None]),
            )
            if py.random() < 0.2
        }
        policies = mostly([("random", "random"), ("greedy", "random")], [("random",), "random", (1, 2)])
        args = (rules, policies, n, seed, start, kw)
        return "simulate_matches", args, lambda: simkit.simulate_matches(rules, policies, n, seed, start=start, **kw)
    if pick in (0, 1, 2, 3):
        fn = ("shanten", "waits", "is_win", "splits")[pick]
        args = (_hand(rng, py), _melds(py), _rules(py))
        return fn, args, lambda: getattr(simkit, fn)(*args)
    if pick in (4, 5):
        kw = {}
        for key in ("self_drawn", "robbing_kong", "replacement", "last_tile", "last_discard", "dealer"):
            if py.random() < 0.3:
                kw[key] = py.choice([True, False, _scalar(py)])
        for key, values in (
            ("first_turn", ("heavenly", "earthly", "human")),
            ("declared", ("ready", "migi")),
            ("seat_wind", ("E", "W", "S")),
            ("prevailing_wind", ("E", "S", "W", "N", "X")),
            ("streak", (0, 1, 10, 100, 101)),
            ("bid", (1, 2, 3, 4)),
        ):
            if py.random() < 0.2:
                kw[key] = py.choice(values) if py.random() < 0.6 else _scalar(py)
        if py.random() < 0.5:  # a complete hand, malformed flags
            hand, win, melds = py.choice(
                [
                    ("123456789m111p99p", "6m", []),
                    ("11999m", "9m", ["pung 111z", "kong 2222z", "concealed_kong 5555z"]),
                    ("44z555z666z", "5z", ["concealed_kong 1111z", "pung 777z"]),
                    ("123m222p333s444z55z", "2m", []),
                ]
            )
        else:
            hand, win, melds = _hand(rng, py), py.choice([_notation(py), _scalar(py)]), _melds(py)
        rules = _rules(py)
        args = (hand, win, melds, rules, kw)
        return "score", args, lambda: simkit.score(hand, win, melds, rules=rules, **kw)
    if pick in (6, 7, 8):
        n = py.choice([0, 1, 2, 3])
        counts = _counts_array(rng, py, rows=n) if py.random() < 0.7 else _scalar(py)
        win = rng.integers(-3, 40, size=py.choice([(n,), (n,), (), (n + 1,)])) if py.random() < 0.7 else _scalar(py)
        melds = None
        if py.random() < 0.6:
            shape = py.choice([(n, 4, 2), (n, 4, 2), (n, 4, 3), (n, 2)])
            melds = rng.integers(-5, 300, size=shape) if py.random() < 0.5 else rng.integers(0, 5, size=shape)
            if py.random() < 0.2:
                melds = melds.astype(py.choice([np.float64, np.int8, np.uint8, object]))
        n_melds = (
            py.choice([0, 1, 4, 5, -7, 1.5, True, 2**70, None]) if py.random() < 0.5 else rng.integers(-1, 6, size=n)
        )
        kw = {}
        for key in (
            "self_drawn",
            "robbing_kong",
            "replacement",
            "last_tile",
            "last_discard",
            "first_turn",
            "declared",
            "seat_wind",
            "prevailing_wind",
        ):
            if py.random() < 0.2:
                kw[key] = py.choice([True, False, _scalar(py), rng.integers(-1, 40, size=n), rng.random(n) < 0.5])
        rules = _rules(py)
        args = (counts, win, melds, n_melds, rules, kw)
        return "score_batch", args, lambda: simkit.score_batch(counts, win, melds, n_melds, rules=rules, **kw)
    if pick in (9, 10):
        fn = py.choice(["is_win_batch", "shanten_batch", "waits_batch"])
        counts = _counts_array(rng, py) if py.random() < 0.8 else _scalar(py)
        n_melds = py.choice([0, 1, 4, 5, -1, 1.5, True, 2**70, [0, 1]]) if py.random() < 0.5 else 0
        rules = _rules(py)
        if fn == "waits_batch" and py.random() < 0.5:
            mc = _counts_array(rng, py)
            return fn, (counts, n_melds, mc, rules), lambda: simkit.waits_batch(counts, n_melds, mc, rules=rules)
        return fn, (counts, n_melds, rules), lambda: getattr(simkit, fn)(counts, n_melds=n_melds, rules=rules)
    if pick == 11:
        name = py.choice(_RULES)
        keys = _OPTIONS.get(name, ("base", "x"))
        opts = {
            py.choice(keys + ("unknown",)): py.choice([_scalar(py), _option_text(py)])
            for _ in range(py.randrange(1, 3))
        }
        if py.random() < 0.5:
            return (
                "with_option_strings",
                (name, opts),
                lambda: simkit.get_rules(name).with_option_strings({k: str(v) for k, v in opts.items()}),
            )
        return "get_rules", (name, opts), lambda: simkit.get_rules(name, **opts)
    if pick == 12:
        n = py.choice([0, 1, 5, -1, 2.0, 10**13, True, 2**63, "3"])
        seed, start = py.choice([0, 1, -1, 2**63, 1.5]), py.choice([0, 2**63 - 1, 2**63 - 3, -1])
        fn = py.choice(["deal_hands", "deal_stats"])
        rules = _rules(py)
        return fn, (n, seed, start, rules), lambda: getattr(simkit, fn)(n, seed=seed, rules=rules, start=start)
    if pick == 13:
        seed = py.choice([0, 1, -1, 2**63, 2**64, 1.0, True, "1"])
        match = py.choice([0, 1, 2**63 - 1, 2**63, -1, 10**20, 2.0])
        hand = py.choice([0, 1, 5, 87, 88, 10**6, -1, None])
        policies = py.choice(
            [
                ("random", "random"),
                ("greedy", "random"),
                ("random",),
                "random",
                ("x", "random"),
                None,
                (("random", [1, 2]), "random"),
                ((len, []), "random"),
            ]
        )
        rules = _engine_rules(py)
        args = (seed, match, hand, rules, policies)
        return "replay", args, lambda: simkit.replay(seed, match, hand, rules=rules, policies=policies)
    if pick == 14:
        rules = py.choice(ENGINES)
        try:
            wall = wall_template(rules).astype(np.int64)
        except Exception:  # noqa: BLE001
            wall = np.zeros(72, np.int64)
        wall = wall[rng.permutation(len(wall))]
        r = py.random()
        if r < 0.3:
            wall[py.randrange(len(wall))] = py.choice([-1, 34, 256, 255 + 27])
        elif r < 0.5:
            wall = wall[:-1]
        elif r < 0.6:
            wall = wall.astype(py.choice([np.float64, object, np.uint8]))
        elif r < 0.7:
            wall = _notation(py)
        kw = {
            key: py.choice([value, _scalar(py)])
            for key, value in (
                ("dealer", 0),
                ("dealer_east", True),
                ("streak", 0),
                ("prevailing_wind", "E"),
                ("seed", 0),
                ("check", True),
            )
            if py.random() < 0.3
        }
        pol = ("random", "random")
        return "play_hand", (wall, rules, kw), lambda: simkit.play_hand(wall, rules=rules, policies=pol, **kw)
    if pick == 15:
        base = py.choice(
            [
                "douque: hand 123456789m11225z; drawn 5z; river 9p 4z*; opponent_river 9p 6z; opponent_melds pung 444z; dealer",
                "douque: hand 123456789m1122z; phase discard; opponent_river 5z",
            ]
            + (["for_two: hand 123m456p789s1122z3z; drawn 3z; bid 2"] if "for_two" in ENGINES else [])
        )
        text = list(base)
        for _ in range(py.randrange(0, 4)):
            j = py.randrange(len(text))
            text[j] = py.choice(_NOTATION + ";:")
        text = "".join(text)
        seed = py.choice([0, 1, -1, 2**63, 2**64, 1.5])
        return "Position", (text, seed), lambda: simkit.Position.from_string(text).state(seed=seed)
    if pick == 16:
        fn = py.choice(["parse_tiles", "as_counts", "format_tiles", "tile_name", "parse_meld", "parse_melds"])
        value = (
            _notation(py)
            if fn in ("parse_tiles", "format_tiles") and py.random() < 0.7
            else (_meld(py) if fn.startswith("parse_meld") else py.choice([_hand(rng, py), _scalar(py)]))
        )
        rules = py.choice([None, _rules(py)])
        if fn in ("format_tiles", "tile_name"):
            return fn, (value,), lambda: getattr(simkit, fn)(value)
        return fn, (value, rules), lambda: getattr(simkit, fn)(value, rules)
    if pick == 17:
        fn = py.choice(["random_complete_hands", "random_ready_hands"])
        n, seed = py.choice([0, 2, -1, 2.5, True, 2**40]), py.choice([0, -1, 2**64, 1.5])
        n_melds = py.choice([0, 4, 5, -1, 1.5, [0, 1]])
        rules = _rules(py)
        return fn, (n, seed, rules, n_melds), lambda: getattr(simkit, fn)(n, seed, rules, n_melds)
    value = py.choice([_scalar(py), 2**34, 2**34 - 1])  # pick 18
    return "mask_to_kinds", (value,), lambda: simkit.mask_to_kinds(value)


def _api_case_more(pick: int, rng: np.random.Generator, py: random.Random):
    """The step API, positions, the analysis helpers, policies and long echoes (picks 20-24)."""
    import simkit
    from simkit.analysis import clustered_mean
    from simkit.engine.deal import wall_template
    from simkit.play.stepper import GameState
    from simkit.tournament import round_robin

    odd = [None, "x", "no", -1, 1.5, 2**63, True, 99, [1], np.float64(1.0)]
    if pick == 20:  # the step API: a wall and its settings, then a player's view or stream
        rules = py.choice(ENGINES)
        wall = wall_template(rules).astype(np.int64)[rng.permutation(len(wall_template(rules)))]
        if py.random() < 0.4:
            wall = py.choice([np.arange(34, 34 + len(wall)), wall[:-3], wall.astype(np.float64), wall - 1, "1m2m"])
        kw = {
            key: py.choice([good, py.choice(odd)])
            for key, good in (
                ("dealer", 1),
                ("dealer_east", False),
                ("streak", 3),
                ("prevailing", 28),
                ("seed", 2),
                ("check", True),
            )
            if py.random() < 0.3
        }
        player = py.choice([0, 1, 2, -1, 1.5, True, None])

        def thunk():
            s = GameState.from_wall(rules, wall, **kw)
            s.view(player)
            s.policy_stream(player)

        return "GameState.from_wall", (rules, wall, kw, player), thunk
    if pick == 21:  # a position's fields, each a good value or an odd one
        kw = dict(hand="123456789m1122z", river="9p 1p 5z", opponent_river="3z 4z 6z 7z", dealer=False, phase="discard")
        for key, good in (
            ("dealer", False),
            ("stable_wall", True),
            ("replacement", False),
            ("streak", 2),
            ("opponent_declared", 1),
            ("opponent_declared_at", 2),
            ("declared_at", 0),
            ("score", 10.0),
            ("opponent_score", -3.0),
            ("bid", 0),
            ("tiles_left", 40),
        ):
            if py.random() < 0.25:
                kw[key] = py.choice([good, py.choice(odd + [1e308, float("nan"), -4])])
        return "Position", (kw,), lambda: simkit.Position("douque", **kw).state(seed=1)
    if pick == 22:  # the analysis helpers on odd arrays
        n = py.choice([0, 1, 2, 5])
        sums = py.choice(
            [rng.normal(size=n), rng.normal(size=n + 1), None, "x", rng.normal(size=(n, 2)), np.array([np.nan] * n)]
        )
        counts = py.choice(
            [rng.integers(1, 5, size=n), rng.integers(-2, 2, size=n), np.full(n, 0.5), None, [1] * (n + 2)]
        )
        return "clustered_mean", (sums, counts), lambda: clustered_mean(sums, counts)
    if pick == 23:  # refused before any match is played or any file written
        policies = py.choice(
            [
                None,
                "greedy",
                ["greedy"],
                5,
                ("x=greedy", "x=random"),
                ("value{speed=2}", "greedy"),
                ("greedy{nope=1}", "random"),
            ]
        )
        if py.random() < 0.5:
            rules = py.choice([None, [], 5, "nope"])
            return "round_robin", (policies, rules), lambda: round_robin(policies=policies, rules=rules)
        out = py.choice([12345, None, 1.5, b"x", ["a"]])
        args = (out, policies)
        return "simulate", args, lambda: simkit.simulate(out, policies=policies, matches=py.choice([0, -1, 1.5]))
    # pick 24: a very long input is echoed cut (MESSAGE_LIMIT), whatever refuses it
    long = "".join(py.choice(_NOTATION) for _ in range(py.choice([300, 5000, 100_000])))
    fn = py.choice(["shanten", "get_rules", "parse_tiles", "Position"])
    if fn == "Position":
        return fn, (long[:40],), lambda: simkit.Position("douque", hand=long)
    if fn == "get_rules":
        return fn, (long[:40],), lambda: simkit.get_rules(long)
    return fn, (long[:40],), lambda: getattr(simkit, fn)(long)


# ------------------------------------------------------------------ command cases

_SUBCOMMANDS = (
    "hand",
    "score",
    "deal",
    "replay",
    "rules",
    "tables",
    "simulate",
    "tournament",
    "exploit",
    "advise",
    "compare",
)
#: a position in its text form (``str(simkit.Position)``), mutated by the advise cases
_POSITION = (
    "douque: option tai_value=25; hand 1112244456689m3z; drawn 4m; river 7z 6z 6z 5z; "
    "opponent_river 6z 5z 5z 4z; tiles_left 29; dealer; phase draw; stable_wall"
)


def _position_text(py: random.Random) -> str:
    """The position text with a field dropped, doubled, garbled or given a bad value."""
    fields = _POSITION.split("; ")
    k = py.randrange(len(fields))
    how = py.choice(["drop", "double", "garble", "value", "rules", "option"])
    if how == "drop":
        fields.pop(k)
    elif how == "double":
        fields.insert(k, fields[k])
    elif how == "garble":
        text = fields[k]
        i = py.randrange(len(text))
        fields[k] = text[:i] + py.choice(_NOTATION + ";:=#\n") + text[i + 1 :]
    elif how == "value":
        fields[k] = fields[k].split(" ")[0] + " " + py.choice(["-1", "x", "", "99z", str(2**70), "1e3"])
    elif how == "rules":
        fields[0] = py.choice(_RULES) + ": " + fields[0].split(": ", 1)[1]
    else:
        fields[0] = fields[0].split(": ")[0] + ": option " + py.choice(["x=1", "tai_value=-5", "tai_value", "="])
    return "; ".join(fields)


def _cli_argv(py: random.Random, rng: np.random.Generator, outside: str) -> list[str]:
    sub = py.choice(_SUBCOMMANDS)
    rule_args = []
    if py.random() < 0.5:
        rule_args += ["--rules", py.choice(_RULES)]
    for _ in range(py.choice([0, 0, 1, 2])):
        name = py.choice(_RULES[:4])
        rule_args += [
            "--option",
            f"{py.choice(_OPTIONS[name] + ('x', ''))}{py.choice(['=', '=', ''])}{_option_text(py)}",
        ]
    number = lambda: py.choice(["0", "1", "-1", "3", "1e20", str(2**63), str(2**63 - 1), "x", "", "1,000", "2.5"])  # noqa: E731
    if sub == "hand":
        argv = [sub, _notation(py)] + (
            ["--melds"] + [_meld(py) if isinstance(_meld(py), str) else "pung 1z" for _ in range(py.randrange(0, 5))]
            if py.random() < 0.5
            else []
        )
    elif sub == "score":
        argv = [
            sub,
            py.choice([_notation(py), "123456789m111p99p", "44z555z666z"]),
            "--win",
            py.choice([_notation(py), "6m", "5z"]),
        ]
        for flag in ("--self-drawn", "--robbing-kong", "--replacement", "--last-tile", "--last-discard", "--dealer"):
            if py.random() < 0.15:
                argv.append(flag)
        for flag, values in (
            ("--first-turn", ["heavenly", "earthly", "human", "x"]),
            ("--declared", ["ready", "migi", "y"]),
            ("--seat", ["E", "W", "N"]),
            ("--prevailing", ["E", "S", "Q"]),
            ("--streak", ["0", "1", "100", "101", "-1", str(2**63), "1e3"]),
            ("--bid", ["1", "2", "3", "4", "0", "x", str(2**70)]),
        ):
            if py.random() < 0.15:
                argv += [flag, py.choice(values)]
        if py.random() < 0.3:
            argv += ["--melds"] + [
                _meld(py) if isinstance(_meld(py), str) else "pung 1z" for _ in range(py.randrange(0, 4))
            ]
    elif sub == "deal":
        hands = py.choice(["1", "10", "100", "0", "-5", "x", str(2**63), "1e9", "2.5"])
        argv = [sub, "--hands", hands, "--seed", py.choice(["0", "1", "-1", str(2**63), "s"]), "--quiet"]
    elif sub == "replay":
        argv = [sub, "--seed", py.choice(["0", "1", "-1", str(2**63), "x"]), "--match", number(), "--hand", number()]
        if py.random() < 0.5:
            argv += ["--policies", py.choice(["random,random", "greedy", "a,b", ",", "random,greedy,random"])]
        argv += ["--rules", str(_engine_rules(py))]
        rule_args = [a for j, a in enumerate(rule_args) if "--rules" not in (a, rule_args[j - 1] if j else "")]
    elif sub == "rules":
        argv = [sub] + ([py.choice(_RULES + ("x" * 50,))] if py.random() < 0.8 else [])
    elif sub == "tables":
        argv = [sub] + (["--bogus"] if py.random() < 0.5 else [])  # never --rebuild: it rewrites the shared cache
    elif sub == "tournament":  # output paths refused before any game: never a file written
        flag = py.choice(["--figure", "--heat-map"])
        path = py.choice(
            [
                "",
                " ",
                "/proc/x.png",
                "/dev/null",
                os.path.join(outside, "keep.txt", "x.png"),
                outside,
                os.path.join(outside, "figure"),
                os.path.join(outside, "figure.txt"),
                os.path.join(outside, "nowhere", "x.png"),
            ]
        )
        argv = [sub, "--policies", "random,greedy", "--matches", "2", flag, path, "--quiet"]
        argv += ["--out", os.path.join(outside, "runs")]
        rule_args = []
    elif sub == "exploit":  # budgets and run directories refused before any game
        bad = py.choice(
            [
                ["--out", os.path.join(outside, "keep.txt")],
                ["--out", ""],
                ["--worlds", "4", "--min-worlds", py.choice(["5", "64"])],
                ["--z", py.choice(["0", "-1", "nan", "inf", "x"])],
                ["--workers", py.choice(["0", "x"])],
                ["--matches", py.choice(["0", "1", "x"])],
            ]
        )
        argv = [sub, "random", "--quiet"] + bad
        rule_args = []
    elif sub == "advise":  # a position text, mutated, or one mixed with a position's flags
        argv = [sub, "--position", _position_text(py), "-n", "2", "--exact", "never"]
        if py.random() < 0.3:
            argv += py.choice([["123m"], ["--dealer"], ["--rules", "duel"], ["--river", "1m"], ["--wall", "x"]])
        rule_args = []
    elif sub == "compare":  # bootstrap settings, on a run that is not there
        argv = [sub, os.path.join(outside, "no_run")]
        argv += ["--interval", py.choice(["bootstrap", "clustered", "x", ""])]
        argv += ["--resamples", py.choice(["0", "1", "99", "x", "1,0", str(2**63), "2000"])]
        argv += ["--seed", py.choice(["0", "-1", "x"])]
        rule_args = []
    else:  # simulate: argument-parsing errors only (one bad value in every line)
        bad = py.choice(
            [
                ["--matches", py.choice(["0", "-1", "x", str(2**63), "1e3"])],
                ["--seed", "-1"],
                ["--workers", py.choice(["0", "x"])],
                ["--chunk-matches", "0"],
                ["--hands", "-3"],
                ["--deal", "nobody"],
                ["--wall", "brick"],
                ["--matches", "3", "--hands", "3"],
                ["--overwrite", "--resume"],
                ["--policies", "x"],
                ["--bogus"],
            ]
        )
        argv = [sub, "--out", os.path.join(outside, "sim")] + bad
        rule_args = []
    argv += rule_args if sub not in ("rules", "tables") else []
    if py.random() < 0.05:
        argv.insert(py.randrange(len(argv) + 1), py.choice(["--bogus", "-x", "\x00", "--", "--help"]))
    return [str(a).replace("\x00", "") for a in argv]


def _run_main(argv) -> tuple[int, str]:
    """``simkit.cli.main(argv)`` in-process: (exit code, stderr); an exception escaping main propagates."""
    from simkit.cli import main

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            code = exc.code if isinstance(exc.code, int) else 1
    return code, err.getvalue()


# ------------------------------------------------------------------ the child process


def run_fuzz(n_api: int, n_cli: int, seed: int, outside: str, engines=("douque",)) -> dict:
    """Throw ``n_api`` API inputs and ``n_cli`` command lines; return the failures (an unexpected
    exception, a traceback, an exit code other than 0 / 2, an error of more than one line)."""
    import simkit  # noqa: F401  (import cost outside the cases)

    global ENGINES
    ENGINES = tuple(engines)
    from simkit.errors import MESSAGE_LIMIT, SimkitError, show

    rng = np.random.default_rng(seed)
    py = random.Random(seed)
    failures = []
    outcomes = {"ok": 0, "error": 0}
    seconds: dict = {}
    for i in range(n_api):
        name, args, thunk = _api_case(i, rng, py)
        print(f"api {i} {name}", flush=True)  # the last line names the case if the process dies
        t0 = time.perf_counter()
        try:
            with np.errstate(all="ignore"):
                thunk()
            outcomes["ok"] += 1
        except (SimkitError, ValueError) as exc:
            text = str(exc)
            if "\n" in text.strip() or not text.strip():
                failures.append(f"api {i} {name}{show(args, 300)}: message not one line: {show(text, 300)}")
            elif len(text) > MESSAGE_LIMIT:
                failures.append(f"api {i} {name}{show(args, 300)}: message of {len(text):,} characters")
            elif isinstance(exc, SimkitError) and not isinstance(exc, (ValueError, TypeError)):
                failures.append(
                    f"api {i} {name}{show(args, 300)}: {type(exc).__name__} is not a ValueError or "
                    f"TypeError: {show(text, 300)}"
                )
            outcomes["error"] += 1
        except Exception as exc:  # noqa: BLE001 - the point of the test
            failures.append(f"api {i} {name}{show(args, 300)}: {type(exc).__name__}: {show(str(exc), 300)}")
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - t0
    for i in range(n_cli):
        argv = _cli_argv(py, rng, outside)
        print(f"cli {i} {argv!r}", flush=True)
        t0 = time.perf_counter()
        try:
            code, err = _run_main(argv)
        except Exception as exc:  # noqa: BLE001
            failures.append(f"cli {i} {argv!r}: {type(exc).__name__} escaped main: {show(str(exc), 300)}")
            continue
        lines = [line for line in err.splitlines() if line.strip() and "it/s" not in line]
        if code not in (0, 2) or "Traceback" in err or (code == 2 and len(lines) != 1):
            failures.append(f"cli {i} {argv!r}: exit {code}, stderr {err[-500:]!r}")
        outcomes["ok" if code == 0 else "error"] += 1
        seconds["cli " + argv[0]] = seconds.get("cli " + argv[0], 0.0) + time.perf_counter() - t0
    return {"failures": failures, "outcomes": outcomes, "seconds": {k: round(v, 2) for k, v in seconds.items()}}


def _child(n_api: int, n_cli: int, seed: int, outside: str, result: str, engines) -> None:
    report = run_fuzz(n_api, n_cli, seed, outside, engines)
    Path(result).write_text(json.dumps(report))


def _snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def _fuzz(tmp_path, n_api, n_cli, n_processes, seed, engines=("douque",)):
    run_dir = tmp_path / "run"
    outside = tmp_path / "outside"
    run_dir.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("not to be touched\n")
    before = _snapshot(outside)
    result = tmp_path / "result.json"
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); import test_fuzz_inputs as f; "
        f"f._child({n_api}, {n_cli}, {seed}, {str(outside)!r}, {str(result)!r}, {tuple(engines)!r})"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=run_dir, capture_output=True, text=True, timeout=1800)
    last = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    assert proc.returncode == 0, f"the fuzz process ended with {proc.returncode} at {last}: {proc.stderr[-2000:]}"
    report = json.loads(result.read_text())
    assert not report["failures"], "\n".join(report["failures"][:30])
    assert report["outcomes"]["error"] > (n_api + n_cli) // 2  # mostly malformed, as meant
    # the real command in processes of its own: one line, exit 2, no signal
    global ENGINES
    ENGINES = tuple(engines)
    py = random.Random(seed + 1)
    rng = np.random.default_rng(seed + 1)
    for i in range(n_processes):
        argv = _cli_argv(py, rng, str(outside))
        proc = subprocess.run(
            [sys.executable, "-m", "simkit", *argv], cwd=run_dir, capture_output=True, text=True, timeout=600
        )
        err = proc.stderr
        assert proc.returncode in (0, 2), f"{argv!r}: exit {proc.returncode}: {err[-1000:]}"
        assert "Traceback" not in err, f"{argv!r}: {err[-1000:]}"
        if proc.returncode == 2:
            assert len([line for line in err.splitlines() if line.strip()]) == 1, f"{argv!r}: {err!r}"
    assert _snapshot(outside) == before, "a file outside the run directory changed"


def test_fuzz_api_and_cli(tmp_path):
    _fuzz(tmp_path, n_api=1200, n_cli=300, n_processes=4, seed=16)


@pytest.mark.slow
def test_fuzz_api_and_cli_many(tmp_path):
    _fuzz(
        tmp_path,
        n_api=20_000,
        n_cli=2_000,
        n_processes=40,
        seed=1616,
        engines=("douque", "night_market", "duel", "for_two"),
    )


def test_positions_and_game_states_check_seeds_matches_and_flags():
    import simkit

    pos = simkit.Position.from_string("douque: hand 123456789m1122z; phase discard; opponent_river 5z")
    for kwargs in (dict(seed=2**64), dict(seed=2**63), dict(seed=-1), dict(seed=1.5), dict(check=1)):
        with pytest.raises(simkit.SimkitError, match="seed|check"):
            pos.state(**kwargs)
    with pytest.raises(simkit.SimkitError, match="seed"):
        pos.completion(2**64)
    for kwargs in (dict(seed=2**64), dict(match=2**63), dict(check=1), dict(match=True)):
        with pytest.raises(simkit.SimkitError, match="seed|match|check"):
            simkit.GameState.new_match("douque", **kwargs)


# ------------------------------------------------------------------ manifests

#: Values a manifest's field is replaced with: wrong types, empties, near-valid numbers.
_MANIFEST_VALUES = (None, "", "x", 0, -1, 1, 2.5, True, [], {}, [None], {"a": 1}, "0" * 64, "f" * 63)


def _manifest_paths(value, where=()):
    """Every (path of keys and indices) inside a parsed manifest."""
    yield where
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _manifest_paths(v, (*where, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _manifest_paths(v, (*where, i))


def _mutated(manifest: dict, py: random.Random) -> tuple[dict, str]:
    """The manifest with one to three fields deleted or replaced, and what was done."""
    out = json.loads(json.dumps(manifest))
    done = []
    for _ in range(py.randrange(1, 4)):
        paths = [p for p in _manifest_paths(out) if p]
        if py.random() < 0.5:  # mostly the shard list and its checksums, where the checks live
            paths = [p for p in paths if p[0] == "shards"] or paths
        where = py.choice(paths)
        node = out
        for key in where[:-1]:
            node = node[key]
        if py.random() < 0.4 and isinstance(node, dict):
            del node[where[-1]]
            done.append(f"del {where}")
        else:
            node[where[-1]] = py.choice(_MANIFEST_VALUES)
            done.append(f"{where}={node[where[-1]]!r}")
    return out, "; ".join(done)


def test_fuzz_manifests_never_switch_the_checks_off(tmp_path):
    """A run with one shard flipped by a bit, its manifest mutated at random (keys deleted, wrong types,
    checksums emptied, the shard list removed): no reader reads the tampered shard and resume never
    completes the run with it (only by computing it again, when the list no longer names it). Each
    refusal is one line; nothing else escapes."""
    import shutil

    from simkit import analysis, datasets
    from simkit.errors import SimkitError
    from simkit.runs.simulation import simulate

    good = tmp_path / "good"
    simulate(good, policies=("greedy", "greedy"), matches=6, seed=7, chunk_matches=2)
    manifest = json.loads((good / datasets.MANIFEST).read_text())
    py = random.Random(54)
    readers = (
        ("open_run", datasets.open_run),
        ("read_run", datasets.read_run),
        ("load", analysis.load),
        ("summarize", analysis.summarize),
        ("resume", lambda path: simulate(path, resume=True)),
    )
    outcomes = {"refused": 0}
    for case in range(60):
        run = tmp_path / f"case{case}"
        shutil.copytree(good, run)
        shard = run / "part-000001.parquet"
        data = bytearray(shard.read_bytes())
        data[len(data) // 2] ^= 0x04
        shard.write_bytes(bytes(data))
        mutated, what = _mutated(manifest, py)
        (run / datasets.MANIFEST).write_text(json.dumps(mutated))
        for name, read in readers:
            try:
                read(run)
            except (SimkitError, ValueError) as exc:
                text = str(exc)
                assert text.strip() and "\n" not in text.strip(), (case, what, name, text)
                outcomes["refused"] += 1
                continue
            except Exception as exc:  # noqa: BLE001 - the point of the test
                raise AssertionError(f"case {case} ({what}): {name}: {type(exc).__name__}: {exc}") from None
            if name == "resume":  # only by computing the shard again: the run is then the good one
                assert shard.read_bytes() == (good / shard.name).read_bytes(), (case, what)
                break
            if shard in datasets.open_run(run).shards:  # a reader may only have left the shard out
                raise AssertionError(f"case {case} ({what}): {name} took the tampered run")
        shutil.rmtree(run)
    assert outcomes["refused"] > 60 * len(readers) // 2


# ------------------------------------------------------------------ policy files

_ODD_VALUES = (
    None, True, 0, -1, 1e308, float("nan"), "", "x" * 70_000, "\x1b[2J\x1b]0;t\x07", "douque\x00", [1, [2, [3]]],
    {"a": {"b": {"c": 1}}}, ["relu"], {"": 1}, {"x" * 100: "y"}, "Night-Market", "tanh", "linear", 2**70,
)  # fmt: skip
_META_FIELDS = ("format", "label", "architecture", "activation", "temperature", "rules", "observation_layout",
                "n_actions", "notes", "extra")  # fmt: skip


def _policy_file_case(i: int, py: random.Random, rng: np.random.Generator, template: Path, where: Path):
    """One malformed (or odd but valid) policy file at a path under ``where``; returns the path."""
    path = where / f"case{i}.npz"
    kind = py.randrange(9)
    if kind == 0:  # a special path: FIFO, a device, a directory, nothing, an empty file, a link loop
        special = py.randrange(6)
        if special == 0:
            os.mkfifo(path)
        elif special == 1:
            path.symlink_to(py.choice(["/dev/zero", "/dev/null", "/dev/urandom"]))
        elif special == 2:
            path.mkdir()
        elif special == 3:
            path.write_bytes(b"")
        elif special == 4:
            path.symlink_to(path)
        return path
    data = bytearray(template.read_bytes())
    if kind == 1:  # cut short
        path.write_bytes(bytes(data[: py.randrange(len(data))]))
        return path
    if kind == 2:  # bytes flipped anywhere (the zip's records included)
        for _ in range(py.randrange(1, 6)):
            data[py.randrange(len(data))] = py.randrange(256)
        path.write_bytes(bytes(data))
        return path
    if kind == 3:  # a member's declared size in the zip directory: from 0 to 4 GiB
        directory = int.from_bytes(data[data.rfind(b"PK\x05\x06") + 16 : data.rfind(b"PK\x05\x06") + 20], "little")
        field = directory + py.choice([20, 24])  # compressed or uncompressed size
        data[field : field + 4] = py.choice([0, 1, 2**31, 2**32 - 1, py.randrange(2**32)]).to_bytes(4, "little")
        path.write_bytes(bytes(data))
        return path
    with np.load(template, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    if kind in (4, 5):  # a metadata field given an odd value, or left out
        field = py.choice(_META_FIELDS)
        if py.random() < 0.2:
            meta.pop(field, None)
        else:
            meta[field] = py.choice(_ODD_VALUES)
        arrays["meta"] = np.array(json.dumps(meta))
    elif kind == 6:  # metadata text that is not what it should be
        arrays["meta"] = np.array(
            py.choice(["[" * 5000 + "]" * 5000, '{"format": ' * 3000, "{}", "null", "\x1b[2J", "x" * 300_000, '"a"'])
        )
    elif kind == 7:  # the arrays: another dtype, shape, a missing, extra or pickled one
        key = py.choice(["weights_0", "biases_0", "meta", "weights_1", "extra"])
        arrays[key] = py.choice(
            [
                np.zeros((3, 3)),
                np.zeros(0, np.float16),
                np.zeros((757, 148), np.int64),
                np.array([{"a": 1}], dtype=object),
                np.array(["text"]),
                np.full((757, 148), np.nan, np.float32),
                np.zeros((757, 2, 148), np.float32),
            ]
        )
        if py.random() < 0.3:
            arrays.pop(py.choice(list(arrays)))
    else:  # members added beyond what a policy file holds, or a bomb: a small member declaring a big size
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, value in arrays.items():
                with z.open(f"{name}.npy", "w") as f:
                    np.lib.format.write_array(f, value, allow_pickle=False)
            for n in range(py.choice([1, 40])):
                with z.open(
                    f"weights_{n + 1}.npy" if py.random() < 0.5 else f"junk{n}.npy", "w", force_zip64=True
                ) as f:
                    f.write(bytes(py.choice([10, 2**20, 140 * 2**20]) if n == 0 else 10))
        return path
    np.savez(path, **arrays)  # pickles an object array: the reader must refuse it, not unpickle it
    return path


def run_policy_file_fuzz(n: int, seed: int, where: str) -> dict:
    """Throw ``n`` malformed policy files at ``load_policy`` and ``simkit policies FILE``: each must
    load or end in a SimkitError, and nothing printed may hold a terminal control character."""
    import simkit
    from simkit.cli import main

    where = Path(where)
    py, rng = random.Random(seed), np.random.default_rng(seed)
    template = simkit.save_policy(
        where / "template.npz",
        [(rng.normal(size=(757, 16)), rng.normal(size=16)), (rng.normal(size=(16, 148)), rng.normal(size=148))],
        label="fuzz",
        rules="douque",
        notes={"by": "fuzz"},
    )
    failures, outcomes = [], {"ok": 0, "error": 0}
    control = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
    for i in range(n):
        path = _policy_file_case(i, py, rng, template, where)
        try:
            p = simkit.load_policy(path)
            shown = p.source.describe()
            if control.search(shown):
                failures.append(f"case {i}: describe() prints a control character: {shown!r}")
            outcomes["ok"] += 1
        except simkit.SimkitError as exc:
            if "\n" in str(exc):
                failures.append(f"case {i}: a message of more than one line: {str(exc)!r}")
            outcomes["error"] += 1
        except BaseException as exc:  # noqa: BLE001 - the point is to catch anything else
            failures.append(f"case {i}: {type(exc).__name__}: {str(exc)[:300]}")
        if i % 10 == 0:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["policies", str(path)])
            shown = out.getvalue().replace("\n", "") + err.getvalue().replace("\n", "")
            if code not in (0, 2) or control.search(shown):
                failures.append(f"case {i}: simkit policies: exit {code}, {shown[-300:]!r}")
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink(missing_ok=True)
    return {"failures": failures, "outcomes": outcomes}


def test_fuzz_policy_files(tmp_path):
    code = (
        "import json, resource, sys; resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30)); "
        f"sys.path.insert(0, {str(HERE)!r}); import test_fuzz_inputs as f; "
        f"print(json.dumps(f.run_policy_file_fuzz(300, 54, {str(tmp_path)!r})))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the fuzz process ended with {proc.returncode}: {proc.stderr[-2000:]}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not report["failures"], "\n".join(report["failures"][:30])
    assert report["outcomes"]["error"] > 200 and report["outcomes"]["ok"] > 0
