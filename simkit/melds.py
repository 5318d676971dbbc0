"""Declared melds (pungs, kongs, claimed chows) written as strings such as ``"pung 555z"``.

A meld string is a type word and the meld's tiles in notation:

==================== ================================================ ===========
type                 meaning                                          example
==================== ================================================ ===========
``pung``             3 identical tiles, claimed from a discard        ``pung 555z``
``kong``             exposed kong: 3 in hand + the claimed discard    ``kong 1111m``
``added_kong``       a drawn 4th tile added to a claimed pung         ``added_kong 2222m``
``concealed_kong``   4 identical tiles drawn yourself, declared       ``concealed_kong 3333z``
``chow``             3 consecutive tiles of one suit, claimed         ``chow 345m``
==================== ================================================ ===========

Inside the engine melds are a small int array, one row ``(type code, lowest kind)`` per meld
(:func:`melds_array`). Errors are :class:`~simkit.errors.MeldError` (bad meld) and
:class:`~simkit.errors.TileCountError` (more than 4 copies of a kind overall).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from simkit.errors import InputTypeError, MeldError, TileCountError, TileNotationError
from simkit.rules import resolve_rules
from simkit.tiles import (
    MAX_COPIES,
    N_KINDS,
    TILE_NAMES,
    _scan,
    as_counts,
    format_kind_set,
    format_tile_list,
)

__all__ = [
    "MELD_TYPES",
    "MELD_PUNG",
    "MELD_KONG",
    "MELD_ADDED_KONG",
    "MELD_CONCEALED_KONG",
    "MELD_CHOW",
    "MAX_MELDS",
    "MELD_SIZES",
    "Meld",
    "parse_meld",
    "parse_melds",
    "meld_counts",
    "melds_array",
    "check_total_counts",
]

#: Meld type names; the index of a name is its integer code.
MELD_TYPES = ("pung", "kong", "added_kong", "concealed_kong", "chow")
#: Code of a pung claimed from a discard.
MELD_PUNG = 0
#: Code of an exposed kong claimed from a discard.
MELD_KONG = 1
#: Code of an added kong (a drawn 4th tile added to a claimed pung).
MELD_ADDED_KONG = 2
#: Code of a concealed kong.
MELD_CONCEALED_KONG = 3
#: Code of a chow claimed from a discard.
MELD_CHOW = 4
#: Most melds a hand can have (four melds + a pair).
MAX_MELDS = 4
#: Number of tiles of each meld type, indexed by code (a kong holds 4).
MELD_SIZES = (3, 4, 4, 4, 3)

_EXAMPLES = ("pung 555z", "kong 1111m", "added_kong 2222m", "concealed_kong 3333z", "chow 345m")
# rule-set flag that must be True for each meld type
_RULE_FLAG = ("claim_pung", "claim_exposed_kong", "added_kong", "concealed_kong", "claim_chow")
_RULE_FLAG_TEXT = (
    "pung claims",
    "exposed kong claims",
    "added kongs",
    "concealed kongs",
    "chow claims",
)


class Meld(NamedTuple):
    """One declared meld.

    Attributes
    ----------
    type : str
        One of :data:`MELD_TYPES`.
    tiles : tuple of int
        Kind indices, sorted ascending (3 for pung/chow, 4 for kongs).
    """

    type: str
    tiles: tuple[int, ...]

    @property
    def code(self) -> int:
        """Integer code of the type (:data:`MELD_PUNG` ... :data:`MELD_CHOW`)."""
        return MELD_TYPES.index(self.type)

    @property
    def kind(self) -> int:
        """Lowest kind of the meld (the kind of a pung or kong; the first tile of a chow)."""
        return self.tiles[0]

    def __str__(self) -> str:
        return f"{self.type} {format_tile_list(self.tiles)}"


def _rules(rules):
    if rules is None:
        return None

    return resolve_rules(rules)


def _validate(type_: str, kinds: list[int], label: str, rules) -> Meld:
    """Check the tiles of a meld of a known type; return the canonical Meld."""
    code = MELD_TYPES.index(type_)
    size = MELD_SIZES[code]
    tiles = tuple(sorted(kinds))
    written = format_tile_list(kinds)
    if len(tiles) != size:
        raise MeldError(f"meld {label!r}: a {type_} has {size} tiles, got {len(tiles)} ({written!r})")
    if code == MELD_CHOW:
        suits = {k // 9 for k in tiles}
        if 3 in suits:
            raise MeldError(
                f"meld {label!r}: a chow is 3 consecutive tiles of one suit (m, p or s); honors (z) cannot form a chow"
            )
        if len(suits) != 1:
            raise MeldError(
                f"meld {label!r}: a chow is 3 consecutive tiles of one suit (m, p or s); "
                f"got tiles of {len(suits)} suits ({written!r})"
            )
        if not (tiles[1] == tiles[0] + 1 and tiles[2] == tiles[1] + 1):
            raise MeldError(
                f"meld {label!r}: a chow is 3 consecutive ranks of one suit, e.g. 'chow 345m'; got {written!r}"
            )
    elif len(set(tiles)) != 1:
        raise MeldError(
            f"meld {label!r}: a {type_} is {size} identical tiles, e.g. {_EXAMPLES[code]!r}; got {written!r}"
        )
    if rules is not None:
        for kind in tiles:
            if not rules.tile_mask[kind]:
                raise MeldError(
                    f"meld {label!r}: {TILE_NAMES[kind]} is not a tile of rule set "
                    f"{rules.name!r} (tiles: {format_kind_set(rules.kinds)})"
                )
        if not getattr(rules, _RULE_FLAG[code]):
            extra = ""
            if code == MELD_CHOW:
                extra = " (a chow there can only be formed concealed, in the hand)"
            raise MeldError(f"meld {label!r}: rule set {rules.name!r} has no {_RULE_FLAG_TEXT[code]}{extra}")
    return Meld(type_, tiles)


def _parse_one(meld, rules) -> Meld:
    if isinstance(meld, Meld):
        type_, tiles = meld
        if type_ not in MELD_TYPES:
            raise MeldError(f"unknown meld type {type_!r} in {meld!r}; meld types are {', '.join(MELD_TYPES)}")
        if not isinstance(tiles, (tuple, list)) or not all(
            isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 0 <= k < N_KINDS for k in tiles
        ):
            raise MeldError(f"meld {meld!r}: tiles must be a tuple of kind indices 0-{N_KINDS - 1}")
        kinds = [int(k) for k in tiles]
        return _validate(type_, kinds, f"{type_} {format_tile_list(kinds)}", rules)
    if not isinstance(meld, str):
        raise InputTypeError(f"a meld is a str such as 'pung 555z' or a Meld, got {type(meld).__name__}")
    text = meld.strip()
    if not text:
        raise MeldError("empty meld string; write a type and tiles, e.g. 'pung 555z'")
    parts = text.split(None, 1)
    type_ = parts[0].lower()
    if type_ not in MELD_TYPES:
        hint = ""
        if parts[0][:1] in "0123456789":
            hint = "; write the type first, e.g. 'pung 555z'"
        raise MeldError(f"unknown meld type {parts[0]!r} in {meld!r}; meld types are {', '.join(MELD_TYPES)}{hint}")
    if len(parts) == 1:
        raise MeldError(f"meld {meld!r} has no tiles; write e.g. {_EXAMPLES[MELD_TYPES.index(type_)]!r}")
    try:
        scanned = _scan(parts[1])
    except TileNotationError as exc:
        raise MeldError(f"meld {meld!r}: {exc}") from exc
    return _validate(type_, [k for k, _ in scanned], text, rules)


def parse_meld(text, rules=None) -> Meld:
    """Parse and validate one meld, e.g. ``parse_meld("chow 534m") == Meld("chow", (2, 3, 4))``.

    Parameters
    ----------
    text : str or Meld
        ``"<type> <tiles>"``; the type is case-insensitive, whitespace is free, the order of the
        tiles does not matter. A Meld is validated and returned in canonical form.
    rules : str or Rules, optional
        If given, the tiles must belong to the rule set and the rule set must allow the meld
        type (e.g. no chow melds where chows cannot be claimed).

    Returns
    -------
    Meld
        With tiles sorted ascending.

    Raises
    ------
    MeldError
        Unknown type, bad notation, wrong number or shape of tiles, a tile or meld type the
        rule set lacks.
    TypeError
        ``text`` is neither a str nor a Meld.
    """
    return _parse_one(text, _rules(rules))


def _counts(melds: tuple[Meld, ...]) -> np.ndarray:
    counts = np.zeros(N_KINDS, dtype=np.int64)
    for meld in melds:
        for kind in meld.tiles:
            counts[kind] += 1
    return counts


def parse_melds(melds, rules=None) -> tuple[Meld, ...]:
    """Parse and validate the melds of one hand.

    Parameters
    ----------
    melds : None, str, Meld, or list/tuple of str or Meld
        ``None`` or ``""`` for no melds; a single string is one meld, or several separated by
        ``,`` or ``;`` (``"pung 555z, kong 1111m"``).
    rules : str or Rules, optional
        Rule set to check tiles and meld types against (see :func:`parse_meld`).

    Returns
    -------
    tuple of Meld
        In the order given.

    Raises
    ------
    MeldError
        A bad meld, or more than 4 melds.
    TileCountError
        The melds together hold more than 4 copies of a kind.
    TypeError
        ``melds`` (or an element) has an unsupported type.
    """
    if melds is None:
        return ()
    if isinstance(melds, Meld):
        items = [melds]
    elif isinstance(melds, str):
        items = [part for part in re.split(r"[,;]", melds) if part.strip()]
    elif isinstance(melds, (list, tuple)):
        items = list(melds)
    else:
        raise InputTypeError(f"melds must be None, a str, a Meld or a list/tuple of them, got {type(melds).__name__}")
    if len(items) > MAX_MELDS:
        raise MeldError(f"{len(items)} melds given; a hand has at most {MAX_MELDS} melds")
    rules = _rules(rules)
    parsed = tuple(_parse_one(item, rules) for item in items)
    counts = _counts(parsed)
    over = np.flatnonzero(counts > MAX_COPIES)
    if over.size:
        k = int(over[0])
        raise TileCountError(
            f"the melds hold {int(counts[k])} copies of {TILE_NAMES[k]} "
            f"({'; '.join(str(m) for m in parsed if k in m.tiles)}); "
            f"a kind has at most {MAX_COPIES}"
        )
    return parsed


def meld_counts(melds) -> np.ndarray:
    """Tiles held in melds, as counts (a kong gives 4).

    Parameters
    ----------
    melds : None, str, Meld, or list/tuple of str or Meld
        Anything :func:`parse_melds` accepts.

    Returns
    -------
    numpy.ndarray
        ``uint8[34]``.
    """
    return _counts(parse_melds(melds)).astype(np.uint8)


def melds_array(melds) -> np.ndarray:
    """Melds as the engine's array: one row ``(type code, lowest kind)`` per meld.

    Parameters
    ----------
    melds : None, str, Meld, or list/tuple of str or Meld
        Anything :func:`parse_melds` accepts.

    Returns
    -------
    numpy.ndarray
        ``int8`` of shape ``(k, 2)``, ``k`` = number of melds (0-4).
    """
    parsed = parse_melds(melds)
    out = np.zeros((len(parsed), 2), dtype=np.int8)
    for i, meld in enumerate(parsed):
        out[i, 0] = meld.code
        out[i, 1] = meld.kind
    return out


def check_total_counts(hand_counts, melds, rules=None) -> None:
    """Check that hand and melds together hold at most 4 copies of every kind.

    Parameters
    ----------
    hand_counts : str or array_like
        The concealed hand, as notation or 34 counts (validated like
        :func:`simkit.tiles.as_counts`).
    melds : None, str, Meld, or list/tuple of str or Meld
        The declared melds (anything :func:`parse_melds` accepts).
    rules : str or Rules, optional
        Rule set to validate hand and melds against.

    Raises
    ------
    TileCountError
        More than 4 copies of a kind in hand and melds together (the message names the kind
        and how many are in the hand and in the melds), or invalid hand counts.
    MeldError, TileNotationError
        Invalid melds or hand notation.
    """
    hand = as_counts(hand_counts, rules).astype(np.int64)
    in_melds = _counts(parse_melds(melds, rules))
    total = hand + in_melds
    over = np.flatnonzero(total > MAX_COPIES)
    if over.size:
        k = int(over[0])
        raise TileCountError(
            f"hand and melds together hold {int(total[k])} copies of {TILE_NAMES[k]} "
            f"({int(hand[k])} in the hand, {int(in_melds[k])} in melds); "
            f"a kind has at most {MAX_COPIES}"
        )
