"""Adapter to the PyPI ``mahjong`` package (v2.x), used as an external oracle.

Only for hands without exposed melds: 13 or 14 concealed tiles, all 34 kinds, regular
hands (four melds + one pair).  Counts are length-34 sequences in the simkit kind order,
which is the package's "34 format" order too (m, p, s, then East..North, White, Green, Red).

Regular-only winning test
-------------------------
``Agari.is_agari`` also returns True for chiitoitsu (seven *distinct* pairs) and for
kokushi (thirteen orphans), and it returns True for a seven-distinct-pairs hand *before*
looking at its regular shape.  So "is_agari and not seven-pairs-shaped" would be WRONG:
e.g. 11223344556677m is both seven pairs and 123m 123m 456m 456m 77m, and would be
rejected.  ``mj_is_regular_win`` therefore uses the package's regular shanten == -1
(``Shanten.calculate_shanten_for_regular_hand``), which only considers four melds + pair.
``mj_is_agari`` exposes the raw ``is_agari`` so the tests can check that both package
answers agree wherever ``is_agari``'s extra patterns cannot be involved.
"""

from __future__ import annotations

from collections.abc import Sequence

from mahjong.agari import Agari
from mahjong.shanten import Shanten

_ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def _tiles34(counts: Sequence[int], allowed_totals: tuple[int, ...]) -> list[int]:
    tiles = [int(x) for x in counts]
    if len(tiles) != 34:
        raise ValueError("need a length-34 count vector")
    if any(not 0 <= x <= 4 for x in tiles):
        raise ValueError("counts must be 0..4")
    if sum(tiles) not in allowed_totals:
        raise ValueError(f"oracle only handles {allowed_totals}-tile hands without melds, got {sum(tiles)}")
    return tiles


def mj_regular_shanten(counts: Sequence[int]) -> int:
    """``Shanten.calculate_shanten_for_regular_hand`` for a 13- or 14-tile hand (no melds)."""
    return Shanten.calculate_shanten_for_regular_hand(_tiles34(counts, (13, 14)))


def mj_is_regular_win(counts: Sequence[int]) -> bool:
    """Four melds + one pair, per the package: regular shanten == -1 (14-tile hand)."""
    tiles = _tiles34(counts, (13, 14))
    if sum(tiles) != 14:
        return False
    return Shanten.calculate_shanten_for_regular_hand(tiles) == Shanten.AGARI_STATE


def mj_is_agari(counts: Sequence[int]) -> bool:
    """Raw ``Agari.is_agari`` (regular OR seven distinct pairs OR thirteen orphans)."""
    tiles = _tiles34(counts, (13, 14))
    if sum(tiles) != 14:
        return False
    return Agari.is_agari(tiles)


def is_seven_distinct_pairs_shape(counts: Sequence[int]) -> bool:
    """The package's chiitoitsu shape: exactly seven kinds with exactly 2 copies, 14 tiles."""
    return sum(counts) == 14 and sum(1 for x in counts if x == 2) == 7


def is_kokushi_shape(counts: Sequence[int]) -> bool:
    """Thirteen orphans: every terminal/honor kind present, one of them twice, 14 tiles."""
    return sum(counts) == 14 and all(counts[i] >= 1 for i in _ORPHANS) and sum(counts[i] for i in _ORPHANS) == 14
