"""Rule set ``douque``: two-player 13-tile mahjong with tai scoring (the default rule set).

Specification: ``docs/rules/douque.md`` (72 tiles: characters 1-9, dots 1 and 9, the seven honors;
pung and exposed kong on a discard, no chow claims; the last 8 tiles are kept back; an added kong
can be robbed). The options are those of its Options section.

``skipped_pung="turn"`` (a skipped pung lasts until the player's next turn) is offered because the
rules file names it, but with two players it never matters: after passing on the opponent's
discard the player draws next, so their turn -- and the restriction -- ends before the opponent
can discard again; it plays exactly as no restriction (``tests/test_rules.py`` checks that the
games are identical to a run in which the restriction is never applied).
"""

from __future__ import annotations

from dataclasses import dataclass

from simkit.rules._options import (
    MAX_BASE,  # noqa: F401 -- the template's bound, named here too
    RuleOptions,
    base_option,
    boolean,
    complete_rule_set,
    number,
    one_of,
    option,
    per_unit_option,
    tile_set,
)

__all__ = ["DouqueOptions"]  # and the template's names (RULE_SET_EXPORTS)

#: One-line description.
TITLE = "two-player 13-tile mahjong, tai scoring (Douque rules; the default)"
#: Kinds of the tile set: characters 1-9 (0-8), dots 1 and 9 (9, 17), honors 1z-7z (27-33).
KINDS = tile_set("123456789m 19p 1234567z")
#: Tiles at the end of the wall that are never drawn (Tiles and deal).
KEPT_BACK = 8
# CLAIM_CHOW stays False (the template's): chows exist only concealed, in characters (Tiles and deal, Play).
#: The opponent may win on the tile of an added kong (Play: Robbing the Kong).
ROBBING_KONG = True

# Bounds of the numeric options, so that every payment and balance stays finite and exact (an
# integer below 2**53 when base and tai_value are integers): hand tai is at most 190 (every item of
# the table at its largest), dealer tai at most 1 + 2 x 100, so a payment is at most
# 1e9 + 1e9 x 391 < 2**39; a match has at most 8 x (streak_cap + 1) = 808 hands (< 2**10), so a
# balance stays below 2**49. The streak cap also bounds the rows a match can need.
# MAX_BASE (1e9, the largest ``base``) is the template's.
#: Largest ``tai_value``.
MAX_TAI_VALUE = 1e9
#: Largest ``streak_cap``.
MAX_STREAK_CAP = 100


@dataclass(frozen=True)
class DouqueOptions(RuleOptions):
    """Options of ``douque`` (``docs/rules/douque.md``, Options); defaults first in each allowed list."""

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
    fully_melded_single_wait: bool = option(True, boolean(), "Single Wait also scores with Fully Melded")
    base: float = base_option("fixed part of every payment: payment = base + tai_value x (hand tai + dealer tai)")
    tai_value: float = per_unit_option(20, MAX_TAI_VALUE, "any positive number up to 1e9", "tai")
    streak_cap: int = option(
        10,
        number(minimum=0, maximum=MAX_STREAK_CAP, integer=True, allowed="any integer >= 0, at most 100"),
        "dealer streak at which the deal passes after the hand even if the dealer keeps it "
        "(a streak stays at most this, so the dealer tai 1 + 2 x streak at most 201)",
    )


#: The options class of this rule set, under the name every rule-set module uses.
Options = DouqueOptions


complete_rule_set(globals())  # DEALER_TILES ... RESULT_COLUMNS defaults, make_rules, RULES, __all__
