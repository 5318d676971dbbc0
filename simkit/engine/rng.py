"""Counter-based random numbers for numba kernels.

Every stream is derived from ``(seed, a, b)`` -- e.g. (master seed, match index, hand index) -- by
hashing with the SplitMix64 finaliser, so stream ``i`` does not depend on which thread or worker
draws it, nor on how the work was chunked. A stream's state is a ``uint64[1]`` array; each draw adds
the golden-ratio increment and returns the mixed value (SplitMix64, period 2**64, passes BigCrush).
No kernel touches numpy's global random state.
"""

import numpy as np

from .._jit import jit

__all__ = ["mix64", "stream_key", "new_stream", "next_u64", "bounded", "uniform"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  #: SplitMix64 increment
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_U32 = np.uint64(0xFFFFFFFF)


@jit(inline="always")
def mix64(z):  # pragma: no cover - compiled
    """SplitMix64 finaliser: a bijective 64-bit hash."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@jit
def stream_key(seed, a, b):  # pragma: no cover - compiled
    """The starting state of stream ``(seed, a, b)``; all three are non-negative integers."""
    k = mix64(np.uint64(seed) + _GOLDEN)
    k = mix64(k ^ mix64(np.uint64(a) + _GOLDEN * np.uint64(2)))
    k = mix64(k ^ mix64(np.uint64(b) + _GOLDEN * np.uint64(3)))
    return k


@jit
def new_stream(seed, a, b):  # pragma: no cover - compiled
    """A fresh ``uint64[1]`` state for stream ``(seed, a, b)``."""
    state = np.empty(1, np.uint64)
    state[0] = stream_key(seed, a, b)
    return state


@jit(inline="always")
def next_u64(state):  # pragma: no cover - compiled
    """Next 64 random bits of ``state`` (uint64[1]), advancing it."""
    state[0] = state[0] + _GOLDEN
    return mix64(state[0])


@jit(inline="always")
def bounded(state, n):  # pragma: no cover - compiled
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` (Lemire's method, unbiased)."""
    nn = np.uint64(n)
    m = (next_u64(state) >> np.uint64(32)) * nn
    low = m & _U32
    if low < nn:
        threshold = ((_U32 + np.uint64(1)) - nn) % nn
        while low < threshold:
            m = (next_u64(state) >> np.uint64(32)) * nn
            low = m & _U32
    return np.int64(m >> np.uint64(32))


@jit(inline="always")
def uniform(state):  # pragma: no cover - compiled
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
