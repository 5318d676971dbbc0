"""for_two as its source describes it: the bid before the deal and the ready players' end phase.

Two rule options (``simkit.rules.for_two``): ``bid_timing`` ("before_deal", the source's order and
the default; "after_deal", the bid and the follow after the deal) and ``end_phase`` (the source's end
phase with jokers read two ways: "ready_pick_last_8", one pick each and the default, and
"ready_draw_last_8", picks in turn until a win; "plain_draw", a draw at the last 8 tiles). Each is
tested every way: the views of the bid and the follow, the built-ins' bid without tiles, and every
hand's end against a Python referee (:func:`referee`) that reads only the hand's wall, its events,
the reference hand and scoring modules (``tests/reference.py``,
``tests/reference_scoring_for_two.py``) and the jokers' slots drawn from the wall's stream by a
plain-Python copy of the engine's random streams (:class:`Stream`).
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from engine_util import PASSIVE, fallback, holding, scripted_policy
from reference import ref_waits
from reference_scoring_for_two import ref_score
from test_exact import LATE

import simkit
from simkit._jit import jit
from simkit.engine import actions as A
from simkit.engine import table as eng
from simkit.engine.end_phase import joker_slots
from simkit.engine.rng import bounded, next_u64
from simkit.errors import RulesError
from simkit.play.exact import ExactError, exact
from simkit.play.matches import play_hand, replay, simulate_matches
from simkit.play.race import RaceError, race
from simkit.play.stepper import GameState
from simkit.policies.basic import BLIND_BID, BLIND_FOLD_AT
from simkit.policies.spec import as_policy

KEPT_BACK = 8
JOKERS = 2
MELD_NAMES = {"pung": "pung", "kong": "kong", "concealed kong": "concealed_kong"}


def rules(bid_timing="before_deal", end_phase="ready_pick_last_8"):
    return simkit.get_rules("for_two", bid_timing=bid_timing, end_phase=end_phase)


# ---------------------------------------------------------------------------------------------
# the options


def test_the_source_order_and_end_phase_are_the_defaults_and_both_ways_are_options():
    o = simkit.get_rules("for_two").options
    assert (o.bid_timing, o.end_phase) == ("before_deal", "ready_pick_last_8")
    o = rules("after_deal", "plain_draw").options
    assert (o.bid_timing, o.end_phase) == ("after_deal", "plain_draw")
    with pytest.raises(RulesError, match="bid_timing"):
        simkit.get_rules("for_two", bid_timing="later")
    with pytest.raises(RulesError, match="end_phase"):
        simkit.get_rules("for_two", end_phase="jokers")


def test_a_record_without_the_options_was_played_after_the_deal_with_a_plain_draw():
    from simkit.datasets import rules_from_dict

    record = simkit.get_rules("for_two").to_dict()
    for key in ("bid_timing", "end_phase"):
        del record["options"][key]
    o = rules_from_dict(record).options
    assert (o.bid_timing, o.end_phase) == ("after_deal", "plain_draw")


def test_a_run_records_both_options_in_its_manifest(tmp_path):
    from simkit.datasets import MANIFEST, rules_from_dict

    for r in (rules(), rules("after_deal", "plain_draw")):
        out = tmp_path / r.options.bid_timing
        simkit.simulate(out, rules=r, policies=("random", "random"), matches=2, seed=1)
        manifest = json.loads((out / MANIFEST).read_text())
        found = [v for v in _dicts(manifest) if v.get("name") == "for_two" and "options" in v]
        assert found, "the manifest names the rule set with its options"
        assert found[0]["options"]["bid_timing"] == r.options.bid_timing
        assert found[0]["options"]["end_phase"] == r.options.end_phase
        assert rules_from_dict(found[0]) == r


def _dicts(value):
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _dicts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _dicts(v)


# ---------------------------------------------------------------------------------------------
# the bid before the deal


@pytest.mark.parametrize("match", range(6))
def test_before_the_deal_the_bid_and_follow_views_hold_no_tiles(match):
    state = GameState.new_match(rules(), seed=3, match=match, check=True)
    dealer = state.player
    assert state.phase == A.PHASE_BID
    assert state.view().hand.sum() == 0 and state.view(1 - dealer).hand.sum() == 0
    state.apply(A.BID + 2)
    assert state.phase == A.PHASE_FOLLOW and state.player == 1 - dealer and state.view().bid == 3
    assert state.view().hand.sum() == 0 and state.view(dealer).hand.sum() == 0
    state.apply(A.FOLLOW)
    T = state.table
    dealt = eng.dealt_hands(T.wall, dealer, int(T.sc[eng.S_WALL]))
    assert state.phase == A.PHASE_DRAW and state.player == dealer
    np.testing.assert_array_equal(T.hand, dealt)  # the tiles the deal set aside for each seat
    assert T.hand[dealer].sum() == 14 and T.hand[1 - dealer].sum() == 13


@pytest.mark.parametrize("match", range(3))
def test_after_the_deal_the_bid_and_follow_see_the_dealt_tiles_of_the_same_wall(match):
    blind = GameState.new_match(rules(), seed=3, match=match, check=True)
    seen = GameState.new_match(rules("after_deal"), seed=3, match=match, check=True)
    dealer = seen.player
    np.testing.assert_array_equal(blind.table.wall, seen.table.wall)
    assert seen.view().hand.sum() == 14
    seen.apply(A.BID)
    assert seen.view().hand.sum() == 13
    blind.apply(A.BID)
    blind.apply(A.FOLLOW)
    seen.apply(A.FOLLOW)
    np.testing.assert_array_equal(blind.table.hand, seen.table.hand)
    assert blind.player == seen.player == dealer


def test_a_fold_before_the_deal_ends_the_hand_with_no_tiles_dealt():
    state = GameState.new_match(rules(), seed=3, match=0, check=True)
    state.apply(A.BID + 1)
    state.apply(A.FOLD)
    assert state.over and state.row["win_type"] == eng.WIN_FOLD
    assert state.table.hand.sum() == 0


@pytest.mark.parametrize("name", ["greedy", "value"])
def test_the_built_ins_bid_by_their_blind_parameters_without_tiles(name):
    default = as_policy(name)
    rows = simulate_matches(rules(), (default, default), 8, seed=2, check=True)
    assert (rows["bid"] == BLIND_BID).all()
    assert ((rows["win_type"] == eng.WIN_FOLD) == (BLIND_BID >= BLIND_FOLD_AT)).all()
    three = default.with_params(blind_bid=3, blind_fold_at=4)
    folder = default.with_params(blind_bid=1, blind_fold_at=3)
    rows = simulate_matches(rules(), (three, folder), 8, seed=2, check=True)
    dealer0 = rows["dealer"] == 0
    assert (rows["bid"][dealer0] == 3).all() and (rows["win_type"][dealer0] == eng.WIN_FOLD).all()
    assert (rows["bid"][~dealer0] == 1).all() and (rows["win_type"][~dealer0] != eng.WIN_FOLD).all()
    seen = simulate_matches(rules("after_deal"), (default, default), 8, seed=2, check=True)
    assert len(np.unique(seen["bid"])) > 1  # after the deal they bid by their tiles


# ---------------------------------------------------------------------------------------------
# the jokers' slots, from the wall's stream: the engine's random streams in plain Python

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Stream:
    """Stream ``(seed, a, b)`` as docs and ``simkit.engine.rng`` define it (SplitMix64; Lemire's
    bounded integers), written out again in Python."""

    def __init__(self, seed, a, b):
        k = _mix64((seed + _GOLDEN) & _MASK)
        k = _mix64(k ^ _mix64((a + 2 * _GOLDEN) & _MASK))
        self.state = _mix64(k ^ _mix64((b + 3 * _GOLDEN) & _MASK))

    def next(self):
        self.state = (self.state + _GOLDEN) & _MASK
        return _mix64(self.state)

    def bounded(self, n):
        m = (self.next() >> 32) * n
        if m & 0xFFFFFFFF < n:
            threshold = ((1 << 32) - n) % n
            while m & 0xFFFFFFFF < threshold:
                m = (self.next() >> 32) * n
        return m >> 32


def ref_joker_slots(stream) -> int:
    """JOKERS of the KEPT_BACK slots: each draw takes the r-th slot still free (bit k: slot k)."""
    free = list(range(KEPT_BACK))
    slots = 0
    for j in range(JOKERS):
        slots |= 1 << free.pop(stream.bounded(KEPT_BACK - j))
    return slots


def deal_jokers(seed, match, hand, wall=None) -> int:
    """The jokers of hand ``hand`` of match ``match``: its wall's stream ``(seed, match, 4 hand)``
    after the shuffle of the 136 tiles and the three dice. ``wall`` (optional): the hand's wall as
    dealt with stable walls, checked against that shuffle."""
    stream = Stream(seed, match, 4 * hand)
    tiles = [k for k in range(34) for _ in range(4)]
    for i in range(len(tiles) - 1):
        j = i + stream.bounded(len(tiles) - i)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    if wall is not None:
        assert list(wall) == tiles
    for _ in range(3):
        stream.bounded(6)
    return ref_joker_slots(stream)


def wall_jokers(seed) -> int:
    """The jokers of a hand from a given wall (:func:`simkit.play.matches.play_hand`): stream
    ``(seed, 0, 0)``."""
    return ref_joker_slots(Stream(seed, 0, 0))


def picks_of(record) -> list:
    """The end phase's picks of a hand: (player, tile, joker)."""
    return [(p, x, extra == 2) for name, p, x, extra in record.events if name == "draw" and extra in (1, 2)]


# ---------------------------------------------------------------------------------------------
# the end phase: a referee


def referee(record, r, design=None, jokers=None) -> str:
    """Check a for_two hand's events and row against the rules; returns how it ended: "win" (before
    the end phase, or a fold), "drawn", "end win" (a waited tile picked in the end phase), "joker".

    Replays the events from the dealt wall (every draw from the front of the wall in order, kong
    replacements from the back) and checks: no ordinary draw takes a kept-back tile; with
    ``end_phase="plain_draw"`` nothing is picked and a hand that uses up the drawable tiles without a
    win is drawn; otherwise, once they are used up, the ready players (by the reference's waits)
    pick the next tiles of the wall and only they do, the one due to draw first: once each
    (``"ready_pick_last_8"``), or in turn until a win or the 8 tiles are gone
    (``"ready_draw_last_8"``); the ``k``-th pick is a joker exactly when bit ``k`` of ``jokers``
    (the hand's slots, :func:`deal_jokers` / :func:`wall_jokers`) is set; a waited tile wins
    (self-drawn), a joker wins on the wait that scores most (self-drawn, ties: the lowest kind), any
    other tile is set aside; when nobody wins the hand is drawn. Every win's payment is the
    reference's ``bid x stake x points`` (x the self-draw multiplier). ``design``: the wall design
    the hand was played with (default: the record's; a hand played from a given wall,
    :func:`simkit.play.matches.play_hand`, is dealt as ``WALL_DEALER_FIRST``).
    """
    row, events, wall = record.row, record.events, np.asarray(record.wall)
    dealer = int(row["dealer"])
    design = record.wall_design if design is None else design
    hands = [np.array(h, np.int64) for h in eng.dealt_hands(wall, dealer, design)]
    melds = [[], []]
    drawable = len(wall) - 27 - KEPT_BACK
    stable = design == eng.WALL_SEAT_STABLE
    # the next tile of each source: a shared wall's front and tail, or (stable walls) each seat's end
    if stable:
        ends = [14 if dealer == 0 else 13, len(wall) - (14 if dealer == 1 else 13) - 1]
    else:
        ends = [27, len(wall) - 1]
    drawn = 0

    def take(p, replacement):
        side = p if stable else (1 if replacement else 0)
        x = wall[ends[side]]
        ends[side] += 1 if side == 0 else -1
        return x

    last_discarder = None
    i = 0
    while i < len(events):
        name, p, x, extra = events[i]
        if name == "draw" and extra != 0:
            break  # an end-phase pick
        if name in ("draw", "replacement"):
            assert drawn < drawable, "an ordinary draw took a kept-back tile"
            assert x == take(p, name == "replacement")
            drawn += 1
            hands[p][x] += 1
        elif name == "discard":
            hands[p][x] -= 1
            last_discarder = p
        elif name in ("pung", "kong"):
            hands[p][x] -= 2 if name == "pung" else 3
            melds[p].append([MELD_NAMES[name], x])
        elif name == "concealed kong":
            hands[p][x] -= 4
            melds[p].append(["concealed_kong", x])
        elif name == "added kong":
            hands[p][x] -= 1
            next(m for m in melds[p] if m == ["pung", x])[0] = "added_kong"
        elif name == "chow":
            for k in (x, x + 1, x + 2):
                hands[p][k] -= k != extra
            melds[p].append(["chow", x])
        elif name == "win":
            if extra == eng.WIN_DISCARD:
                hands[p][x] += 1
            _check_payment(row, r, hands[p], x, melds[p], extra == eng.WIN_SELF, p)
            return "win"
        elif name == "fold":
            return "win"
        elif name == "exhaustive draw":
            assert drawn == drawable and int(row["winner"]) == -1
            if r.options.end_phase != "plain_draw":
                assert not any(_waits(hands[q], melds[q]) for q in (0, 1)), "a ready player did not pick"
            return "drawn"
        i += 1
    assert r.options.end_phase != "plain_draw", "a pick with end_phase='plain_draw'"
    assert drawn == drawable and last_discarder is not None
    assert jokers is not None and bin(jokers).count("1") == JOKERS and jokers < 1 << KEPT_BACK
    first = 1 - last_discarder
    waits = {q: _waits(hands[q], melds[q]) for q in (0, 1)}
    ready = [q for q in (first, 1 - first) if waits[q]]
    picks = len(ready) if r.options.end_phase == "ready_pick_last_8" else KEPT_BACK if ready else 0
    for k in range(picks):
        q = ready[k % len(ready)]
        name, p, x, extra = events[i]
        assert (name, p) == ("draw", q) and x == take(q, False), events[i]
        assert extra == (2 if jokers >> k & 1 else 1), (k, jokers, events[i])
        i += 1
        if extra == 2:  # a joker: its tile set aside, a win on the wait that scores most
            assert events[i] == ("discard", q, x, 0)
            i += 1
            scored = {k: _score(hands[q], k, melds[q], row, r) for k in sorted(waits[q])}
            best = max(scored, key=lambda k: (scored[k]["points"], -k))
            assert events[i] == ("win", q, best, eng.WIN_SELF)
            hands[q][best] += 1
            _check_payment(row, r, hands[q], best, melds[q], True, q)
            assert i == len(events) - 1
            return "joker"
        if x in waits[q]:
            assert events[i] == ("win", q, x, eng.WIN_SELF)
            hands[q][x] += 1
            _check_payment(row, r, hands[q], x, melds[q], True, q)
            return "end win"
        assert events[i] == ("discard", q, x, 0)
        i += 1
    assert events[i][0] == "exhaustive draw" and int(row["winner"]) == -1
    return "drawn"


def _waits(hand, melds) -> set:
    meld_counts = [0] * 34
    for typ, k in melds:
        if typ == "chow":
            for d in range(3):
                meld_counts[k + d] += 1
        else:
            meld_counts[k] += 3 if typ == "pung" else 4
    return ref_waits(list(hand), len(melds), meld_counts)


def _score(hand, k, melds, row, r):
    c = np.array(hand)
    c[k] += 1
    return ref_score(c, k, [tuple(m) for m in melds], self_drawn=True, bid=int(row["bid"]), options=r.options.__dict__)


def _check_payment(row, r, hand, x, melds, self_drawn, p):
    ref = ref_score(
        hand, x, [tuple(m) for m in melds], self_drawn=self_drawn, bid=int(row["bid"]), options=r.options.__dict__
    )
    assert (int(row["winner"]), int(row["win_tile"])) == (p, x)
    assert int(row["win_type"]) == (eng.WIN_SELF if self_drawn else int(row["win_type"]))
    assert float(row["points"]) == pytest.approx(ref["points"])
    assert float(row["combination_points"]) == pytest.approx(ref["combination_points"])


def ready_walls(n, seed):
    """Walls dealing both players a ready hand (a random complete hand less one tile; the dealer's
    14th tile a 1m, which the passive dealer discards first, while neither ready hand holds one),
    as :func:`simkit.play.matches.play_hand` deals a wall: the dealer wall[0:14], the opponent
    wall[14:27], draws from wall[27] on, replacements from the end."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        left = {k: 4 for k in range(34)}
        left[0] = 3  # the dealer's extra 1m
        hands = []
        for _ in range(2):
            hand = _complete_hand(rng, left)
            if hand is None:
                break
            out_tile = rng.choice(hand)
            hand.remove(out_tile)
            left[out_tile] += 1
            hands.append(hand)
        if len(hands) < 2:
            continue
        rest = [k for k in range(34) for _ in range(left[k])]
        rng.shuffle(rest)
        out.append(np.array([0] + hands[0] + hands[1] + rest, np.int8))
    return out


def _complete_hand(rng, left):
    """Four melds (pungs or chows, never of 1m) and a pair, taken from ``left``; None if it runs dry."""
    hand = []
    for shape in ["pair"] + ["meld"] * 4:
        for _ in range(50):
            k = rng.randrange(1, 34)
            if shape == "pair" or rng.random() < 0.4:
                need = [k] * (2 if shape == "pair" else 3)
            elif k < 27 and k % 9 <= 6:
                need = [k, k + 1, k + 2]
            else:
                continue
            if all(left[t] >= need.count(t) for t in set(need)):
                for t in need:
                    left[t] -= 1
                hand += need
                break
        else:
            return None
    return hand


@pytest.mark.parametrize("bid_timing", ["before_deal", "after_deal"])
def test_the_end_phase_of_ready_hands_matches_the_referee(bid_timing):
    """Passive players (never win, never claim, discard what they draw) keep their dealt ready hands
    to the end of the wall, so every hand reaches the end phase with both players ready."""
    r = rules(bid_timing)
    ends = {}
    passive = fallback(PASSIVE)
    for i, wall in enumerate(ready_walls(60, seed=7)):
        record = play_hand(wall, rules=r, policies=(passive, passive), seed=i, dealer=i % 2)
        end = referee(record, r, eng.WALL_DEALER_FIRST, wall_jokers(i))
        ends[end] = ends.get(end, 0) + 1
        assert len(picks_of(record)) <= 2
    assert set(ends) <= {"joker", "end win", "drawn"}
    assert ends.get("joker", 0) >= 5 and ends.get("end win", 0) >= 5 and ends.get("drawn", 0) >= 1, ends


@pytest.mark.parametrize("bid_timing", ["before_deal", "after_deal"])
def test_the_other_reading_ready_players_draw_on_until_one_wins(bid_timing):
    """``end_phase="ready_draw_last_8"``: the ready players pick in turn until one wins or the 8 tiles
    are gone, so a hand is drawn only when its 8 picks all miss; with one player ready (the
    opponent's 13 honors wait on nothing), that player picks alone, up to 8 times."""
    r = rules(bid_timing, "ready_draw_last_8")
    passive = fallback(PASSIVE)
    ends, lengths = {}, set()
    for i, wall in enumerate(ready_walls(60, seed=7)):
        record = play_hand(wall, rules=r, policies=(passive, passive), seed=i, dealer=i % 2)
        end = referee(record, r, eng.WALL_DEALER_FIRST, wall_jokers(i))
        ends[end] = ends.get(end, 0) + 1
        picks = picks_of(record)
        lengths.add(len(picks))
        assert all(picks[k][0] != picks[k + 1][0] for k in range(len(picks) - 1))  # both ready: in turn
    assert ends.get("joker", 0) >= 5 and ends.get("end win", 0) >= 5, ends
    assert max(lengths) > 2  # more than one pick each
    tiles = simkit.tiles.parse_tile_list
    dealer = tiles("1m 123p 456p 789p 111s 3s", r)
    other = tiles("11z 22z 33z 44z 55z 66z 7z", r)
    rest = [k for k in range(34) for _ in range(4 - (dealer + other).count(k))]
    random.Random(4).shuffle(rest)
    wall = np.array(dealer + other + rest, np.int8)
    alone = set()
    for seed in range(40):
        record = play_hand(wall, rules=r, policies=(passive, passive), seed=seed)
        referee(record, r, eng.WALL_DEALER_FIRST, wall_jokers(seed))
        picks = picks_of(record)
        assert {p for p, _, _ in picks} == {0}  # the player who is not ready never picks
        alone.add(len(picks))
    assert max(alone) > 2, alone


def test_with_a_plain_draw_ready_hands_are_drawn_at_the_last_8_tiles():
    r = rules(end_phase="plain_draw")
    passive = fallback(PASSIVE)
    for i, wall in enumerate(ready_walls(10, seed=8)):
        record = play_hand(wall, rules=r, policies=(passive, passive), seed=i)
        assert referee(record, r, eng.WALL_DEALER_FIRST) == "drawn"
        assert int(record.row["tiles_left"]) == 0


@pytest.mark.parametrize(
    "bid_timing,end_phase",
    [
        ("before_deal", "ready_pick_last_8"),
        ("after_deal", "ready_pick_last_8"),
        ("before_deal", "ready_draw_last_8"),
        ("before_deal", "plain_draw"),
        ("after_deal", "plain_draw"),
    ],
)
def test_random_matches_match_the_referee(bid_timing, end_phase):
    """Random players claim and make kongs at random: every hand that used up the drawable tiles,
    and some that ended earlier, replayed and refereed with the jokers of its wall's stream
    (checked runs: the engine's invariants hold)."""
    r = rules(bid_timing, end_phase)
    random_pair = (fallback(1), fallback(1))
    rows = simulate_matches(r, random_pair, 6, seed=5, check=True)
    played = np.flatnonzero(rows["win_type"] != eng.WIN_FOLD)
    late = played[rows["tiles_left"][played] == 0][:25]
    early = played[rows["tiles_left"][played] > 0][:5]
    ends = set()
    for j in np.concatenate([late, early]):
        m, h = int(rows["match"][j]), int(rows["hand"][j])
        record = replay(5, match=m, hand=h, rules=r, policies=random_pair)
        assert record.wall_design == eng.WALL_SEAT_STABLE
        ends.add(referee(record, r, jokers=deal_jokers(5, m, h, record.wall)))
    assert "drawn" in ends and "win" in ends


def test_the_jokers_are_placed_at_the_deal_from_the_walls_stream():
    """Every dealt hand holds its joker slots from the start (the engine's state, ``S_END_JOKERS``):
    those the wall's stream gives after its shuffle and dice, whoever plays; none without an end
    phase; and the slots are uniform over the 28 pairs of the 8."""
    for end_phase in ("ready_pick_last_8", "ready_draw_last_8", "plain_draw"):
        for match in range(4):
            state = GameState.new_match(rules(end_phase=end_phase), seed=9, match=match)
            for hand in range(3):
                T = state.table
                expected = deal_jokers(9, match, hand, T.wall) if end_phase != "plain_draw" else 0
                assert int(T.sc[eng.S_END_JOKERS]) == expected
                while not state.over:
                    state.apply(int(np.flatnonzero(state.legal)[0]))
                state.next_hand()
    stream = np.zeros(1, np.uint64)
    counts = {}
    for i in range(2800):
        stream[0] = simkit.engine.rng.stream_key(3, i, 0)
        slots = int(joker_slots(stream, KEPT_BACK, JOKERS))
        if i < 50:
            assert slots == ref_joker_slots(Stream(3, i, 0))
        counts[slots] = counts.get(slots, 0) + 1
    assert len(counts) == 28 and all(bin(s).count("1") == 2 and s < 256 for s in counts)
    chi2 = sum((c - 100) ** 2 / 100 for c in counts.values())
    assert chi2 < 60, chi2  # 27 degrees of freedom: p < 1e-3 above 55


@jit
def noisy_policy(view, legal, params, rng):
    """The scripted fallback's action (``params``, as :func:`engine_util.fallback`) after drawing
    1 to 4 numbers from its own stream: the same play, another use of the stream."""
    for _ in range(1 + bounded(rng, 4)):
        next_u64(rng)
    return scripted_policy(view, legal, params, rng)


@pytest.mark.parametrize("end_phase", ["ready_pick_last_8", "ready_draw_last_8"])
def test_no_policy_stream_decides_a_joker(end_phase):
    """A policy that reads its stream cannot predict its joker: the first pick's player drew no
    number from their stream, so a copy of it, asked as the engine once asked it (a joker with
    probability 2 / 8), would foretell the pick if the engine drew the joker there; it does not.
    And players that draw extra numbers from their streams, playing the same actions, see the same
    jokers and the same end of every hand."""
    r = rules(end_phase=end_phase)
    passive, noisy = fallback(PASSIVE), (noisy_policy, fallback(PASSIVE)[1])
    agree = n = 0
    for i, wall in enumerate(ready_walls(60, seed=7)):
        record = play_hand(wall, rules=r, policies=(passive, passive), seed=i, dealer=i % 2)
        q, _, joker = picks_of(record)[0]
        agree += joker == (Stream(i, 0, 1 + q).bounded(KEPT_BACK) < JOKERS)
        n += 1
        other = play_hand(wall, rules=r, policies=(noisy, noisy), seed=i, dealer=i % 2)
        assert other.events == record.events
        assert {k: v for k, v in other.row.items() if k not in ("win_hand", "win_melds")} == {
            k: v for k, v in record.row.items() if k not in ("win_hand", "win_melds")
        }
    assert agree < n - 10, (agree, n)  # by chance about 5 in 8 agree


def test_the_two_copies_of_a_duplicate_deal_share_the_jokers():
    """A policy and the same policy drawing extra numbers from its stream (the same actions): in a
    duplicate run the two copies are the same games seat for seat, jokers included, so every row of
    copy 1 is the row of copy 0; many of their hands end in the end phase."""
    plain, noisy = holding(), holding(noisy=True)
    rows = simulate_matches(rules(), (plain, noisy), 12, seed=4, duplicate=True, check=True)
    first, second = rows["copy"] == 0, rows["copy"] == 1
    assert first.sum() == second.sum()
    for name, column in rows.items():
        if name != "copy":
            np.testing.assert_array_equal(column[first], column[second], err_msg=name)
    end_wins = (rows["tiles_left"][first] == 0) & (rows["win_type"][first] == eng.WIN_SELF)
    assert end_wins.sum() > 20, end_wins.sum()


def test_a_joker_stands_for_the_wait_that_scores_most():
    """123p 456p 789p 111s 3s waits on 2s (123s + 11s: four chows, 1 point) and 3s (111s + 33s: a
    pung and three chows, 2 points): a joker is a 3s, and pays as a self-draw, 1 x 2 points x 2.
    The opponent's 13 honors are not ready, so the dealer alone picks; the first seed whose pick is
    a joker is kept (a pick is a joker with probability 2 / 8)."""
    r = rules()
    tiles = simkit.tiles.parse_tile_list
    dealer = tiles("1m 123p 456p 789p 111s 3s", r)
    other = tiles("11z 22z 33z 44z 55z 66z 7z", r)
    left = {k: 4 for k in range(34)}
    for k in dealer + other:
        left[k] -= 1
    rest = [k for k in range(34) for _ in range(left[k])]
    random.Random(4).shuffle(rest)
    wall = np.array(dealer + other + rest, np.int8)
    passive = fallback(PASSIVE)
    for seed in range(200):
        record = play_hand(wall, rules=r, policies=(passive, passive), seed=seed)
        if referee(record, r, eng.WALL_DEALER_FIRST, wall_jokers(seed)) == "joker":
            row = record.row
            assert (int(row["winner"]), int(row["win_type"]), int(row["win_tile"])) == (
                0,
                eng.WIN_SELF,
                simkit.tiles.kind_of("3s"),
            )
            assert float(row["combination_points"]) == 2 and float(row["points"]) == 1 * 1 * 2 * 2
            assert record.row["win_hand"][simkit.tiles.kind_of("3s")] == 2
            return
    pytest.fail("no joker in 200 picks")


@pytest.mark.parametrize("end_phase", ["ready_pick_last_8", "ready_draw_last_8"])
def test_exact_values_and_races_refuse_either_end_phase(end_phase):
    """Both readings hide jokers among the kept-back tiles, which the exact enumeration and the race
    do not deal with: each refuses in one line naming the option."""
    pos = simkit.Position.from_string(LATE["for_two"], rules=rules(end_phase=end_phase))
    for call, error in ((exact, ExactError), (race, RaceError)):
        with pytest.raises(error, match=f"end_phase='{end_phase}'\\) hides jokers at random among the kept-back"):
            call(pos)
