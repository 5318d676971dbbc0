"""Rule set ``duel``: Mahjong Duel (64 tiles, fan -> multiples, kong payments).

Specification: ``docs/rules/duel.md`` (characters 1-9 and the seven honors; pung and exposed kong on a
discard, no chow claims; no tiles kept back; added kongs can be robbed; seven pairs wins).
The loser pays ``min(2**(fan - 1), multiple_cap) x stake``; kong payments come on top; the
receiver pays ``fee`` on what they receive; ``chips`` caps payments by the payer's balance.

Earthly Hand (8 fan flat) is the non-dealer's self-draw on the first draw "before any call". A
call takes the opponent's discard (pung, exposed kong); a concealed kong is declared, not called
(duel.md tells them apart: seven pairs needs "no calls, no declared kongs"), so the dealer's
concealed kong before that first draw does not cancel it (the engine's ``_no_call`` in
``simkit/engine/rulesets.py``; douque's first-turn hands, "nobody has made any pung or kong", do
count concealed kongs).

Money with ``chips`` is exact (:func:`money_unit`): the chips at the table decide who can pay what
and when a match ends, so they are counted in whole **money units**, never in floating point. With
``q`` the denominator of the fee as a fraction (20 for 0.05), a unit is 1/q^2 of the largest amount
of which the stake and the chips are whole multiples, each option taken as the decimal number it is
written as (1/400 coin for ``stake=1, fee=0.05`` and whole chips; 1/4000 for ``stake=0.7``). Every
win and kong payment is a whole number of units, and so is its fee; so is a payment capped by the
payer's chips (all they have) and, as a player's chips stay a whole multiple of ``q`` units until
then, its fee. Only a fee on a capped payment out of chips that already hold the net of an earlier
capped payment can fall between units: it is rounded down to one. A player whose chips are exactly
zero has none: the match ends after that hand. Chips more than a player could ever pay in a match
(``match_hands x (multiple_cap + 16) x stake``) play exactly as unlimited chips, and without chips
nothing is capped or compared, so money stays in float coins as the scoring functions give it.
The result columns are the units converted to coins (the nearest float).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from simkit.errors import RulesError
from simkit.rules._options import (
    RuleOptions,
    complete_rule_set,
    match_hands_option,
    number,
    option,
    optional,
    positive,
    tile_set,
)

__all__ = ["DuelOptions", "MoneyUnit", "money_unit"]  # and the template's names (RULE_SET_EXPORTS)

#: One-line description.
TITLE = "Mahjong Duel: 64 tiles, fan to multiples, kong payments"
#: Kinds of the tile set: characters 1-9 (0-8) and honors 1z-7z (27-33).
KINDS = tile_set("123456789m 1234567z")
#: No tiles kept back: the hand is drawn when a player must draw from an empty wall.
KEPT_BACK = 0
# CLAIM_CHOW stays False (the template's): runs drawn yourself still count as melds.
#: The opponent may rob an added kong (the set goes back to a pung; no kong payment for it).
ROBBING_KONG = True
#: Seven pairs (entirely concealed; four identical tiles count as two pairs) is a winning hand.
SEVEN_PAIRS = True
#: Engine result columns particular to this rule set, kept in its datasets (the engine returns
#: every rule set's columns, zero where they do not apply): the win's
#: ``fan`` and ``multiple``, and each player's kong payments received and fee paid.
RESULT_COLUMNS = ("fan", "multiple", "kong_payment_0", "kong_payment_1", "fee_0", "fee_1")

# Bounds of the numeric options, so that every payment and balance stays finite and exact (an
# integer below 2**53 when stake is an integer): a hand pays at most (multiple_cap + 32) x stake
# (the win, and kong payments of at most 8 kongs x 4), at most (2**20 + 32) x 1e5 < 2**37, and a
# match of at most 10,000 hands keeps a balance below 2**51. chips is not bounded: chips beyond what
# a player can pay in a match play as unlimited, and smaller chips are counted in exact units
# (money_unit, which refuses options whose unit would be too fine).
#: Largest ``stake``.
MAX_STAKE = 1e5
#: Largest ``multiple_cap`` (2**20).
MAX_MULTIPLE_CAP = 2**20
#: Most stakes one player can owe the other for kongs in one hand (four concealed kongs x 4).
MAX_KONG_STAKES = 16
#: With chips, every amount of money in units stays below this (int64 arithmetic and the float64
#: result columns are exact): twice the chips (all the chips at the table) and the most owed in a
#: hand. As the chips are a whole multiple of q^2 units, it also keeps the fee's denominator q below
#: 2**26, so the engine's fee ``units x numerator // denominator`` cannot overflow.
MAX_MONEY_UNITS = 2**53


@dataclass(frozen=True)
class DuelOptions(RuleOptions):
    """Options of ``duel``: stake, fee, chips at the table and the cap on the multiple."""

    stake: float = option(
        1,
        positive(MAX_STAKE, "any positive number up to 1e5"),
        "coins per multiple: a win pays multiple x stake, kong payments 1-4 x stake",
    )
    fee: float = option(
        0.05,
        number(minimum=0, maximum=1, max_inclusive=False, allowed="any number with 0 <= fee < 1"),
        "share of what a player receives that they pay as a fee",
    )
    chips: float | None = option(
        None,
        optional(number(minimum=0, min_inclusive=False, allowed="any positive number")),
        "coins each player has at the table; payments are capped by the payer's balance "
        "and a match ends when a player has none, counted exactly in whole money units "
        "(see simkit.rules.duel.money_unit) (none = unlimited)",
    )
    multiple_cap: int = option(
        32,
        number(minimum=1, maximum=MAX_MULTIPLE_CAP, integer=True, allowed="any positive integer up to 2^20 (1048576)"),
        "largest multiple 2^(fan - 1) paid for a win (kong payments are never capped)",
    )
    match_hands: int = match_hands_option(
        "hands per match at most (docs/rules/duel.md does not say); a match also ends when a player has no chips left",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        money_unit(self)  # with chips, the money must be countable exactly (RulesError if not)


#: The options class of this rule set, under the name every rule-set module uses.
Options = DuelOptions


class MoneyUnit(NamedTuple):
    """The exact money of a duel match with chips (from :func:`money_unit`): whole units."""

    per_coin: int  #: money units per coin (the unit is 1/per_coin coin)
    stake: int  #: the stake in units
    chips: int  #: each player's chips at the table, in units
    fee_numerator: int  #: the fee as the exact fraction fee_numerator / fee_denominator
    fee_denominator: int


def _decimal(value) -> Fraction:
    """An option value as the decimal number it is written as (``0.7`` is 7/10, not the binary
    float nearest to it)."""
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def money_unit(options: DuelOptions) -> MoneyUnit | None:
    """The money unit of a duel match with chips, or None when money needs no exact count.

    With ``chips``, the chips at the table are counted exactly in whole units (see the module
    docstring): ``per_coin = q**2 x`` the least common denominator of the stake and the chips,
    ``q`` the fee's denominator, each option taken as the decimal it is written as. The stake and
    the chips are then whole multiples of ``q**2`` units, so every fee on whole stakes is a whole
    multiple of ``q`` units, and a player's chips stay a whole multiple of ``q`` until a payment
    capped by chips. None without chips, and when the chips are more than a player could pay in a
    match (``match_hands x (multiple_cap + 16) x stake``: the win at the cap and four concealed
    kongs every hand), which plays exactly as unlimited chips.

    Raises
    ------
    RulesError
        The options need a unit so fine that the chips at the table or the most owed in a hand
        would not stay below 2**53 units (with chips only).
    """
    if options.chips is None:
        return None
    stake, fee, chips = _decimal(options.stake), _decimal(options.fee), _decimal(options.chips)
    if chips > options.match_hands * (options.multiple_cap + MAX_KONG_STAKES) * stake:
        return None
    per_coin = math.lcm(stake.denominator, chips.denominator) * fee.denominator**2
    owed = (options.multiple_cap + MAX_KONG_STAKES) * stake * per_coin
    if 2 * chips * per_coin >= MAX_MONEY_UNITS or owed >= MAX_MONEY_UNITS:
        raise RulesError(
            f"rule set 'duel': chips={options.chips}, stake={options.stake}, fee={options.fee} cannot be "
            f"counted exactly: with chips, money is kept in whole units of 1/{per_coin} coin here "
            f"(the fee's denominator squared, times the least common denominator of the stake and the chips), "
            f"and the chips at the table and the most owed in a hand must stay below 2^53 units; "
            f"use fewer decimals or smaller amounts"
        )
    return MoneyUnit(int(per_coin), int(stake * per_coin), int(chips * per_coin), fee.numerator, fee.denominator)


complete_rule_set(globals())  # DEALER_TILES ... RESULT_COLUMNS defaults, make_rules, RULES, __all__
