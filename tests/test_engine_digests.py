"""Same games: fixed-seed runs give bit-identical rows, checked against frozen digests.

Each digest is the first 16 hex digits of the SHA-256 that ``_digest`` below takes of a run's rows
(every column, its dtype and its bytes), for runs with ``check=True``. They cover every rule set,
every built-in policy pair in both seat orders, and duel with chips. A change to any rule, the
deal, a policy or the random streams changes them; a change that should not change the games (a
faster kernel, a new option left at its default) must leave them as they are.

The runs use the deal ``"dealer"`` (one shared wall, the dealer taking its first 14 tiles) and, for
for_two, the options named in ``FROZEN_RULES`` (the bid and the follow after the deal, a plain draw
at the last 8 tiles, the banker keeping the deal after a fold). for_two's other settings have
digests of their own: a fold passing the deal (``FROZEN_FOLD_PASSES_DEAL``), the source's order
and end phase, its defaults (``FROZEN_SOURCE_ORDER``), and the end phase's other reading. tests/golden_replay_lines.json holds the
event lines ``simkit.replay`` prints for five hands of the frozen runs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import simkit
from simkit.play.matches import simulate_matches


def _digest(rows: dict) -> str:
    h = hashlib.sha256()
    for key in sorted(rows):
        a = np.ascontiguousarray(rows[key])
        h.update(key.encode())
        h.update(str(a.dtype).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


N_MATCHES = {("greedy", "greedy"): 60, ("random", "random"): 200, ("greedy", "random"): 60, ("random", "greedy"): 60}

FROZEN = {
    ("douque", ("greedy", "greedy")): "855a4cbdb9980292",
    ("douque", ("random", "random")): "68438aebd5d6674f",
    ("douque", ("greedy", "random")): "4e7ab263f5213c1c",
    ("douque", ("random", "greedy")): "dc94a9558e3b2080",
    ("night_market", ("greedy", "greedy")): "6b68479d1f4564d1",
    ("night_market", ("random", "random")): "6a1dc75ec3e53ab6",
    ("night_market", ("greedy", "random")): "19c7fb6880d193ef",
    ("night_market", ("random", "greedy")): "8144ab24bc276439",
    ("duel", ("greedy", "greedy")): "97d543ae7d705aa0",
    ("duel", ("random", "random")): "a8e5eeb6a0c2da73",
    ("duel", ("greedy", "random")): "d78a923584d1ff69",
    ("duel", ("random", "greedy")): "3b3283ef85a5eb0a",
    ("for_two", ("greedy", "greedy")): "da07f83eec372a62",
    ("for_two", ("random", "random")): "298910cdb73c13db",
    ("for_two", ("greedy", "random")): "c72d6940acb99e97",
    ("for_two", ("random", "greedy")): "f87633f80abbeca5",
}


#: The rule options of the runs in ``FROZEN`` where they are not the defaults: for_two's bid and
#: follow after the deal, a plain draw at the last 8 tiles, and the banker keeping the deal after a
#: fold (``fold_passes_deal=False``).
FROZEN_RULES = {"for_two": dict(fold_passes_deal=False, bid_timing="after_deal", end_phase="plain_draw")}

#: for_two's bid and follow after the deal and a plain draw at the last 8 tiles (the defaults are
#: the source's: the bid before the deal and the ready players' end phase, frozen in
#: ``FROZEN_SOURCE_ORDER``).
FOR_TWO_DEAL_FIRST = dict(bid_timing="after_deal", end_phase="plain_draw")


def frozen_rules(name: str):
    """The rule set ``name`` with the options of the runs in ``FROZEN``."""
    return simkit.get_rules(name, **FROZEN_RULES.get(name, {}))


@pytest.mark.parametrize("rules,policies", sorted(FROZEN), ids=lambda v: v if isinstance(v, str) else "-".join(v))
def test_fixed_seed_runs_give_the_frozen_rows(rules, policies):
    rows = simulate_matches(frozen_rules(rules), policies, N_MATCHES[policies], seed=11, check=True, deal="dealer")
    assert _digest(rows) == FROZEN[(rules, policies)]


#: for_two with the bid after the deal and a plain draw at the last 8 tiles, and a fold passing the
#: deal (``fold_passes_deal=True``, the default, as rules/for_two.md reads).
FROZEN_FOLD_PASSES_DEAL = {
    ("for_two", ("greedy", "greedy")): "cde38c6e47c6beb6",
    ("for_two", ("random", "random")): "57d9acef59378c86",
    ("for_two", ("greedy", "random")): "428cdeb4fef49b3d",
    ("for_two", ("random", "greedy")): "18160ae84895e587",
}


@pytest.mark.parametrize(
    "rules,policies", sorted(FROZEN_FOLD_PASSES_DEAL), ids=lambda v: v if isinstance(v, str) else "-".join(v)
)
def test_fixed_seed_runs_with_a_fold_passing_the_deal_give_the_frozen_rows(rules, policies):
    rules = simkit.get_rules(rules, **FOR_TWO_DEAL_FIRST)
    rows = simulate_matches(rules, policies, N_MATCHES[policies], seed=11, check=True, deal="dealer")
    assert rules.options.fold_passes_deal
    assert _digest(rows) == FROZEN_FOLD_PASSES_DEAL[(rules.name, policies)]


#: for_two's defaults as the source orders them (the bid and the follow before the deal, the ready
#: players' end phase with jokers: ``simkit.rules.for_two``); every hand's end under them is checked
#: against a Python referee in tests/test_for_two_source_rules.py.
FROZEN_SOURCE_ORDER = {
    ("for_two", ("greedy", "greedy")): "dea2f1d97703e530",
    ("for_two", ("greedy", "random")): "ed4a76f4383d9d72",
    ("for_two", ("random", "greedy")): "eeffadf13ddf4999",
    ("for_two", ("random", "random")): "d97c79c2bdb2caa6",
}


@pytest.mark.parametrize(
    "rules,policies", sorted(FROZEN_SOURCE_ORDER), ids=lambda v: v if isinstance(v, str) else "-".join(v)
)
def test_fixed_seed_runs_with_the_source_order_give_the_frozen_rows(rules, policies):
    o = simkit.get_rules(rules).options
    assert (o.bid_timing, o.end_phase) == ("before_deal", "ready_pick_last_8")
    rows = simulate_matches(rules, policies, N_MATCHES[policies], seed=11, check=True, deal="dealer")
    assert _digest(rows) == FROZEN_SOURCE_ORDER[(rules, policies)]


def test_the_other_reading_of_the_end_phase_gives_the_frozen_rows():
    """for_two's end phase read as "ready players keep drawing" (``end_phase="ready_draw_last_8"``):
    random players reach it in most played hands (greedy ones win before it: their rows are those
    of the default reading)."""
    rules = simkit.get_rules("for_two", end_phase="ready_draw_last_8")
    rows = simulate_matches(
        rules, ("random", "random"), N_MATCHES["random", "random"], seed=11, check=True, deal="dealer"
    )
    assert _digest(rows) == "8531a0fdea914c69"


def test_duel_with_chips_gives_the_frozen_rows():
    """Duel with 100 chips: money counted exactly in whole units (tests/test_rules.py), so the
    balances, the fees (0.15 is 0.15, not 0.15000000000000002) and the payments capped by the
    payer's chips carry no float residue."""
    rows = simulate_matches(simkit.get_rules("duel", chips=100), ("greedy", "greedy"), 60, seed=3, deal="dealer")
    assert _digest(rows) == "4ff258291485e661"


def test_duel_with_few_chips_gives_the_frozen_rows():
    """Chips that run out within a few hands (most payments are capped and most matches end by
    chips), with the invariants checked: a checked run goes through to the end."""
    rules = simkit.get_rules("duel", chips=3, stake=0.7)
    rows = simulate_matches(rules, ("greedy", "greedy"), 60, seed=3, deal="dealer", check=True)
    assert _digest(rows) == "ffb2291cdac45360"


def test_the_digest_sees_a_one_bit_change():
    rows = simulate_matches("douque", ("greedy", "greedy"), 60, seed=11, check=True, deal="dealer")
    rows["points"] = rows["points"].copy()
    rows["points"][17] = np.nextafter(rows["points"][17], np.inf)
    assert _digest(rows) != FROZEN[("douque", ("greedy", "greedy"))]


#: "rule set|policy pair|match|hand" of seed 11 -> the lines ``simkit.replay(...).lines()`` prints.
REPLAYS = json.loads((Path(__file__).with_name("golden_replay_lines.json")).read_text())


@pytest.mark.parametrize("key", sorted(REPLAYS))
def test_replays_print_the_frozen_events(key):
    """``replay`` prints the frozen events (deal, draws, discards, claims, the win and its items)
    of the hand of seed 11 its key names, under the rules of ``FROZEN``."""
    rules, pair, match, hand = key.split("|")
    record = simkit.replay(
        11, match=int(match), hand=int(hand), rules=frozen_rules(rules), policies=tuple(pair.split("-")), deal="dealer"
    )
    assert record.lines() == REPLAYS[key]
