"""Rule set ``night_market``: Taipei night-market two-player mahjong with fan scoring.

Specification: ``rules/night_market.md`` (64 tiles: characters 1-9 and the seven honors; pung,
chow and exposed kong may be claimed from the latest discard; no tiles kept back). Payment from
the loser is ``base + fan_value x fan`` (50 + 100 x fan by default).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar

from simkit.rules._options import rules_of_module, RuleOptions, Rules, number, option

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
    "NightMarketOptions",
    "Options",
    "make_rules",
    "RULES",
]

#: Registry name of this rule set.
NAME = "night_market"
#: One-line description.
TITLE = "Taipei night-market two-player mahjong, fan scoring"
#: Kinds of the tile set: characters 1-9 (0-8) and honors 1z-7z (27-33).
KINDS = tuple(range(0, 9)) + tuple(range(27, 34))
#: No tiles kept back: the hand is drawn when a player must draw from an empty wall.
KEPT_BACK = 0
#: Tiles dealt to the dealer.
DEALER_TILES = 14
#: Tiles dealt to the other player.
HAND_TILES = 13
#: A pung may be claimed from the latest discard.
CLAIM_PUNG = True
#: An exposed kong may be claimed from the latest discard.
CLAIM_EXPOSED_KONG = True
#: A chow may be claimed from the latest discard (you hold the other two tiles of the run).
CLAIM_CHOW = True
#: Concealed kongs are allowed.
CONCEALED_KONG = True
#: Added kongs are allowed ("as usual").
ADDED_KONG = True
#: Robbing an added kong is NOT allowed: neither rules/night_market.md nor its source text
#: (seeds/001_...) mentions robbing a kong, and the fan list has no Robbing the Kong pattern,
#: so the conservative choice is that an added kong cannot be won on.
ROBBING_KONG = False
#: Seven pairs is not a winning hand (four melds + a pair only).
SEVEN_PAIRS = False
#: Engine result columns particular to this rule set, kept in its datasets (the engine returns
#: every rule set's columns, zero where they do not apply): the win's
#: value, ``fan`` (the sum of the scored items).
RESULT_COLUMNS = ('fan',)

# Bounds of the numeric options, so that every payment and balance stays finite and exact (an
# integer below 2**53 when base and fan_value are integers): fan is at most 543 (every pattern at
# once, an overestimate), so a payment is at most 1e9 + 1e8 x 543 < 2**37, and a match of at most
# 10,000 hands keeps a balance below 2**51.
#: Largest ``base``.
MAX_BASE = 1e9
#: Largest ``fan_value``.
MAX_FAN_VALUE = 1e8


@dataclass(frozen=True)
class NightMarketOptions(RuleOptions):
    """Options of ``night_market``: the payment ``base + fan_value x fan``."""

    RULE_SET: ClassVar[str] = NAME

    base: float = option(
        50,
        number(minimum=0, min_inclusive=False, maximum=MAX_BASE, allowed="any positive number up to 1e9"),
        "fixed part of every payment: payment = base + fan_value x fan",
    )
    fan_value: float = option(
        100,
        number(minimum=0, min_inclusive=False, maximum=MAX_FAN_VALUE, allowed="any positive number up to 1e8"),
        "points per fan in the payment",
    )
    match_hands: int = option(
        16,
        number(minimum=1, maximum=10_000, integer=True, allowed="any integer from 1 to 10000"),
        "hands per match (rules/night_market.md does not say how long a match is)",
    )


#: The options class of this rule set, under the name every rule-set module uses.
Options = NightMarketOptions


def make_rules(**options) -> Rules:
    """The ``night_market`` rule set with the given option values (others at their defaults).

    Raises
    ------
    RulesError
        Unknown option or a value that is not allowed.
    """
    return rules_of_module(sys.modules[__name__], **options)


#: ``night_market`` with every option at its default.
RULES = make_rules()
