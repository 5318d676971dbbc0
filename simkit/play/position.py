"""Positions: a hand as one player sees it, turned into an engine state.

A :class:`Position` is what the deciding player (the *viewer*) knows: their concealed tiles, both
players' melds, both rivers in order, declarations, drawable tiles left, who deals, the streak, the
winds and the decision they face -- after a draw (``phase="draw"``), after a claim
(``phase="claim"``: they must discard) or on the opponent's last discard (``phase="discard"``).
:meth:`Position.state` completes it with what the viewer cannot see -- the opponent's concealed
tiles and the order of the wall -- either given or sampled uniformly from the unseen tiles by a
counter-based stream (``seed``), and returns a :class:`~simkit.play.stepper.GameState` standing at
the viewer's decision: step it, or play it out with any policies.

In the state the viewer is player 0. Rivers are written in order; a ``*`` after a tile marks a
discard the other player claimed (it is in their meld now)::

    Position("douque", hand="123456789m1122z 5z", river="9p 1s*", opponent_river="3s 4s",
             opponent_melds=["pung 111s"], dealer=True, phase="draw", drawn="5z")
    Position.from_string("douque: hand 123456789m11225z; drawn 5z; river 9p 1s*; "
                         "opponent_river 3s 4s; opponent_melds pung 111s; dealer")

``str(position)`` is its text form and :meth:`Position.from_string` reads it back: the rule set's
name, its options that differ from the defaults (``option KEY=VALUE``, as ``--option`` takes
them), and every field that is not at its default, so ``Position.from_string(str(p))`` equals
``p`` field for field (``GameState.position()`` of a hand mid-match included: the hand number,
the deals passed, both scores, ``declared_at`` and the wall mode).

What a Position does not say, the state takes as: no Skipped Win or Skipped Pung in force, no
first-turn hands (nobody has "not yet acted" unless both rivers are empty and no meld was made).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields

import numpy as np

from ..engine import actions as A
from ..engine import table as eng
from ..engine.deal import shuffle_wall
from ..engine.end_phase import joker_slots
from ..engine.rng import stream_key
from ..engine.rulesets import engine_spec
from ..errors import SimkitError, check_flag, check_int
from ..melds import MELD_SIZES, MELD_TYPES, meld_counts, melds_array, parse_melds
from ..paths import read_regular_file
from ..rules import resolve_rules
from ..tiles import format_tile_list, parse_tile_list, parse_tiles, tile_name
from .stepper import GameState, streak_limit

__all__ = ["Position", "PositionError", "COMPLETION_STREAM", "position_of", "as_position", "read_position"]

COMPLETION_STREAM = 1 << 41  #: sub-stream of ``(seed, 0, COMPLETION_STREAM)`` that samples a completion
WIND_LETTERS = {"E": 27, "S": 28, "W": 29, "N": 30}  #: wind letter -> kind
_PHASES = ("draw", "claim", "discard")
_EXPOSED = (0, 1, 2, 4)  #: meld codes made by claiming the opponent's discard (pung, kong, added kong, chow)
_KONGS = (1, 2, 3)
MAX_SCORE = 1e12  #: the largest match result so far a position takes (a float64 keeps payments exact below it)


class PositionError(SimkitError, ValueError):
    """A position that cannot occur (the message names what is wrong)."""


def _river(text, rules, label):
    """Kinds in order and claimed flags of a river string (``*`` after a claimed tile)."""
    if text is None:
        return [], []
    if not isinstance(text, str):
        kinds = [int(k) for k in text]
        return kinds, [False] * len(kinds)
    kinds, claimed = [], []
    for token in re.findall(r"[^\s*]+\*?", text.replace(",", " ")):
        star = token.endswith("*")
        body = token.rstrip("*")
        try:
            got = parse_tile_list(body, rules)
        except ValueError as exc:
            raise PositionError(f"{label}: {exc}") from None
        kinds += got
        claimed += [False] * len(got)
        if star:
            claimed[-1] = True
    return kinds, claimed


def _number_text(value) -> str:
    """A number as text that reads back to the same value (``repr`` of a float; integers plain)."""
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
    return str(int(value))


def _option_text(value) -> str:
    """A rule option's value as ``--option KEY=VALUE`` reads it back."""
    if value is None:
        return "none"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(_option_text(v) for v in value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return _number_text(value)
    return str(value)


@dataclass(frozen=True, eq=False)
class Position:
    """What the deciding player sees; see the module docstring. Validated on construction
    (:class:`PositionError`, a ``ValueError``, names the problem)."""

    rules: object = "douque"  #: rule set name or Rules
    hand: object = ""  #: own concealed tiles (notation or counts), the drawn tile included
    melds: object = ()  #: own melds (``"pung 555z"``, ...)
    opponent_melds: object = ()
    river: object = ""  #: own discards in order (notation; ``*`` after a tile the opponent claimed)
    opponent_river: object = ""
    declared: int = 0  #: own declaration: 0 none, 1 ready, 2 MIGI (douque)
    opponent_declared: int = 0
    #: the index in the river of the declaring discard (douque; None: the river's last discard)
    declared_at: int | None = None
    opponent_declared_at: int | None = None
    tiles_left: int | None = None  #: drawable tiles left (None: derived from the tiles seen)
    dealer: bool = True  #: whether the viewer deals
    streak: int = 0  #: the dealer's streak, at most the rule set's ``streak_cap``
    seat_wind: str = "E"  #: the viewer's seat wind, E or W (the opponent has the other)
    prevailing_wind: str = "E"
    phase: str = "draw"  #: "draw", "claim" (after a pung or chow: discard) or "discard" (the opponent's last)
    drawn: object = None  #: phase "draw": the tile just drawn (required when the viewer has declared)
    replacement: bool = False  #: the drawn tile was a kong replacement
    bid: int = 0  #: for_two: the banker's bid (1-3); required there
    #: stable walls (a run with ``wall="stable"``): the viewer draws the wall of :meth:`state` from
    #: its front, the opponent from its back, kong replacements likewise; else (default) both draw
    #: from the front and replacements come from the back
    stable_wall: bool = False
    #: where the hand stands in its match, for continuations to the end of the match
    #: (``simkit.rollouts(..., to="match")``): hands already played, deals passed so far, and each
    #: player's result in the match so far
    hand_number: int = 0
    dealerships: int = 0
    score: float = 0.0
    opponent_score: float = 0.0
    _derived: dict = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_derived", self._validate())

    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    # -- notation -----------------------------------------------------------------------------

    @classmethod
    def from_string(cls, text: str, rules=None) -> "Position":
        """A Position from ``"[rules:] key value; key value; flag; ..."``: keys are the field names
        (``hand``, ``melds``, ``opponent_melds`` (several melds separated by ``,``), ``river``,
        ``opponent_river``, ``declared``, ``opponent_declared``, ``declared_at``,
        ``opponent_declared_at``, ``tiles_left``, ``streak``,
        ``seat_wind``, ``prevailing_wind``, ``phase``, ``drawn``, ``bid``, ``hand_number``,
        ``dealerships``, ``score``, ``opponent_score``); the flags ``dealer``,
        ``not_dealer``, ``replacement`` and ``stable_wall``; and ``option KEY=VALUE`` (repeatable):
        a rule option of the rule set, as ``--option`` takes it. It reads what ``str()`` writes.
        A field given twice, an unknown field or option, or a bad value raises
        :class:`PositionError` naming it."""
        if not isinstance(text, str):
            raise PositionError(f"a position string is a str, got {text!r}")
        head, sep, body = text.partition(":")
        if sep and re.fullmatch(r"\s*[a-z_]+\s*", head) and head.strip() not in {f.name for f in fields(cls)}:
            rules = head.strip() if rules is None else rules
        else:
            body = text
        kwargs = {"rules": rules or "douque", "dealer": False}
        names = {f.name for f in fields(cls) if f.name not in ("rules", "_derived")}
        options, seen = {}, set()
        for part in body.split(";"):
            part = part.strip()
            if not part:
                continue
            key, _, value = part.partition(" ")
            key, value = key.strip(), value.strip()
            if key == "option":
                name, sep, text = value.partition("=")
                if not sep or not name.strip():
                    raise PositionError(f"option expects KEY=VALUE, got {value!r}")
                if name.strip() in options:
                    raise PositionError(f"option {name.strip()!r} is given twice")
                options[name.strip()] = text.strip()
                continue
            field_name = "dealer" if key == "not_dealer" else key
            if field_name in seen:
                raise PositionError(f"position field {field_name!r} is given twice")
            seen.add(field_name)
            if key in ("dealer", "not_dealer", "replacement", "stable_wall") and not value:
                kwargs["dealer" if key in ("dealer", "not_dealer") else key] = key != "not_dealer"
                continue
            if key not in names:
                raise PositionError(f"unknown position field {key!r}; fields: {', '.join(sorted(names))}")
            if key in (
                "declared",
                "opponent_declared",
                "declared_at",
                "opponent_declared_at",
                "tiles_left",
                "streak",
                "bid",
                "hand_number",
                "dealerships",
            ):
                try:
                    kwargs[key] = int(value)
                except ValueError:
                    raise PositionError(f"{key} must be an integer, got {value!r}") from None
            elif key in ("score", "opponent_score"):
                try:
                    kwargs[key] = float(value)
                except ValueError:
                    raise PositionError(f"{key} must be a number, got {value!r}") from None
            elif key in ("melds", "opponent_melds"):
                kwargs[key] = value
            else:
                kwargs[key] = value
        if options:
            try:
                kwargs["rules"] = resolve_rules(kwargs["rules"]).with_option_strings(options)
            except (ValueError, TypeError) as exc:
                raise PositionError(str(exc)) from None
        return cls(**kwargs)

    def __str__(self) -> str:
        d = self._derived
        parts = [f"hand {format_tile_list(np.repeat(np.arange(34), d['hand']))}"]
        if self.drawn is not None:
            parts.append(f"drawn {tile_name(d['drawn'])}")
        for label, melds in (("melds", d["melds"][0]), ("opponent_melds", d["melds"][1])):
            if melds:
                parts.append(f"{label} " + ", ".join(str(m) for m in melds))
        for label, (kinds, claimed) in (("river", d["rivers"][0]), ("opponent_river", d["rivers"][1])):
            if kinds:
                parts.append(f"{label} " + " ".join(tile_name(k) + ("*" if c else "") for k, c in zip(kinds, claimed)))
        parts += [f"tiles_left {d['tiles_left']}", "dealer" if self.dealer else "not_dealer", f"phase {self.phase}"]
        if self.replacement:
            parts.append("replacement")
        if self.stable_wall:
            parts.append("stable_wall")
        for name in ("declared_at", "opponent_declared_at"):
            if getattr(self, name) is not None:
                parts.append(f"{name} {getattr(self, name)}")
        defaults = {
            "declared": 0,
            "opponent_declared": 0,
            "streak": 0,
            "seat_wind": "E",
            "prevailing_wind": "E",
            "bid": 0,
            "hand_number": 0,
            "dealerships": 0,
            "score": 0.0,
            "opponent_score": 0.0,
        }
        for name, default in defaults.items():
            value = getattr(self, name)
            if value != default:
                parts.append(f"{name} {value if isinstance(value, str) else _number_text(value)}")
        options = [f"option {k}={_option_text(v)}" for k, v in d["rules"].non_default_options().items()]
        return f"{d['rules'].name}: " + "; ".join(options + parts)

    # -- validation ---------------------------------------------------------------------------

    def _validate(self) -> dict:
        try:
            rules = resolve_rules(self.rules)
        except ValueError as exc:
            raise PositionError(str(exc)) from None
        spec = engine_spec(rules)
        for name in ("dealer", "replacement", "stable_wall"):
            check_flag(getattr(self, name), name)
        if self.phase not in _PHASES:
            raise PositionError(f"phase must be one of {', '.join(_PHASES)}, got {self.phase!r}")
        try:
            hand = parse_tiles(self.hand, rules) if isinstance(self.hand, str) else np.asarray(self.hand, np.int64)
        except ValueError as exc:
            raise PositionError(f"hand: {exc}") from None
        if hand.shape != (34,) or hand.min() < 0 or hand.max() > 4:
            raise PositionError("hand must be tile notation or 34 counts of 0-4")
        melds, mcounts = [], []
        for label, value in (("melds", self.melds), ("opponent_melds", self.opponent_melds)):
            try:
                parsed = parse_melds(value or None, rules)
            except (ValueError, TypeError) as exc:
                raise PositionError(f"{label}: {exc}") from None
            melds.append(parsed)
            mcounts.append(meld_counts(parsed).astype(np.int64) if parsed else np.zeros(34, np.int64))
        rivers = [_river(self.river, rules, "river"), _river(self.opponent_river, rules, "opponent_river")]
        for name, value, allowed in (
            ("declared", self.declared, (0, 1, 2) if rules.name == "douque" else (0,)),
            ("opponent_declared", self.opponent_declared, (0, 1, 2) if rules.name == "douque" else (0,)),
            ("bid", self.bid, (1, 2, 3) if rules.name == "for_two" else (0,)),
        ):
            if isinstance(value, bool) or value not in allowed:
                raise PositionError(f"{name} must be one of {allowed} in {rules.name}, got {value!r}")
        if self.seat_wind not in ("E", "W"):
            raise PositionError(f"seat_wind must be E or W (two players sit East and West), got {self.seat_wind!r}")
        if self.prevailing_wind not in WIND_LETTERS:
            raise PositionError(f"prevailing_wind must be one of E, S, W, N, got {self.prevailing_wind!r}")
        check_int(self.streak, "streak", 0, streak_limit(spec), PositionError)
        for name in ("hand_number", "dealerships"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise PositionError(f"{name} must be a non-negative integer, got {value!r}")
        game = spec.game
        if game.match_hands > 0 and self.hand_number >= game.match_hands:
            raise PositionError(
                f"hand_number must be below the {game.match_hands} hands of a {rules.name} match, got {self.hand_number}"
            )
        if game.dealer_turns > 0 and self.dealerships >= game.dealer_turns:
            raise PositionError(
                f"dealerships must be below the {game.dealer_turns} deals of a {rules.name} match, got {self.dealerships}"
            )
        for name in ("score", "opponent_score"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float, np.integer, np.floating))
                or not np.isfinite(value)
            ):
                raise PositionError(f"{name} must be a finite number, got {value!r}")
            if abs(value) > MAX_SCORE:  # beyond it a hand's payments vanish in its rounding
                raise PositionError(f"{name} must be at most {MAX_SCORE:g} in size, got {value!r}")
        # hand size for the melds and the phase
        on_turn = self.phase in ("draw", "claim")
        want = 13 - 3 * len(melds[0]) + (1 if on_turn else 0)
        if int(hand.sum()) != want:
            raise PositionError(
                f"hand has {int(hand.sum())} tiles; with {len(melds[0])} meld(s) and phase {self.phase!r} it must have {want}"
            )
        if self.phase == "discard":
            if not rivers[1][0]:
                raise PositionError("phase 'discard' needs the opponent's discard: opponent_river is empty")
            if rivers[1][1][-1]:
                raise PositionError("phase 'discard': the opponent's last discard is marked claimed")
        # tiles seen
        seen = hand + mcounts[0] + mcounts[1]
        for kinds, claimed in rivers:
            for k, c in zip(kinds, claimed):
                if not c:
                    seen[k] += 1
        over = [tile_name(k) for k in range(34) if seen[k] > 4]
        if over:
            raise PositionError(f"more than 4 copies seen of {', '.join(over)} (hand, melds and unclaimed discards)")
        outside = [tile_name(k) for k in range(34) if seen[k] and k not in rules.kinds]
        if outside:
            raise PositionError(f"{', '.join(outside)} not in the tile set of {rules.name}")
        # claims: each exposed meld took one of the other player's discards
        for p in (0, 1):
            exposed = sum(1 for m in melds[p] if m.code in _EXPOSED)
            taken = sum(rivers[1 - p][1])
            if exposed != taken:
                who = "the viewer" if p == 0 else "the opponent"
                river = "opponent_river" if p == 0 else "river"
                raise PositionError(
                    f"{who} has {exposed} claimed meld(s) (pung, kong, added kong, chow) but {taken} discard(s) of "
                    f"{river} are marked claimed ('*')"
                )
        unseen = np.array([4 if k in rules.kinds else 0 for k in range(34)], np.int64) - seen
        opp_concealed = 13 - 3 * len(melds[1])
        kept = int(spec.game.kept_back)
        tiles_left = int(unseen.sum()) - opp_concealed - kept
        if self.tiles_left is not None:
            if isinstance(self.tiles_left, bool) or not isinstance(self.tiles_left, (int, np.integer)):
                raise PositionError(f"tiles_left must be an integer, got {self.tiles_left!r}")
            if int(self.tiles_left) != tiles_left:
                raise PositionError(
                    f"tiles_left is {self.tiles_left}, but the tiles seen leave {tiles_left}: {int(unseen.sum())} unseen = "
                    f"{opp_concealed} in the opponent's hand + drawable + {kept} kept back"
                )
        if tiles_left < 0:
            raise PositionError(f"more tiles seen than the deal allows ({-tiles_left} too many)")
        # draws: hand + melds + discards = dealt + drawn + claimed
        dealer = 0 if self.dealer else 1
        kongs = 0
        for p, concealed in ((0, int(hand.sum())), (1, opp_concealed)):
            dealt = 14 if p == dealer else 13
            claimed_in = sum(rivers[1 - p][1])
            draws = concealed + int(mcounts[p].sum()) + len(rivers[p][0]) - dealt - claimed_in
            if draws < 0:
                who = "the viewer" if p == 0 else "the opponent"
                raise PositionError(
                    f"{who} would hold fewer tiles than dealt: {concealed} concealed + {int(mcounts[p].sum())} in melds + "
                    f"{len(rivers[p][0])} discarded < {dealt} dealt + {claimed_in} claimed"
                )
            kongs += sum(1 for m in melds[p] if m.code in _KONGS)
        # discards alternate from the dealer's first (a claim or a kong does not change whose turn is next)
        # (so at the viewer's decision the dealer has made as many discards as the other player, or one more)
        n_own, n_opp = len(rivers[0][0]), len(rivers[1][0])
        expected_own = n_opp if dealer == 0 else n_opp - 1
        if n_own != expected_own:
            raise PositionError(
                f"the rivers do not alternate: discards alternate from the dealer's first, so at the viewer's decision "
                f"the viewer ({'dealer' if dealer == 0 else 'not dealer'}) with {n_opp} opponent discard(s) must have "
                f"made {max(expected_own, 0)}, not {n_own}"
            )
        if len(rivers[0][0]) > eng.MAX_RIVER or len(rivers[1][0]) > eng.MAX_RIVER:
            raise PositionError(f"a river holds at most {eng.MAX_RIVER} discards")
        # the decision
        drawn = -1
        if self.phase == "draw":
            if self.drawn is not None:
                try:
                    got = parse_tile_list(self.drawn, rules) if isinstance(self.drawn, str) else [int(self.drawn)]
                except ValueError as exc:
                    raise PositionError(f"drawn: {exc}") from None
                if len(got) != 1 or hand[got[0]] == 0:
                    raise PositionError(f"drawn must be one tile of the hand, got {self.drawn!r}")
                drawn = got[0]
            elif self.declared:
                raise PositionError("a declared (locked) hand needs its drawn tile: give drawn=")
            elif self.replacement:
                raise PositionError("replacement=True needs the drawn tile: give drawn=")
            if self.replacement and not any(m.code in _KONGS for m in melds[0]):
                raise PositionError("a replacement draw needs a kong of the viewer's")
        elif self.drawn is not None:
            raise PositionError(f"drawn is only for phase 'draw', not {self.phase!r}")
        if self.phase == "claim":
            last = rivers[1]
            if not last[0] or not last[1][-1] or not any(m.code in (0, 4) for m in melds[0]):
                raise PositionError(
                    "phase 'claim' needs the opponent's last discard claimed ('*') by a pung or chow of the viewer's"
                )
            if self.declared:
                raise PositionError("a declared player cannot claim")
        n = 4 * len(rules.kinds)
        if n - kongs - tiles_left - kept < 27:
            raise PositionError(f"{kongs} kong replacement(s) but fewer tiles drawn from the wall than that")
        declared_at = []
        for name, declared, (kinds, _) in (
            ("declared_at", self.declared, rivers[0]),
            ("opponent_declared_at", self.opponent_declared, rivers[1]),
        ):
            at = getattr(self, name)
            if at is None:
                declared_at.append(len(kinds) - 1 if declared else -1)
            elif not declared:
                raise PositionError(f"{name} is given, but that player has not declared")
            else:
                declared_at.append(check_int(at, name, 0, max(len(kinds) - 1, 0), PositionError))
            if declared and not kinds:
                raise PositionError(
                    f"a declaration is made with a discard: the {'river' if name == 'declared_at' else 'opponent_river'} is empty"
                )
        return dict(
            rules=rules,
            spec=spec,
            hand=hand,
            melds=melds,
            mcounts=mcounts,
            rivers=rivers,
            unseen=unseen,
            opp_concealed=opp_concealed,
            tiles_left=tiles_left,
            kongs=kongs,
            drawn=drawn,
            dealer=dealer,
            declared_at=tuple(declared_at),
        )

    # -- the state ----------------------------------------------------------------------------

    @property
    def unseen(self) -> np.ndarray:
        """Counts (int64[34]) of the tiles the viewer cannot see: the opponent's concealed tiles
        and the wall (drawable and kept back)."""
        return self._derived["unseen"].copy()

    def completion(self, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """A uniformly random completion from stream ``(seed, 0, COMPLETION_STREAM)``: the
        opponent's concealed tiles (kinds) and the wall from the next draw on (kinds, the
        kept-back tiles last)."""

        seed = check_int(seed, "seed", 0, 2**63 - 1, PositionError)
        d = self._derived
        tiles = np.repeat(np.arange(34, dtype=np.int8), d["unseen"])
        state = np.array([stream_key(np.uint64(seed), 0, COMPLETION_STREAM)], np.uint64)
        shuffle_wall(state, tiles, len(tiles))
        return tiles[: d["opp_concealed"]].copy(), tiles[d["opp_concealed"] :].copy()

    def state(self, seed: int = 0, *, opponent_hand=None, wall=None, check: bool = True):
        """The :class:`~simkit.play.stepper.GameState` of this position at the viewer's decision
        (the viewer is player 0), completed by ``opponent_hand`` and ``wall`` (notation or kinds:
        the opponent's concealed tiles; the wall from the next draw on, kept-back tiles last) or,
        when they are not given, by :meth:`completion` of ``seed``. The players' policy streams
        are ``(seed, 0, 1 + p)``; for_two's end-phase jokers are placed from stream ``(seed, 0, 0)``."""
        seed = check_int(seed, "seed", 0, 2**63 - 1, PositionError)
        check = check_flag(check, "check")
        d = self._derived
        rules, spec = d["rules"], d["spec"]
        if (opponent_hand is None) != (wall is None):
            raise PositionError("give both opponent_hand and wall, or neither (then they are sampled)")
        if opponent_hand is None:
            opp, rest = self.completion(seed)
        else:
            opp = np.asarray(
                parse_tile_list(opponent_hand, rules) if isinstance(opponent_hand, str) else opponent_hand, np.int8
            )
            rest = np.asarray(parse_tile_list(wall, rules) if isinstance(wall, str) else wall, np.int8)
            if len(opp) != d["opp_concealed"]:
                raise PositionError(f"opponent_hand must have {d['opp_concealed']} tiles, got {len(opp)}")
            given = np.bincount(np.concatenate([opp, rest]).astype(np.int64), minlength=34)
            if not np.array_equal(given, d["unseen"]):
                raise PositionError(
                    "opponent_hand and wall must hold exactly the unseen tiles: "
                    + format_tile_list(np.repeat(np.arange(34), d["unseen"]))
                )
        n = len(rules.kinds) * 4
        kept = int(spec.game.kept_back)
        T = eng.new_table(n, spec.items_proto)
        # hands, melds, rivers (the viewer is player 0)
        T.hand[0] = d["hand"]
        T.hand[1] = np.bincount(opp.astype(np.int64), minlength=34)
        for p in (0, 1):
            arr = melds_array(d["melds"][p]) if d["melds"][p] else np.zeros((0, 2), np.int8)
            T.melds[p, : len(arr)] = arr
            T.n_melds[p] = len(arr)
            T.meld_counts[p] = d["mcounts"][p]
            kinds, claimed = d["rivers"][p]
            T.river[p, : len(kinds)] = kinds
            T.claimed[p, : len(kinds)] = claimed
            T.n_river[p] = len(kinds)
            T.kongs[p] = sum(1 for m in d["melds"][p] if m.code in _KONGS)
            T.acted[p] = 1 if (len(kinds) or T.kongs[p] or any(m.code in _EXPOSED for m in d["melds"][p])) else 0
        T.declared[0], T.declared[1] = self.declared, self.opponent_declared
        T.sc[eng.S_DECLARED_AT], T.sc[eng.S_DECLARED_AT + 1] = d["declared_at"]
        T.locked[0] = T.hand[0]
        if d["drawn"] >= 0:
            T.locked[0, d["drawn"]] -= 1
        T.locked[1] = T.hand[1]
        seat = WIND_LETTERS[self.seat_wind]
        T.seat[0], T.seat[1] = seat, (WIND_LETTERS["W"] if seat == WIND_LETTERS["E"] else WIND_LETTERS["E"])
        # the wall: tiles taken so far at both ends (any order), the unseen wall in between
        back = n - 1 - d["kongs"]
        front = back + 1 - len(rest)
        taken = np.repeat(np.arange(34, dtype=np.int8), 4 * np.isin(np.arange(34), rules.kinds) - d["unseen"])
        taken = np.concatenate([taken, opp])
        taken = np.sort(taken)
        T.wall[:front] = taken[:front]
        T.wall[front : back + 1] = rest
        T.wall[back + 1 :] = taken[front:]
        sc = T.sc
        sc[eng.S_FRONT], sc[eng.S_BACK] = front, back
        sc[eng.S_WALL] = eng.WALL_SEAT_STABLE if self.stable_wall else eng.WALL_DEALER_FIRST
        sc[eng.S_KEPT_BACK] = kept
        sc[eng.S_NO_CALL] = 0 if (T.n_melds[0] or T.n_melds[1]) else 1
        sc[eng.S_DISCARDS] = T.n_river[0] + T.n_river[1]
        sc[eng.S_DEALER] = d["dealer"]
        sc[eng.S_STREAK] = self.streak
        sc[eng.S_HAND_NUMBER] = self.hand_number
        sc[eng.S_DEALERSHIPS] = self.dealerships
        sc[eng.S_PREVAILING] = WIND_LETTERS[self.prevailing_wind]
        sc[eng.S_CHECK] = 1 if check else 0
        sc[eng.S_LOGGING] = 1
        sc[eng.S_BID] = self.bid
        sc[eng.S_SHANTEN_LB] = sc[eng.S_SHANTEN_LB + 1] = eng.SHANTEN_UNKNOWN
        sc[eng.S_WINNER] = sc[eng.S_PAYER] = sc[eng.S_WIN_TILE] = -1
        sc[eng.S_MATCH_OVER] = 1  # a position is one hand
        T.ids[0], T.ids[1] = np.uint64(seed), 0
        T.rng[0] = stream_key(np.uint64(seed), 0, 0)
        T.rng[1] = stream_key(np.uint64(seed), 0, 1)
        T.rng[2] = stream_key(np.uint64(seed), 0, 2)
        if spec.game.end_phase:  # for_two's end-phase jokers: hidden, placed at random as at a deal
            sc[eng.S_END_JOKERS] = joker_slots(T.rng[0:1], kept, spec.game.end_jokers)
        T.sc[eng.S_CHIPS0] = T.sc[eng.S_CHIPS1] = spec.game.chips  # as play._begin_match (game._begin_purse)
        T.purse[eng.P_BALANCE0], T.purse[eng.P_BALANCE0 + 1] = float(self.score), float(self.opponent_score)
        state = GameState(spec, T, _private=True)
        if check and self.phase == "discard" and not eng._check(T, -1, False):
            raise PositionError(
                f"the completed position breaks an engine invariant: {eng.ERROR_MESSAGES[int(sc[eng.S_ERROR])]}"
            )
        if self.phase == "discard":
            sc[eng.S_PLAYER] = 0
            sc[eng.S_TILE] = d["rivers"][1][0][-1]
            state._call(eng.OP_REACT)
        else:
            sc[eng.S_CURRENT] = 0
            sc[eng.S_PHASE] = eng.PENDING_TURN_CLAIM if self.phase == "claim" else eng.PENDING_TURN_DRAW
            sc[eng.S_TILE] = d["drawn"]
            sc[eng.S_REPLACEMENT] = 1 if self.replacement else 0
            state._call(eng.OP_ADVANCE)
        if state.error:
            raise PositionError(
                f"the completed position breaks an engine invariant: {state.error_text('the position')}"
            )
        return state


MAX_POSITION_FILE = 1 << 16  #: the largest position file :func:`read_position` reads (bytes)


def read_position(source: str) -> Position:
    """The :class:`Position` of ``source``: its text form (``"douque: hand ...; dealer"``, as
    ``str(position)`` writes it) or the path of a file holding it (UTF-8, at most
    :data:`MAX_POSITION_FILE` bytes; blank lines and lines starting with ``#`` are skipped, the
    others joined by spaces). Anything else raises :class:`PositionError` in one line."""
    if not isinstance(source, str):
        raise PositionError(f"a position is its text or a file holding it, got {type(source).__name__}")
    if "\0" not in source and os.path.exists(source):
        data = read_regular_file(
            source, f"position file {source!r}", MAX_POSITION_FILE, "a position file", PositionError
        )
        try:
            lines = data.decode("utf-8").splitlines()
        except UnicodeDecodeError as exc:
            raise PositionError(f"cannot read position file {source!r}: {exc}") from None
        text = " ".join(line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#"))
        if not text:
            raise PositionError(f"position file {source!r} holds no position")
        return Position.from_string(text)
    if not source.strip() or (";" not in source and not any(c.isspace() for c in source.strip())):
        raise PositionError(
            f"no position file {source!r}, and it is not a position's text (e.g. 'douque: hand 123456789m1122z5z; "
            "drawn 5z; dealer')"
        )
    return Position.from_string(source)


def as_position(position, error=PositionError) -> Position:
    """``position`` as a :class:`Position`: one as it is, a notation string read by
    :meth:`Position.from_string`; anything else raises ``error`` naming its type."""
    if isinstance(position, str):
        position = Position.from_string(position)
    if not isinstance(position, Position):
        raise error(f"position must be a simkit.Position or its notation string, got {type(position).__name__}")
    return position


def position_of(state: GameState) -> Position:
    """The :class:`Position` the deciding player of ``state`` sees (after a draw, after a claim, or
    on the opponent's discard), also ``state.position()``, with where the hand stands in its match
    (hand number, deals passed, both players' results so far); ``position().state(opponent_hand=...,
    wall=...)`` with the true completion stands at the same decision (Skipped Win / Skipped
    Pung in force are not part of a position)."""
    T, sc = state._dealt(), state._T.sc
    phase = {A.PHASE_DRAW: "draw", A.PHASE_PUNG: "claim", A.PHASE_REACT: "discard"}.get(state.phase)
    if phase is None:
        raise PositionError(
            f"a position is after a draw, after a claim or on a discard, not {A.PHASE_NAMES[state.phase]}"
        )
    p = state.player
    winds = {kind: letter for letter, kind in WIND_LETTERS.items()}

    def melds_of(q):
        out = []
        for code, kind in T.melds[q, : T.n_melds[q]]:
            kinds = [kind, kind + 1, kind + 2] if code == 4 else [kind] * MELD_SIZES[code]
            out.append(f"{MELD_TYPES[code]} {format_tile_list(kinds)}")
        return out

    def river_of(q):
        return " ".join(
            format_tile_list([int(k)]) + ("*" if c else "")
            for k, c in zip(T.river[q, : T.n_river[q]], T.claimed[q, : T.n_river[q]])
        )

    return Position(
        state.rules,
        hand=T.hand[p].astype(np.int64),
        melds=melds_of(p),
        opponent_melds=melds_of(1 - p),
        river=river_of(p),
        opponent_river=river_of(1 - p),
        declared=int(T.declared[p]),
        opponent_declared=int(T.declared[1 - p]),
        declared_at=int(sc[eng.S_DECLARED_AT + p]) if T.declared[p] else None,
        opponent_declared_at=int(sc[eng.S_DECLARED_AT + 1 - p]) if T.declared[1 - p] else None,
        tiles_left=int(sc[eng.S_BACK] - sc[eng.S_FRONT] + 1 - sc[eng.S_KEPT_BACK]),
        dealer=bool(sc[eng.S_DEALER] == p),
        streak=int(sc[eng.S_STREAK]),
        seat_wind=winds[int(T.seat[p])],
        prevailing_wind=winds[int(sc[eng.S_PREVAILING])],
        phase=phase,
        drawn=int(state.tile) if phase == "draw" and state.tile >= 0 else None,
        replacement=bool(sc[eng.S_REPLACEMENT]) if phase == "draw" and state.tile >= 0 else False,
        bid=int(sc[eng.S_BID]),
        stable_wall=bool(sc[eng.S_WALL] == eng.WALL_SEAT_STABLE),
        hand_number=int(sc[eng.S_HAND_NUMBER]),
        dealerships=int(sc[eng.S_DEALERSHIPS]),
        score=float(T.purse[eng.P_BALANCE0 + p]),
        opponent_score=float(T.purse[eng.P_BALANCE0 + 1 - p]),
    )


#: ``GameState.position()``: the step API's state gets its position here, the module that builds on it
GameState.position = position_of
