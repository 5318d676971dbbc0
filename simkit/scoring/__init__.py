"""Scoring a win: :func:`score` for one hand by hand, :func:`score_batch` for arrays on all cores.

Both run the numba kernels the engine calls, one module per rule set:

=================  =========================================  ==========================================
rule set           kernel module                              value of a win
=================  =========================================  ==========================================
``douque``         :mod:`simkit.scoring.douque`               hand tai; ``base + tai_value x tai``
``night_market``   :mod:`simkit.scoring.night_market`         fan; ``base + fan_value x fan``
``duel``           :mod:`simkit.scoring.duel`                 fan; ``min(2^(fan-1), cap) x stake`` + kongs
``for_two``        :mod:`simkit.scoring.for_two`              combination points; ``bid x stake x points``
=================  =========================================  ==========================================

They share one core (:mod:`simkit.scoring.core`: meld tally, split walk, winning-tile places, best
arrangement and its tie rule, batch driver). Each module has its item table ``ITEMS`` (read from
``items/<rule set>.toml``: stable snake_case names, which are dataset columns, labels, values and
what each item is replaced by), ``VALUES``, ``REPLACES``, ``params_of``, ``values_of``,
``new_work``, ``score_kernel`` (with its one function scoring an arrangement),
``score_batch_kernel`` and small jitted payment functions, and documents every decision its rules
file leaves open. :func:`items_of` gives a rule set's item table and :func:`item_values_of` its
values under the rule set's options; ``ITEMS`` / ``ITEM_NAMES`` here stay douque's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from ..errors import HandError, InputTypeError, ScoreError, TileCountError, check_flag, show
from ..hand.api import _batch_counts
from ..hand.split import PART_CHOW, PART_NAMES, PART_PAIR
from ..hand.tables import hand_tables
from ..hand.win import is_win_kernel
from ..melds import _RULE_FLAG as _MELD_RULE_FLAG
from ..melds import MELD_CHOW, MELD_PUNG, MELD_SIZES, MELD_TYPES, check_total_counts, melds_array, parse_melds
from ..rules import resolve_rules
from ..rules.douque import MAX_STREAK_CAP
from ..rules.for_two import BIDS
from ..tiles import EAST, NORTH, WEST, as_counts, format_tiles, kind_of, tile_name
from . import douque, duel, for_two, night_market

__all__ = [
    "Score",
    "ScoreError",
    "score",
    "score_batch",
    "items_of",
    "item_names_of",
    "item_values_of",
    "scoring_module",
    "SCORE_FLAGS",
    "ITEM_NAMES",
    "ITEMS",
]

ITEMS = douque.ITEMS
ITEM_NAMES = douque.ITEM_NAMES

_MODULES: dict[str, ModuleType] = {
    "douque": douque,
    "night_market": night_market,
    "duel": duel,
    "for_two": for_two,
}

#: The win flags (keyword arguments of :func:`score`) each rule set's scoring takes; any other flag
#: left on is an error naming the rule set.
SCORE_FLAGS: dict[str, tuple[str, ...]] = {
    "douque": (
        "self_drawn",
        "robbing_kong",
        "replacement",
        "last_tile",
        "first_turn",
        "declared",
        "seat_wind",
        "prevailing_wind",
        "dealer",
        "streak",
    ),
    "night_market": ("self_drawn", "last_tile", "last_discard"),
    "duel": ("self_drawn", "robbing_kong", "replacement", "last_tile", "first_turn", "dealer"),
    "for_two": ("self_drawn", "bid"),
}

_SEAT_WINDS = {"E": EAST, "W": WEST}
_PREVAILING = {"E": EAST, "S": EAST + 1, "W": WEST, "N": NORTH}


def scoring_module(rules) -> ModuleType:
    """The scoring module of a rule set (name or Rules), e.g. ``simkit.scoring.duel``."""
    return _MODULES[resolve_rules(rules).name]


def items_of(rules) -> tuple:
    """The item table of a rule set (name or Rules): a tuple of ``Item(name, label, tai, condition,
    value, replaced_by)``, in the order of the kernel's item vector (``tai`` is the value as written:
    tai, fan or points; ``value`` the value at the default options, :func:`item_values_of` under the
    rule set's; ``replaced_by`` the items it is not scored beside), from
    ``simkit/scoring/items/<rule set>.toml``.

    >>> [item.name for item in items_of("for_two")][:2]
    ['four_pungs', 'three_pungs_one_chow']
    """
    return scoring_module(rules).ITEMS


def item_names_of(rules) -> tuple[str, ...]:
    """The item names (dataset columns) of a rule set, in kernel order."""
    return scoring_module(rules).ITEM_NAMES


def item_values_of(rules) -> dict:
    """The value of each item of a rule set (name or Rules) under its options: ``{name: value}`` in
    kernel order (tai, fan or combination points; ``dragon_pung``: per pung). What the rule set's
    kernel scores an item at; ``scoring_module(rules).REPLACES`` says which items it replaces.

    >>> from simkit import get_rules
    >>> item_values_of(get_rules("douque", migi_tai=4))["migi"]
    4
    """
    rules = resolve_rules(rules)
    m = scoring_module(rules)
    return {name: value.item() for name, value in zip(m.ITEM_NAMES, m.values_of(rules))}


@dataclass(frozen=True)
class Score:
    """The score of one win.

    Attributes
    ----------
    items : dict
        Item name -> value (tai, fan, or for ``for_two`` combination points), only the items
        scored, in table order.
    hand_tai, dealer_tai : int or None
        Douque only (None for the other rule sets).
    total_tai : float or None
        Douque only: ``base / tai_value + hand_tai + dealer_tai`` (2.5 + ... by default).
    points : float
        What the payer pays the winner for the hand: douque ``base + tai_value * (hand_tai +
        dealer_tai)``; night_market ``base + fan_value * fan``; duel ``win_payment +
        kong_payment``; for_two ``bid * stake * combination_points`` (times the self-draw
        multiplier).
    split : tuple of str
        The scored arrangement: exposed melds, then the concealed parts (or the seven pairs); the
        part holding the winning tile is marked with ``*``.
    rules : str
        The rule set with its non-default options, e.g. ``"duel(stake=2)"``.
    rule_set : str
        The rule set's name.
    fan : int or None
        night_market and duel: the sum of the items.
    multiple : int or None
        duel: ``min(2 ** (fan - 1), multiple_cap)``.
    win_payment, kong_payment : float or None
        duel: ``multiple * stake``; the winner's own kongs (exposed 2, added 1, concealed 4) x stake.
        (The opponent's kongs are paid the other way; the engine settles them.)
    fee : float or None
        duel: ``fee * points``, paid by the winner on what they receive.
    combination_points : float or None
        for_two: the points of the scored combination (the sum of the items).
    bid : int or None
        for_two: the banker's bid (1, 2 or 3).
    payment_text : str
        How ``points`` was computed, as printed by :meth:`table`.
    """

    items: dict = field(hash=False)
    hand_tai: int | None
    dealer_tai: int | None
    total_tai: float | None
    points: float
    split: tuple
    rules: str
    rule_set: str = "douque"
    fan: int | None = None
    multiple: int | None = None
    win_payment: float | None = None
    kong_payment: float | None = None
    fee: float | None = None
    combination_points: float | None = None
    bid: int | None = None
    payment_text: str = ""

    def table(self) -> str:
        """The items table, the rule set's totals and the payment, as printed by ``simkit score``."""
        labels = {item.name: item.label for item in items_of(self.rule_set)}
        if self.rule_set == "douque":
            totals = [("hand tai", self.hand_tai), ("dealer tai", self.dealer_tai)]
        elif self.rule_set == "duel":
            totals = [("fan", self.fan), ("multiple", self.multiple)]
        elif self.rule_set == "night_market":
            totals = [("fan", self.fan)]
        else:
            totals = [("combination points", self.combination_points)]
        width = max([len(n) for n in self.items] + [len(name) for name, _ in totals])
        lines = [f"  {name:<{width}}  {value:>3g}  {labels[name]}" for name, value in self.items.items()]
        if not lines:
            lines = ["  (no items)"]
        lines += [f"  {name:<{width}}  {value:>3g}" for name, value in totals]
        if self.rule_set == "douque":
            lines.append(f"payment: {self.total_tai:g} tai = {self.points:g} points")
        else:
            lines.append(f"payment: {self.payment_text}")
        lines.append(f"split:   {' | '.join(self.split)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _code(name: str, value, choices: tuple) -> int:
    if not (value is None or isinstance(value, str)) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ScoreError(f"{name}={show(value)} is not allowed; allowed: {allowed}")
    return choices.index(value)


def _wind(name: str, value, table: dict) -> int:
    if not isinstance(value, str) or value not in table:
        raise ScoreError(f"{name}={show(value)} is not allowed; allowed: {', '.join(table)}")
    return table[value]


def _is_set(value) -> bool:
    """Whether a flag is on: anything but None, False and 0 (arrays: any element on)."""
    if value is None:
        return False
    if isinstance(value, str):
        return True
    arr = np.asarray(value)
    if arr.dtype == object:
        if arr.ndim == 0:  # some other object: on (the check of its value then names it)
            return True
        return any(_is_set(v) for v in arr.ravel())
    return bool(arr.any())


def _check_known_flags(name: str, flags: dict) -> None:
    """Refuse flags that are on but that the rule set's scoring does not take."""
    allowed = SCORE_FLAGS[name]
    for key, value in flags.items():
        if key not in allowed and _is_set(value):
            shown = f"={show(value)}" if np.ndim(value) == 0 else " (an array with values on)"
            raise ScoreError(
                f"{key}{shown} is not a win flag of rule set '{name}' (it scores nothing there); "
                f"'{name}' takes: {', '.join(allowed)}"
            )


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
    last_discard: bool = False,
    first_turn: str | None = None,
    declared: str | None = None,
    seat_wind: str | None = None,
    prevailing_wind: str | None = None,
    dealer: bool = False,
    streak: int | None = None,
    bid: int | None = None,
) -> Score:
    """Score a winning hand under its rule set's table (douque tai, night_market and duel fan,
    for_two combination points).

    Parameters
    ----------
    hand : str or array-like of 34 ints
        The concealed tiles, the winning tile included.
    win_tile : str or int
        The winning tile (``"2z"``) or its kind.
    melds : list of str
        Exposed/declared melds (``"pung 555z"``, ``"kong 1111m"``, ``"added_kong 2222m"``,
        ``"concealed_kong 3333z"``, and ``"chow 345m"`` in night_market and for_two).
    rules : str or Rules
        A rule-set name or a Rules object with options (``get_rules("duel", stake=2)``).
    self_drawn : bool
        The winner drew the winning tile (Heavenly and Earthly Hands are self-drawn). All rule sets.
        Every flag (``self_drawn`` to ``last_discard``, ``dealer``) is a real bool: ``1`` or
        ``"yes"`` is refused.
    robbing_kong : bool
        douque, duel: won on the opponent's added-kong tile (a discard win).
    replacement : bool
        douque, duel: self-drawn on a kong replacement.
    last_tile : bool
        douque, night_market, duel: self-drawn on the last drawable tile of the wall.
    last_discard : bool
        night_market: won on the discard made after the last tile was drawn (He Di Lao Yu).
    first_turn : {None, "heavenly", "earthly", "human"}
        douque (all three), duel (heavenly, earthly).
    declared : {None, "ready", "migi"}
        douque only.
    seat_wind : {"E", "W"}, prevailing_wind : {"E", "S", "W", "N"}
        douque only (default "E").
    dealer : bool
        douque, duel: whether the winner is the dealer (checked against ``first_turn``).
    streak : int
        douque only: the dealer's streak (dealer tai = 1 + 2 * streak; default 0), 0 to the rule
        set's ``streak_cap`` (10 by default): no dealer keeps the deal beyond it.
    bid : {1, 2, 3}
        for_two only: the banker's bid, the hand's stake multiplier (default 1).

    Flags a rule set does not take (:data:`SCORE_FLAGS`) must be left off.

    Raises
    ------
    ScoreError
        Not a complete hand, winning tile not in the hand, contradictory flags, a flag the rule set
        does not take, bad values.
    TileNotationError, TileCountError, MeldError, RulesError
        Bad tiles, impossible counts, bad melds (e.g. a chow in duel), unknown rule set or options.
    """
    rules = resolve_rules(rules)
    flags = dict(
        self_drawn=self_drawn,
        robbing_kong=robbing_kong,
        replacement=replacement,
        last_tile=last_tile,
        last_discard=last_discard,
        first_turn=first_turn,
        declared=declared,
        seat_wind=seat_wind,
        prevailing_wind=prevailing_wind,
        dealer=dealer,
        streak=streak,
        bid=bid,
    )
    for key in ("self_drawn", "robbing_kong", "replacement", "last_tile", "last_discard", "dealer"):
        check_flag(flags[key], key)
    _check_known_flags(rules.name, flags)
    counts = as_counts(hand, rules)
    parsed = parse_melds(melds, rules)
    check_total_counts(counts, parsed)
    if isinstance(win_tile, str):
        win = kind_of(win_tile)
    elif isinstance(win_tile, (bool, np.bool_)) or not isinstance(win_tile, (int, np.integer)):
        raise InputTypeError(f"win_tile must be a tile such as '5z' or a kind 0-33, got {show(win_tile)}")
    else:
        win = int(win_tile)
    if not 0 <= win < 34:
        raise ScoreError(f"win_tile={show(win_tile)} is not a tile; kinds are 0-33")
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
    arr = melds_array(parsed).astype(np.int64).reshape(-1, 2) if parsed else np.zeros((0, 2), np.int64)
    args = (counts, win, parsed, arr, k, t, rules)
    if rules.name == "douque":
        return _score_douque(
            *args,
            self_drawn,
            robbing_kong,
            replacement,
            last_tile,
            first_turn,
            declared,
            "E" if seat_wind is None else seat_wind,
            "E" if prevailing_wind is None else prevailing_wind,
            dealer,
            0 if streak is None else streak,
        )
    if rules.name == "night_market":
        return _score_night_market(*args, bool(self_drawn), bool(last_tile), bool(last_discard))
    if rules.name == "duel":
        return _score_duel(
            *args, bool(self_drawn), bool(robbing_kong), bool(replacement), bool(last_tile), first_turn, bool(dealer)
        )
    return _score_for_two(*args, bool(self_drawn), 1 if bid is None else bid)


def _split_text(parsed, work, k, counts, win) -> tuple:
    """The scored arrangement as strings (``work.choice`` into ``work.splits``; -1 = seven pairs)."""
    s, w = (int(x) for x in work.choice)
    parts = [str(m) for m in parsed]
    if s < 0:  # seven pairs: every kind held 2 or 4 times
        marked = False
        for kind in range(34):
            for _ in range(int(counts[kind]) // 2):
                name = tile_name(kind)
                star = kind == win and not marked
                marked |= star
                parts.append(f"pair {name[0] * 2}{name[1]}" + ("*" if star else ""))
        return tuple(parts)
    for i in range(5 - k):
        ptype, kind = int(work.splits[s, i, 0]), int(work.splits[s, i, 1])
        if ptype == PART_CHOW:
            text = "".join(tile_name(kind + d)[0] for d in range(3)) + tile_name(kind)[1]
        else:
            name = tile_name(kind)
            text = name[0] * (2 if ptype == PART_PAIR else 3) + name[1]
        parts.append(f"{PART_NAMES[ptype]} {text}" + ("*" if i == w else ""))
    return tuple(parts)


def _items_dict(module, items) -> dict:
    out = {}
    for i, name in enumerate(module.ITEM_NAMES):
        if items[i]:
            value = items[i].item()
            out[name] = int(value) if float(value).is_integer() else float(value)
    return out


def _scratch(m, rules):
    """``(work, items, p)``: fresh scratch, the items out (the kernel's item dtype) and the parameters
    of scoring module ``m``'s kernel under ``rules``."""
    work = m.new_work()
    return work, np.zeros_like(work.cand), m.params_of(rules)


def _scored(m, rules, items, work, parsed, k, counts, win, points, **values) -> Score:
    """The :class:`Score` of a win under a rule set without tai (``values``: its own fields)."""
    split = _split_text(parsed, work, k, counts, win)
    return Score(_items_dict(m, items), None, None, None, points, split, str(rules), rules.name, **values)


def _score_douque(
    counts,
    win,
    parsed,
    arr,
    k,
    t,
    rules,
    self_drawn,
    robbing_kong,
    replacement,
    last_tile,
    first_turn,
    declared,
    seat_wind,
    prevailing_wind,
    dealer,
    streak,
) -> Score:
    ft = _code("first_turn", first_turn, douque.FIRST_TURNS)
    dc = _code("declared", declared, douque.DECLARATIONS)
    seat = _wind("seat_wind", seat_wind, _SEAT_WINDS)
    prevailing = _wind("prevailing_wind", prevailing_wind, _PREVAILING)
    if isinstance(streak, (bool, np.bool_)) or not isinstance(streak, (int, np.integer)) or streak < 0:
        raise ScoreError(f"streak must be a non-negative integer, got {show(streak)}")
    cap = int(rules.options.streak_cap)
    if streak > cap:
        raise ScoreError(
            f"streak={show(streak)} cannot happen: a dealer's streak never exceeds the rule set's streak_cap, "
            f"{cap} here (the option streak_cap, at most {MAX_STREAK_CAP})"
        )
    codes = [m.code for m in parsed]
    _check_flags(
        counts,
        win,
        parsed,
        codes,
        bool(self_drawn),
        bool(robbing_kong),
        bool(replacement),
        bool(last_tile),
        first_turn,
        declared,
        bool(dealer),
    )

    work, items, p = _scratch(douque, rules)
    hand_tai = int(
        douque.score_kernel(
            counts,
            win,
            arr,
            k,
            bool(self_drawn),
            bool(robbing_kong),
            bool(replacement),
            bool(last_tile),
            ft,
            dc,
            seat,
            prevailing,
            t,
            p,
            work,
            items,
        )
    )
    dealer_tai = 1 + 2 * int(streak)
    return Score(
        items={name: int(items[i]) for i, name in enumerate(ITEM_NAMES) if items[i]},
        hand_tai=hand_tai,
        dealer_tai=dealer_tai,
        total_tai=p.base / p.tai_value + hand_tai + dealer_tai,
        points=p.base + p.tai_value * (hand_tai + dealer_tai),
        split=_split_text(parsed, work, k, counts, win),
        rules=str(rules),
    )


def _check_flags(
    counts, win, melds, codes, self_drawn, robbing_kong, replacement, last_tile, first_turn, declared, dealer
):
    """Reject combinations of douque win flags that cannot happen, naming the conflict."""
    has_kong = any(c != MELD_PUNG for c in codes)
    _check_robbing(counts, win, melds, self_drawn, robbing_kong, replacement, last_tile)
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
    _check_first_turn(melds, first_turn, declared, replacement, robbing_kong, last_tile, self_drawn, dealer)


def _check_robbing(counts, win, melds, self_drawn, robbing_kong, replacement, last_tile):
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


def _check_first_turn(melds, first_turn, declared, replacement, robbing_kong, last_tile, self_drawn, dealer):
    if first_turn is not None:
        if melds or declared or replacement or robbing_kong or last_tile:
            raise ScoreError(f"a {first_turn} hand has no melds, declaration, replacement, robbed kong or last tile")
        if first_turn == "heavenly" and not (dealer and self_drawn):
            raise ScoreError("heavenly hand: the dealer wins on the dealt 14 tiles (dealer=True, self_drawn=True)")
        if first_turn == "earthly" and (dealer or not self_drawn):
            raise ScoreError(
                "earthly hand: the non-dealer self-draws on the first draw (dealer=False, self_drawn=True)"
            )
        if first_turn == "human" and (dealer or self_drawn):
            raise ScoreError(
                "human hand: the non-dealer wins on the dealer's first discard (dealer=False, self_drawn=False)"
            )


def _score_night_market(counts, win, parsed, arr, k, t, rules, self_drawn, last_tile, last_discard) -> Score:
    if last_tile and not self_drawn:
        raise ScoreError(
            "last_tile means a self-draw on the last tile of the wall (Hai Di Lao Yue); "
            "a win on the discard after it is last_discard"
        )
    if last_discard and self_drawn:
        raise ScoreError(
            "last_discard is a win on the discard made after the last tile was drawn (He Di Lao Yu): "
            "it cannot be self_drawn"
        )
    m = night_market
    work, items, p = _scratch(m, rules)
    fan = int(m.score_kernel(counts, win, arr, k, self_drawn, last_tile, last_discard, t, p, work, items))
    points = float(m.payment(fan, p))
    text = f"{p.base:g} + {p.fan_value:g} x {fan} fan = {points:g} points"
    return _scored(m, rules, items, work, parsed, k, counts, win, points, fan=fan, payment_text=text)


def _score_duel(
    counts, win, parsed, arr, k, t, rules, self_drawn, robbing_kong, replacement, last_tile, first_turn, dealer
) -> Score:
    m = duel
    ft = _code("first_turn", first_turn, m.FIRST_TURNS)
    _check_robbing(counts, win, parsed, self_drawn, robbing_kong, replacement, last_tile)
    if replacement:
        if not self_drawn:
            raise ScoreError("replacement (win on a kong) means a self-draw on a kong replacement: set self_drawn")
        if not any(c in (1, 2, 3) for c, _ in arr):
            raise ScoreError("replacement (win on a kong) needs a kong among the winner's melds")
    if last_tile and not self_drawn:
        raise ScoreError("last_tile means a self-draw on the last tile of the wall (duel scores no last discard)")
    _check_first_turn(parsed, first_turn, None, replacement, robbing_kong, last_tile, self_drawn, dealer)
    work, items, p = _scratch(m, rules)
    fan = int(
        m.score_kernel(counts, win, arr, k, self_drawn, robbing_kong, replacement, last_tile, ft, t, p, work, items)
    )
    multiple = int(m.win_multiple(fan, p))
    win_pay = float(m.win_payment(fan, p))
    kong_units = int(m.kong_units(arr, k))
    kong_pay = float(m.kong_payment(arr, k, p))
    points = win_pay + kong_pay
    fee = float(m.receiver_fee(points, p))
    text = f"{multiple} x {p.stake:g} stake"
    if kong_units:
        text += f" + kongs {kong_units} x {p.stake:g} stake"
    text += f" = {points:g} points; the winner pays a fee of {p.fee:g} x {points:g} = {fee:g}"
    return _scored(
        m,
        rules,
        items,
        work,
        parsed,
        k,
        counts,
        win,
        points,
        fan=fan,
        multiple=multiple,
        win_payment=win_pay,
        kong_payment=kong_pay,
        fee=fee,
        payment_text=text,
    )


def _score_for_two(counts, win, parsed, arr, k, t, rules, self_drawn, bid) -> Score:
    if isinstance(bid, (bool, np.bool_)) or not isinstance(bid, (int, np.integer)) or bid not in BIDS:
        raise ScoreError(f"bid={show(bid)} is not allowed; the banker bids one of {', '.join(map(str, BIDS))}")
    bid = int(bid)
    m = for_two
    work, items, p = _scratch(m, rules)
    value = float(m.score_kernel(counts, win, arr, k, self_drawn, t, p, work, items))
    points = float(m.payment(value, bid, self_drawn, p))
    text = f"bid {bid} x {p.stake:g} stake x {value:g} points"
    if self_drawn:
        text += f" x {p.self_drawn_multiplier:g} (self-drawn)"
    text += f" = {points:g} points"
    combination = int(value) if value.is_integer() else value
    return _scored(
        m,
        rules,
        items,
        work,
        parsed,
        k,
        counts,
        win,
        points,
        combination_points=combination,
        bid=bid,
        payment_text=text,
    )


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
    last_discard=False,
    first_turn=None,
    declared=None,
    seat_wind=None,
    prevailing_wind=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Score N complete hands on all cores (no check of the flags' consistency: the engine's path).

    ``counts`` uint8[N, 34]; ``win_tile`` int[N]; ``melds`` int[N, 4, 2] rows (type code, kind);
    the flags are scalars or arrays of N (``first_turn``/``declared`` as codes, winds as kinds,
    defaults none / East). Flags the rule set does not take (:data:`SCORE_FLAGS`) must be left off.

    Every array is checked before the kernels see it (a ``ScoreError``, ``TileCountError`` or
    ``InputTypeError`` naming the row): counts integers 0-4 of the rule set's tiles, the winning
    tile a kind held in its hand, ``n_melds`` 0-4, the first ``n_melds`` meld rows real melds the
    rule set allows (at most 4 copies of a kind with the hand), flags bools (not ints), codes and
    winds among their values.

    Returns ``(items, value)``: ``items`` [N, n_items] in the rule set's item order, ``value`` [N]
    the hand tai (douque), fan (night_market, duel) as int16, or the combination points
    (for_two) with float64 items and value. The value is -1 for a hand that is not complete.
    """
    rules = resolve_rules(rules)
    flags = dict(
        self_drawn=self_drawn,
        robbing_kong=robbing_kong,
        replacement=replacement,
        last_tile=last_tile,
        last_discard=last_discard,
        first_turn=first_turn,
        declared=declared,
        seat_wind=seat_wind,
        prevailing_wind=prevailing_wind,
    )
    _check_known_flags(rules.name, flags)
    c, win, m, k = _batch_hands(counts, win_tile, melds, n_melds, rules)
    n = len(c)
    module = _MODULES[rules.name]
    t = hand_tables(rules)
    p = module.params_of(rules)
    items = np.zeros((n, module.N_ITEMS), module.ITEM_DTYPE)
    value = np.zeros(n, items.dtype)
    sd = _batch_flag(self_drawn, "self_drawn", n)
    if rules.name == "douque":
        douque.score_batch_kernel(
            c,
            win,
            m,
            k,
            sd,
            _batch_flag(robbing_kong, "robbing_kong", n),
            _batch_flag(replacement, "replacement", n),
            _batch_flag(last_tile, "last_tile", n),
            _batch_ints(first_turn, "first_turn", n, range(len(douque.FIRST_TURNS)), "codes of douque.FIRST_TURNS"),
            _batch_ints(declared, "declared", n, range(len(douque.DECLARATIONS)), "codes of douque.DECLARATIONS"),
            _batch_ints(seat_wind, "seat_wind", n, tuple(_SEAT_WINDS.values()), "27 (East), 29 (West)", EAST),
            _batch_ints(prevailing_wind, "prevailing_wind", n, tuple(_PREVAILING.values()), "27-30 (East-North)", EAST),
            t,
            p,
            items,
            value,
        )
    elif rules.name == "night_market":
        night_market.score_batch_kernel(
            c,
            win,
            m,
            k,
            sd,
            _batch_flag(last_tile, "last_tile", n),
            _batch_flag(last_discard, "last_discard", n),
            t,
            p,
            items,
            value,
        )
    elif rules.name == "duel":
        duel.score_batch_kernel(
            c,
            win,
            m,
            k,
            sd,
            _batch_flag(robbing_kong, "robbing_kong", n),
            _batch_flag(replacement, "replacement", n),
            _batch_flag(last_tile, "last_tile", n),
            _batch_ints(first_turn, "first_turn", n, range(len(duel.FIRST_TURNS)), "codes of duel.FIRST_TURNS"),
            t,
            p,
            items,
            value,
        )
    else:
        for_two.score_batch_kernel(c, win, m, k, sd, t, p, items, value)
    return items, value


def _int_column(value, name: str, n: int, high: int, allowed: str, why: str) -> np.ndarray:
    """``value`` (a scalar or ``n`` values) as int64[n], every entry an integer from 0 to ``high``;
    else a :class:`ScoreError` naming the first bad entry (``name[i]=v`` and ``why``)."""
    a = np.asarray(value)
    _int_dtype(a, name, allowed)
    a = _broadcast(a, name, n)
    bad = (a < 0) | (a > high)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ScoreError(f"score_batch: {name}[{i}]={a[i]} {why}")
    return np.ascontiguousarray(a, dtype=np.int64)


def _broadcast(a: np.ndarray, name: str, n: int) -> np.ndarray:
    try:
        return np.broadcast_to(a, (n,))
    except ValueError:
        raise ScoreError(
            f"score_batch: {name} must be a scalar or an array of N={n} values, got shape {a.shape}"
        ) from None


def _int_dtype(a: np.ndarray, name: str, what: str) -> None:
    if a.dtype == np.bool_ or a.dtype.kind not in "iu":
        raise InputTypeError(f"score_batch: {name} must be integers ({what}), got dtype {a.dtype}")


def _batch_flag(x, name: str, n: int) -> np.ndarray:
    """A win flag of :func:`score_batch`: a bool or a bool array of N (ints are refused)."""
    a = np.asarray(False if x is None else x)
    if a.dtype != np.bool_:
        raise InputTypeError(f"score_batch: {name} must be True / False or a bool array, got dtype {a.dtype}")
    return np.ascontiguousarray(_broadcast(a, name, n))


def _batch_ints(x, name: str, n: int, allowed, allowed_text: str, default: int = 0) -> np.ndarray:
    """An integer code of :func:`score_batch` (scalar or array of N), every value among ``allowed``."""
    a = np.asarray(default if x is None else x)
    _int_dtype(a, name, allowed_text)
    a = _broadcast(a, name, n)
    bad = ~np.isin(a, np.asarray(list(allowed), np.int64))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ScoreError(f"score_batch: {name}[{i}]={a[i]} is not allowed; allowed: {allowed_text}")
    return np.ascontiguousarray(a, dtype=np.int64)


def _batch_hands(counts, win_tile, melds, n_melds, rules):
    """Validate the hands of :func:`score_batch` before the kernels see them: counts (N, 34) integers
    0-4 of the rule set's tiles, the winning tile a kind held in each hand, ``n_melds`` 0-4, the first
    ``n_melds`` rows of ``melds`` real melds the rule set allows, and at most 4 copies of a kind in a
    hand and its melds. (A hand of the wrong size or not complete is scored -1, not an error.)"""

    shape = np.shape(counts)
    if len(shape) != 2 or shape[1] != 34:
        raise ScoreError(f"counts must have shape (N, 34), got {shape}")
    c = _batch_counts(counts, rules, "score_batch")
    n = len(c)
    win = _int_column(win_tile, "win_tile", n, 33, "kinds 0-33", "is not a tile; kinds are 0-33")
    if n and (c[np.arange(n), win] == 0).any():
        i = int(np.flatnonzero(c[np.arange(n), win] == 0)[0])
        raise ScoreError(
            f"score_batch: row {i}: the winning tile {tile_name(int(win[i]))} is not in the hand {format_tiles(c[i])}"
        )
    k = _int_column(n_melds, "n_melds", n, 4, "0-4", "is not allowed; a hand has 0-4 melds")
    if melds is None:
        if k.any():
            raise ScoreError("score_batch: n_melds is not 0 but no melds are given")
        return c, win, np.zeros((n, 4, 2), np.int64), k
    m = np.asarray(melds)
    if m.shape != (n, 4, 2):
        raise ScoreError(f"melds must have shape (N, 4, 2), got {m.shape}")
    _int_dtype(m, "melds", "rows of (type code 0-4, kind 0-33)")
    used = np.arange(4)[None, :] < k[:, None]
    code, kind = m[..., 0], m[..., 1]
    allowed_code = np.array([getattr(rules, flag) for flag in _MELD_RULE_FLAG])
    bad_code = used & ((code < 0) | (code > 4))
    if bad_code.any():
        i, j = (int(x) for x in np.argwhere(bad_code)[0])
        raise ScoreError(
            f"score_batch: melds[{i}, {j}] has type code {m[i, j, 0]}; codes are 0-4 ({', '.join(MELD_TYPES)})"
        )
    code = np.where(used, code, 0).astype(np.int64)
    bad_kind = used & ((kind < 0) | (kind > 33))
    if bad_kind.any():
        i, j = (int(x) for x in np.argwhere(bad_kind)[0])
        raise ScoreError(f"score_batch: melds[{i}, {j}] has kind {m[i, j, 1]}; kinds are 0-33")
    kind = np.where(used, kind, 0).astype(np.int64)
    not_allowed = used & ~allowed_code[code]
    if not_allowed.any():
        i, j = (int(x) for x in np.argwhere(not_allowed)[0])
        raise ScoreError(
            f"score_batch: melds[{i}, {j}] is a {MELD_TYPES[code[i, j]]}, which rule set '{rules.name}' does not allow"
        )
    chow = used & (code == MELD_CHOW)
    bad_chow = chow & ((kind >= 27) | (kind % 9 > 6))
    if bad_chow.any():
        i, j = (int(x) for x in np.argwhere(bad_chow)[0])
        raise ScoreError(
            f"score_batch: melds[{i}, {j}] is a chow from {tile_name(int(kind[i, j]))}: a chow starts at rank 1-7 of m, p or s"
        )
    held = c.astype(np.int64)
    mask = rules.tile_mask
    for j in range(4):
        rows = np.flatnonzero(used[:, j])
        for d in range(3):
            is_chow = chow[rows, j]
            size = np.asarray(MELD_SIZES)[code[rows, j]]
            add = np.where(is_chow, 1, np.where(d == 0, size, 0))
            np.add.at(held, (rows, np.minimum(kind[rows, j] + np.where(is_chow, d, 0), 33)), add)
        outside = used[:, j] & ~(
            mask[kind[:, j]]
            & (~chow[:, j] | (mask[np.minimum(kind[:, j] + 1, 33)] & mask[np.minimum(kind[:, j] + 2, 33)]))
        )
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise ScoreError(f"score_batch: melds[{i}, {j}] holds a tile that is not of rule set '{rules.name}'")
    over = held > 4
    if over.any():
        i, kd = (int(x) for x in np.argwhere(over)[0])
        raise TileCountError(
            f"score_batch: row {i} holds {held[i, kd]} copies of {tile_name(kd)} in the hand and its melds; a kind has at most 4"
        )
    return c, win, np.ascontiguousarray(m, dtype=np.int64), k
