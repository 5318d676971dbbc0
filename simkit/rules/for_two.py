"""Rule set ``for_two``: "Mahjong for 2" (136 tiles, the banker bids the stake).

Specification: ``docs/rules/for_two.md`` (all 34 kinds; pung, chow and exposed kong on a discard; the
last 8 tiles are kept back; the banker bids 1, 2 or 3 and the opponent follows or folds). Payment
from the loser is ``bid x stake x combination points``, times ``self_drawn_multiplier`` for a
self-draw; a folding opponent pays ``fold_payment`` stakes.

Banker rotation: docs/rules/for_two.md has the banker keep the deal "on a banker win or a draw,
otherwise it passes". A fold is neither (the hand is not played), so by default the deal passes
after a fold (``fold_passes_deal=True``); ``fold_passes_deal=False`` keeps it with the banker, as
on a banker win (folds are about 8% of greedy hands). The rule is
applied in ``_next_hand_of_match`` of ``simkit/engine/step.py``.

The source's order, ``bid_timing``: "system randomly choose a player as banker and bid for 1,2 or
3. The opponent has the choice to follow or not. Initially, each player draws 13 tiles." So by
default (``"before_deal"``) the banker bids and the opponent follows or folds holding no tiles: the
wall is shuffled as always, its dealt tiles stay set aside, and the players take them after the
follow (a fold leaves them there). ``"after_deal"`` is the order simkit first had: both decide having
seen their dealt tiles. The tiles dealt are the same either way (``simkit.engine.step``:
``_begin_hand``, ``_take_dealt_tiles``).

The source's end phase, ``end_phase``: "Draw game happened when last 8th un-drawn tile in the hand.
Players who under "ting" are able to pick tile from the last 8th un-drawn tiles include 2 jokers
within the time frame. If none of the players get the tile, an abortive draw happened." It reads
two ways, both options (``simkit.engine.end_phase``), each gap filled alike:

* ``"ready_pick_last_8"`` (the default): each ready player picks once ("within the time frame":
  one pick each), the one due to draw first, then the other.
* ``"ready_draw_last_8"``: "ready players keep drawing from the last 8 tiles, which include 2
  jokers": the ready players pick in turn, the one due to draw first, until one wins or the 8 are
  gone (when only one is ready, they pick on alone).

The rest is common to both readings:

* When a player must draw and only the last 8 tiles (``KEPT_BACK``) remain -- after the discard
  of the last drawable tile, which may still be won on as before -- the end phase begins; kong
  replacements before it came from the tail as always, so these are the 8 tiles then undrawn.
* A player is ready ("ting") when their concealed tiles wait on at least one kind (a kind they
  already hold four of, in hand and melds, is no wait); a wait on tiles all in sight still counts.
  A player who is not ready does not pick (their turn is skipped); readiness cannot change in the
  end phase, since a pick that does not win leaves the hand as it was.
* Two of the 8 picks are jokers (``END_PHASE_JOKERS``), placed when the hand is dealt, uniformly
  among the 8, from the wall's random stream (no player's): the ``k``-th pick of the end phase is a
  joker when its slot is. So the first pick is a joker with probability 2 / 8, the next, given none
  so far, 2 / 7, and so on; the two copies of a duplicate deal have the same jokers. A pick takes
  the next tile of the wall, a joker's tile too (set aside: a joker's own kind is out of play).
  Jokers are not among the 136 kinds.
* A joker completes any wait: it is a self-drawn win on the waited kind that scores most (the
  self-draw payment; ties: the lowest kind). The hand and the result row show that kind as the
  winning tile; the joker's own tile is set aside.
* A picked tile the hand waits on is a self-drawn win on it. Any other picked tile is set aside with
  the picker's discards: nobody may claim it or win on it, and the hand is unchanged.
* Nobody decides anything in the end phase (a win there is taken). When neither player wins --
  neither is ready, or every pick missed -- the hand is drawn ("abortive draw"), and the banker
  keeps the deal as on any draw.
* Scoring is for_two's: ``bid x stake x combination points x self_drawn_multiplier``.

``"plain_draw"`` is the rule simkit first had: when only the last 8 tiles remain the hand is drawn.
Results made before these options existed were played with ``"after_deal"`` and ``"plain_draw"``
(``OPTIONS_OF_EARLIER_RECORDS``).
"""

from __future__ import annotations

from dataclasses import dataclass

from simkit.rules._options import (
    RuleOptions,
    boolean,
    complete_rule_set,
    match_hands_option,
    number,
    number_tuple,
    one_of,
    option,
    positive,
    tile_set,
)

__all__ = [
    "BIDS",
    "COMBINATIONS",
    "END_PHASE_JOKERS",
    "ForTwoOptions",
    "OPTIONS_OF_EARLIER_RECORDS",
]  # and the template's names (RULE_SET_EXPORTS)

#: One-line description.
TITLE = "Mahjong for 2: 136 tiles, the banker bids the stake"
#: Kinds of the tile set: all 34 (characters, dots, bamboo 1-9 and the seven honors).
KINDS = tile_set("123456789m 123456789p 123456789s 1234567z")
#: Tiles at the end of the wall kept back from ordinary draws (the end phase's tiles).
KEPT_BACK = 8
#: Jokers among the kept-back tiles in the end phase (``end_phase`` "ready_pick_last_8" or
#: "ready_draw_last_8").
END_PHASE_JOKERS = 2
#: A chow may be claimed from the opponent's discard.
CLAIM_CHOW = True
# ROBBING_KONG stays False (the template's): neither docs/rules/for_two.md nor its source text
# (seeds/003_...) mentions robbing a kong, so an added kong cannot be won on. Added kongs are made
# only with a drawn tile (a discarded 4th tile cannot be claimed).
#: Engine result columns particular to this rule set, kept in its datasets (the engine returns
#: every rule set's columns, zero where they do not apply): the
#: banker's ``bid`` and the win's ``combination_points``.
RESULT_COLUMNS = ("bid", "combination_points")
#: Stake multipliers the banker may bid (fixed by the rules, not an option).
BIDS = (1, 2, 3)
#: The five basic combinations of the source's table, in its order, as (pungs, chows);
#: kongs count as pungs. ``combination_points[i]`` scores ``COMBINATIONS[i]``.
COMBINATIONS = ((4, 0), (3, 1), (2, 2), (1, 3), (0, 4))

# Bounds of the numeric options, so that every payment and balance stays finite and exact (an
# integer below 2**53 when the options are integers): a payment is at most
# bid 3 x stake 1e6 x points 1e4 x self-draw 10 = 3e11 < 2**39 (a fold 1e4 x 1e6), and a match of
# at most 10,000 hands keeps a balance below 2**52.
#: Largest ``stake``.
MAX_STAKE = 1e6
#: Largest value of each of ``combination_points``.
MAX_POINTS = 1e4
#: Largest ``self_drawn_multiplier``.
MAX_SELF_DRAWN_MULTIPLIER = 10
#: Largest ``fold_payment`` (stakes).
MAX_FOLD_PAYMENT = 1e4


@dataclass(frozen=True)
class ForTwoOptions(RuleOptions):
    """Options of ``for_two``: stake, combination points, self-draw multiplier, fold payment,
    match length, and whether a fold passes the deal."""

    stake: float = option(
        1,
        positive(MAX_STAKE, "any positive number up to 1e6"),
        "coins per stake unit: payment = bid x stake x points",
    )
    combination_points: tuple = option(
        (5, 4, 3, 2, 1),
        number_tuple(
            5,
            positive(MAX_POINTS, "any positive number up to 1e4"),
            "5 positive numbers up to 1e4 each, for 4 pungs, 3 pungs + 1 chow, 2 + 2, 1 + 3, 4 chows (e.g. 5,4,3,2,1)",
        ),
        "points of the five basic combinations in the source's order (four pungs first)",
    )
    self_drawn_multiplier: float = option(
        2,
        positive(MAX_SELF_DRAWN_MULTIPLIER, "any positive number up to 10"),
        "factor on the payment for a self-drawn win",
    )
    fold_payment: float = option(
        1,
        number(minimum=0, maximum=MAX_FOLD_PAYMENT, allowed="any number >= 0, at most 1e4"),
        "stakes the opponent pays the banker when not following the bid (the hand is not played)",
    )
    match_hands: int = match_hands_option(
        "hands per match, folded hands included (docs/rules/for_two.md does not say how long a match is)",
    )
    fold_passes_deal: bool = option(
        True,
        boolean(),
        "after a fold the deal passes to the opponent (docs/rules/for_two.md: the banker keeps it on a "
        "banker win or a draw, otherwise it passes); false: the banker keeps it, as on a banker win",
    )
    bid_timing: str = option(
        "before_deal",
        one_of("before_deal", "after_deal"),
        "before_deal: the banker bids and the opponent follows or folds before the tiles are dealt "
        "(the source's order); after_deal: both decide having seen their dealt tiles",
    )
    end_phase: str = option(
        "ready_pick_last_8",
        one_of("ready_pick_last_8", "ready_draw_last_8", "plain_draw"),
        "what happens when only the last 8 tiles remain (two of them jokers that complete any wait): "
        "ready_pick_last_8: each ready player picks one of them; ready_draw_last_8: the ready players "
        "pick in turn until one wins or the 8 are gone; plain_draw: the hand is drawn at once",
    )


#: The options class of this rule set, under the name every rule-set module uses.
Options = ForTwoOptions

#: Options added after runs were recorded, with the value such a run was played with: a run
#: manifest (or dataset metadata) without ``fold_passes_deal`` was made when the banker kept the
#: deal after a fold, one without ``bid_timing`` / ``end_phase`` with the bid after the deal and a
#: plain draw at the last 8 tiles (``simkit.datasets.rules_from_dict`` reads it so).
OPTIONS_OF_EARLIER_RECORDS = {"fold_passes_deal": False, "bid_timing": "after_deal", "end_phase": "plain_draw"}


complete_rule_set(globals())  # DEALER_TILES ... RESULT_COLUMNS defaults, make_rules, RULES, __all__
