"""Rule set ``duel``: Mahjong Duel (64 tiles, fan -> multiples, kong payments).

Specification: ``rules/duel.md`` (characters 1-9 and the seven honors; pung and exposed kong on a
discard, no chow claims; no tiles kept back; added kongs can be robbed; seven pairs wins).
The loser pays ``min(2**(fan - 1), multiple_cap) x stake``; kong payments come on top; the
receiver pays ``fee`` on what they receive; ``chips`` caps payments by the payer's balance.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar

from simkit.rules._options import rules_of_module, RuleOptions, Rules, number, option, optional

__all__ = [
    "NAME",
    "TITLE",
    "KINDS",
    "KEPT_BACK",
    "DEALER_TILES",
    "HAND_TILES",
    "CLAIM_PUNG",
    "CLAIM_EXPOSED_KONG",
    "CLAIM_CHOW",
    "CONCEALED_KONG",
    "ADDED_KONG",
    "ROBBING_KONG",
    "SEVEN_PAIRS",
    "RESULT_COLUMNS",
    "DuelOptions",
    "Options",
    "make_rules",
    "RULES",
]

#: Registry name of this rule set.
NAME = "duel"
#: One-line description.
TITLE = "Mahjong Duel: 64 tiles, fan to multiples, kong payments"
#: Kinds of the tile set: characters 1-9 (0-8) and honors 1z-7z (27-33).
KINDS = tuple(range(0, 9)) + tuple(range(27, 34))
#: No tiles kept back: the hand is drawn when a player must draw from an empty wall.
KEPT_BACK = 0
#: Tiles dealt to the dealer.
DEALER_TILES = 14
#: Tiles dealt to the other player.
HAND_TILES = 13
#: A pung may be claimed from the opponent's discard.
CLAIM_PUNG = True
#: An exposed kong may be claimed from the opponent's discard.
CLAIM_EXPOSED_KONG = True
#: No chow claims (runs drawn yourself still count as melds).
CLAIM_CHOW = False
#: Concealed kongs are allowed.
CONCEALED_KONG = True
#: Added kongs are allowed.
ADDED_KONG = True
#: The opponent may rob an added kong (the set goes back to a pung; no kong payment for it).
ROBBING_KONG = True
#: Seven pairs (entirely concealed; four identical tiles count as two pairs) is a winning hand.
SEVEN_PAIRS = True
#: Engine result columns particular to this rule set, kept in its datasets (the engine returns
#: every rule set's columns, zero where they do not apply): the win's
#: ``fan`` and ``multiple``, and each player's kong payments received and fee paid.
RESULT_COLUMNS = ('fan', 'multiple', 'kong_payment_0', 'kong_payment_1', 'fee_0', 'fee_1')

# Bounds of the numeric options, so that every payment and balance stays finite and exact (an
# integer below 2**53 when stake is an integer): a hand pays at most (multiple_cap + 32) x stake
# (the win, and kong payments of at most 8 kongs x 4), at most (2**20 + 32) x 1e5 < 2**37, and a
# match of at most 10,000 hands keeps a balance below 2**51. chips is not bounded: it only caps
# what a player pays.
#: Largest ``stake``.
MAX_STAKE = 1e5
#: Largest ``multiple_cap`` (2**20).
MAX_MULTIPLE_CAP = 2**20


@dataclass(frozen=True)
class DuelOptions(RuleOptions):
    """Options of ``duel``: stake, fee, chips at the table and the cap on the multiple."""

    RULE_SET: ClassVar[str] = NAME

    stake: float = option(
        1,
        number(minimum=0, min_inclusive=False, maximum=MAX_STAKE, allowed="any positive number up to 1e5"),
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
        "and a match ends when a player has none (none = unlimited)",
    )
    multiple_cap: int = option(
        32,
        number(minimum=1, maximum=MAX_MULTIPLE_CAP, integer=True, allowed="any positive integer up to 2^20 (1048576)"),
        "largest multiple 2^(fan - 1) paid for a win (kong payments are never capped)",
    )
    match_hands: int = option(
        16,
        number(minimum=1, maximum=10_000, integer=True, allowed="any integer from 1 to 10000"),
        "hands per match at most (rules/duel.md does not say); a match also ends when a player "
        "has no chips left",
    )


#: The options class of this rule set, under the name every rule-set module uses.
Options = DuelOptions


def make_rules(**options) -> Rules:
    """The ``duel`` rule set with the given option values (others at their defaults).

    Raises
    ------
    RulesError
        Unknown option or a value that is not allowed.
    """
    return rules_of_module(sys.modules[__name__], **options)


#: ``duel`` with every option at its default.
RULES = make_rules()
