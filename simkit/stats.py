"""Small statistics helpers shared by the CLI and the analysis layer."""

from __future__ import annotations

import math

__all__ = ["wilson_interval"]


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    Returns ``(low, high)``; ``(0.0, 1.0)`` when ``n == 0``. The bounds are exact where the
    formula's are in exact arithmetic: ``low == 0`` when ``successes == 0`` and ``high == 1`` when
    ``successes == n`` (rounding gave about 1e-21 and 0.9999999999999999), and the share
    ``successes / n`` always lies inside, so an error bar is never negative.
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {successes}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else min(p, max(0.0, centre - half))
    high = 1.0 if successes == n else max(p, min(1.0, centre + half))
    return low, high
