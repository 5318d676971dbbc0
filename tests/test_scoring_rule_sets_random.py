"""The night_market, duel and for_two scoring kernels against their pure-Python references on
random complete hands: 20,000 each in the default suite, 50,000 more each under ``-m slow``.

Random consistent cases (random melds including claimed chows where the rule set has them, seven
pairs in duel, tile pools skewed towards the rare patterns, random win flags and options) come from
each reference's ``random_case``; the kernels score them in batches (``simkit.score_batch``), the
payments go through the rule sets' jitted payment functions, and a subset goes through
``simkit.score`` to check the wrapper too. Every item of every table must be reached.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import reference_scoring_duel
import reference_scoring_for_two
import reference_scoring_night_market
from scoring_util import batch_arrays, flag, meld_text, options_groups

import simkit
from simkit.scoring import duel, for_two, night_market

N_CASES = 20_000  #: per rule set in the default suite
N_SLOW = 50_000  #: per rule set under ``-m slow`` (other seeds)
N_WRAPPER = 1_500


def _ref(reference, case):
    kw = dict(case)
    return reference.ref_score(kw.pop("counts"), kw.pop("win_tile"), kw.pop("melds"), **kw)


def _batch(name, cases, rules):
    counts, win, melds, n_melds = batch_arrays(cases)
    kw = dict(self_drawn=flag(cases, "self_drawn"))
    if name == "night_market":
        kw.update(last_tile=flag(cases, "last_tile"), last_discard=flag(cases, "last_discard"))
    elif name == "duel":
        kw.update(
            robbing_kong=flag(cases, "robbing_kong"),
            replacement=flag(cases, "replacement"),
            last_tile=flag(cases, "last_tile"),
            first_turn=[duel.FIRST_TURNS.index(c.get("first_turn")) for c in cases],
        )
    items, values = simkit.score_batch(counts, win, melds, n_melds, rules=rules, **kw)
    return items, values, melds, n_melds


def _payment(name, module, p, value, case, melds, n_melds) -> dict:
    if name == "night_market":
        return {"points": module.payment(value, p)}
    if name == "duel":
        win_pay = module.win_payment(value, p)
        kong_pay = module.kong_payment(melds, n_melds, p)
        return {
            "multiple": module.win_multiple(value, p),
            "win_payment": win_pay,
            "kong_payment": kong_pay,
            "points": win_pay + kong_pay,
            "fee": module.receiver_fee(win_pay + kong_pay, p),
        }
    return {"points": module.payment(value, case.get("bid", 1), case.get("self_drawn", False), p)}


RULE_SETS = {
    "night_market": (night_market, reference_scoring_night_market, "fan", 101),
    "duel": (duel, reference_scoring_duel, "fan", 202),
    "for_two": (for_two, reference_scoring_for_two, "combination_points", 303),
}


def _compare(name, n, seed):
    module, reference, value_key, _ = RULE_SETS[name]
    rng = random.Random(seed)
    cases = [reference.random_case(rng) for _ in range(n)]
    seen = np.zeros(module.N_ITEMS, bool)
    for key, idx in options_groups(cases).items():
        rules = simkit.get_rules(name, **dict(key))
        p = module.params_of(rules)
        group = [cases[i] for i in idx]
        items, values, melds, n_melds = _batch(name, group, rules)
        seen |= (items > 0).any(axis=0)
        for row, case in enumerate(group):
            expected = _ref(reference, case)
            got = {n: items[row, j].item() for j, n in enumerate(module.ITEM_NAMES) if items[row, j]}
            assert got == expected["items"], (case, got, expected["items"])
            assert values[row] == expected[value_key], case
            if row % 10 == 0:  # the payment functions on a tenth of the rows (they do not depend on the split)
                for field, value in _payment(name, module, p, values[row], case, melds[row], n_melds[row]).items():
                    assert value == pytest.approx(expected[field]), (case, field)
    missing = [n for n, s in zip(module.ITEM_NAMES, seen) if not s]
    assert not missing, missing


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_kernel_agrees_with_reference_on_random_complete_hands(name):
    _compare(name, N_CASES, RULE_SETS[name][3])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_kernel_agrees_with_reference_on_50k_random_complete_hands(name):
    _compare(name, N_SLOW, RULE_SETS[name][3] + 1000)


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_score_wrapper_agrees_with_reference(name):
    module, reference, value_key, seed = RULE_SETS[name]
    rng = random.Random(seed + 1)
    for _ in range(N_WRAPPER):
        case = reference.random_case(rng)
        expected = _ref(reference, case)
        kw = dict(case)
        counts, win, melds = kw.pop("counts"), kw.pop("win_tile"), kw.pop("melds")
        rules = simkit.get_rules(name, **kw.pop("options", {}))
        got = simkit.score(counts, win, [meld_text(t, k) for t, k in melds], rules=rules, **kw)
        assert got.items == expected["items"], case
        assert getattr(got, value_key) == expected[value_key]
        assert got.points == pytest.approx(expected["points"])
        if name == "duel":
            assert (got.multiple, got.kong_payment) == (expected["multiple"], expected["kong_payment"])
            assert got.fee == pytest.approx(expected["fee"])
