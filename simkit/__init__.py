"""simkit: a high-performance Monte Carlo toolkit for two-player mahjong research.

Quick start::

    >>> import simkit
    >>> simkit.waits("1112345678999m")
    ['1m', '2m', '3m', '4m', '5m', '6m', '7m', '8m', '9m']
    >>> simkit.shanten("159m19p1234567z1m")
    7
    >>> simkit.get_rules("douque", migi_tai=4).options.migi_tai
    4
"""

from ._jit import jit
from ._version import __version__
from .analysis import summarize
from .engine.deal import deal_hands, deal_stats
from .errors import (
    HandError,
    InputTypeError,
    InputValueError,
    MeldError,
    RulesError,
    RunError,
    ScoreError,
    SimkitError,
    TileCountError,
    TileNotationError,
)
from .evaluation.exploitability import Exploitability, exploitability
from .evaluation.sequential import Decision, decide
from .hand import (
    discards,
    is_win,
    is_win_batch,
    mask_to_kinds,
    random_complete_hands,
    random_ready_hands,
    shanten,
    shanten_batch,
    splits,
    waits,
    waits_batch,
)
from .melds import parse_meld, parse_melds
from .play.exact import ExactError, exact
from .play.matches import EngineError, PolicyCompileError, play_hand, replay, simulate_matches
from .play.position import Position, PositionError
from .play.race import Race, RaceError, race
from .play.rollouts import RolloutError, rollouts
from .play.stepper import GameState
from .policies.files import save_policy
from .policies.spec import Param, Policy, PolicyError, as_policy, load_policy, policy
from .rules import RULE_SETS, Rules, get_rules, resolve_rules
from .runs.simulation import simulate  # the function (the module is simkit.runs.simulation)
from .scoring import Score, score, score_batch
from .tiles import as_counts, format_tiles, parse_tiles, tile_name

__all__ = [
    "__version__",
    # rules
    "RULE_SETS",
    "Rules",
    "get_rules",
    "resolve_rules",
    # tiles and melds
    "parse_tiles",
    "format_tiles",
    "as_counts",
    "tile_name",
    "parse_meld",
    "parse_melds",
    # hand analysis
    "is_win",
    "waits",
    "shanten",
    "splits",
    "discards",
    "is_win_batch",
    "waits_batch",
    "shanten_batch",
    "mask_to_kinds",
    "random_complete_hands",
    "random_ready_hands",
    # scoring
    "score",
    "score_batch",
    "Score",
    # dealing and the game engine
    "deal_hands",
    "deal_stats",
    "simulate_matches",
    "replay",
    "play_hand",
    "EngineError",
    # policies
    "policy",
    "Param",
    "Policy",
    "as_policy",
    "load_policy",
    "save_policy",
    "jit",
    "PolicyError",
    "PolicyCompileError",
    "GameState",
    "Position",
    "PositionError",
    "rollouts",
    "RolloutError",
    "exact",
    "ExactError",
    "race",
    "Race",
    "RaceError",
    # simulation runs (Parquet datasets)
    "simulate",
    "summarize",
    # strength
    "exploitability",
    "Exploitability",
    "decide",
    "Decision",
    # errors
    "SimkitError",
    "TileNotationError",
    "TileCountError",
    "MeldError",
    "RulesError",
    "HandError",
    "ScoreError",
    "InputValueError",
    "InputTypeError",
    "RunError",
]
