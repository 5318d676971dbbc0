"""The 34-kind tile index and the m/p/s/z tile notation.

A tile *kind* is an integer 0-33::

    0-8    1m-9m   characters (man)
    9-17   1p-9p   dots (pin)
    18-26  1s-9s   bamboo (sou)
    27-33  1z-7z   honors: East South West North White Green Red

A hand is a count vector ``uint8[34]`` (how many copies of each kind, 0-4). Hands are written in
the usual compact notation: digits followed by their suit letter, e.g. ``"123m19p55z"``. Whitespace
is ignored anywhere (``"123m 19p 55z"``, ``"1 2 3m"``). The canonical form written by
:func:`format_tiles` lists suits in the order m p s z and digits ascending.

Every parser here raises :class:`~simkit.errors.TileNotationError` for text that is not valid
notation (or names a kind the rule set lacks) and :class:`~simkit.errors.TileCountError` for
impossible counts; messages quote the offending text and its index in the string.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np

from simkit.errors import InputTypeError, TileCountError, TileNotationError

__all__ = [
    "N_KINDS",
    "MAX_COPIES",
    "SUIT_LETTERS",
    "SUIT_START",
    "SUIT_SIZE",
    "MAN",
    "PIN",
    "SOU",
    "HONOR",
    "EAST",
    "SOUTH",
    "WEST",
    "NORTH",
    "WHITE",
    "GREEN",
    "RED",
    "WIND_NAMES",
    "DRAGON_NAMES",
    "HONOR_NAMES",
    "TILE_NAMES",
    "suit_of",
    "rank_of",
    "kind_of",
    "tile_name",
    "parse_tiles",
    "parse_tile_list",
    "format_tiles",
    "format_tile_list",
    "as_counts",
    "kinds_mask",
    "format_kind_set",
]

#: Number of tile kinds (9 characters + 9 dots + 9 bamboo + 7 honors).
N_KINDS = 34
#: Copies of each kind in a full set; no hand, meld set or wall holds more.
MAX_COPIES = 4

#: Suit letters in kind order: characters, dots, bamboo, honors.
SUIT_LETTERS = "mpsz"
#: First kind index of each suit, in the order of :data:`SUIT_LETTERS`.
SUIT_START = (0, 9, 18, 27)
#: Number of ranks of each suit, in the order of :data:`SUIT_LETTERS`.
SUIT_SIZE = (9, 9, 9, 7)

#: Suit number of the characters (``m``); ``suit_of(kind) == MAN`` for kinds 0-8.
MAN = 0
#: Suit number of the dots (``p``), kinds 9-17.
PIN = 1
#: Suit number of the bamboo (``s``), kinds 18-26.
SOU = 2
#: Suit number of the honors (``z``), kinds 27-33.
HONOR = 3

#: Kind index of East (1z).
EAST = 27
#: Kind index of South (2z).
SOUTH = 28
#: Kind index of West (3z).
WEST = 29
#: Kind index of North (4z).
NORTH = 30
#: Kind index of White dragon (5z).
WHITE = 31
#: Kind index of Green dragon (6z).
GREEN = 32
#: Kind index of Red dragon (7z).
RED = 33

#: Names of the winds 1z-4z.
WIND_NAMES = ("East", "South", "West", "North")
#: Names of the dragons 5z-7z.
DRAGON_NAMES = ("White", "Green", "Red")
#: Names of the honors 1z-7z, in kind order.
HONOR_NAMES = WIND_NAMES + DRAGON_NAMES

#: Short name of every kind, ``TILE_NAMES[kind]``: ``("1m", ..., "9m", "1p", ..., "7z")``.
TILE_NAMES = tuple(f"{rank}{letter}" for letter, size in zip(SUIT_LETTERS, SUIT_SIZE) for rank in range(1, size + 1))

_DIGITS = "0123456789"
_EXAMPLE = "'123m19p55z'"


# ---------------------------------------------------------------------------------------------
# single kinds
# ---------------------------------------------------------------------------------------------


def _check_kind(kind) -> int:
    """Return ``kind`` as a Python int after checking it is an integer 0-33."""
    if isinstance(kind, (bool, np.bool_)) or not isinstance(kind, numbers.Integral):
        raise InputTypeError(f"a tile kind is an int 0-{N_KINDS - 1}, got {type(kind).__name__}")
    kind = int(kind)
    if not 0 <= kind < N_KINDS:
        raise TileNotationError(f"tile kind {kind} is out of range; kinds are 0-{N_KINDS - 1}")
    return kind


def suit_of(kind: int) -> int:
    """Suit number of a kind: 0 characters, 1 dots, 2 bamboo, 3 honors.

    Parameters
    ----------
    kind : int
        Kind index 0-33.

    Returns
    -------
    int
        :data:`MAN`, :data:`PIN`, :data:`SOU` or :data:`HONOR`.
    """
    return _check_kind(kind) // 9


def rank_of(kind: int) -> int:
    """Rank (the digit of the notation) of a kind: 1-9 for suits, 1-7 for honors.

    Parameters
    ----------
    kind : int
        Kind index 0-33.

    Returns
    -------
    int
        The rank, e.g. ``rank_of(31) == 5`` (5z, White).
    """
    return _check_kind(kind) % 9 + 1


def tile_name(kind: int) -> str:
    """Notation of one kind, e.g. ``tile_name(31) == "5z"``.

    Parameters
    ----------
    kind : int
        Kind index 0-33.

    Returns
    -------
    str
        Rank digit followed by the suit letter.

    Raises
    ------
    TileNotationError
        If ``kind`` is outside 0-33.
    TypeError
        If ``kind`` is not an integer.
    """
    return TILE_NAMES[_check_kind(kind)]


def kind_of(text: str) -> int:
    """Kind index of one tile written in notation, e.g. ``kind_of("5z") == 31``.

    Parameters
    ----------
    text : str
        Exactly one tile: a digit and a suit letter (surrounding whitespace is ignored).

    Returns
    -------
    int
        Kind index 0-33.

    Raises
    ------
    TileNotationError
        If the text is not valid notation or does not name exactly one tile.
    """
    kinds = _scan(text)
    if len(kinds) != 1:
        raise TileNotationError(f"expected exactly one tile such as '5z', got {len(kinds)} tiles in {text!r}")
    return kinds[0][0]


# ---------------------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------------------


def _scan(text: str) -> list[tuple[int, int]]:
    """Parse notation into ``(kind, index of its digit in text)`` pairs, in written order.

    Checks syntax only (characters, ranks, suit letters); not counts and not rule sets.
    """
    if not isinstance(text, str):
        raise InputTypeError(f"tile notation must be a str, got {type(text).__name__}")
    out: list[tuple[int, int]] = []
    pending: list[tuple[int, int]] = []  # (rank, index) of digits still waiting for a suit letter
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        if ch in _DIGITS:
            if ch == "0":
                raise TileNotationError(
                    f"digit 0 at index {i} of {text!r} is not a rank; ranks are 1-9 "
                    f"(honors 1-7); red fives written as 0 are not supported"
                )
            pending.append((int(ch), i))
        elif ch in SUIT_LETTERS:
            if not pending:
                raise TileNotationError(
                    f"suit letter {ch!r} at index {i} of {text!r} has no digits before it; "
                    f"write the ranks first, then the suit letter, e.g. {_EXAMPLE}"
                )
            suit = SUIT_LETTERS.index(ch)
            for rank, j in pending:
                if rank > SUIT_SIZE[suit]:
                    raise TileNotationError(
                        f"{rank}{ch} at index {j} of {text!r} is not a tile; honors are 1z-7z ({' '.join(HONOR_NAMES)})"
                    )
                out.append((SUIT_START[suit] + rank - 1, j))
            pending = []
        else:
            hint = ""
            if ch.lower() in SUIT_LETTERS:
                hint = "; suit letters are lowercase"
            raise TileNotationError(
                f"unknown character {ch!r} at index {i} of {text!r}; notation is digits 1-9 "
                f"with each group ending in a suit letter m, p, s or z, e.g. {_EXAMPLE}{hint}"
            )
    if pending:
        start = pending[0][1]
        digits = "".join(str(rank) for rank, _ in pending)
        raise TileNotationError(
            f"digits {digits!r} at index {start} of {text!r} have no suit letter; "
            f"end each group with m, p, s or z, e.g. {_EXAMPLE}"
        )
    return out


#: turns a rule set's name (or Rules object) into its Rules: :func:`simkit.rules.resolve_rules`,
#: given by :mod:`simkit.rules` (which builds on this module) through :func:`use_rules_resolver`
_rules_resolver = None


def use_rules_resolver(resolve) -> None:
    """Have the tile functions that take ``rules`` resolve a rule set's name with ``resolve``
    (:mod:`simkit.rules` gives its :func:`~simkit.rules.resolve_rules` when it is imported: this
    module knows no rule set)."""
    global _rules_resolver
    _rules_resolver = resolve


def _resolve(rules):
    """``rules`` (a rule set's name or Rules object) as a Rules object."""
    if _rules_resolver is None:  # only before simkit.rules is imported, which importing simkit does
        raise RuntimeError("simkit.rules is not imported: import simkit first")
    return _rules_resolver(rules)


def _not_in_rules_message(kind: int, rules) -> str:
    return f"{TILE_NAMES[kind]} is not a tile of rule set {rules.name!r} (tiles: {format_kind_set(rules.kinds)})"


def _check_rules_kinds(scanned: list[tuple[int, int]], text: str, rules) -> None:
    if rules is None:
        return
    rules = _resolve(rules)
    mask = rules.tile_mask
    for kind, index in scanned:
        if not mask[kind]:
            raise TileNotationError(f"{_not_in_rules_message(kind, rules)}; found at index {index} of {text!r}")


def _too_many_message(counts: np.ndarray) -> str:
    over = np.flatnonzero(counts > MAX_COPIES)
    parts = [f"{int(counts[k])} copies of {TILE_NAMES[k]}" for k in over]
    return f"{', '.join(parts)}; a kind has at most {MAX_COPIES}"


def _counts_of(scanned: list[tuple[int, int]], text: str) -> np.ndarray:
    counts = np.zeros(N_KINDS, dtype=np.int64)
    for kind, _ in scanned:
        counts[kind] += 1
    if counts.max(initial=0) > MAX_COPIES:
        raise TileCountError(f"{_too_many_message(counts)} (in {text!r})")
    return counts


def parse_tile_list(text: str, rules=None) -> list[int]:
    """Kinds of a notation string in written order, e.g. ``"1112m" -> [0, 0, 0, 1]``.

    Parameters
    ----------
    text : str
        Tile notation; whitespace is ignored.
    rules : str or Rules, optional
        If given, every tile must belong to this rule set's tile set.

    Returns
    -------
    list of int
        One kind index per tile, in the order written.

    Raises
    ------
    TileNotationError
        Invalid notation, or a kind the rule set does not use.
    TileCountError
        More than 4 copies of a kind.
    """
    scanned = _scan(text)
    _check_rules_kinds(scanned, text, rules)
    _counts_of(scanned, text)
    return [kind for kind, _ in scanned]


def parse_tiles(text: str, rules=None) -> np.ndarray:
    """Count vector of a notation string, e.g. ``"123m19p55z"``.

    Parameters
    ----------
    text : str
        Tile notation; whitespace is ignored; ``""`` is the empty hand.
    rules : str or Rules, optional
        If given, every tile must belong to this rule set's tile set.

    Returns
    -------
    numpy.ndarray
        ``uint8[34]``, the number of copies of each kind (0-4).

    Raises
    ------
    TileNotationError
        Invalid notation, or a kind the rule set does not use.
    TileCountError
        More than 4 copies of a kind.
    """
    scanned = _scan(text)
    _check_rules_kinds(scanned, text, rules)
    return _counts_of(scanned, text).astype(np.uint8)


def as_counts(hand, rules=None) -> np.ndarray:
    """Validate a hand given as notation or as 34 counts; return a fresh ``uint8[34]``.

    Parameters
    ----------
    hand : str or array_like
        Tile notation, or 34 integer counts (any integer dtype; floats and bools are rejected
        rather than silently converted).
    rules : str or Rules, optional
        If given, kinds outside this rule set's tile set must have count 0.

    Returns
    -------
    numpy.ndarray
        ``uint8[34]``, a new array (never a view of ``hand``).

    Raises
    ------
    TileNotationError
        Invalid notation, or a non-zero count of a kind the rule set does not use.
    TileCountError
        Wrong shape, non-integer dtype, a negative count, or more than 4 copies of a kind.
    TypeError
        If ``hand`` is neither a string nor array-like.
    """
    if isinstance(hand, str):
        return parse_tiles(hand, rules)
    if hand is None:
        raise InputTypeError("a hand is tile notation (str) or 34 counts, got None")
    arr = np.asarray(hand)
    if arr.ndim == 0:
        raise InputTypeError(f"a hand is tile notation (str) or 34 counts, got {type(hand).__name__}")
    if arr.shape != (N_KINDS,):
        raise TileCountError(f"a count vector has shape ({N_KINDS},), got shape {arr.shape}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise TileCountError(
            f"counts must be integers 0-{MAX_COPIES}, got dtype {arr.dtype}; "
            f"convert explicitly, e.g. np.asarray(counts, dtype=np.uint8)"
        )
    values = arr.astype(np.int64)
    negative = np.flatnonzero(values < 0)
    if negative.size:
        k = int(negative[0])
        raise TileCountError(
            f"negative count {int(values[k])} for {TILE_NAMES[k]} (index {k}); counts are 0-{MAX_COPIES}"
        )
    if values.max() > MAX_COPIES:
        raise TileCountError(_too_many_message(values))
    if rules is not None:
        rules = _resolve(rules)
        outside = np.flatnonzero((values > 0) & ~rules.tile_mask)
        if outside.size:
            k = int(outside[0])
            raise TileNotationError(f"{_not_in_rules_message(k, rules)}; count {int(values[k])} at index {k}")
    return values.astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------------------------


def format_tiles(counts) -> str:
    """Canonical notation of a hand: suits m p s z, digits ascending (``""`` if empty).

    Parameters
    ----------
    counts : array_like or str
        34 counts (validated like :func:`as_counts`) or notation to canonicalise.

    Returns
    -------
    str
        e.g. ``"123m19p55z"``.
    """
    values = as_counts(counts)
    parts = []
    for letter, start, size in zip(SUIT_LETTERS, SUIT_START, SUIT_SIZE):
        digits = "".join(str(rank) * int(values[start + rank - 1]) for rank in range(1, size + 1))
        if digits:
            parts.append(digits + letter)
    return "".join(parts)


def format_tile_list(kinds: Iterable[int]) -> str:
    """Notation of kinds in the given order, the inverse of :func:`parse_tile_list`.

    Consecutive tiles of one suit share a suit letter: ``[0, 0, 0, 1] -> "1112m"``,
    ``[0, 9, 1] -> "1m1p2m"``.

    Parameters
    ----------
    kinds : iterable of int
        Kind indices 0-33.

    Returns
    -------
    str
        Tile notation (``""`` for no tiles).
    """
    out = []
    current = None
    for kind in kinds:
        kind = _check_kind(kind)
        suit = kind // 9
        if current is not None and suit != current:
            out.append(SUIT_LETTERS[current])
        out.append(str(kind % 9 + 1))
        current = suit
    if current is not None:
        out.append(SUIT_LETTERS[current])
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# tile sets
# ---------------------------------------------------------------------------------------------


def kinds_mask(kinds: Iterable[int]) -> np.ndarray:
    """Boolean mask of a set of kinds.

    Parameters
    ----------
    kinds : iterable of int
        Kind indices 0-33.

    Returns
    -------
    numpy.ndarray
        ``bool[34]``, True for the kinds given.
    """
    mask = np.zeros(N_KINDS, dtype=np.bool_)
    for kind in kinds:
        mask[_check_kind(kind)] = True
    return mask


def format_kind_set(kinds: Iterable[int]) -> str:
    """Compact text of a tile set, e.g. ``"1-9m 1p 9p 1-7z"`` for the douque tiles.

    Parameters
    ----------
    kinds : iterable of int
        Kind indices 0-33 (order and repeats do not matter).

    Returns
    -------
    str
        Runs of consecutive ranks as ``a-b`` followed by the suit letter, single ranks alone,
        suits in order m p s z; ``"(none)"`` for an empty set.
    """
    mask = kinds_mask(kinds)
    parts = []
    for letter, start, size in zip(SUIT_LETTERS, SUIT_START, SUIT_SIZE):
        rank = 1
        while rank <= size:
            if not mask[start + rank - 1]:
                rank += 1
                continue
            end = rank
            while end < size and mask[start + end]:
                end += 1
            parts.append(f"{rank}{letter}" if end == rank else f"{rank}-{end}{letter}")
            rank = end + 1
    return " ".join(parts) if parts else "(none)"
