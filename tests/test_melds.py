"""Tests of simkit.melds: meld strings, validation against rule sets, meld arrays."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simkit.errors import MeldError, TileCountError, TileNotationError
from simkit.melds import (
    MELD_ADDED_KONG,
    MELD_CHOW,
    MELD_CONCEALED_KONG,
    MELD_KONG,
    MELD_PUNG,
    MELD_TYPES,
    Meld,
    check_total_counts,
    meld_counts,
    melds_array,
    parse_meld,
    parse_melds,
)
from simkit.rules import get_rules


def test_type_codes():
    assert MELD_TYPES == ("pung", "kong", "added_kong", "concealed_kong", "chow")
    codes = (MELD_PUNG, MELD_KONG, MELD_ADDED_KONG, MELD_CONCEALED_KONG, MELD_CHOW)
    assert codes == (0, 1, 2, 3, 4)
    for name, code in zip(MELD_TYPES, codes):
        assert MELD_TYPES.index(name) == code


@pytest.mark.parametrize(
    "text, meld, canonical",
    [
        ("pung 555z", Meld("pung", (31, 31, 31)), "pung 555z"),
        ("kong 1111m", Meld("kong", (0, 0, 0, 0)), "kong 1111m"),
        ("added_kong 2222m", Meld("added_kong", (1, 1, 1, 1)), "added_kong 2222m"),
        ("concealed_kong 3333z", Meld("concealed_kong", (29,) * 4), "concealed_kong 3333z"),
        ("chow 345m", Meld("chow", (2, 3, 4)), "chow 345m"),
        ("chow 534m", Meld("chow", (2, 3, 4)), "chow 345m"),
        ("chow 7s9s8s", Meld("chow", (24, 25, 26)), "chow 789s"),
        ("  PUNG   5 5 5z ", Meld("pung", (31, 31, 31)), "pung 555z"),
        ("Chow 1 2 3p", Meld("chow", (9, 10, 11)), "chow 123p"),
    ],
)
def test_parse_meld(text, meld, canonical):
    parsed = parse_meld(text)
    assert parsed == meld
    assert str(parsed) == canonical
    assert parse_meld(str(parsed)) == parsed


def test_meld_properties():
    m = parse_meld("chow 789m")
    assert m.type == "chow" and m.tiles == (6, 7, 8)
    assert m.code == MELD_CHOW and m.kind == 6
    assert parse_meld("concealed_kong 1111z").code == MELD_CONCEALED_KONG


@pytest.mark.parametrize(
    "text, match",
    [
        ("", r"empty meld string"),
        (
            "pong 555z",
            r"unknown meld type 'pong' in 'pong 555z'; meld types are pung, kong, added_kong, concealed_kong, chow",
        ),
        ("555z pung", r"unknown meld type '555z'.*write the type first"),
        ("exposed_kong 1111m", r"unknown meld type 'exposed_kong'"),
        ("pung", r"meld 'pung' has no tiles; write e.g. 'pung 555z'"),
        ("chow  ", r"meld 'chow  ' has no tiles; write e.g. 'chow 345m'"),
        ("pung 556z", r"meld 'pung 556z': a pung is 3 identical tiles.*got '556z'"),
        ("pung 55z", r"a pung has 3 tiles, got 2"),
        ("pung 5555z", r"a pung has 3 tiles, got 4"),
        ("kong 111m", r"meld 'kong 111m': a kong has 4 tiles, got 3"),
        ("kong 1112m", r"a kong is 4 identical tiles"),
        ("added_kong 22222m", r"an? added_kong has 4 tiles, got 5"),
        ("concealed_kong 3334z", r"a concealed_kong is 4 identical tiles"),
        ("chow 357m", r"a chow is 3 consecutive ranks of one suit.*got '357m'"),
        ("chow 891m", r"a chow is 3 consecutive ranks"),
        ("chow 555m", r"a chow is 3 consecutive ranks"),
        ("chow 123z", r"honors \(z\) cannot form a chow"),
        ("chow 12m3p", r"one suit \(m, p or s\); got tiles of 2 suits"),
        ("chow 1234m", r"a chow has 3 tiles, got 4"),
        ("pung 55x5z", r"meld 'pung 55x5z': unknown character 'x'"),
        ("pung 888z", r"meld 'pung 888z': 8z at index 0 of '888z' is not a tile"),
        ("pung 000m", r"digit 0"),
        ("pung 555", r"have no suit letter"),
    ],
)
def test_parse_meld_errors(text, match):
    with pytest.raises(MeldError, match=match):
        parse_meld(text)


def test_bad_notation_in_a_meld_keeps_the_cause():
    with pytest.raises(MeldError) as info:
        parse_meld("pung 55x5z")
    assert isinstance(info.value.__cause__, TileNotationError)


@pytest.mark.parametrize("value", [None, 5, ("pung", "555z", "x")])
def test_parse_meld_type_errors(value):
    with pytest.raises(TypeError, match="a meld is a str"):
        parse_meld(value)


@pytest.mark.parametrize(
    "meld, match",
    [
        (Meld("flower", (0, 0, 0)), r"unknown meld type 'flower'"),
        (Meld("pung", (0, 1, 2)), r"a pung is 3 identical tiles"),
        (Meld("pung", (0, 0, 40)), r"tiles must be a tuple of kind indices 0-33"),
        (Meld("pung", "555z"), r"tiles must be a tuple of kind indices"),
        (Meld("chow", (27, 28, 29)), r"honors \(z\) cannot form a chow"),
    ],
)
def test_meld_objects_are_validated(meld, match):
    with pytest.raises(MeldError, match=match):
        parse_meld(meld)


def test_meld_objects_are_canonicalised():
    assert parse_meld(Meld("chow", (4, 2, 3))) == Meld("chow", (2, 3, 4))
    assert parse_meld(Meld("pung", [np.int64(5)] * 3)) == Meld("pung", (5, 5, 5))


# ---------------------------------------------------------------------------------------------
# rule sets
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["douque", "duel"])
def test_chow_melds_need_chow_claims(name):
    with pytest.raises(MeldError, match=rf"meld 'chow 345m': rule set '{name}' has no chow claims"):
        parse_meld("chow 345m", rules=name)
    with pytest.raises(MeldError, match="has no chow claims"):
        parse_melds(["pung 555z", "chow 345m"], rules=get_rules(name))


@pytest.mark.parametrize("name", ["night_market", "for_two"])
def test_chow_melds_allowed_with_chow_claims(name):
    assert parse_meld("chow 345m", rules=name) == Meld("chow", (2, 3, 4))


@pytest.mark.parametrize(
    "name, text, match",
    [
        ("douque", "pung 111s", r"meld 'pung 111s': 1s is not a tile of rule set 'douque' \(tiles: 1-9m 1p 9p 1-7z\)"),
        ("douque", "kong 5555p", r"5p is not a tile of rule set 'douque'"),
        ("night_market", "chow 123p", r"1p is not a tile of rule set 'night_market' \(tiles: 1-9m 1-7z\)"),
        ("duel", "concealed_kong 9999p", r"9p is not a tile of rule set 'duel'"),
    ],
)
def test_meld_tiles_must_be_in_rule_set(name, text, match):
    with pytest.raises(MeldError, match=match):
        parse_meld(text, rules=name)


def test_rule_set_kinds_accepted():
    assert parse_meld("pung 111p", rules="douque").tiles == (9, 9, 9)
    assert parse_meld("kong 9999p", rules="douque").tiles == (17,) * 4
    assert parse_meld("chow 789s", rules="for_two").tiles == (24, 25, 26)
    assert parse_meld("added_kong 7777z", rules="duel").tiles == (33,) * 4


def test_rules_argument_type():
    with pytest.raises(TypeError, match="got int"):
        parse_meld("pung 555z", rules=3)


# ---------------------------------------------------------------------------------------------
# parse_melds
# ---------------------------------------------------------------------------------------------


def test_parse_melds_inputs():
    pung = Meld("pung", (31, 31, 31))
    kong = Meld("kong", (0, 0, 0, 0))
    assert parse_melds(None) == ()
    assert parse_melds("") == ()
    assert parse_melds([]) == ()
    assert parse_melds("pung 555z") == (pung,)
    assert parse_melds(pung) == (pung,)
    assert parse_melds(["pung 555z", "kong 1111m"]) == (pung, kong)
    assert parse_melds(("pung 555z", kong)) == (pung, kong)
    assert parse_melds("pung 555z, kong 1111m") == (pung, kong)
    assert parse_melds("pung 555z; kong 1111m;") == (pung, kong)


@pytest.mark.parametrize("value", [5, {"pung 555z"}, np.array(["pung 555z"])])
def test_parse_melds_type_errors(value):
    with pytest.raises(TypeError, match="melds must be None, a str, a Meld or a list/tuple"):
        parse_melds(value)


def test_parse_melds_element_type_error():
    with pytest.raises(TypeError, match="got int"):
        parse_melds(["pung 555z", 7])


def test_at_most_four_melds():
    five = ["pung 111z", "pung 222z", "pung 333z", "pung 444z", "pung 555z"]
    assert len(parse_melds(five[:4])) == 4
    with pytest.raises(MeldError, match=r"5 melds given; a hand has at most 4 melds"):
        parse_melds(five)


def test_melds_total_copies():
    with pytest.raises(
        TileCountError, match=r"the melds hold 7 copies of 1m \(pung 111m; kong 1111m\); a kind has at most 4"
    ):
        parse_melds(["pung 111m", "kong 1111m"])
    with pytest.raises(TileCountError, match=r"6 copies of 3m"):
        parse_melds(["chow 123m", "chow 234m", "chow 345m", "pung 333m"])


# ---------------------------------------------------------------------------------------------
# arrays and totals
# ---------------------------------------------------------------------------------------------


def test_meld_counts():
    counts = meld_counts(["kong 1111m", "chow 345m", "pung 555z"])
    assert counts.dtype == np.uint8 and counts.shape == (34,)
    expected = np.zeros(34, dtype=np.uint8)
    expected[0] = 4
    expected[[2, 3, 4]] = 1
    expected[31] = 3
    np.testing.assert_array_equal(counts, expected)
    assert meld_counts(None).sum() == 0


def test_melds_array():
    arr = melds_array(["pung 555z", "chow 534m", "added_kong 2222m", "concealed_kong 3333z"])
    assert arr.dtype == np.int8 and arr.shape == (4, 2)
    np.testing.assert_array_equal(arr, [[0, 31], [4, 2], [2, 1], [3, 29]])
    empty = melds_array(None)
    assert empty.shape == (0, 2) and empty.dtype == np.int8


def test_check_total_counts():
    assert check_total_counts("55z123m", ["pung 666z"]) is None
    assert check_total_counts("5z", ["pung 555z"]) is None
    with pytest.raises(
        TileCountError,
        match=r"hand and melds together hold 6 copies of 5z \(3 in the hand, 3 in melds\); a kind has at most 4",
    ):
        check_total_counts("555z", "pung 555z")
    hand = np.zeros(34, dtype=np.uint8)
    hand[0] = 1
    with pytest.raises(TileCountError, match=r"5 copies of 1m \(1 in the hand, 4 in melds\)"):
        check_total_counts(hand, ["kong 1111m"])


def test_check_total_counts_validates_inputs():
    with pytest.raises(TileCountError, match="5 copies of 1m"):
        check_total_counts("11111m", None)
    with pytest.raises(MeldError, match="no chow claims"):
        check_total_counts("1m", ["chow 345m"], rules="douque")
    with pytest.raises(TileNotationError, match="3s is not a tile of rule set 'douque'"):
        check_total_counts("3s", None, rules="douque")


# ---------------------------------------------------------------------------------------------
# property-based round trip
# ---------------------------------------------------------------------------------------------


@st.composite
def melds_strategy(draw):
    code = draw(st.integers(0, 4))
    if code == MELD_CHOW:
        suit = draw(st.integers(0, 2))
        first = suit * 9 + draw(st.integers(0, 6))
        tiles = [first, first + 1, first + 2]
        order = draw(st.permutations(tiles))
        return MELD_TYPES[code], tuple(sorted(tiles)), list(order)
    kind = draw(st.integers(0, 33))
    size = 3 if code == MELD_PUNG else 4
    return MELD_TYPES[code], (kind,) * size, [kind] * size


@given(melds_strategy())
def test_round_trip_meld_strings(spec):
    from simkit.tiles import format_tile_list

    type_, tiles, written = spec
    text = f"{type_} {format_tile_list(written)}"
    meld = parse_meld(text)
    assert meld == Meld(type_, tiles)
    assert parse_meld(str(meld)) == meld
    assert melds_array([meld]).tolist() == [[MELD_TYPES.index(type_), tiles[0]]]
    assert int(meld_counts(meld).sum()) == len(tiles)
