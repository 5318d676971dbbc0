"""Byte arrays read and written eight bytes at a time.

A legal-action mask is 148 bytes of 0 or 1 and a hand 34 tile counts of 0 to 4: the engine's
scans of them (count the legal actions, find the j-th, set the discards a hand allows) are loops
over bytes that LLVM neither vectorises (the arrays might overlap) nor predicts (which bytes are
set is random). Read as 64-bit words they take a handful of instructions: the number of set
bytes of a 0/1 word is its popcount, the j-th set byte is found by clearing the lowest set bit j
times, and a count is nonzero where any of its three low bits is set.

Each function works from plain Python (numpy arrays and integers) and is compiled at its call
site in jitted code (no call, no reference counts): an unaligned load or store of the array's
data, ``llvm.ctpop``, ``llvm.cttz``. The caller keeps ``0 <= i <= len(a) - 8``; nothing is
checked in compiled code.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import lower_builtin, type_callable

__all__ = ["word_at", "set_word_at", "popcount64", "lowest_set_bit", "BYTE_ONES"]

BYTE_ONES = np.uint64(0x0101010101010101)  #: a 1 in every byte's lowest bit


def word_at(a, i):
    """The bytes ``a[i:i + 8]`` of a contiguous 1-d array of bytes (uint8, int8 or bool) as a
    little-endian uint64: byte ``a[i + b]`` in bits ``8b .. 8b + 7``."""
    return np.uint64(int.from_bytes(np.ascontiguousarray(a[i : i + 8]).view(np.uint8).tobytes(), "little"))


def set_word_at(a, i, w):
    """Write the uint64 ``w`` into the bytes ``a[i:i + 8]`` (little-endian: the inverse of
    :func:`word_at`); for a bool array every byte of ``w`` must be 0 or 1."""
    a[i : i + 8] = np.frombuffer(int(w).to_bytes(8, "little"), np.uint8).view(a.dtype)


def popcount64(w):
    """The number of set bits of the uint64 ``w``."""
    return np.int64(int(w).bit_count())


def lowest_set_bit(w):
    """The index of the lowest set bit of the uint64 ``w`` (64 when ``w`` is 0)."""
    w = int(w)
    return np.int64((w & -w).bit_length() - 1 if w else 64)


def _byte_array(a) -> bool:
    return (
        isinstance(a, types.Array)
        and a.ndim == 1
        and a.layout == "C"
        and (a.dtype == types.boolean or (isinstance(a.dtype, types.Integer) and a.dtype.bitwidth == 8))
    )


def _pointer(context, builder, array_type, array, index_type, index):
    data = context.make_array(array_type)(context, builder, value=array).data
    i = context.cast(builder, index, index_type, types.intp)
    return builder.bitcast(builder.gep(data, [i]), ir.IntType(64).as_pointer())


@type_callable(word_at)
def _type_word_at(context):
    def typer(a, i):
        if _byte_array(a) and isinstance(i, types.Integer):
            return types.uint64
        return None

    return typer


@lower_builtin(word_at, types.Array, types.Integer)
def _lower_word_at(context, builder, sig, args):
    return builder.load(_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1]), align=1)


@type_callable(set_word_at)
def _type_set_word_at(context):
    def typer(a, i, w):
        if _byte_array(a) and isinstance(i, types.Integer) and isinstance(w, types.Integer):
            return types.none
        return None

    return typer


@lower_builtin(set_word_at, types.Array, types.Integer, types.Integer)
def _lower_set_word_at(context, builder, sig, args):
    w = context.cast(builder, args[2], sig.args[2], types.uint64)
    builder.store(w, _pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1]), align=1)
    return context.get_dummy_value()


def _compile_bit_count(fn, emit):
    """Type ``fn(w)`` (an integer) as int64 and lower it to ``emit(builder, w as i64)``."""

    @type_callable(fn)
    def _type(context):
        def typer(w):
            return types.int64 if isinstance(w, types.Integer) else None

        return typer

    @lower_builtin(fn, types.Integer)
    def _lower(context, builder, sig, args):
        return emit(builder, context.cast(builder, args[0], sig.args[0], types.uint64))


_compile_bit_count(popcount64, lambda builder, w: builder.ctpop(w))
_compile_bit_count(lowest_set_bit, lambda builder, w: builder.cttz(w, ir.Constant(ir.IntType(1), 0)))  # 64 at 0
