"""Rule set ``night_market``: Taipei night-market two-player mahjong with fan scoring.

Specification: ``docs/rules/night_market.md`` (64 tiles: characters 1-9 and the seven honors; pung,
chow and exposed kong may be claimed from the latest discard; no tiles kept back). Payment from
the loser is ``base + fan_value x fan`` (50 + 100 x fan by default).
"""

from __future__ import annotations

from dataclasses import dataclass

from simkit.rules._options import (
    MAX_BASE,  # noqa: F401 -- the template's bound, named here too
    RuleOptions,
    base_option,
    complete_rule_set,
    match_hands_option,
    per_unit_option,
    tile_set,
)

__all__ = ["NightMarketOptions"]  # and the template's names (RULE_SET_EXPORTS)

#: One-line description.
TITLE = "Taipei night-market two-player mahjong, fan scoring"
#: Kinds of the tile set: characters 1-9 (0-8) and honors 1z-7z (27-33).
KINDS = tile_set("123456789m 1234567z")
#: No tiles kept back: the hand is drawn when a player must draw from an empty wall.
KEPT_BACK = 0
#: A chow may be claimed from the latest discard (you hold the other two tiles of the run).
CLAIM_CHOW = True
# ROBBING_KONG stays False (the template's): neither docs/rules/night_market.md nor its source text
# (seeds/001_...) mentions robbing a kong, and the fan list has no Robbing the Kong pattern, so
# the conservative choice is that an added kong cannot be won on.
#: Engine result columns particular to this rule set, kept in its datasets (the engine returns
#: every rule set's columns, zero where they do not apply): the win's
#: value, ``fan`` (the sum of the scored items).
RESULT_COLUMNS = ("fan",)

# Bounds of the numeric options, so that every payment and balance stays finite and exact (an
# integer below 2**53 when base and fan_value are integers): fan is at most 543 (every pattern at
# once, an overestimate), so a payment is at most 1e9 + 1e8 x 543 < 2**37, and a match of at most
# 10,000 hands keeps a balance below 2**51.
# MAX_BASE (1e9, the largest ``base``) is the template's.
#: Largest ``fan_value``.
MAX_FAN_VALUE = 1e8


@dataclass(frozen=True)
class NightMarketOptions(RuleOptions):
    """Options of ``night_market``: the payment ``base + fan_value x fan``."""

    base: float = base_option("fixed part of every payment: payment = base + fan_value x fan")
    fan_value: float = per_unit_option(100, MAX_FAN_VALUE, "any positive number up to 1e8", "fan")
    match_hands: int = match_hands_option(
        "hands per match (docs/rules/night_market.md does not say how long a match is)",
    )


#: The options class of this rule set, under the name every rule-set module uses.
Options = NightMarketOptions


complete_rule_set(globals())  # DEALER_TILES ... RESULT_COLUMNS defaults, make_rules, RULES, __all__
