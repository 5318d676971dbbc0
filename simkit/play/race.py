"""The race: both players ready and locked, who wins and what it pays, exactly.

The most common late position: both hands are ready and neither will change -- declared, or
discarding whatever they draw (the ``locked`` policy: win when it can, else discard the drawn tile,
never claim). Then the hand is a race over the remaining wall. Every draw is a uniformly random tile
of what is left, so the hand ends at the first drawn tile that one of the two hands waits on: the
drawer wins by self-draw when it completes their own hand, else they discard it and the other wins
on it. With ``o`` tiles that neither waits on among the ``L`` of the wall, the chance that the first
``s`` draws all miss is ``S_s = prod_{j < s} (o - j) / (L - j)`` (a recursion over the draws), and
the hand ends at draw ``s`` on kind ``k`` with probability ``S_s * n_k / (L - s)``. A declared
douque hand that draws the fourth tile of its exposed pung adds a kong and draws again (the engine
does it by itself): the recursion follows those tiles one by one. What each end pays comes from the
engine itself: one playout of the hand ending that way, under the rule set's scoring with
everything the hand carries (the last tile, the dealer's streak, a declaration, a kong, ...); a
playout that does not end as the race says (a tile that cannot win there, say) is refused.

:func:`race` does this for the viewer's hand at a :class:`~simkit.play.position.Position` (phase
``"draw"``: the viewer holds the tile just drawn) against the opponent's hand, given, or summed over
every ready hand of the unseen tiles, weighted as :func:`simkit.rollouts` draws them. It is the
same number :func:`simkit.play.exact.exact` enumerates with both players ``locked``, in a few
playouts instead of thousands (the tests check one against the other).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._jit import jit
from ..engine import actions as A
from ..engine import table as eng
from ..errors import SimkitError, check_int
from ..hand import mask_to_kinds, waits_batch
from ..melds import MELD_PUNG
from ..policies.helpers import first_legal
from ..policies.spec import policy
from ..tiles import format_tile_list
from .exact import ENUMERATED_HANDS, ExactError, given_hand, opponent_hands
from .position import Position, as_position

__all__ = ["race", "Race", "RaceError", "locked_policy", "MAX_OPPONENT_HANDS"]

#: the most ready opponent hands :func:`race` sums over (each costs a playout per way the hand ends)
MAX_OPPONENT_HANDS = 20_000


class RaceError(SimkitError, ValueError):
    """A position that is not a race (a hand not ready, a tile that cannot win), or bad arguments."""


@policy(name="locked")
@jit
def locked_policy(view, legal, params, rng):  # pragma: no cover - compiled
    """A locked ready hand: win whenever it can, else discard the tile just drawn; never claim,
    kong or declare."""
    if legal[A.WIN]:
        return A.WIN
    if view.phase == A.PHASE_DRAW and view.tile >= 0 and legal[A.DISCARD + view.tile]:
        return A.DISCARD + view.tile
    if legal[A.PASS]:
        return A.PASS
    return first_legal(legal)


@dataclass
class Race:
    """The outcome of :func:`race`.

    Attributes
    ----------
    win, self_draw, deal_in, opponent_win, opponent_self_draw, draw : float
        The viewer's win (by self-draw or on the opponent's discard), its self-draw, the opponent's
        win on the viewer's discard (a deal-in), the opponent's win, its self-draw, and an
        exhaustive draw: probabilities.
    mean : float
        The viewer's expected result (score minus fee), in the rule set's payment unit.
    turns : DataFrame
        One row per draw: ``draw`` (0 is the tile the viewer holds), ``drawer`` (``"viewer"`` or
        ``"opponent"``), ``reached`` (the chance the hand gets there), ``self_draw`` (the chance
        the drawer wins with it), ``on_discard`` (that the other wins on its discard) and ``mean``
        (the viewer's result of the hands that end there, times their chance); a last row for the
        exhaustive draw. ``mean`` sums to the race's mean.
    opponent_hands : int
        The opponent hands summed over (1 when given).
    playouts : int
        Hands the engine played to price the ends.
    """

    win: float
    self_draw: float
    deal_in: float
    opponent_win: float
    opponent_self_draw: float
    draw: float
    mean: float
    turns: object
    opponent_hands: int
    playouts: int
    position: str = ""
    rules: str = ""
    options: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return (
            f"race ({self.rules}, {self.opponent_hands:,} opponent hand{'s' if self.opponent_hands != 1 else ''}): "
            f"viewer wins {self.win:.2%} (self-draw {self.self_draw:.2%}), opponent wins {self.opponent_win:.2%} "
            f"(self-draw {self.opponent_self_draw:.2%}, on the viewer's discard {self.deal_in:.2%}), "
            f"exhaustive draw {self.draw:.2%}; expected result {self.mean:+.4f}"
        )


def race(position, opponent_hand=None, seed: int = 0, *, max_opponent_hands: int = MAX_OPPONENT_HANDS) -> Race:
    """The race of two locked ready hands from ``position``, exactly.

    Parameters
    ----------
    position : Position or str
        The viewer's position in phase ``"draw"`` (the tile just drawn is in the hand); without
        the drawn tile the hand must be ready.
    opponent_hand : str or sequence, optional
        The opponent's concealed tiles (notation or kinds), ready. Default: every ready hand of the
        unseen tiles, each weighted by its number of ways (a declared opponent's law in
        :func:`simkit.rollouts`).
    seed : int
        The players' streams of the pricing playouts (the ``locked`` policy draws no random
        numbers; a rule set's own chance, if any, would).
    max_opponent_hands : int
        Refuse a position with more possible ready opponent hands than this.

    Returns
    -------
    Race
    """
    import pandas as pd

    position = as_position(position, RaceError)
    seed = check_int(seed, "seed", 0, 2**63 - 1, RaceError)
    max_opponent_hands = check_int(max_opponent_hands, "max_opponent_hands", 1, 10**9, RaceError)
    d = position._derived
    rules, spec = d["rules"], d["spec"]
    if position.phase != "draw":
        raise RaceError(f"a race starts after the viewer's draw (phase 'draw'), got phase {position.phase!r}")
    if spec.game.end_phase:
        raise RaceError(
            f"{rules.name}'s end phase (end_phase={rules.options.end_phase!r}) hides jokers at random "
            "among the kept-back tiles: a race needs end_phase='plain_draw'"
        )
    unseen = np.asarray(d["unseen"], np.int64)
    drawn = int(d["drawn"])
    own = d["hand"].astype(np.int64).copy()
    own[drawn] -= 1
    own_waits = _wait_kinds(own, len(d["melds"][0]), d["mcounts"][0], rules)
    if not own_waits.any():
        raise RaceError(
            f"the viewer's hand without the drawn tile ({format_tile_list(np.repeat(np.arange(34), own))}) is not ready"
        )
    opp_melds = len(d["melds"][1])
    if opponent_hand is not None:
        hand = given_hand(position, opponent_hand, RaceError)
        if not _wait_kinds(hand, opp_melds, d["mcounts"][1], rules).any():
            raise RaceError(f"opponent_hand {format_tile_list(np.repeat(np.arange(34), hand))} is not ready")
        hands, weights = hand[None, :].astype(np.uint8), np.ones(1)
    else:
        try:
            hands, weights = opponent_hands(position, ready=True, limit=ENUMERATED_HANDS)
        except ExactError as exc:
            raise RaceError(str(exc)) from None
        if len(hands) == 0:
            raise RaceError("no hand of the unseen tiles leaves the opponent ready")
        if len(hands) > max_opponent_hands:
            raise RaceError(
                f"the opponent has {len(hands):,} possible ready hands, more than max_opponent_hands="
                f"{max_opponent_hands:,}: give opponent_hand, or raise max_opponent_hands"
            )
    drawable = int(d["tiles_left"])
    kongs = [_kong_kinds(position, p) for p in (0, 1)]
    rows = np.zeros((drawable + 2, 5))  # per draw: viewer self-draw, on discard, opponent's both, mean
    totals = np.zeros(7)  # win, self_draw, deal_in, opponent_win, opponent_self_draw, draw, mean
    playouts = 0
    for hand, weight in zip(hands.astype(np.int64), weights):
        wall = unseen - hand
        waits = (own_waits, _wait_kinds(hand, opp_melds, d["mcounts"][1], rules))
        roles = waits[0] | waits[1] | kongs[0] | kongs[1]
        for path, p, want, want_self in _race_ends(wall, drawn, waits, kongs, drawable):
            result, winner, self_drawn, used = _price(position, hand, wall, roles, path, seed)
            playouts += 1
            if (winner, self_drawn, used) != (want, want_self, len(path) - 1):
                raise RaceError(
                    f"not a race: along the draws {_path_text(path)} the engine's hand ends with winner {winner} "
                    f"after {used} draws (a race would have winner {want} after {len(path) - 1}); "
                    "use simkit.play.exact.exact"
                )
            w = weight * p
            at = len(path) - 1 if winner >= 0 else drawable + 1
            rows[at, 4] += w * result
            totals[6] += w * result
            if winner < 0:
                totals[5] += w
                continue
            rows[at, (0 if self_drawn else 1) + 2 * winner] += w
            totals[0 if winner == 0 else 3] += w
            if winner == 0 and self_drawn:
                totals[1] += w
            elif winner == 1:
                totals[4 if self_drawn else 2] += w
    ended = rows[:, :4].sum(axis=1)
    turns = pd.DataFrame(
        {
            "draw": [str(s) for s in range(drawable + 1)] + ["exhaustive draw"],
            "reached": np.clip(1.0 - np.concatenate([[0.0], np.cumsum(ended[:-1])]), 0.0, 1.0),
            "self_draw": rows[:, 0],
            "on_discard": rows[:, 1],
            "opponent_self_draw": rows[:, 2],
            "opponent_on_discard": rows[:, 3],
            "mean": rows[:, 4],
        }
    )
    return Race(
        *(float(x) for x in totals[:6]),
        mean=float(totals[6]),
        turns=turns,
        opponent_hands=len(hands),
        playouts=playouts,
        position=str(position),
        rules=rules.name,
        options=rules.to_dict(),
    )


def _kong_kinds(position: Position, p: int) -> np.ndarray:
    """bool[34]: the kinds player ``p`` (0 the viewer) adds to an exposed pung when drawn: a
    declared hand does so by itself (the engine's locked hand); an undeclared locked hand never."""
    out = np.zeros(34, bool)
    if (position.declared if p == 0 else position.opponent_declared) == 0:
        return out
    for meld in position._derived["melds"][p]:
        if meld.code == MELD_PUNG:
            out[meld.tiles[0]] = True
    return out


def _wait_kinds(hand: np.ndarray, n_melds: int, meld_counts: np.ndarray, rules) -> np.ndarray:
    """bool[34]: the kinds that complete ``hand`` (counts) with ``n_melds`` melds holding
    ``meld_counts``."""
    mc = np.asarray(meld_counts, np.uint8)[None, :]
    out = np.zeros(34, bool)
    out[mask_to_kinds(int(waits_batch(hand.astype(np.uint8)[None, :], n_melds, mc, rules)[0]))] = True
    return out


def _race_ends(wall, drawn, waits, kongs, drawable):
    """Every way the race ends, as ``(path, chance, winner, self_drawn)``: ``path`` the draws, each
    ``(drawer, kind, replacement)`` (kind -1: any tile no hand waits on or kongs with), the first
    the tile the viewer holds; the hand ends at the path's last draw with a win, or after
    ``drawable`` draws from the wall with none (winner -1).

    A drawn tile the drawer waits on is their self-drawn win; one the other waits on, the other's
    win on it (discarded, or robbed from a kong); one that makes the drawer's locked kong, a kong
    and a replacement draw by the same player (not on the last drawable tile); anything else is
    discarded and the other player draws. Each wall draw is a uniformly random tile of what is
    left: ``count / tiles left``. Tiles with no part (no wait, no kong) are one class."""
    special = {int(k): int(wall[k]) for k in np.flatnonzero((waits[0] | waits[1] | kongs[0] | kongs[1]) & (wall > 0))}
    ends = []

    def outcome(drawer, kind, left):
        """("end", winner, self-drawn) when the hand ends with this draw, else ("on", the next
        drawer, whether they draw a kong's replacement)."""
        if kind >= 0 and waits[drawer][kind]:
            return "end", drawer, 1
        if kind >= 0 and waits[1 - drawer][kind]:
            return "end", 1 - drawer, 0
        if kind >= 0 and kongs[drawer][kind] and left > 0:
            return "on", drawer, True
        return "on", 1 - drawer, False

    def walk(path, chance, drawer, left, replacement, plain):
        if left == 0:
            ends.append((path, chance, -1, 0))
            return
        total = plain + sum(special.values())
        options = [(k, c) for k, c in special.items() if c > 0] + ([(-1, plain)] if plain > 0 else [])
        for kind, count in options:
            p = chance * count / total
            step = path + [(drawer, kind, replacement)]
            what, who, flag = outcome(drawer, kind, left - 1)
            if what == "end":
                ends.append((step, p, who, flag))
            elif kind >= 0:
                special[kind] -= 1
                walk(step, p, who, left - 1, flag, plain)
                special[kind] += 1
            else:
                walk(step, p, who, left - 1, flag, plain - 1)

    first = [(0, drawn, False)]
    what, who, flag = outcome(0, drawn, drawable)
    if what == "end":
        return [(first, 1.0, who, flag)]
    walk(first, 1.0, who, drawable, flag, int(wall.sum()) - sum(special.values()))
    return ends


def _price(position, hand, wall, roles, path, seed) -> tuple[float, int, int, int]:
    """Play the hand along ``path`` (see :func:`_race_ends`; a kind -1 is any tile with no part,
    ``roles`` bool[34] the kinds with one) with both players locked: the viewer's result, the
    winner, whether it was self-drawn, and the tiles drawn from the wall."""
    pool = wall.copy()
    n = int(wall.sum())
    arranged = np.full(n, -1, np.int64)
    front, back = 0, n - 1
    stable = bool(position.stable_wall)
    for drawer, kind, replacement in path[1:]:
        if kind < 0:
            kind = int(np.flatnonzero((pool > 0) & ~roles)[0])
        pool[kind] -= 1
        if (stable and drawer == 1) or (not stable and replacement):
            arranged[back] = kind
            back -= 1
        else:
            arranged[front] = kind
            front += 1
    arranged[front : back + 1] = np.repeat(np.arange(34), pool)
    state = position.state(seed, opponent_hand=np.repeat(np.arange(34), hand), wall=arranged, check=False)
    T = state._T
    start = (int(T.sc[eng.S_FRONT]), int(T.sc[eng.S_BACK]))
    state.play_out(locked_policy, locked_policy)
    row = state.row
    winner = int(row["winner"])
    used = int(T.sc[eng.S_FRONT]) - start[0] + start[1] - int(T.sc[eng.S_BACK])
    return float(row["score_0"] - row["fee_0"]), winner, int(winner >= 0 and row["win_type"] == eng.WIN_SELF), used


def _path_text(path) -> str:
    """A path of :func:`_race_ends` in words, e.g. ``viewer 3m, opponent (a tile with no part)``."""
    parts = []
    for drawer, kind, replacement in path:
        who = "viewer" if drawer == 0 else "opponent"
        what = format_tile_list([kind]) if kind >= 0 else "(a tile with no part)"
        parts.append(f"{who} {what}{' (replacement)' if replacement else ''}")
    return ", ".join(parts)
