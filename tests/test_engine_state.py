"""The engine as a resumable state machine: stepping from Python, plain-Python policies,
legality kept by the engine, positions built from what one player sees."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit._jit import jit
from simkit.engine import actions as A
from simkit.play.matches import EngineError, simulate_matches
from simkit.play.position import Position, PositionError
from simkit.play.stepper import GameState
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy, random_policy
from simkit.rules import resolve_rules

GREEDY_PY = (greedy_policy.py_func, GREEDY_DEFAULTS)  # the built-in greedy's own code, run as Python


def _same_rows(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@pytest.mark.parametrize("rules,n", [("douque", 3), ("for_two", 2)])
def test_python_policies_play_the_games_of_the_same_code_jitted(rules, n):
    """greedy's and random's source run as plain Python (every decision asked from Python through
    the step API) give the rows of the jitted policies inside the engine, bit for bit."""
    _same_rows(
        simulate_matches(rules, (GREEDY_PY, random_policy.py_func), n, seed=4, check=True),
        simulate_matches(rules, ("greedy", "random"), n, seed=4, check=True),
    )


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["night_market", "duel"])
def test_python_policies_play_the_same_games_in_the_other_rule_sets(rules):
    _same_rows(
        simulate_matches(rules, (random_policy.py_func, GREEDY_PY), 2, seed=9, check=True),
        simulate_matches(rules, ("random", "greedy"), 2, seed=9, check=True),
    )


def test_stepping_a_match_by_hand_gives_the_engine_rows():
    rows = simulate_matches("douque", ("greedy", "greedy"), 1, seed=21)
    s = GameState.new_match("douque", seed=21, match=0, check=True)
    hands = []
    while True:
        while not s.over:
            view, legal = s.view(), s.legal
            assert legal.any() and view.phase == s.phase and view.tile == s.tile
            s.apply(greedy_policy(view, legal, GREEDY_DEFAULTS, s.policy_stream()))
        hands.append(s.row)
        if not s.next_hand():
            break
    assert s.match_over and len(hands) == len(rows["match"])
    for h, row in enumerate(hands):
        for name in ("winner", "win_tile", "hand_tai", "turns", "points", "balance_0", "dealer", "streak"):
            assert row[name] == rows[name][h], (h, name)


def test_the_legal_mask_a_policy_gets_is_a_copy():
    s = GameState.new_match("douque", seed=2)
    legal = s.legal
    legal[:] = True
    assert not s.legal.all()
    assert s.legal_actions() == [int(a) for a in np.flatnonzero(s.legal)]


def test_an_illegal_action_names_the_player_phase_tile_action_and_legal_actions():
    s = GameState.new_match("douque", seed=2)
    before = s.view()
    illegal = next(a for a in range(A.N_ACTIONS) if not s.legal[a])
    with pytest.raises(EngineError) as info:
        s.apply(illegal)
    text = str(info.value)
    assert f"player {s.player}" in text and A.PHASE_NAMES[s.phase] in text
    assert A.action_name(illegal) in text and "legal: " + A.action_name(s.legal_actions()[0]) in text
    np.testing.assert_array_equal(s.view().hand, before.hand)  # the state did not move
    with pytest.raises(simkit.SimkitError, match="integer code"):
        s.apply("discard 1m")


@jit(cache=False)
def _self_granted_win(view, legal, params, rng):  # pragma: no cover - compiled
    """Marks WIN legal in its own copy of the mask and claims it."""
    legal[A.WIN] = True
    return A.WIN


def test_a_policy_cannot_grant_itself_a_win():
    """The engine checks the action against its own mask (a policy writes only its copy): the
    policy that marks WIN legal in its copy and claims it with an incomplete hand is refused, jitted
    or in Python, check or not."""
    for policy in (_self_granted_win, _self_granted_win.py_func):
        for check in (False, True):
            with pytest.raises(EngineError, match=r"illegal action: player \d chose win \(after a draw"):
                simulate_matches("douque", (policy, "greedy"), 2, seed=1, check=check)


def test_copies_branch_independently():
    s = GameState.new_match("douque", seed=5)
    t = s.copy()
    a, b = s.legal_actions()[0], s.legal_actions()[-1]
    s.apply(a)
    t.apply(b)
    assert s.events() != t.events()
    u = GameState.new_match("douque", seed=5).apply(a)
    assert u.events() == s.events()


# ---------------------------------------------------------------------------------------------
# positions


def _mid_game(seed, decisions=12, rules="douque", player=0):
    """A greedy-vs-greedy match at a decision of ``player`` after a draw or on a discard, at least
    ``decisions`` into a hand, with no Skipped Win or Skipped Pung in force (those are not part of
    a position)."""
    s = GameState.new_match(rules, seed=seed)
    while True:
        n = 0
        while not s.over:
            T = s._T
            if (
                n >= decisions
                and s.player == player
                and s.phase in (A.PHASE_DRAW, A.PHASE_REACT)
                and not T.skip_win.any()
                and not T.skip_pung.any()
            ):
                return s
            s.apply(greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream()))
            n += 1
        if not s.next_hand():
            return None


@pytest.mark.parametrize(
    "rules,seed,player",
    [
        ("douque", 3, 0),
        ("douque", 4, 1),
        ("douque", 8, 0),
        pytest.param("night_market", 5, 1, marks=pytest.mark.slow),
        pytest.param("duel", 6, 0, marks=pytest.mark.slow),
        pytest.param("for_two", 7, 1, marks=pytest.mark.slow),
    ],
)
def test_a_position_with_its_true_completion_is_the_same_decision_and_plays_the_same_hand(rules, seed, player):
    s = _mid_game(seed, rules=rules, player=player)
    assert s is not None
    pos = s.position()
    opp, wall = s.unseen_completion()
    r = pos.state(opponent_hand=opp, wall=wall, check=True)
    assert (r.player, r.phase, r.tile) == (0, s.phase, s.tile)
    np.testing.assert_array_equal(r.legal, s.legal)
    for field in ("hand", "river", "opp_river", "melds", "opp_melds"):
        np.testing.assert_array_equal(getattr(r.view(), field), getattr(s.view(), field), err_msg=field)
    assert r.view().tiles_left == s.view().tiles_left
    # greedy draws nothing from its stream: the rest of the hand is the engine's own
    s.play_out("greedy", "greedy")
    r.play_out("greedy", "greedy")
    seat = {-1: -1, player: 0, 1 - player: 1}  # the viewer is player 0 of the position's state
    assert r.row["winner"] == seat[s.row["winner"]]
    for name in ("win_type", "win_tile", "hand_tai", "fan", "combination_points", "points", "tiles_left"):
        assert r.row[name] == s.row[name], name


def test_sampled_completions_are_reproducible_and_uniform():
    pos = Position(
        "douque",
        hand="123456789m1122z5z",
        river="9p 4z*",
        opponent_river="9p 6z",
        opponent_melds=["pung 444z"],
        dealer=True,
        phase="draw",
        drawn="5z",
    )
    a, b = pos.completion(7), pos.completion(7)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(pos.completion(8)[1], a[1])
    unseen = pos.unseen.astype(np.float64)
    assert unseen.sum() == len(a[0]) + len(a[1]) and np.array_equal(
        np.bincount(np.concatenate(a), minlength=34), unseen
    )
    # each unseen tile is equally likely to be in the opponent's hand: expected count per kind
    n = 3000
    held = np.zeros(34)
    for seed in range(n):
        held += np.bincount(pos.completion(seed)[0], minlength=34)
    kinds = unseen > 0
    expected = n * unseen[kinds] * len(a[0]) / unseen.sum()

    def chi2(counts):
        return float((((counts[kinds] - expected) ** 2) / expected).sum())

    assert chi2(held) < 60, chi2(held)  # at most 21 degrees of freedom: p < 1e-4 beyond 60
    # a planted bias (one kind dealt to the opponent a quarter more often) is caught
    biased = held.copy()
    biased[np.flatnonzero(kinds)[0]] *= 1.25
    assert chi2(biased) > 60


def test_a_position_state_is_a_decision_the_engine_can_play():
    pos = Position(
        "douque",
        hand="123456789m1122z",
        river="9p 5z",
        opponent_river="9p 6z 2z",
        dealer=False,
        phase="discard",
        seat_wind="W",
    )
    s = pos.state(seed=1, check=True)
    assert (s.player, s.phase, s.tile) == (0, A.PHASE_REACT, simkit.tiles.kind_of("2z"))
    assert [A.action_name(a) for a in s.legal_actions()] == ["win", "pung", "pass"]
    s.apply(A.WIN)
    assert s.over and s.row["winner"] == 0 and s.row["win_type"] == 2
    assert Position.from_string(str(pos)) == pos
    again = Position.from_string(
        "douque: hand 123456789m1122z; river 9p 5z; opponent_river 9p 6z 2z; seat_wind W; phase discard"
    )
    assert again == pos


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(hand="123456789m112z"), "hand has 12 tiles"),
        (dict(hand="123456789m11111z"), "5 copies of 1z"),
        (
            dict(hand="123456789m1122z5z", drawn="5z", opponent_melds=["kong 5555z"], river="5z*"),
            "more than 4 copies seen of 5z",
        ),
        (dict(hand="123456789m1122z5z", drawn="5z", river="1m 2m 3m 4m 5m"), "rivers do not alternate"),
        (dict(hand="123456789m1122z", phase="discard", opponent_river="9p"), "fewer tiles than dealt"),
        (dict(hand="123456789m1122z", phase="discard", dealer=False), "opponent_river is empty"),
        (dict(hand="123456789m1122z5z", drawn="5z", tiles_left=3), "tiles_left is 3"),
        (dict(hand="123456789m1122z5z", drawn="6z"), "drawn must be one tile of the hand"),
        (dict(hand="123456789m1122z5z", phase="react"), "phase must be one of"),
        (dict(hand="123456789m1122z5z", declared=1), "locked"),
        (dict(hand="123456789m1122z5z", drawn="5z", seat_wind="S"), "seat_wind must be E or W"),
        (dict(hand="123456789m1122z5z", drawn="5z", opponent_melds=["pung 444z"]), "are marked claimed"),
        (dict(hand="12345678m1122z5z", melds=["pung 999m"], drawn="5z"), "hand has 13 tiles"),
        (dict(rules="night_market", hand="123456789m1122z5z", declared=1), "declared must be one of"),
        (dict(rules="for_two", hand="123456789m1122z5z"), "bid must be one of"),
        (dict(hand="123456789s1122z5z"), "not a tile of rule set"),
    ],
)
def test_impossible_positions_are_one_line_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        Position(**kwargs)
    assert isinstance(info.value, PositionError) and "\n" not in str(info.value)


def test_a_given_completion_must_be_the_unseen_tiles():
    pos = Position("douque", hand="123456789m1122z5z", drawn="5z")
    opp, wall = pos.completion(0)
    with pytest.raises(PositionError, match="exactly the unseen tiles"):
        pos.state(opponent_hand=opp, wall=wall[::-1][1:].tolist() + [int(opp[0])])
    with pytest.raises(PositionError, match="both"):
        pos.state(opponent_hand=opp)
    s = pos.state(opponent_hand=opp, wall=wall)
    np.testing.assert_array_equal(s.unseen_completion()[1], wall)


def test_the_step_function_runs_from_numba():
    """A jitted loop over the engine instance's ``step`` plays the hand the Python step API plays
    with the same choices (the first legal action at every decision)."""
    from simkit.engine import table as G
    from simkit.engine.rulesets import engine_spec
    from simkit.hand.tables import hand_tables
    from simkit.play.matches import engine_for

    spec = engine_spec(resolve_rules("douque"))
    engine = engine_for(spec)
    step = engine.step

    @jit(cache=False)
    def first_legal_to_the_end(T, t, game, sp):  # pragma: no cover - compiled
        n = 0
        while T.sc[G.S_PHASE] != A.PHASE_OVER:
            a = 0
            while not T.legal[a]:
                a += 1
            step(T, t, game, sp, a)
            n += 1
        return n

    by_numba = GameState.new_match(spec, seed=6)
    by_python = by_numba.copy()
    n = first_legal_to_the_end(by_numba.table, hand_tables(spec.rules), spec.game, spec.sp)
    m = 0
    while not by_python.over:
        by_python.apply(by_python.legal_actions()[0])
        m += 1
    assert n == m > 0
    assert by_numba.events() == by_python.events()
    for name in ("winner", "win_type", "points", "turns", "score_0", "balance_1"):
        assert by_numba.row[name] == by_python.row[name], name


def _round_trip_fields(pos: Position) -> dict:
    """Every field of a position as it reaches the engine: the rule set with its options, the
    parsed tiles, melds and rivers, and each scalar field."""
    d = pos._derived
    return dict(
        rules=d["rules"],
        hand=d["hand"].tolist(),
        melds=[[str(m) for m in side] for side in d["melds"]],
        rivers=[(list(k), list(c)) for k, c in d["rivers"]],
        tiles_left=d["tiles_left"],
        drawn=d["drawn"],
        declared_at=d["declared_at"],
        **{
            name: getattr(pos, name)
            for name in (
                "declared",
                "opponent_declared",
                "dealer",
                "streak",
                "seat_wind",
                "prevailing_wind",
                "phase",
                "replacement",
                "bid",
                "stable_wall",
                "hand_number",
                "dealerships",
                "score",
                "opponent_score",
            )
        },
    )


@pytest.mark.parametrize(
    "rules,options,seed",
    [
        ("douque", dict(migi_tai=4, tai_value=12.5, skipped_pung="turn"), 3),
        ("duel", dict(fee=0.1, chips=100.5), 6),
        pytest.param("night_market", dict(fan_value=37.25, match_hands=5), 5, marks=pytest.mark.slow),
        pytest.param("for_two", dict(combination_points=(6, 4, 3, 2, 1)), 7, marks=pytest.mark.slow),
    ],
)
def test_a_step_api_position_written_to_text_reads_back_field_for_field(rules, options, seed):
    """Every position of a greedy match (the rule set with non-default options, hands after the
    first, scores, declarations) gives a text that reads back to the same position, field for
    field, and to the same engine state; the position carries the state's place in the match."""
    s = GameState.new_match(simkit.get_rules(rules, **options), seed=seed)
    seen = dict(later_hand=False, score=False, declared_at=False)
    n = 0
    while True:
        while not s.over:
            if s.phase in (A.PHASE_DRAW, A.PHASE_PUNG, A.PHASE_REACT):
                pos = s.position()
                text = str(pos)
                back = Position.from_string(text)
                assert _round_trip_fields(back) == _round_trip_fields(pos), text
                assert str(back) == text and back == pos
                sc, p = s._T.sc, s.player
                assert pos.hand_number == sc[simkit.engine.table.S_HAND_NUMBER] and pos.dealerships == int(
                    sc[simkit.engine.table.S_DEALERSHIPS]
                )
                assert (pos.score, pos.opponent_score) == tuple(
                    float(s._T.purse[simkit.engine.table.P_BALANCE0 + q]) for q in (p, 1 - p)
                )
                seen["later_hand"] |= pos.hand_number > 0
                seen["score"] |= pos.score != 0
                seen["declared_at"] |= pos.declared_at is not None or pos.opponent_declared_at is not None
                if n % 25 == 0:  # the engine state of the text is the position's own
                    a, b = pos.state(seed=n), back.state(seed=n)
                    for name in ("hand", "river", "claimed", "melds", "wall", "sc", "purse"):
                        np.testing.assert_array_equal(getattr(a._T, name), getattr(b._T, name), err_msg=name)
                n += 1
            s.apply(greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream()))
        if not s.next_hand() or n > 400:
            break
    assert seen["later_hand"] and seen["score"], seen
    if rules == "douque":
        assert seen["declared_at"]


def test_position_text_carries_options_and_exact_numbers():
    rules = simkit.get_rules("duel", fee=0.1, chips=None, multiple_cap=64)
    pos = Position(rules, hand=POSITION_HAND, drawn="5z", score=1234567.125, opponent_score=-0.1)
    text = str(pos)
    assert text.startswith("duel: option fee=0.1; option multiple_cap=64;")
    back = Position.from_string(text)
    assert back._derived["rules"] == rules and back.score == 1234567.125 and back.opponent_score == -0.1
    assert Position(simkit.get_rules("duel"), hand=POSITION_HAND, drawn="5z") != pos.__class__(
        simkit.get_rules("duel", fee=0.1), hand=POSITION_HAND, drawn="5z"
    )


POSITION_HAND = "123456789m1122z5z"
