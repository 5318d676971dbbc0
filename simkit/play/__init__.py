"""Playing from Python: whole matches and their replay (:mod:`~simkit.play.matches`), the step
API (:class:`~simkit.play.stepper.GameState`), positions (:mod:`~simkit.play.position`) and
rollouts from them (:mod:`~simkit.play.rollouts`), their exact values where the unseen tiles have
few arrangements (:mod:`~simkit.play.exact`) and the race of two locked ready hands
(:mod:`~simkit.play.race`; the functions are ``simkit.exact`` and ``simkit.race``, so that the
module names stay the modules), and the draws replayed for the luck correction
(:mod:`~simkit.play.draw_luck`). :mod:`~simkit.play.runtime` is what they share: the policies of a
match resolved for the engine, the threads that play blocks of matches, the result buffers, the
engine's errors and a hand's record."""

from .exact import ExactError, completions
from .matches import EngineError, HandRecord, PolicyCompileError, play_hand, replay, simulate_matches
from .position import Position, PositionError
from .race import Race, RaceError
from .rollouts import RolloutError, rollouts
from .stepper import GameState

__all__ = [
    "simulate_matches",
    "replay",
    "play_hand",
    "HandRecord",
    "GameState",
    "Position",
    "PositionError",
    "rollouts",
    "RolloutError",
    "completions",
    "ExactError",
    "Race",
    "RaceError",
    "EngineError",
    "PolicyCompileError",
]
