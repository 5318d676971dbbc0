"""simkit._words (byte arrays read eight bytes at a time) against numpy, from Python and jitted;
the engine's uses of it against the byte-at-a-time rules they replace: the random policy's
choice and the discard / concealed-kong part of the legal mask after a draw."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit._words import BYTE_ONES, lowest_set_bit, popcount64, set_word_at, word_at
from simkit.engine import actions as A
from simkit.engine.actions import uniform_legal_action
from simkit.engine.rng import bounded
from simkit.engine.table import _legal_after_draw as fill_after_draw
from simkit.hand.tables import hand_tables
from simkit.policies.basic import random_policy


@numba.njit
def _jitted_reads(a, i):
    w = word_at(a, i)
    return w, popcount64(w), lowest_set_bit(w)


@numba.njit
def _jitted_write(a, i, w):
    set_word_at(a, i, w)


def _numpy_word(a, i) -> int:
    return int(np.ascontiguousarray(a[i : i + 8]).view(np.uint8).view("<u8")[0])


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=8, max_size=160), st.data())
def test_words_read_and_write_like_numpy_from_python_and_jitted(raw, data):
    bytes_ = np.frombuffer(raw, np.uint8).copy()
    i = data.draw(st.integers(0, len(bytes_) - 8))
    w = _numpy_word(bytes_, i)
    bits = bin(w).count("1")
    low = (w & -w).bit_length() - 1 if w else 64
    for a in (bytes_, bytes_.view(np.int8), (bytes_ & 1).astype(np.bool_)):
        expect = _numpy_word(a.view(np.uint8), i)
        for got in (_jitted_reads(a, i), (word_at(a, i), popcount64(word_at(a, i)), lowest_set_bit(word_at(a, i)))):
            assert int(got[0]) == expect
            assert int(got[1]) == bin(expect).count("1")
            assert int(got[2]) == ((expect & -expect).bit_length() - 1 if expect else 64)
    assert int(popcount64(np.uint64(w))) == bits and int(lowest_set_bit(np.uint64(w))) == low
    new = data.draw(st.integers(0, 2**64 - 1))
    jitted, python, expect = bytes_.copy(), bytes_.copy(), bytes_.copy()
    expect[i : i + 8] = np.frombuffer(new.to_bytes(8, "little"), np.uint8)
    _jitted_write(jitted, i, np.uint64(new))
    set_word_at(python, i, np.uint64(new))
    assert (jitted == expect).all() and (python == expect).all()


def test_words_are_typed_only_for_contiguous_byte_arrays():
    with pytest.raises(numba.TypingError):
        _jitted_reads(np.zeros(16, np.int64), 0)
    with pytest.raises(numba.TypingError):
        _jitted_reads(np.zeros((4, 8), np.uint8)[:, 0], 0)  # strided
    assert int(BYTE_ONES) == int.from_bytes(bytes([1] * 8), "little")


def _reference_choice(legal, state):
    """The random policy's choice, an action at a time: the j-th legal action, j = bounded(n)."""
    allowed = np.flatnonzero(legal)
    j = int(bounded(state, len(allowed)))
    return int(allowed[j]) if len(allowed) else -1


@numba.njit
def _choose(legal, state):
    return uniform_legal_action(legal, state)


@pytest.mark.parametrize("length", [A.N_ACTIONS, 3, 8, 37])
def test_the_random_choice_is_the_j_th_legal_action(length):
    rng = np.random.default_rng(length)
    for trial in range(3000):
        density = [0.005, 0.05, 0.3, 0.9][trial % 4]
        legal = rng.random(length) < density
        if not legal.any():
            legal[rng.integers(length)] = True
        seed = rng.integers(0, 2**63, dtype=np.uint64)
        states = [np.array([seed], np.uint64) for _ in range(3)]
        expect = _reference_choice(legal, states[0])
        assert _choose(legal, states[1]) == expect
        if length == A.N_ACTIONS:
            assert random_policy.py_func(None, legal, np.zeros(0), states[2]) == expect
        assert states[1][0] == states[0][0]  # one draw, as before


def test_legal_after_draw_marks_discards_and_concealed_kongs_as_the_counts_say():
    t = hand_tables("douque")
    rng = np.random.default_rng(5)
    swork = np.zeros(64, np.int64)
    melds = np.zeros((4, 2), np.int8)
    meld_counts = np.zeros(34, np.uint8)
    legal = np.zeros(A.N_ACTIONS, np.bool_)
    for trial in range(400):
        hand = np.zeros(34, np.uint8)
        for k in rng.choice(np.repeat(np.arange(34), 4), 14, replace=False):
            hand[k] += 1
        if trial % 3 == 0:
            hand[rng.integers(34)] = 4
        phase = A.PHASE_DRAW if trial % 2 else A.PHASE_PUNG
        last = trial % 5 == 0
        legal[:] = rng.random(A.N_ACTIONS) < 0.5  # anything from before is cleared
        _legal_after_draw(legal, hand, melds, 0, meld_counts, 0, 0, last, -1, phase, 5, True, swork, t)
        assert (legal[A.DISCARD : A.DISCARD + 34] == (hand > 0)).all()
        kongs = (hand == 4) if phase == A.PHASE_DRAW and not last else np.zeros(34, bool)
        assert (legal[A.CONCEALED_KONG : A.CONCEALED_KONG + 34] == kongs).all()
        assert not legal[A.DECLARE : A.DECLARE + 34].any() and not legal[A.ADDED_KONG : A.ADDED_KONG + 34].any()


@numba.njit
def _legal_after_draw(
    legal, hand, melds, n_melds, meld_counts, declared, skip_win, last, drawn, phase, lb, can_declare, swork, t
):
    return fill_after_draw(
        legal, hand, melds, n_melds, meld_counts, declared, skip_win, last, drawn, phase, lb, can_declare, swork, t
    )
