"""Tests of simkit.tiles: the 34-kind index and m/p/s/z notation."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from simkit.errors import TileCountError, TileNotationError
from simkit.rules import get_rules
from simkit.tiles import (
    EAST,
    HONOR_NAMES,
    N_KINDS,
    RED,
    TILE_NAMES,
    WHITE,
    as_counts,
    format_kind_set,
    format_tile_list,
    format_tiles,
    kind_of,
    kinds_mask,
    parse_tile_list,
    parse_tiles,
    rank_of,
    suit_of,
    tile_name,
)

# ---------------------------------------------------------------------------------------------
# single kinds
# ---------------------------------------------------------------------------------------------


def test_kind_index_layout():
    assert N_KINDS == 34
    assert len(TILE_NAMES) == 34
    assert TILE_NAMES[0] == "1m" and TILE_NAMES[8] == "9m"
    assert TILE_NAMES[9] == "1p" and TILE_NAMES[17] == "9p"
    assert TILE_NAMES[18] == "1s" and TILE_NAMES[26] == "9s"
    assert TILE_NAMES[27] == "1z" and TILE_NAMES[33] == "7z"
    assert (EAST, WHITE, RED) == (27, 31, 33)
    assert HONOR_NAMES == ("East", "South", "West", "North", "White", "Green", "Red")


@pytest.mark.parametrize("kind", range(34))
def test_kind_of_and_tile_name_are_inverse(kind):
    assert kind_of(tile_name(kind)) == kind
    assert tile_name(kind) == TILE_NAMES[kind]


def test_kind_of_examples():
    assert kind_of("1m") == 0
    assert kind_of("5z") == 31
    assert kind_of(" 9s ") == 26
    assert tile_name(np.int64(31)) == "5z"


def test_suit_and_rank():
    assert (suit_of(0), rank_of(0)) == (0, 1)
    assert (suit_of(17), rank_of(17)) == (1, 9)
    assert (suit_of(22), rank_of(22)) == (2, 5)
    assert (suit_of(33), rank_of(33)) == (3, 7)


@pytest.mark.parametrize("text", ["55z", "", "   "])
def test_kind_of_needs_exactly_one_tile(text):
    with pytest.raises(TileNotationError, match="exactly one tile"):
        kind_of(text)


def test_kind_of_bad_notation():
    with pytest.raises(TileNotationError, match="8z .*honors are 1z-7z"):
        kind_of("8z")


@pytest.mark.parametrize("kind", [-1, 34, 100])
def test_tile_name_out_of_range(kind):
    with pytest.raises(TileNotationError, match=rf"tile kind {kind} is out of range; kinds are 0-33"):
        tile_name(kind)


@pytest.mark.parametrize("kind", ["5", 5.0, True, None])
def test_tile_name_rejects_non_integers(kind):
    with pytest.raises(TypeError, match="a tile kind is an int"):
        tile_name(kind)


# ---------------------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------------------


def test_parse_tiles_example():
    counts = parse_tiles("123m19p55z")
    assert counts.dtype == np.uint8 and counts.shape == (34,)
    expected = np.zeros(34, dtype=np.uint8)
    expected[[0, 1, 2, 9, 17]] = 1
    expected[31] = 2
    np.testing.assert_array_equal(counts, expected)


@pytest.mark.parametrize(
    "text",
    ["123m19p55z", "123m 19p 55z", " 1 2 3 m 1 9 p 5 5 z ", "123m\t19p\n55z", "55z91p321m", "1m2m3m1p9p5z5z"],
)
def test_parse_tiles_whitespace_and_order_do_not_matter(text):
    np.testing.assert_array_equal(parse_tiles(text), parse_tiles("123m19p55z"))


def test_parse_empty():
    assert parse_tiles("").sum() == 0
    assert parse_tiles("  ").sum() == 0
    assert parse_tile_list("") == []


def test_parse_tile_list_keeps_written_order():
    assert parse_tile_list("1112m") == [0, 0, 0, 1]
    assert parse_tile_list("3m1p2m") == [2, 9, 1]
    assert parse_tile_list("5z 1s") == [31, 18]


@pytest.mark.parametrize(
    "text, exc, match",
    [
        ("12x3m", TileNotationError, r"unknown character 'x' at index 2 of '12x3m'"),
        ("123M", TileNotationError, r"unknown character 'M' at index 3 .*suit letters are lowercase"),
        ("1m,2m", TileNotationError, r"unknown character ',' at index 2"),
        ("123", TileNotationError, r"digits '123' at index 0 of '123' have no suit letter"),
        ("123m45", TileNotationError, r"digits '45' at index 4 of '123m45' have no suit letter"),
        ("m12p", TileNotationError, r"suit letter 'm' at index 0 of 'm12p' has no digits before it"),
        ("12mm", TileNotationError, r"suit letter 'm' at index 3 of '12mm' has no digits"),
        ("10m", TileNotationError, r"digit 0 at index 1 of '10m' is not a rank; ranks are 1-9"),
        ("05m", TileNotationError, r"digit 0 at index 0"),
        ("8z", TileNotationError, r"8z at index 0 of '8z' is not a tile; honors are 1z-7z"),
        ("1239z", TileNotationError, r"9z at index 3 of '1239z' is not a tile; honors are 1z-7z"),
        ("11111m", TileCountError, r"5 copies of 1m; a kind has at most 4 \(in '11111m'\)"),
        ("5555 5z", TileCountError, r"5 copies of 5z; a kind has at most 4"),
        ("11111m99999p", TileCountError, r"5 copies of 1m, 5 copies of 9p"),
    ],
)
def test_parse_errors(text, exc, match):
    with pytest.raises(exc, match=match):
        parse_tiles(text)
    with pytest.raises(exc, match=match):
        parse_tile_list(text)


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        parse_tiles("x")
    with pytest.raises(ValueError):
        parse_tiles("11111m")


@pytest.mark.parametrize("bad", [None, 5, b"123m", ["1m"]])
def test_parse_rejects_non_strings(bad):
    with pytest.raises(TypeError, match="tile notation must be a str"):
        parse_tiles(bad)


def test_parse_with_rule_set_rejects_missing_kinds():
    msg = r"3s is not a tile of rule set 'douque' \(tiles: 1-9m 1p 9p 1-7z\); found at index 4 of '123m3s'"
    with pytest.raises(TileNotationError, match=msg):
        parse_tiles("123m3s", rules="douque")
    with pytest.raises(TileNotationError, match=r"5p is not a tile of rule set 'douque'"):
        parse_tile_list("5p", rules=get_rules("douque"))
    with pytest.raises(TileNotationError, match=r"1p is not a tile of rule set 'night_market' \(tiles: 1-9m 1-7z\)"):
        parse_tiles("1p", rules="night_market")
    with pytest.raises(TileNotationError, match=r"9p is not a tile of rule set 'duel'"):
        parse_tiles("9p", rules="duel")


def test_parse_with_rule_set_accepts_its_kinds():
    assert parse_tiles("123456789m19p1234567z", rules="douque").sum() == 18
    assert parse_tiles("1m1p1s1z", rules="for_two").sum() == 4
    assert parse_tiles("19m77z", rules="duel").sum() == 4


def test_parse_rules_argument_type():
    with pytest.raises(TypeError, match="got int"):
        parse_tiles("1m", rules=5)


# ---------------------------------------------------------------------------------------------
# as_counts
# ---------------------------------------------------------------------------------------------


def test_as_counts_accepts_notation_and_arrays():
    ref = parse_tiles("123m55z")
    np.testing.assert_array_equal(as_counts("123m55z"), ref)
    np.testing.assert_array_equal(as_counts(list(ref.astype(int))), ref)
    np.testing.assert_array_equal(as_counts(ref.astype(np.int64)), ref)
    np.testing.assert_array_equal(as_counts(tuple(int(x) for x in ref)), ref)


def test_as_counts_returns_fresh_uint8():
    src = parse_tiles("123m")
    out = as_counts(src)
    assert out.dtype == np.uint8
    assert out is not src and not np.shares_memory(out, src)
    out[0] = 4
    assert src[0] == 1


@pytest.mark.parametrize(
    "value, match",
    [
        (np.zeros(33, dtype=np.uint8), r"shape \(34,\), got shape \(33,\)"),
        (np.zeros((2, 34), dtype=np.uint8), r"shape \(34,\), got shape \(2, 34\)"),
        (np.zeros(34, dtype=np.float64), r"counts must be integers 0-4, got dtype float64"),
        (np.zeros(34, dtype=bool), r"counts must be integers 0-4, got dtype bool"),
        ([0.0] * 34, r"got dtype float64"),
    ],
)
def test_as_counts_rejects_bad_arrays(value, match):
    with pytest.raises(TileCountError, match=match):
        as_counts(value)


def test_as_counts_rejects_bad_counts():
    counts = np.zeros(34, dtype=np.int64)
    counts[2] = -1
    with pytest.raises(TileCountError, match=r"negative count -1 for 3m \(index 2\)"):
        as_counts(counts)
    counts[2] = 5
    with pytest.raises(TileCountError, match=r"5 copies of 3m; a kind has at most 4"):
        as_counts(counts)


@pytest.mark.parametrize("value", [None, 5, 3.5])
def test_as_counts_rejects_non_hands(value):
    with pytest.raises(TypeError, match="a hand is tile notation"):
        as_counts(value)


def test_as_counts_with_rules():
    counts = np.zeros(34, dtype=np.uint8)
    counts[20] = 2  # 3s
    with pytest.raises(TileNotationError, match=r"3s is not a tile of rule set 'douque'.*count 2 at index 20"):
        as_counts(counts, rules="douque")
    np.testing.assert_array_equal(as_counts(counts, rules="for_two"), counts)
    with pytest.raises(TileNotationError, match=r"3s is not a tile of rule set 'duel'"):
        as_counts("3s", rules="duel")


# ---------------------------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------------------------


def test_format_tiles_canonical():
    assert format_tiles(parse_tiles("55z 91p 321m")) == "123m19p55z"
    assert format_tiles("7z1s9p1m") == "1m9p1s7z"
    assert format_tiles(np.zeros(34, dtype=np.uint8)) == ""
    assert format_tiles(np.full(34, 4)) == (
        "111122223333444455556666777788889999m"
        "111122223333444455556666777788889999p"
        "111122223333444455556666777788889999s"
        "1111222233334444555566667777z"
    )


def test_format_tiles_validates():
    with pytest.raises(TileCountError, match="5 copies of 1m"):
        format_tiles([5] + [0] * 33)


def test_format_tile_list():
    assert format_tile_list([0, 0, 0, 1]) == "1112m"
    assert format_tile_list([2, 9, 1]) == "3m1p2m"
    assert format_tile_list([]) == ""
    with pytest.raises(TileNotationError, match="out of range"):
        format_tile_list([34])


def test_tile_sets():
    douque = get_rules("douque")
    assert format_kind_set(douque.kinds) == "1-9m 1p 9p 1-7z"
    assert format_kind_set(range(34)) == "1-9m 1-9p 1-9s 1-7z"
    assert format_kind_set([0, 1, 3]) == "1-2m 4m"
    assert format_kind_set([]) == "(none)"
    mask = kinds_mask([0, 33])
    assert mask.dtype == np.bool_ and mask.sum() == 2 and mask[0] and mask[33]


# ---------------------------------------------------------------------------------------------
# property-based round trips
# ---------------------------------------------------------------------------------------------

count_vectors = arrays(np.uint8, 34, elements=st.integers(0, 4))


@given(count_vectors)
def test_round_trip_counts(counts):
    text = format_tiles(counts)
    np.testing.assert_array_equal(parse_tiles(text), counts)
    assert format_tiles(parse_tiles(text)) == text
    assert len(parse_tile_list(text)) == int(counts.sum())


@given(count_vectors, st.randoms(use_true_random=False))
def test_round_trip_any_written_order(counts, rnd):
    kinds = [k for k in range(34) for _ in range(int(counts[k]))]
    rnd.shuffle(kinds)
    text = format_tile_list(kinds)
    assert parse_tile_list(text) == kinds
    np.testing.assert_array_equal(parse_tiles(text), counts)
    spaced = " ".join(text)
    np.testing.assert_array_equal(parse_tiles(spaced), counts)


@given(st.sampled_from(["douque", "night_market", "duel", "for_two"]), st.data())
def test_round_trip_within_rule_set(name, data):
    rules = get_rules(name)
    values = data.draw(st.lists(st.integers(0, 4), min_size=len(rules.kinds), max_size=len(rules.kinds)))
    counts = np.zeros(34, dtype=np.uint8)
    counts[list(rules.kinds)] = values
    text = format_tiles(counts)
    np.testing.assert_array_equal(parse_tiles(text, rules=name), counts)
    np.testing.assert_array_equal(as_counts(counts, rules=rules), counts)
