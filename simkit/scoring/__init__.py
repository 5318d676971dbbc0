"""Scoring a win: :func:`score` for one hand by hand, :func:`score_batch` for arrays on all cores.

Both run the same numba kernel the engine calls (:func:`simkit.scoring.douque.score_kernel`).
Douque (tai) is implemented; the other rule sets' fan tables are not yet (``score`` says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import HandError, ScoreError
from ..hand.split import PART_CHOW, PART_NAMES, PART_PAIR
from ..hand.tables import hand_tables
from ..hand.win import is_win_kernel
from ..melds import MELD_CONCEALED_KONG, MELD_PUNG, check_total_counts, meld_counts, melds_array, parse_melds
from ..rules import resolve_rules
from ..tiles import EAST, NORTH, WEST, as_counts, format_tiles, kind_of, tile_name
from . import douque

__all__ = ["Score", "ScoreError", "score", "score_batch", "ITEM_NAMES", "ITEMS"]

ITEMS = douque.ITEMS
ITEM_NAMES = douque.ITEM_NAMES

_SEAT_WINDS = {"E": EAST, "W": WEST}
_PREVAILING = {"E": EAST, "S": EAST + 1, "W": WEST, "N": NORTH}


@dataclass(frozen=True)
class Score:
    """The score of one win.

    Attributes
    ----------
    items : dict
        Item name -> tai, only the items scored, in table order.
    hand_tai, dealer_tai : int
    total_tai : float
        ``base / tai_value + hand_tai + dealer_tai`` (2.5 + ... with the default options).
    points : float
        ``base + tai_value * (hand_tai + dealer_tai)``: what the payer pays the winner.
    split : tuple of str
        The scored arrangement: exposed melds, then the concealed parts; the part holding the
        winning tile is marked with ``*``.
    rules : str
    """

    items: dict = field(hash=False)
    hand_tai: int
    dealer_tai: int
    total_tai: float
    points: float
    split: tuple
    rules: str

    def table(self) -> str:
        """The items table, hand tai, dealer tai and payment, as printed by ``simkit score``."""
        labels = {item.name: item.label for item in ITEMS}
        width = max([len(n) for n in self.items] + [len("dealer tai")])
        lines = [f"  {name:<{width}}  {tai:>3}  {labels[name]}" for name, tai in self.items.items()]
        if not lines:
            lines = ["  (no items)"]
        lines += [
            f"  {'hand tai':<{width}}  {self.hand_tai:>3}",
            f"  {'dealer tai':<{width}}  {self.dealer_tai:>3}",
            f"payment: {self.total_tai:g} tai = {self.points:g} points",
            f"split:   {' | '.join(self.split)}",
        ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _code(name: str, value, choices: tuple) -> int:
    if value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ScoreError(f"{name}={value!r} is not allowed; allowed: {allowed}")
    return choices.index(value)


def _wind(name: str, value, table: dict) -> int:
    if value not in table:
        raise ScoreError(f"{name}={value!r} is not allowed; allowed: {', '.join(table)}")
    return table[value]


def score(
    hand,
    win_tile,
    melds=(),
    *,
    rules="douque",
    self_drawn: bool = False,
    robbing_kong: bool = False,
    replacement: bool = False,
    last_tile: bool = False,
    first_turn: str | None = None,
    declared: str | None = None,
    seat_wind: str = "E",
    prevailing_wind: str = "E",
    dealer: bool = False,
    streak: int = 0,
) -> Score:
    """Score a winning hand under a rule set's tai table (douque §7-§9).

    Parameters
    ----------
    hand : str or array-like of 34 ints
        The concealed tiles, the winning tile included.
    win_tile : str or int
        The winning tile (``"2z"``) or its kind.
    melds : list of str
        Exposed/declared melds (``"pung 555z"``, ``"kong 1111m"``, ``"added_kong 2222m"``,
        ``"concealed_kong 3333z"``).
    rules : str or Rules
        ``"douque"`` or a douque Rules object with options (``get_rules("douque", migi_tai=4)``).
    self_drawn : bool
        The winner drew the winning tile (Heavenly and Earthly Hands are self-drawn).
    robbing_kong : bool
        Won on the opponent's added-kong tile (a discard win).
    replacement : bool
        Self-drawn on a kong replacement.
    last_tile : bool
        Self-drawn on the last drawable tile.
    first_turn : {None, "heavenly", "earthly", "human"}
    declared : {None, "ready", "migi"}
    seat_wind : {"E", "W"}
    prevailing_wind : {"E", "S", "W", "N"}
    dealer : bool
        Whether the winner is the dealer.
    streak : int
        The dealer's streak (dealer tai = 1 + 2 * streak).

    Raises
    ------
    ScoreError
        Not a complete hand, winning tile not in the hand, contradictory flags, bad values.
    TileNotationError, TileCountError, MeldError, RulesError
        Bad tiles, impossible counts, bad melds, unknown rule set or options.
    """
    rules = resolve_rules(rules)
    if rules.name != "douque":
        raise ScoreError(
            f"scoring for rule set '{rules.name}' is not implemented yet; implemented: douque"
        )
    counts = as_counts(hand, rules)
    parsed = parse_melds(melds, rules)
    check_total_counts(counts, parsed)
    win = kind_of(win_tile) if isinstance(win_tile, str) else int(win_tile)
    if not 0 <= win < 34:
        raise ScoreError(f"win_tile={win_tile!r} is not a tile")
    if counts[win] == 0:
        raise ScoreError(f"the winning tile {tile_name(win)} is not in the hand {format_tiles(counts)}")
    k = len(parsed)
    total = int(counts.sum())
    if total != 14 - 3 * k:
        raise HandError(
            f"score: the concealed part has {total} tiles; with {k} meld(s) it must have {14 - 3 * k} "
            "(the winning tile included)"
        )
    t = hand_tables(rules)
    if not is_win_kernel(counts, k, t):
        shown = format_tiles(counts) + (" + " + ", ".join(str(m) for m in parsed) if parsed else "")
        raise ScoreError(f"not a complete hand: {shown}")
    ft = _code("first_turn", first_turn, douque.FIRST_TURNS)
    dc = _code("declared", declared, douque.DECLARATIONS)
    seat = _wind("seat_wind", seat_wind, _SEAT_WINDS)
    prevailing = _wind("prevailing_wind", prevailing_wind, _PREVAILING)
    if isinstance(streak, bool) or not isinstance(streak, (int, np.integer)) or streak < 0:
        raise ScoreError(f"streak must be a non-negative integer, got {streak!r}")
    codes = [m.code for m in parsed]
    _check_flags(
        counts, win, parsed, codes, bool(self_drawn), bool(robbing_kong), bool(replacement), bool(last_tile),
        first_turn, declared, bool(dealer),
    )

    work = douque.new_work()
    items = np.zeros(douque.N_ITEMS, np.int64)
    arr = melds_array(parsed).astype(np.int64).reshape(-1, 2) if parsed else np.zeros((0, 2), np.int64)
    p = douque.params_of(rules)
    hand_tai = int(
        douque.score_kernel(
            counts, win, arr, k, bool(self_drawn), bool(robbing_kong), bool(replacement), bool(last_tile),
            ft, dc, seat, prevailing, t, p, work, items,
        )
    )
    dealer_tai = 1 + 2 * int(streak)
    s, w = (int(x) for x in work.choice)
    parts = [str(m) for m in parsed]
    for i in range(5 - k):
        ptype, kind = int(work.splits[s, i, 0]), int(work.splits[s, i, 1])
        if ptype == PART_CHOW:
            text = "".join(tile_name(kind + d)[0] for d in range(3)) + tile_name(kind)[1]
        else:
            name = tile_name(kind)
            text = name[0] * (2 if ptype == PART_PAIR else 3) + name[1]
        parts.append(f"{PART_NAMES[ptype]} {text}" + ("*" if i == w else ""))
    return Score(
        items={name: int(items[i]) for i, name in enumerate(ITEM_NAMES) if items[i]},
        hand_tai=hand_tai,
        dealer_tai=dealer_tai,
        total_tai=p.base / p.tai_value + hand_tai + dealer_tai,
        points=p.base + p.tai_value * (hand_tai + dealer_tai),
        split=tuple(parts),
        rules=str(rules),
    )


def _check_flags(counts, win, melds, codes, self_drawn, robbing_kong, replacement, last_tile, first_turn, declared, dealer):
    """Reject combinations of win flags that cannot happen, naming the conflict."""
    has_kong = any(c != MELD_PUNG for c in codes)
    if robbing_kong:
        if self_drawn:
            raise ScoreError("robbing_kong is a win on the opponent's tile: it cannot be self_drawn")
        if replacement or last_tile:
            raise ScoreError("robbing_kong cannot be combined with replacement or last_tile (both are self-draws)")
        if counts[win] != 1 or any(m.kind == win for m in melds):
            raise ScoreError(
                f"robbing_kong: the robbed {tile_name(win)} is the 4th copy of the opponent's pung, "
                "so the winner can hold no other copy"
            )
    if replacement:
        if not self_drawn:
            raise ScoreError("replacement means a self-draw on a kong replacement: set self_drawn")
        if not has_kong:
            raise ScoreError("replacement needs a kong among the winner's melds")
    if last_tile and not self_drawn:
        raise ScoreError(
            "last_tile means a self-draw on the last drawable tile (a win on the last discard scores nothing extra)"
        )
    if declared == "migi" and melds:
        raise ScoreError("MIGI is declared before any pung or kong, so the winner can have no melds")
    if first_turn is not None:
        if melds or declared or replacement or robbing_kong or last_tile:
            raise ScoreError(
                f"a {first_turn} hand has no melds, declaration, replacement, robbed kong or last tile"
            )
        if first_turn == "heavenly" and not (dealer and self_drawn):
            raise ScoreError("heavenly hand: the dealer wins on the dealt 14 tiles (dealer=True, self_drawn=True)")
        if first_turn == "earthly" and (dealer or not self_drawn):
            raise ScoreError("earthly hand: the non-dealer self-draws on the first draw (dealer=False, self_drawn=True)")
        if first_turn == "human" and (dealer or self_drawn):
            raise ScoreError("human hand: the non-dealer wins on the dealer's first discard (dealer=False, self_drawn=False)")


def score_batch(
    counts,
    win_tile,
    melds=None,
    n_melds=0,
    *,
    rules="douque",
    self_drawn=False,
    robbing_kong=False,
    replacement=False,
    last_tile=False,
    first_turn=0,
    declared=0,
    seat_wind=EAST,
    prevailing_wind=EAST,
) -> tuple[np.ndarray, np.ndarray]:
    """Score N complete hands on all cores (no flag validation: the engine's path).

    ``counts`` uint8[N, 34]; ``win_tile`` int[N]; ``melds`` int[N, 4, 2] rows (type code, kind);
    the flags are scalars or arrays of N (``first_turn``/``declared`` as codes, winds as kinds).
    Returns ``(items int16[N, N_ITEMS], hand_tai int16[N])``; hand tai is -1 for a hand that is not
    complete.
    """
    rules = resolve_rules(rules)
    if rules.name != "douque":
        raise ScoreError(f"scoring for rule set '{rules.name}' is not implemented yet; implemented: douque")
    c = np.ascontiguousarray(counts, dtype=np.uint8)
    if c.ndim != 2 or c.shape[1] != 34:
        raise ScoreError(f"counts must have shape (N, 34), got {c.shape}")
    n = len(c)

    def arr(x, dtype):
        return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype), (n,)))

    m = np.zeros((n, 4, 2), np.int64) if melds is None else np.ascontiguousarray(melds, dtype=np.int64)
    if m.shape != (n, 4, 2):
        raise ScoreError(f"melds must have shape (N, 4, 2), got {m.shape}")
    items = np.zeros((n, douque.N_ITEMS), np.int16)
    hand_tai = np.zeros(n, np.int16)
    douque.score_batch_kernel(
        c, arr(win_tile, np.int64), m, arr(n_melds, np.int64), arr(self_drawn, np.bool_), arr(robbing_kong, np.bool_),
        arr(replacement, np.bool_), arr(last_tile, np.bool_), arr(first_turn, np.int64), arr(declared, np.int64),
        arr(seat_wind, np.int64), arr(prevailing_wind, np.int64), hand_tables(rules), douque.params_of(rules),
        items, hand_tai,
    )
    return items, hand_tai
