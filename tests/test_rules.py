"""Tests of simkit.rules: the registry, Rules records and validated options."""

import dataclasses
import json
import pickle
import re

import numpy as np
import pytest

from simkit.errors import RulesError
from simkit.rules import (
    DEFAULT_RULE_SET,
    RULE_SETS,
    Rules,
    douque,
    duel,
    for_two,
    get_rules,
    night_market,
    options_class,
    parse_option,
    resolve_rules,
    rules_module,
)

# ---------------------------------------------------------------------------------------------
# rule-set facts (from the rules files, rules/<rule set>.md)
# ---------------------------------------------------------------------------------------------

MAN = tuple(range(9))
HONORS = tuple(range(27, 34))

FACTS = {
    "douque": dict(
        kinds=MAN + (9, 17) + HONORS,
        n_tiles=72,
        kept_back=8,
        claim_pung=True,
        claim_exposed_kong=True,
        claim_chow=False,
        concealed_kong=True,
        added_kong=True,
        robbing_kong=True,
        seven_pairs=False,
    ),
    "night_market": dict(
        kinds=MAN + HONORS,
        n_tiles=64,
        kept_back=0,
        claim_pung=True,
        claim_exposed_kong=True,
        claim_chow=True,
        concealed_kong=True,
        added_kong=True,
        robbing_kong=False,
        seven_pairs=False,
    ),
    "duel": dict(
        kinds=MAN + HONORS,
        n_tiles=64,
        kept_back=0,
        claim_pung=True,
        claim_exposed_kong=True,
        claim_chow=False,
        concealed_kong=True,
        added_kong=True,
        robbing_kong=True,
        seven_pairs=True,
    ),
    "for_two": dict(
        kinds=tuple(range(34)),
        n_tiles=136,
        kept_back=8,
        claim_pung=True,
        claim_exposed_kong=True,
        claim_chow=True,
        concealed_kong=True,
        added_kong=True,
        robbing_kong=False,
        seven_pairs=False,
    ),
}

#: rule set -> option -> (default, [listed alternatives], [values that must be rejected])
OPTIONS = {
    "douque": {
        "heavenly_tai": (24, [16], [20, 0, 16.0, True, "16", None]),
        "human_tai": (8, [16], [24, 8.5, "8"]),
        "migi_tai": (8, [4], [2, 0, -8]),
        "declare_ready_tai": (1, [0], [2, True, False, -1]),
        "skipped_pung": ("hand", ["turn"], ["round", "Hand", "", 1, None]),
        "fully_melded_single_wait": (True, [False, np.bool_(False)], [1, 0, "true", None]),
        "base": (50, [1, 0.5, 100, 12.25], [0, -1, float("nan"), float("inf"), "50", True, None]),
        "tai_value": (20, [1, 2.5, 40], [0, -20, float("inf"), None, False]),
        "streak_cap": (10, [0, 1, 5, 100], [-1, 2.5, "10", None, True]),
    },
    "night_market": {
        "base": (50, [0.5, 100], [0, -50, "50", None, float("nan")]),
        "fan_value": (100, [1, 50.5], [0, -1, None, True]),
        "match_hands": (16, [1, 8, 10_000], [0, -1, 10_001, 16.0, "16", None, True]),
    },
    "duel": {
        "stake": (1, [0.01, 2, 10], [0, -1, None, "1", float("inf")]),
        "fee": (0.05, [0, 0.0, 0.5, 0.99], [1, 1.0, -0.01, 2, None, True]),
        "chips": (None, [1, 100, 2.5], [0, -10, "100", float("inf"), True]),
        "multiple_cap": (32, [1, 8, 64], [0, -32, 32.0, 16.5, None, True]),
        "match_hands": (16, [1, 8, 10_000], [0, -1, 10_001, 16.0, "16", None, True]),
    },
    "for_two": {
        "stake": (1, [0.5, 3], [0, -1, None]),
        "combination_points": (
            (5, 4, 3, 2, 1),
            [(10, 8, 6, 4, 2), (1, 1, 1, 1, 1), (5.5, 4, 3, 2, 1)],
            [(5, 4, 3, 2), (5, 4, 3, 2, 1, 0), (5, 4, 3, 2, 0), (5, 4, 3, 2, -1), "54321", 5, None, (5, 4, 3, 2, "1")],
        ),
        "self_drawn_multiplier": (2, [1, 1.5, 4], [0, -2, None]),
        "fold_payment": (1, [0, 0.5, 2], [-1, None, float("nan")]),
        "match_hands": (16, [1, 8, 10_000], [0, -1, 10_001, 16.0, "16", None, True]),
        "fold_passes_deal": (True, [False, np.bool_(False)], [1, 0, "true", None]),
        "bid_timing": ("before_deal", ["after_deal"], ["before", "After_Deal", 1, None]),
        "end_phase": ("ready_pick_last_8", ["ready_draw_last_8", "plain_draw"], ["jokers", "ready_draw", "", 0, None]),
    },
}


def test_rule_set_names():
    assert RULE_SETS == ("douque", "night_market", "duel", "for_two")
    assert DEFAULT_RULE_SET == "douque"
    assert get_rules().name == "douque"
    assert get_rules() == get_rules("douque")


@pytest.mark.parametrize("name", RULE_SETS)
def test_rule_set_facts(name):
    rules = get_rules(name)
    facts = FACTS[name]
    assert rules.name == name
    for key, value in facts.items():
        assert getattr(rules, key) == value, key
    assert rules.n_tiles == 4 * len(rules.kinds)
    assert rules.dealer_tiles == 14 and rules.hand_tiles == 13
    assert list(rules.kinds) == sorted(rules.kinds)


def test_tile_counts():
    assert [get_rules(n).n_tiles for n in RULE_SETS] == [72, 64, 64, 136]


@pytest.mark.parametrize("name", RULE_SETS)
def test_tile_mask(name):
    rules = get_rules(name)
    mask = rules.tile_mask
    assert mask.dtype == np.bool_ and mask.shape == (34,)
    assert tuple(np.flatnonzero(mask)) == rules.kinds
    assert not mask.flags.writeable
    with pytest.raises(ValueError):
        mask[0] = False


@pytest.mark.parametrize("name", RULE_SETS)
def test_modules(name):
    module = rules_module(name)
    assert module.NAME == name
    assert module.RULES == get_rules(name)
    assert module.Options is options_class(name)
    assert module.KINDS == get_rules(name).kinds
    assert module.KEPT_BACK == get_rules(name).kept_back
    assert set(module.__all__) <= set(dir(module))
    assert (
        rules_module(name) is {"douque": douque, "night_market": night_market, "duel": duel, "for_two": for_two}[name]
    )


def test_for_two_bids_are_a_constant_not_an_option():
    assert for_two.BIDS == (1, 2, 3)
    assert "bids" not in get_rules("for_two").option_values()
    with pytest.raises(RulesError, match="unknown option 'bids'"):
        get_rules("for_two", bids=(1, 2))


def test_names_are_normalised():
    assert get_rules("Night-Market") == get_rules("night_market")
    assert get_rules(" DUEL ") == get_rules("duel")


# ---------------------------------------------------------------------------------------------
# registry errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mahjong", "", "riichi"])
def test_unknown_rule_set_lists_valid_names(name):
    msg = rf"unknown rule set '{name}'; valid rule sets: douque, night_market, duel, for_two"
    with pytest.raises(RulesError, match=msg):
        get_rules(name)
    with pytest.raises(RulesError, match=msg):
        resolve_rules(name)


def test_get_rules_name_type():
    with pytest.raises(TypeError, match="a rule-set name is a str, got int"):
        get_rules(3)


def test_resolve_rules():
    r = get_rules("duel", stake=2)
    assert resolve_rules(r) is r
    assert resolve_rules("for_two") == get_rules("for_two")
    for bad, tname in [(None, "NoneType"), (3, "int"), (["douque"], "list"), (douque, "module")]:
        with pytest.raises(TypeError, match=rf"rules must be a rule-set name \(str\) or a Rules object, got {tname}"):
            resolve_rules(bad)


@pytest.mark.parametrize("name", RULE_SETS)
def test_unknown_option_lists_valid_options(name):
    valid = ", ".join(OPTIONS[name])
    msg = rf"unknown option 'colour' for rule set '{name}'; valid options: {re.escape(valid)}$"
    with pytest.raises(RulesError, match=msg):
        get_rules(name, colour=1)
    with pytest.raises(RulesError, match=msg):
        get_rules(name).with_options(colour=1)
    with pytest.raises(RulesError, match=msg):
        parse_option(name, "colour", "1")


def test_option_of_another_rule_set_is_unknown():
    with pytest.raises(RulesError, match="unknown option 'heavenly_tai' for rule set 'duel'"):
        get_rules("duel", heavenly_tai=24)


# ---------------------------------------------------------------------------------------------
# options
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", RULE_SETS)
def test_option_table_covers_every_option(name):
    assert tuple(get_rules(name).option_values()) == tuple(OPTIONS[name])


def _option_cases(kind):
    for name, options in OPTIONS.items():
        for key, (default, alternatives, bad) in options.items():
            if kind == "default":
                yield name, key, default
            elif kind == "good":
                for value in alternatives:
                    yield name, key, value
            else:
                for value in bad:
                    yield name, key, value


@pytest.mark.parametrize("name, key, default", list(_option_cases("default")))
def test_option_default(name, key, default):
    rules = get_rules(name)
    assert rules.option_values()[key] == default
    assert getattr(rules.options, key) == default
    assert get_rules(name, **{key: default}) == rules


@pytest.mark.parametrize("name, key, value", list(_option_cases("good")))
def test_option_alternative_accepted(name, key, value):
    rules = get_rules(name, **{key: value})
    assert rules.option_values()[key] == value
    assert rules != get_rules(name) or value == OPTIONS[name][key][0]
    assert rules == get_rules(name).with_options(**{key: value})
    hash(rules)


@pytest.mark.parametrize("name, key, value", list(_option_cases("bad")))
def test_option_bad_value_rejected(name, key, value):
    spec = options_class(name).spec(key)
    msg = rf"rule set '{name}': {key}={re.escape(repr(value))} is not allowed; allowed: {re.escape(spec.allowed)}"
    with pytest.raises(RulesError, match=msg):
        get_rules(name, **{key: value})
    with pytest.raises(RulesError, match=msg):
        options_class(name)(**{key: value})


def test_bad_value_message_example():
    with pytest.raises(RulesError, match=r"heavenly_tai=20 is not allowed; allowed: 24, 16$"):
        get_rules("douque", heavenly_tai=20)
    with pytest.raises(RulesError, match=r"skipped_pung='round' is not allowed; allowed: hand, turn$"):
        get_rules("douque", skipped_pung="round")
    with pytest.raises(RulesError, match=r"fee=1 is not allowed; allowed: any number with 0 <= fee < 1$"):
        get_rules("duel", fee=1)
    with pytest.raises(
        RulesError, match=r"chips=0 is not allowed; allowed: none \(unlimited\) or any positive number$"
    ):
        get_rules("duel", chips=0)


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        get_rules("douque", migi_tai=5)
    with pytest.raises(ValueError):
        get_rules("nope")


def test_values_are_normalised():
    rules = get_rules(
        "douque", heavenly_tai=np.int64(16), base=np.float64(12.5), fully_melded_single_wait=np.bool_(False)
    )
    values = rules.option_values()
    assert type(values["heavenly_tai"]) is int and values["heavenly_tai"] == 16
    assert type(values["base"]) is float and values["base"] == 12.5
    assert values["fully_melded_single_wait"] is False
    points = get_rules("for_two", combination_points=[6, 5, 4, 3, 2]).options.combination_points
    assert points == (6, 5, 4, 3, 2) and isinstance(points, tuple)
    points = get_rules("for_two", combination_points=np.array([6, 5, 4, 3, 2])).options.combination_points
    assert points == (6, 5, 4, 3, 2) and all(type(p) is int for p in points)


# ---------------------------------------------------------------------------------------------
# Rules record: immutability, hashing, equality
# ---------------------------------------------------------------------------------------------


def test_rules_are_immutable():
    rules = get_rules("douque")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.name = "duel"
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.kept_back = 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.options.heavenly_tai = 16
    values = rules.option_values()
    values["heavenly_tai"] = 16
    assert rules.options.heavenly_tai == 24


def test_rules_hashable_and_equal_by_value():
    a = get_rules("douque", migi_tai=4)
    b = get_rules("douque").with_options(migi_tai=4)
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != get_rules("douque")
    assert len({a, b, get_rules("douque"), get_rules("duel")}) == 3
    assert {a: 1}[b] == 1
    assert get_rules("duel") != get_rules("night_market")  # same tiles, different rules


@pytest.mark.parametrize("name", RULE_SETS)
def test_rules_pickle_round_trip(name):
    rules = get_rules(name)
    copy = pickle.loads(pickle.dumps(rules))
    assert copy == rules and hash(copy) == hash(rules)
    np.testing.assert_array_equal(copy.tile_mask, rules.tile_mask)


def test_with_options_returns_new_rules():
    rules = get_rules("douque")
    changed = rules.with_options(heavenly_tai=16, streak_cap=0)
    assert rules.options.heavenly_tai == 24
    assert changed.options.heavenly_tai == 16 and changed.options.streak_cap == 0
    assert changed.kinds == rules.kinds and changed.n_tiles == 72
    assert changed.with_options(heavenly_tai=24, streak_cap=10) == rules


def test_rules_validates_its_fields():
    good = dataclasses.asdict(get_rules("douque"))
    with pytest.raises(RulesError, match="options of rule set 'duel' must be its options dataclass"):
        dataclasses.replace(get_rules("douque"), name="duel")
    with pytest.raises(RulesError, match="kinds must be a non-empty set of integers 0-33"):
        dataclasses.replace(get_rules("douque"), kinds=(0, 34))
    with pytest.raises(RulesError, match="claim_chow must be a bool"):
        dataclasses.replace(get_rules("douque"), claim_chow=1)
    with pytest.raises(RulesError, match="kept_back must be an integer >= 0"):
        dataclasses.replace(get_rules("douque"), kept_back=-1)
    assert good["name"] == "douque"


# ---------------------------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------------------------


def test_str_lists_only_non_default_options():
    assert str(get_rules("douque")) == "douque"
    assert str(get_rules("douque", migi_tai=4)) == "douque(migi_tai=4)"
    assert str(get_rules("douque", skipped_pung="turn", heavenly_tai=16)) == (
        "douque(heavenly_tai=16, skipped_pung='turn')"
    )
    assert str(get_rules("duel", chips=100)) == "duel(chips=100)"
    assert str(get_rules("for_two", combination_points=(6, 5, 4, 3, 2))) == (
        "for_two(combination_points=(6, 5, 4, 3, 2))"
    )


@pytest.mark.parametrize("name", RULE_SETS)
def test_describe(name):
    rules = get_rules(name)
    text = rules.describe()
    assert text.splitlines()[0].startswith(f"rule set {name}")
    assert rules.tiles_text in text
    assert f"{rules.n_tiles} tiles" in text
    for key in OPTIONS[name]:
        assert re.search(rf"^    {key} = .* \(default\): .*; allowed: ", text, re.M), key


def test_describe_marks_changed_options():
    text = get_rules("douque", migi_tai=4, fully_melded_single_wait=False).describe()
    assert "migi_tai = 4 (default 8)" in text
    assert "fully_melded_single_wait = false (default true)" in text
    assert "heavenly_tai = 24 (default)" in text
    assert "1-9m 1p 9p 1-7z" in text
    assert "claims on a discard: pung, exposed kong (no chow)" in text
    assert "chips = none (default)" in get_rules("duel").describe()


# ---------------------------------------------------------------------------------------------
# command-line strings
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, key, text, value",
    [
        ("douque", "migi_tai", "4", 4),
        ("douque", "migi_tai", " 8 ", 8),
        ("douque", "skipped_pung", "TURN", "turn"),
        ("douque", "base", "50", 50),
        ("douque", "base", "12.5", 12.5),
        ("douque", "tai_value", "1e2", 100.0),
        ("douque", "streak_cap", "0", 0),
        ("night_market", "fan_value", "150", 150),
        ("duel", "fee", "0", 0),
        ("duel", "fee", "0.1", 0.1),
        ("duel", "chips", "none", None),
        ("duel", "chips", "Unlimited", None),
        ("duel", "chips", "250", 250),
        ("duel", "multiple_cap", "64", 64),
        ("for_two", "combination_points", "6,5,4,3,2", (6, 5, 4, 3, 2)),
        ("for_two", "combination_points", "(6, 5, 4, 3, 2.5)", (6, 5, 4, 3, 2.5)),
        ("for_two", "combination_points", "[1 1 1 1 1]", (1, 1, 1, 1, 1)),
        ("for_two", "fold_payment", "0", 0),
    ],
)
def test_parse_option(name, key, text, value):
    parsed = parse_option(name, key, text)
    assert parsed == value and type(parsed) is type(value)
    assert parse_option(get_rules(name), key, text) == value


@pytest.mark.parametrize(
    "word, value",
    [
        ("true", True),
        ("TRUE", True),
        ("yes", True),
        ("1", True),
        ("on", True),
        ("false", False),
        ("False", False),
        ("no", False),
        ("0", False),
        ("off", False),
    ],
)
def test_parse_bool_option(word, value):
    assert parse_option("douque", "fully_melded_single_wait", word) is value


@pytest.mark.parametrize(
    "name, key, text, allowed",
    [
        ("douque", "migi_tai", "5", "8, 4"),
        ("douque", "migi_tai", "four", "8, 4"),
        ("douque", "migi_tai", "4.0", "8, 4"),
        ("douque", "fully_melded_single_wait", "maybe", "true, false"),
        ("douque", "skipped_pung", "round", "hand, turn"),
        ("douque", "streak_cap", "-1", "any integer >= 0"),
        ("douque", "streak_cap", "2.5", "any integer >= 0"),
        ("douque", "base", "0", "any positive number"),
        ("douque", "base", "inf", "any positive number"),
        ("douque", "base", "", "any positive number"),
        ("duel", "chips", "nothing", "none (unlimited) or any positive number"),
        ("duel", "fee", "1", "any number with 0 <= fee < 1"),
        ("for_two", "combination_points", "5,4,3,2", "5 positive numbers"),
        ("for_two", "combination_points", "5,4,3,2,x", "5 positive numbers"),
        ("for_two", "combination_points", "", "5 positive numbers"),
    ],
)
def test_parse_option_errors(name, key, text, allowed):
    msg = rf"rule set '{name}': {key}={re.escape(repr(text))} is not allowed; allowed: {re.escape(allowed)}"
    with pytest.raises(RulesError, match=msg):
        parse_option(name, key, text)
    with pytest.raises(RulesError, match=msg):
        get_rules(name).with_option_strings({key: text})


def test_parse_option_unknown_rule_set():
    with pytest.raises(RulesError, match="unknown rule set 'x'; valid rule sets: douque"):
        parse_option("x", "base", "1")


def test_with_option_strings():
    rules = get_rules("douque").with_option_strings({"migi_tai": "4", "fully_melded_single_wait": "false"})
    assert rules == get_rules("douque", migi_tai=4, fully_melded_single_wait=False)
    same = get_rules("douque").with_option_strings(["migi_tai=4", " fully_melded_single_wait = no "])
    assert same == rules
    assert get_rules("duel").with_option_strings("chips=100").options.chips == 100
    assert get_rules("duel").with_option_strings([]) == get_rules("duel")


def test_with_option_strings_errors():
    with pytest.raises(RulesError, match=r"expected an option as KEY=VALUE, got 'migi_tai'"):
        get_rules("douque").with_option_strings(["migi_tai"])
    with pytest.raises(RulesError, match=r"unknown option 'tai' for rule set 'douque'; valid options: heavenly_tai"):
        get_rules("douque").with_option_strings(["tai=4"])


@pytest.mark.parametrize("name", RULE_SETS)
def test_to_dict_round_trip(name):
    for rules in (get_rules(name), get_rules(name).with_options(**{k: v[1][0] for k, v in OPTIONS[name].items()})):
        record = rules.to_dict()
        assert record["name"] == name
        assert json.loads(json.dumps(record)) == record
        assert get_rules(record["name"], **record["options"]) == rules
        assert isinstance(rules, Rules)


@pytest.mark.engine  # plays many hands: engine tier
def test_skipped_pung_turn_never_restricts_a_two_player_game():
    """douque's skipped_pung="turn" lasts until the passer's next turn, which with two players comes
    at once (the passer draws next): at every decision on a discard, over many greedy and random
    hands, no skipped pung is in force for the deciding player -- 'turn' plays as no restriction."""
    from simkit.engine import actions as A
    from simkit.play.stepper import GameState
    from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy, random_policy

    rules = get_rules("douque", skipped_pung="turn")
    checked = 0
    for seed in range(40):
        s = GameState.new_match(rules, seed, 0)
        policy = greedy_policy if seed % 2 else random_policy
        while True:
            while not s.over:
                if s.phase == A.PHASE_REACT:
                    assert s.table.skip_pung[s.player] == 0
                    checked += 1
                s.apply(policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream()))
            if not s.next_hand():
                break
    assert checked > 1000


def test_duel_money_unit_with_chips():
    """With chips, duel counts money exactly in whole units: 1/q^2 of the largest amount
    of which the stake and the chips (as written, in decimal) are whole multiples, q the fee's
    denominator; chips no match can spend, and no chips, need no unit."""
    unit = duel.money_unit
    assert unit(get_rules("duel", chips=3, stake=0.7).options) == (4000, 2800, 12_000, 1, 20)
    assert unit(get_rules("duel", chips=100).options) == (400, 400, 40_000, 1, 20)
    assert unit(get_rules("duel", chips=9.99).options) == (40_000, 40_000, 399_600, 1, 20)
    assert unit(get_rules("duel", chips=10, stake=0.25, fee=0).options) == (4, 1, 40, 0, 1)
    assert unit(get_rules("duel", chips=10, stake=0.3, fee=0.07).options) == (100_000, 30_000, 1_000_000, 7, 100)
    assert unit(get_rules("duel").options) is None and unit(get_rules("duel", stake=1 / 3).options) is None
    # the most a player can pay in a match: 16 hands x (32 + 16) stakes
    assert unit(get_rules("duel", chips=16 * 48).options) is not None
    assert unit(get_rules("duel", chips=16 * 48 + 0.5).options) is None
    assert unit(get_rules("duel", chips=1e300).options) is None


def test_duel_chips_too_fine_to_count_exactly_are_refused():
    with pytest.raises(
        RulesError, match=r"^rule set 'duel': chips=0.3333333333333333, stake=1, fee=0.05 cannot be counted exactly"
    ):
        get_rules("duel", chips=1 / 3)
    with pytest.raises(RulesError, match=r"cannot be counted exactly"):
        get_rules("duel", chips=100, fee=0.123456789)  # 1/10^18 coin
    with pytest.raises(RulesError, match=r"cannot be counted exactly"):
        get_rules("duel", fee=0.123456789).with_options(chips=100)
    assert duel.money_unit(get_rules("duel", chips=100, fee=0.1234).options).per_coin == 5000**2  # 617/5000
    assert get_rules("duel", chips=1000, fee=0.123456789).options.chips == 1000  # more than a match can spend


def test_layers_below_the_doors_take_a_resolved_rule_set():
    """A public door resolves a rule-set name once; the engine's spec and a match's preparation
    below it take the Rules object and name themselves when given anything else."""
    from simkit.engine.rulesets import engine_spec
    from simkit.errors import InputTypeError
    from simkit.play.runtime import prepare_match
    from simkit.rules import resolve_rules

    rules = resolve_rules("duel")
    assert engine_spec(rules).rules is rules
    for call, where in (
        (lambda: engine_spec("duel"), "engine_spec"),
        (lambda: prepare_match("duel", ("greedy", "greedy")), "prepare_match"),
    ):
        with pytest.raises(InputTypeError, match=where):
            call()
