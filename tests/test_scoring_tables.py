"""The item tables as data (``simkit/scoring/items/<rule set>.toml``): their values and what each item
replaces agree with what is scored. Checked on the pure-Python references' results for random
cases (the references and the kernels agree item for item: ``test_scoring_*``)."""

from __future__ import annotations

import random

import pytest
import reference_scoring
import reference_scoring_duel
import reference_scoring_for_two
import reference_scoring_night_market

import simkit
from simkit.scoring import item_values_of, items_of, scoring_module

REFERENCES = {
    "douque": reference_scoring,
    "night_market": reference_scoring_night_market,
    "duel": reference_scoring_duel,
    "for_two": reference_scoring_for_two,
}
PER_SET = {"dragon_pung"}  #: items scored per pung or kong: a multiple of their value


def _results(name, n=1500, seed=7):
    reference = REFERENCES[name]
    rng = random.Random(seed)
    for _ in range(n):
        case = reference.random_case(rng)
        kw = dict(case)
        options = kw.get("options") or {}
        result = reference.ref_score(kw.pop("counts"), kw.pop("win_tile"), kw.pop("melds"), **kw)
        yield simkit.get_rules(name, **options), result["items"]


@pytest.mark.parametrize("name", list(REFERENCES))
def test_scored_items_have_their_table_values(name):
    reached = set()
    for rules, items in _results(name):
        values = item_values_of(rules)
        for item, value in items.items():
            reached.add(item)
            if item in PER_SET:
                assert value % values[item] == 0, (item, value)
            else:
                assert value == values[item], (rules, item, value, values[item])
    assert reached  # the random cases score items


@pytest.mark.parametrize("name", list(REFERENCES))
def test_no_item_is_scored_beside_one_that_replaces_it(name):
    replaces = scoring_module(name).REPLACES
    for _, items in _results(name):
        for item in items:
            assert not set(replaces.get(item, ())) & set(items), (item, items)


@pytest.mark.parametrize("name", list(REFERENCES))
def test_tables_are_data(name):
    module = scoring_module(name)
    table = items_of(name)
    assert tuple(item.name for item in table) == module.ITEM_NAMES
    assert [item.value for item in table] == list(module.VALUES)
    assert module.REPLACES == {
        item.name: tuple(other.name for other in table if item.name in other.replaced_by)
        for item in table
        if any(item.name in other.replaced_by for other in table)
    }
    assert list(item_values_of(name).values()) == list(module.VALUES)


def test_values_follow_the_options():
    assert item_values_of(simkit.get_rules("douque", heavenly_tai=16, migi_tai=4))["heavenly_hand"] == 16
    assert item_values_of(simkit.get_rules("douque", migi_tai=4))["migi"] == 4
    points = (1, 2, 3, 4, 5)
    assert tuple(item_values_of(simkit.get_rules("for_two", combination_points=points)).values()) == points
