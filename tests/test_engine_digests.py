"""Same games: fixed-seed runs give bit-identical rows to the engine before the state-machine
redesign (issue 14, point 1).

The digests were computed with the closed-loop engine of commit 43788a0 (``play.py`` bound per
rule set and policy pair) by the same ``_digest`` below, with ``check=True``, before the redesign
was started, and are kept frozen: every rule set, every built-in policy pair in both seat orders,
and duel with chips. A change to any rule, the deal, a policy or the random streams changes them.

The engine of 43788a0 knew one wall design, now the deal ``"dealer"`` with a shared wall (issue 15
added the seat streams and stable walls as the default): these runs name it. Its rules are named
too where issue 21's rule fixes changed a default (``RULES_BEFORE_ISSUE_21``: for_two's
``fold_passes_deal=False``); the new defaults have digests of their own (``FROZEN_ISSUE_21``), and
duel with chips, whose money issue 21 made exact, was re-frozen (see its test).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import simkit
from simkit.engine.matches import simulate_matches


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


#: The rules of 43788a0, where the issue-21 rule fixes changed a default: for_two's banker kept the
#: deal after a fold (``fold_passes_deal=False``; the default is now True, as for_two.md reads).
#: (duel's Earthly Hand after the dealer's concealed kong changed no frozen run.)
RULES_BEFORE_ISSUE_21 = {"for_two": dict(fold_passes_deal=False, bid_timing="after_deal", end_phase="plain_draw")}

#: for_two's order and end of the wall when these runs were frozen: the bid and the follow after the
#: deal, a plain draw at the last 8 tiles (the defaults are now the source's: the bid before the
#: deal and the ready players' end phase, frozen in ``FROZEN_SOURCE_ORDER``).
FOR_TWO_DEAL_FIRST = dict(bid_timing="after_deal", end_phase="plain_draw")


def rules_before_issue_21(name: str):
    return simkit.get_rules(name, **RULES_BEFORE_ISSUE_21.get(name, {}))


@pytest.mark.parametrize("rules,policies", sorted(FROZEN), ids=lambda v: v if isinstance(v, str) else "-".join(v))
def test_fixed_seed_runs_give_the_frozen_rows(rules, policies):
    rows = simulate_matches(rules_before_issue_21(rules), policies, N_MATCHES[policies], seed=11, check=True, deal="dealer")
    assert _digest(rows) == FROZEN[(rules, policies)]


#: Frozen by issue 21 for the defaults it changed: for_two with a fold passing the deal.
FROZEN_ISSUE_21 = {
    ("for_two", ("greedy", "greedy")): "cde38c6e47c6beb6",
    ("for_two", ("random", "random")): "57d9acef59378c86",
    ("for_two", ("greedy", "random")): "428cdeb4fef49b3d",
    ("for_two", ("random", "greedy")): "18160ae84895e587",
}


@pytest.mark.parametrize("rules,policies", sorted(FROZEN_ISSUE_21), ids=lambda v: v if isinstance(v, str) else "-".join(v))
def test_fixed_seed_runs_with_the_issue_21_defaults_give_the_frozen_rows(rules, policies):
    rules = simkit.get_rules(rules, **FOR_TWO_DEAL_FIRST)
    rows = simulate_matches(rules, policies, N_MATCHES[policies], seed=11, check=True, deal="dealer")
    assert rules.options.fold_passes_deal
    assert _digest(rows) == FROZEN_ISSUE_21[(rules.name, policies)]


#: for_two's defaults as the source orders them (the bid and the follow before the deal, the ready
#: players' end phase with jokers: ``simkit.rules.for_two``), frozen once their referee
#: (tests/test_for_two_source_rules.py) passed.
FROZEN_SOURCE_ORDER = {
    ("for_two", ("greedy", "greedy")): "dea2f1d97703e530",
    ("for_two", ("greedy", "random")): "ed4a76f4383d9d72",
    ("for_two", ("random", "greedy")): "eeffadf13ddf4999",
    ("for_two", ("random", "random")): "33fa3c023c0936a1",
}


@pytest.mark.parametrize("rules,policies", sorted(FROZEN_SOURCE_ORDER), ids=lambda v: v if isinstance(v, str) else "-".join(v))
def test_fixed_seed_runs_with_the_source_order_give_the_frozen_rows(rules, policies):
    o = simkit.get_rules(rules).options
    assert (o.bid_timing, o.end_phase) == ("before_deal", "ready_pick_last_8")
    rows = simulate_matches(rules, policies, N_MATCHES[policies], seed=11, check=True, deal="dealer")
    assert _digest(rows) == FROZEN_SOURCE_ORDER[(rules, policies)]


def test_duel_with_chips_gives_the_frozen_rows():
    """Re-frozen by issue 21 (money with chips counted exactly; was ``bf242d142dbff7ef``): the same
    960 hands, dealers, winners, fan and items as before; only money columns moved, by float
    rounding (at most 3e-14 coins): the balances, fees such as 0.15 that floats had as
    0.15000000000000002, and three payments capped by the payer's chips (rows 191, 511, 846), whose
    float chips carried a residue."""
    rows = simulate_matches(simkit.get_rules("duel", chips=100), ("greedy", "greedy"), 60, seed=3, deal="dealer")
    assert _digest(rows) == "4ff258291485e661"


def test_duel_with_few_chips_gives_the_frozen_rows():
    """Frozen by issue 21: chips that run out within a few hands (most payments are capped and most
    matches end by chips), with the invariants checked (this setting used to abort a checked run)."""
    rules = simkit.get_rules("duel", chips=3, stake=0.7)
    rows = simulate_matches(rules, ("greedy", "greedy"), 60, seed=3, deal="dealer", check=True)
    assert _digest(rows) == "ffb2291cdac45360"


def test_the_digest_sees_a_one_bit_change():
    rows = simulate_matches("douque", ("greedy", "greedy"), 60, seed=11, check=True, deal="dealer")
    rows["points"] = rows["points"].copy()
    rows["points"][17] = np.nextafter(rows["points"][17], np.inf)
    assert _digest(rows) != FROZEN[("douque", ("greedy", "greedy"))]


REPLAYS = json.loads((Path(__file__).with_name("replays_before_redesign.json")).read_text())


@pytest.mark.parametrize("key", sorted(REPLAYS))
def test_replays_print_the_frozen_events(key):
    """``replay`` (now the match kernel with one hand logged) prints the events the closed-loop
    engine's own replay kernel printed for the same hands (seed 11)."""
    rules, pair, match, hand = key.split("|")
    record = simkit.replay(11, match=int(match), hand=int(hand), rules=rules_before_issue_21(rules),
                           policies=tuple(pair.split("-")), deal="dealer")
    assert record.lines() == REPLAYS[key]
