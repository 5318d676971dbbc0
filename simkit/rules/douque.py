"""Rule set ``douque``: two-player 13-tile mahjong with tai scoring (the default rule set).

Specification: ``rules/douque.md`` (72 tiles: characters 1-9, dots 1 and 9, the seven honors;
pung and exposed kong on a discard, no chow claims; the last 8 tiles are kept back; an added kong
can be robbed). The options are those of §9 of that file.

``skipped_pung="turn"`` (a skipped pung lasts until the player's next turn) is offered because the
rules file names it, but with two players it never matters: after passing on the opponent's
discard the player draws next, so their turn -- and the restriction -- ends before the opponent
can discard again; it plays exactly as no restriction (``tests/test_rules.py`` checks that the
games are identical to a run in which the restriction is never applied).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar

from simkit.rules._options import (
    rules_of_module,
    RuleOptions,
    Rules,
    boolean,
    number,
    one_of,
    option,
)

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
    "DouqueOptions",
    "Options",
    "make_rules",
    "RULES",
]

#: Registry name of this rule set.
NAME = "douque"
#: One-line description.
TITLE = "two-player 13-tile mahjong, tai scoring (Douque rules; the default)"
#: Kinds of the tile set: characters 1-9 (0-8), dots 1 and 9 (9, 17), honors 1z-7z (27-33).
KINDS = tuple(range(0, 9)) + (9, 17) + tuple(range(27, 34))
#: Tiles at the end of the wall that are never drawn (§2).
KEPT_BACK = 8
#: Tiles dealt to the dealer.
DEALER_TILES = 14
#: Tiles dealt to the other player.
HAND_TILES = 13
#: A pung may be claimed from the opponent's discard.
CLAIM_PUNG = True
#: An exposed kong may be claimed from the opponent's discard.
CLAIM_EXPOSED_KONG = True
#: No chow claims: chows exist only concealed, in characters (§1, §3).
CLAIM_CHOW = False
#: Concealed kongs are allowed.
CONCEALED_KONG = True
#: Added kongs (a drawn 4th tile on an exposed pung) are allowed.
ADDED_KONG = True
#: The opponent may win on the tile of an added kong (§3.4, Robbing the Kong).
ROBBING_KONG = True
#: Seven pairs is not a winning hand (§1).
SEVEN_PAIRS = False
#: Engine result columns particular to this rule set, kept in its datasets (the engine returns
#: every rule set's columns, zero where they do not apply). None beyond the shared ones: the win's
#: value is ``hand_tai`` / ``dealer_tai``.
RESULT_COLUMNS = ()

# Bounds of the numeric options, so that every payment and balance stays finite and exact (an
# integer below 2**53 when base and tai_value are integers): hand tai is at most 190 (every item of
# the table at its largest), dealer tai at most 1 + 2 x 100, so a payment is at most
# 1e9 + 1e9 x 391 < 2**39; a match has at most 8 x (streak_cap + 1) = 808 hands (< 2**10), so a
# balance stays below 2**49. The streak cap also bounds the rows a match can need.
#: Largest ``base``.
MAX_BASE = 1e9
#: Largest ``tai_value``.
MAX_TAI_VALUE = 1e9
#: Largest ``streak_cap``.
MAX_STREAK_CAP = 100


@dataclass(frozen=True)
class DouqueOptions(RuleOptions):
    """Options of ``douque`` (``rules/douque.md`` §9); defaults first in each allowed list."""

    RULE_SET: ClassVar[str] = NAME

    heavenly_tai: int = option(24, one_of(24, 16), "tai of Heavenly Hand (dealer wins on the dealt 14)")
    human_tai: int = option(8, one_of(8, 16), "tai of Human Hand (win on the dealer's first discard)")
    migi_tai: int = option(8, one_of(8, 4), "tai of MIGI (ready declared within the first 4 discards)")
    declare_ready_tai: int = option(1, one_of(1, 0), "tai of Declare Ready (declared, not MIGI, and won)")
    skipped_pung: str = option(
        "hand",
        one_of("hand", "turn"),
        "after passing on a pung of X, no pung of X for the rest of the hand ('hand'), or until your next turn "
        "('turn': with two players this never matters -- the player who passes draws next, so the restriction "
        "ends before it could apply, and 'turn' plays as no restriction)",
    )
    fully_melded_single_wait: bool = option(
        True, boolean(), "Single Wait also scores with Fully Melded"
    )
    base: float = option(
        50,
        number(minimum=0, min_inclusive=False, maximum=MAX_BASE, allowed="any positive number up to 1e9"),
        "fixed part of every payment: payment = base + tai_value x (hand tai + dealer tai)",
    )
    tai_value: float = option(
        20,
        number(minimum=0, min_inclusive=False, maximum=MAX_TAI_VALUE, allowed="any positive number up to 1e9"),
        "points per tai in the payment",
    )
    streak_cap: int = option(
        10,
        number(minimum=0, maximum=MAX_STREAK_CAP, integer=True, allowed="any integer >= 0, at most 100"),
        "dealer streak at which the deal passes after the hand even if the dealer keeps it "
        "(a streak stays at most this, so the dealer tai 1 + 2 x streak at most 201)",
    )


#: The options class of this rule set, under the name every rule-set module uses.
Options = DouqueOptions


def make_rules(**options) -> Rules:
    """The ``douque`` rule set with the given option values (others at their defaults).

    Raises
    ------
    RulesError
        Unknown option or a value that is not allowed.
    """
    return rules_of_module(sys.modules[__name__], **options)


#: ``douque`` with every option at its default.
RULES = make_rules()
