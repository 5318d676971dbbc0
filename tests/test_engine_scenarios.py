"""Hand-built douque scenarios for the rare rules of douque.md §2-§6 (and §4's streak cap, §8's dealer tai).

Every test deals a chosen wall (``build_wall``: dealer 14, other 13, front draws in order, kong
replacements from the tail) and drives both players with scripted policies (``script``), then
asserts on the hand's row, events and scored items. Player 0 is the dealer unless stated.

Legal-action checks use the engine's own guard: a scripted action that is not legal stops the hand
and ``play_hand`` raises ("a policy returned an illegal action"); :func:`illegal` also checks that
the refused action is the last entry of the script (the player took every entry). Whether a player
was asked at all is read from the script's position counter (``params[0]``: decisions taken by that
player), because a reaction decision is only asked when the player has a win / pung / kong option.

The §2 case "a kong needs a replacement and only the kept-back tiles remain" cannot arise: a kong
is only legal while at least one drawable tile is left (none after drawing the last drawable tile,
none on its discard), so the replacement always exists. The nearest reachable cases are tested:
no kong of any kind once the last tile is drawn, and a kong with one tile left whose replacement
is itself the last drawable tile.

Draw order without claims: the non-dealer draws ``draws[0]``, the dealer ``draws[1]``, and so on.
There are 72 - 27 - 8 = 37 drawable tiles, so in a hand without claims or kongs the non-dealer
draws the last drawable tile (draw index 36). The "quiet" long hands below are built so that
every discard is the tile just drawn and no discard gives the opponent any option.
"""

from __future__ import annotations

import pytest
from engine_util import build_wall, script

import simkit
from simkit.engine import actions as A
from simkit.play import matches as _matches
from simkit.play.matches import play_hand, simulate_matches
from simkit.tiles import kind_of, parse_tile_list

RULES = simkit.get_rules("douque")
ILLEGAL = "a policy returned an illegal action"
#: what play_hand raises on an illegal action (EngineError since errors are reported per match)
ILLEGAL_ERRORS = (ValueError, getattr(_matches, "EngineError", ValueError))


def k(t: str) -> int:
    return kind_of(t)


def D(t: str) -> int:
    """Discard ``t``."""
    return A.DISCARD + k(t)


def R(t: str) -> int:
    """Declare ready (or MIGI) discarding ``t``."""
    return A.DECLARE + k(t)


def CK(t: str) -> int:
    return A.CONCEALED_KONG + k(t)


def AK(t: str) -> int:
    return A.ADDED_KONG + k(t)


def kinds(s: str) -> list[int]:
    return list(parse_tile_list(s, RULES))


def names(s: str) -> list[str]:
    return [simkit.tile_name(x) for x in kinds(s)]


def mask(s: str) -> int:
    out = 0
    for x in kinds(s):
        out |= 1 << x
    return out


def play(dealer, other, draws="", replacements="", p0=(), p1=(), **kw):
    """Play a scripted hand; returns (record, params of player 0's script, params of player 1's)."""
    s0, s1 = script(*p0), script(*p1)
    rec = play_hand(build_wall(dealer, other, draws, replacements), policies=(s0, s1), **kw)
    return rec, s0[1], s1[1]


def asked(params) -> int:
    """How many decisions the scripted player was asked to make."""
    return int(params[0])


def events(rec, name=None, player=None):
    return [e for e in rec.events if (name is None or e[0] == name) and (player is None or e[1] == player)]


def last_event(rec):
    return rec.events[-1]


def illegal(dealer, other, draws="", replacements="", p0=(), p1=(), player=1, **kw):
    """The hand stops on an illegal action, and it is the last entry of ``player``'s script (the
    scripted player took every entry, so the refused action is that one, not an earlier one)."""
    s0, s1 = script(*p0), script(*p1)
    wall = build_wall(dealer, other, draws, replacements)
    with pytest.raises(ILLEGAL_ERRORS, match=ILLEGAL):
        play_hand(wall, policies=(s0, s1), **kw)
    assert asked((s0, s1)[player][1]) == len((p0, p1)[player])


def tsumogiri(draw_names, first=1):
    """Discards of each player when every drawn tile is discarded at once and draws alternate
    starting with player ``first``: returns (player 0's list, player 1's list) of DISCARD codes."""
    out = ([], [])
    p = first
    for t in draw_names:
        out[p].append(D(t))
        p = 1 - p
    return out


# ---------------------------------------------------------------------------------------------
# §3.4 Robbing the Kong

ROB_DEALER = "55m 111z 222z 33z 44z 1p 9p"  # pungs 5m, then draws the 4th
ROB_OTHER = "5m 46m 123m 789m 666z 7z"  # discards 5m, then waits on 5m (46m)
ROB_DRAWS = "1p 7z 5m"
ROB_P0 = (D("9p"), A.PUNG, D("1p"), AK("5m"))
ROB_P1 = (D("5m"), D("1p"))


def test_robbing_an_added_kong():
    rec, _, s1 = play(ROB_DEALER, ROB_OTHER, ROB_DRAWS, p0=ROB_P0, p1=ROB_P1 + (A.WIN,))
    row = rec.row
    assert (row["winner"], row["payer"], row["win_type"], row["win_tile"]) == (1, 0, 3, k("5m"))
    assert rec.items["robbing_the_kong"] == 1
    assert "self_drawn" not in rec.items  # a robbed tile is a discard win
    assert row["kongs_0"] == 0  # the kong is undone
    assert events(rec, "added kong") == [("added kong", 0, k("5m"), 0)]
    assert not events(rec, "replacement")
    assert last_event(rec) == ("win", 1, k("5m"), 3)
    assert asked(s1) == 3


def test_declining_to_rob_is_a_skipped_win_and_the_kong_stands():
    rec, _, _ = play(ROB_DEALER, ROB_OTHER, ROB_DRAWS, "3m", p0=ROB_P0 + (D("3m"),), p1=ROB_P1 + (A.PASS,))
    names_ = [e[0] for e in rec.events]
    i = names_.index("added kong")
    assert rec.events[i + 1] == ("skipped win", 1, k("5m"), mask("5m"))
    assert rec.events[i + 2] == ("replacement", 0, k("3m"), 0)
    assert rec.row["skipped_wins_1"] >= 1
    assert rec.row["kongs_0"] >= 1


def test_a_concealed_kong_cannot_be_robbed():
    # p1 waits on 5m only (46m); p0 makes a concealed kong of 5m: p1 is not asked (its first scripted
    # decision, discarding its first draw, is taken at that draw) and the kong stands
    rec, _, _ = play(
        "5555m 111z 222z 33z 9p 1p", "46m 123m 789m 666z 77z", "1p", "4z", p0=(CK("5m"), D("4z")), p1=(D("1p"),)
    )
    assert rec.events[1:6] == [
        ("concealed kong", 0, k("5m"), 0),
        ("replacement", 0, k("4z"), 0),
        ("discard", 0, k("4z"), 0),
        ("draw", 1, k("1p"), 0),
        ("discard", 1, k("1p"), 0),
    ]
    assert rec.row["kongs_0"] >= 1 and rec.row["win_type"] != 3


# ---------------------------------------------------------------------------------------------
# §3.1/§3.3 Out with Replacement Tile


def test_win_on_replacement_after_concealed_kong():
    rec, _, _ = play("1111z 123m 456m 789m 9p", "12345678m 23456z", replacements="9p", p0=(CK("1z"), A.WIN))
    row = rec.row
    assert (row["winner"], row["win_type"], row["win_tile"], row["kongs_0"]) == (0, 1, k("9p"), 1)
    assert [e[0] for e in rec.events[1:]] == ["concealed kong", "replacement", "win"]
    assert rec.items["replacement_tile"] == 1 and rec.items["self_drawn"] == 4
    assert rec.items["concealed_hand"] == 1  # a concealed kong keeps the hand concealed
    assert "heavenly_hand" not in rec.items  # the winner made a kong: not the dealt 14


def test_win_on_replacement_after_exposed_kong():
    rec, _, _ = play(
        "2z 123m 456m 789m 567z 1p", "222z 123m 456m 789m 9p", replacements="9p", p0=(D("2z"),), p1=(A.KONG, A.WIN)
    )
    row = rec.row
    assert (row["winner"], row["payer"], row["win_type"], row["kongs_1"]) == (1, 0, 1, 1)
    assert [e[0] for e in rec.events[1:]] == ["discard", "kong", "replacement", "win"]
    assert rec.items["replacement_tile"] == 1 and rec.items["self_drawn"] == 4
    assert "concealed_hand" not in rec.items
    assert "earthly_hand" not in rec.items  # a kong was made (and it is not the first draw)


def test_win_on_replacement_after_added_kong():
    # like the robbing wall, but player 1 is not waiting on 5m: the added kong stands
    rec, _, s1 = play(
        ROB_DEALER, "5m 46m 123m 789m 666z 7z", "1p 9m 5m", "3z", p0=ROB_P0 + (A.WIN,), p1=(D("5m"), D("9m"))
    )
    row = rec.row
    assert (row["winner"], row["win_type"], row["win_tile"], row["kongs_0"]) == (0, 1, k("3z"), 1)
    assert asked(s1) == 2  # not asked about the added tile: no win on it
    assert rec.items["replacement_tile"] == 1
    assert "robbing_the_kong" not in rec.items and "concealed_hand" not in rec.items


def test_declining_a_win_on_a_replacement_is_a_skipped_win():
    rec, _, _ = play("1111z 123m 456m 789m 9p", "12345678m 23456z", replacements="9p", p0=(CK("1z"), D("9p")))
    assert rec.events[1:5] == [
        ("concealed kong", 0, k("1z"), 0),
        ("replacement", 0, k("9p"), 0),
        ("skipped win", 0, k("9p"), mask("9p")),
        ("discard", 0, k("9p"), 0),
    ]
    assert rec.row["skipped_wins_0"] >= 1


PUNG_TURN_P0 = "7z 1m2m4m5m7m8m 1p 2z3z4z5z 6z 9m"


def test_no_win_in_the_turn_of_a_pung():
    # p1 waits on 7z / 9p (two pairs); punging the dealer's 7z leaves 123m 456m 789m 99p + 777z,
    # a complete hand, but after a pung one must discard (§3.3)
    other = "123m 456m 789m 7z7z 9p9p"
    illegal(PUNG_TURN_P0, other, p0=(D("7z"),), p1=(A.PUNG, A.WIN))
    rec, _, _ = play(PUNG_TURN_P0, other, "3z", p0=(D("7z"),), p1=(A.PUNG, D("9p")))
    assert rec.events[1:5] == [
        ("discard", 0, k("7z"), 0),
        ("skipped win", 1, k("7z"), mask("7z9p")),
        ("pung", 1, k("7z"), 0),
        ("discard", 1, k("9p"), 0),
    ]


def test_no_kong_in_the_turn_of_a_pung():
    # p1 holds 7z7z7z and pungs the dealer's 7z: the 4th 7z is in hand, yet no added kong that turn
    other = "123m 456m 789m 7z7z7z 9p"
    illegal(PUNG_TURN_P0, other, p0=(D("7z"),), p1=(A.PUNG, AK("7z")))
    rec, _, _ = play(PUNG_TURN_P0, other, "3z 3z", "1m", p0=(D("7z"), D("3z")), p1=(A.PUNG, D("9p"), AK("7z")))
    # on its next turn (after a draw) it may
    assert rec.events[1:7] == [
        ("discard", 0, k("7z"), 0),
        ("pung", 1, k("7z"), 0),
        ("discard", 1, k("9p"), 0),
        ("draw", 0, k("3z"), 0),
        ("discard", 0, k("3z"), 0),
        ("draw", 1, k("3z"), 0),
    ]
    assert rec.events[7] == ("added kong", 1, k("7z"), 0)


# ---------------------------------------------------------------------------------------------
# §2 / §3.5 the last drawable tile

# Player 1 is ready on 9p (single wait) and holds 111z; both players discard every drawn tile.
LAST_P0 = "1m2m4m5m7m8m 1p1p 9p9p 2z3z4z5z"
LAST_P1 = "123m 456m 789m 111z 9p"
LAST_QUIET = "1m1m2m2m3m3m3m4m4m5m5m6m6m6m7m7m8m8m9m9m9m 2z2z2z3z3z3z4z4z4z5z5z5z6z6z6z"  # 36 tiles


def _last_scripts(draws, p1_last):
    p0, p1 = tsumogiri(names(draws)[:-1])
    return [D("1m")] + p0, p1 + [p1_last]


def test_self_draw_on_the_last_drawable_tile_scores_last_tile_draw():
    draws = LAST_QUIET + "9p"
    p0, p1 = _last_scripts(draws, A.WIN)
    rec, _, _ = play(LAST_P0, LAST_P1, draws, p0=p0, p1=p1)
    row = rec.row
    assert len(events(rec, "draw")) == 37
    assert (row["winner"], row["win_type"], row["win_tile"], row["tiles_left"]) == (1, 1, k("9p"), 0)
    assert rec.items["last_tile_draw"] == 1 and rec.items["self_drawn"] == 4
    assert "replacement_tile" not in rec.items


def test_no_concealed_kong_after_drawing_the_last_tile():
    draws = LAST_QUIET + "1z"  # the 4th 1z, player 1 holding 111z
    p0, p1 = _last_scripts(draws, CK("1z"))
    illegal(LAST_P0, LAST_P1, draws, p0=p0, p1=p1)
    # the only way on: discard it, and the hand is an exhaustive draw
    p0, p1 = _last_scripts(draws, D("1z"))
    rec, _, _ = play(LAST_P0, LAST_P1, draws, p0=p0, p1=p1)
    assert (rec.row["winner"], rec.row["win_type"], rec.row["tiles_left"], rec.row["kongs_1"]) == (-1, 0, 0, 0)
    assert last_event(rec) == ("exhaustive draw", -1, -1, 0)


def test_concealed_kong_one_tile_before_the_end_replaces_with_the_last_tile():
    # Player 0 holds 111p, waits on 9p; draws the 4th 1p when 1 drawable tile is left (draw index
    # 35), kongs, and the replacement is the last drawable tile: both replacement and last tile.
    dealer = "1p1p1p 234m 567m 222z 9p 7z"
    other = "123456789m 3456z"
    quiet = "1m1m1m2m2m3m3m4m4m5m5m6m6m7m7m8m8m8m9m9m9m 1z1z1z1z 3z3z3z4z4z4z5z5z5z6z"  # 35
    draws = quiet + "1p"
    p0, p1 = tsumogiri(names(quiet))
    rec, _, _ = play(dealer, other, draws, "9p", p0=[D("7z")] + p0 + [CK("1p"), A.WIN], p1=p1)
    row = rec.row
    assert (row["winner"], row["win_type"], row["win_tile"], row["tiles_left"], row["kongs_0"]) == (0, 1, k("9p"), 0, 1)
    assert rec.items["replacement_tile"] == 1 and rec.items["last_tile_draw"] == 1


# Player 0 pungs 6z on player 1's first discard and draws the 4th 6z as the last drawable tile.
ADD_P0 = "6z6z 1m2m4m5m7m8m 1p 9p 2z3z4z5z"
ADD_P1 = "6z 123456789m 9p 7z 1z"
ADD_QUIET = "1m1m2m2m3m3m3m4m4m5m5m6m6m6m7m7m8m8m9m9m9m 1z1z1z2z2z2z3z3z3z4z4z4z5z5z"  # d1..d35


def _added_last_scripts(p0_last):
    # p1 draws d0 (1p) and discards 6z; p0 pungs, discards 4z; then p1 draws d1, p0 d2, ... p0 d36
    p0, p1 = tsumogiri(names(ADD_QUIET), first=1)
    return [D("5z"), A.PUNG, D("4z")] + p0 + [p0_last], [D("6z")] + p1


def test_no_added_kong_after_drawing_the_last_tile():
    draws = "1p" + ADD_QUIET + "6z"
    p0, p1 = _added_last_scripts(AK("6z"))
    illegal(ADD_P0, ADD_P1, draws, p0=p0, p1=p1, player=0)
    p0, p1 = _added_last_scripts(D("6z"))
    rec, _, _ = play(ADD_P0, ADD_P1, draws, p0=p0, p1=p1)
    assert events(rec, "pung") == [("pung", 0, k("6z"), 0)]
    assert (rec.row["winner"], rec.row["tiles_left"], rec.row["kongs_0"]) == (-1, 0, 0)
    assert rec.events[-3:] == [("draw", 0, k("6z"), 0), ("discard", 0, k("6z"), 0), ("exhaustive draw", -1, -1, 0)]


# Player 0 (dealer) waits on 1p/9p (two pairs) and holds 222z 333z 444z; player 1 draws the last tile.
DISC_P0 = "1p1p9p9p 222z 333z 444z 5z"
DISC_P1 = "1123456789m 567z"
DISC_QUIET = "2m2m2m3m3m3m4m4m4m5m5m5m6m6m6m7m7m7m8m8m8m9m9m9m 1z1z1z1z 5z5z 6z6z6z 7z7z7z"  # 36


def _disc_last_scripts(last, p0_reply):
    p0, p1 = tsumogiri(names(DISC_QUIET))
    return [D("5z")] + p0 + [p0_reply], p1 + [D(last)]


def test_win_on_the_last_discard_scores_nothing_extra():
    p0, p1 = _disc_last_scripts("1p", A.WIN)
    rec, s0, _ = play(DISC_P0, DISC_P1, DISC_QUIET + "1p", p0=p0, p1=p1)
    row = rec.row
    assert (row["winner"], row["payer"], row["win_type"], row["win_tile"], row["tiles_left"]) == (0, 1, 2, k("1p"), 0)
    assert "last_tile_draw" not in rec.items and "self_drawn" not in rec.items
    assert asked(s0) == 1 + 18 + 1


def test_no_pung_on_the_last_discard():
    p0, p1 = _disc_last_scripts("1p", A.PUNG)  # holds 1p1p, but only WIN / PASS are legal
    illegal(DISC_P0, DISC_P1, DISC_QUIET + "1p", p0=p0, p1=p1, player=0)
    p0, p1 = _disc_last_scripts("1p", A.PASS)
    rec, _, _ = play(DISC_P0, DISC_P1, DISC_QUIET + "1p", p0=p0, p1=p1)
    assert (rec.row["winner"], rec.row["tiles_left"], rec.row["skipped_wins_0"]) == (-1, 0, 1)
    assert not events(rec, "pung")


def test_no_kong_on_the_last_discard_and_the_hand_ends():
    # §2: a kong would need a replacement and only the kept-back tiles remain. The engine never lets
    # it happen (no kong on the last discard), so the hand is an exhaustive draw with 0 tiles left.
    # player 0 holds 222z; the last drawable tile is the 4th 2z, discarded by player 1
    p0, p1 = tsumogiri(names(DISC_QUIET))
    rec, s0, _ = play(DISC_P0, DISC_P1, DISC_QUIET + "2z", p0=[D("5z")] + p0 + [A.KONG], p1=p1 + [D("2z")])
    assert asked(s0) == 1 + 18  # no option at all on 2z (no kong, no pung, no win): not asked
    assert (rec.row["winner"], rec.row["win_type"], rec.row["tiles_left"], rec.row["kongs_0"]) == (-1, 0, 0, 0)
    assert rec.events[-2:] == [("discard", 1, k("2z"), 0), ("exhaustive draw", -1, -1, 0)]


# ---------------------------------------------------------------------------------------------
# §5 MIGI and Declare Ready

MIGI_P0 = "1m2m4m5m7m8m 1p 2z3z4z5z 7z 6z 9m"
MIGI_P1 = "123m 456m 789m 111z 6z"  # declares discarding 6z: waits on 9p


def test_migi_on_the_first_discard_and_win():
    rec, _, _ = play(MIGI_P0, MIGI_P1, "9p 9p", p0=(D("7z"), D("9p")), p1=(R("6z"), A.WIN))
    row = rec.row
    assert events(rec, "declare") == [("declare", 1, k("6z"), 2)]
    assert row["declared_1"] == 2 and row["winner"] == 1 and row["win_type"] == 2
    assert rec.items["migi"] == 8 and "declare_ready" not in rec.items


def test_migi_on_the_fourth_discard():
    # discards: p0 7z (1), p1 1p (2), p0 3z (3), p1 declares 6z (4)
    rec, _, _ = play(MIGI_P0, MIGI_P1, "1p 3z 9p 9p", p0=(D("7z"), D("3z"), D("9p")), p1=(D("1p"), R("6z"), A.WIN))
    assert rec.row["declared_1"] == 2 and rec.row["winner"] == 1
    assert rec.items["migi"] == 8


def test_declaring_on_the_fifth_discard_is_declare_ready():
    # discards: p0 7z (1), p1 7m (2), p0 5z (3), p1 8m (4), p0 declares 6z (5); p1 then discards 9p
    rec, _, _ = play(
        "123m 456m 789m 111z 6z 7z",
        "2m3m4m5m6m7m8m 2z3z4z 1p 9m 1m",
        "7m 5z 8m 9p 9p",
        p0=(D("7z"), D("5z"), R("6z"), A.WIN),
        p1=(D("7m"), D("8m"), D("9p")),
    )
    row = rec.row
    assert events(rec, "declare") == [("declare", 0, k("6z"), 1)]
    assert row["declared_0"] == 1 and row["winner"] == 0 and row["win_type"] == 2
    assert rec.items["declare_ready"] == 1 and "migi" not in rec.items


def test_declaring_after_a_pung_is_declare_ready():
    # p1 pungs the dealer's first discard and declares on the discard after it (only the 2nd discard)
    rec, _, _ = play(MIGI_P0, "123m 456m 789m 1z 7z7z 6z", "1z", p0=(D("7z"), D("1z")), p1=(A.PUNG, R("6z"), A.WIN))
    row = rec.row
    assert events(rec, "declare") == [("declare", 1, k("6z"), 1)]
    assert row["declared_1"] == 1 and row["winner"] == 1
    assert rec.items["declare_ready"] == 1 and "migi" not in rec.items


def test_declaring_after_the_opponents_pung_is_declare_ready():
    # p0 pungs p1's first discard; p1 declares on its next discard (the 4th discard of the hand)
    # discards: p0 7z (1), p1 5z (2) punged, p0 9m (3), p1 declares 6z (4): not MIGI (a pung was made)
    rec, _, _ = play(
        "1m2m4m5m7m8m 1p 2z3z 5z5z 7z 6z 9m",
        MIGI_P1,
        "5z 4z 4z",
        p0=(D("7z"), A.PUNG, D("9m"), D("4z")),
        p1=(D("5z"), R("6z"), A.WIN),
    )
    assert events(rec, "declare") == [("declare", 1, k("6z"), 1)]
    assert rec.row["declared_1"] == 1 and rec.row["winner"] == 1 and rec.row["win_tile"] == k("4z")
    assert rec.items["declare_ready"] == 1 and "migi" not in rec.items


def test_declaring_after_a_concealed_kong_is_declare_ready():
    # the dealer's concealed kong counts as "a kong" for MIGI
    rec, _, _ = play(
        "2z2z2z2z 1m2m4m5m7m8m 1p 7z 6z 9m",
        MIGI_P1,
        "9p 9p",
        "3z",
        p0=(CK("2z"), D("7z"), D("9p")),
        p1=(R("6z"), A.WIN),
    )
    assert events(rec, "declare") == [("declare", 1, k("6z"), 1)]
    assert rec.row["declared_1"] == 1 and rec.row["winner"] == 1
    assert rec.items["declare_ready"] == 1 and "migi" not in rec.items


def test_a_losing_declarer_pays_nothing_extra():
    # p1 declares MIGI (waits on 5z), must discard the 9p it draws, and the dealer wins on it
    rec, _, _ = play(
        "123m 456m 789m 111z 9p 7z",
        "123m 456m 789m 222z 6z",
        "5z 1p 9p",
        p0=(D("7z"), D("1p"), A.WIN),
        p1=(R("6z"), D("9p")),
    )
    row = rec.row
    assert (row["declared_1"], row["winner"], row["payer"], row["win_tile"]) == (2, 0, 1, k("9p"))
    assert "migi" not in rec.items and "declare_ready" not in rec.items
    assert row["points"] == 50 + 20 * (row["hand_tai"] + 1) and row["hand_tai"] == sum(rec.items.values())


def test_migi_declarer_cannot_skip_a_win_on_a_discard():
    illegal(MIGI_P0, MIGI_P1, "9p 9p", p0=(D("7z"), D("9p")), p1=(R("6z"), A.PASS))


def test_migi_declarer_cannot_skip_a_self_draw_win():
    # p1 declares MIGI, p0 discards 3z, p1 draws 9p: discarding it is illegal, only WIN
    illegal(MIGI_P0, MIGI_P1, "9p 3z 9p", p0=(D("7z"), D("3z")), p1=(R("6z"), D("9p")))
    rec, _, _ = play(MIGI_P0, MIGI_P1, "9p 3z 9p", p0=(D("7z"), D("3z")), p1=(R("6z"), A.WIN))
    assert rec.row["winner"] == 1 and rec.row["win_type"] == 1 and rec.items["migi"] == 8


# ---------------------------------------------------------------------------------------------
# §5 the automatic added kong after declaring

# p1 pungs the dealer's 5m and declares discarding 9p: 555m + 123m 789m 111z 6z, waiting on 6z
AUTO_P0 = "5m 2m4m6m8m 1p 2z3z4z5z 7z 9m 3m 1m"
AUTO_P1 = "5m5m 123m 789m 111z 6z 9p"


def test_automatic_added_kong_is_the_only_legal_action():
    p0 = (D("5m"), D("3z"))
    for bad in (D("5m"), A.WIN, D("6z")):
        illegal(AUTO_P0, AUTO_P1, "3z 5m", "6z", p0=p0, p1=(A.PUNG, R("9p"), bad))
    rec, _, _ = play(AUTO_P0, AUTO_P1, "3z 5m", "6z", p0=p0, p1=(A.PUNG, R("9p"), AK("5m"), A.WIN))
    row = rec.row
    assert events(rec, "added kong") == [("added kong", 1, k("5m"), 0)]
    assert (row["winner"], row["win_type"], row["win_tile"], row["kongs_1"], row["declared_1"]) == (1, 1, k("6z"), 1, 1)
    assert rec.items["replacement_tile"] == 1 and rec.items["declare_ready"] == 1


# p1 pungs 5m, declares discarding 9p: 555m + 34m 789m 111z 66z waits 2m / 5m -- the 4th 5m is
# also a winning tile (p1 holds 3 of 5m, not 4, before drawing it)
AUTO_WIN_P1 = "5m5m 34m 789m 111z 66z 9p"
AUTO_WIN_P0 = "5m 2m6m8m 1p 2z3z4z5z 7z 9m 1m 6m 8m"


def test_automatic_added_kong_or_win_when_the_tile_also_wins():
    p0 = (D("5m"), D("3z"))
    illegal(AUTO_WIN_P0, AUTO_WIN_P1, "3z 5m", "2m", p0=p0, p1=(A.PUNG, R("9p"), D("5m")))
    rec, _, _ = play(AUTO_WIN_P0, AUTO_WIN_P1, "3z 5m", "2m", p0=p0, p1=(A.PUNG, R("9p"), A.WIN))
    assert (rec.row["winner"], rec.row["win_type"], rec.row["win_tile"]) == (1, 1, k("5m"))
    assert rec.items["declare_ready"] == 1 and rec.items["self_drawn"] == 4


def test_automatic_kong_of_a_winning_tile_does_not_lift_the_skipped_win():
    # choosing the kong over the win is a Skipped Win on {2m, 5m}; playing 5m (inside it) does not
    # lift it, so the replacement 2m cannot be won on: the only legal action is to discard it
    p0 = (D("5m"), D("3z"))
    illegal(AUTO_WIN_P0, AUTO_WIN_P1, "3z 5m", "2m", p0=p0, p1=(A.PUNG, R("9p"), AK("5m"), A.WIN))
    rec, _, _ = play(AUTO_WIN_P0, AUTO_WIN_P1, "3z 5m", "2m", p0=p0, p1=(A.PUNG, R("9p"), AK("5m"), D("2m")))
    i = rec.events.index(("added kong", 1, k("5m"), 0))
    assert rec.events[i - 1] == ("skipped win", 1, k("5m"), mask("2m5m"))
    assert rec.events[i + 1 : i + 3] == [("replacement", 1, k("2m"), 0), ("discard", 1, k("2m"), 1)]
    assert rec.row["skipped_wins_1"] >= 1


# Both players declared (p1 MIGI on its first discard, p0 after punging it), every later decision
# is forced; p0 draws the 4th 5m as the last drawable tile: no automatic kong, it is discarded.
LOCK_P0 = "5m5m 123m 789m 111z 9p 2z 3z"
LOCK_P1 = "5m 444m 666m 222z 7z 66z"


def _lock_draws():
    rules_pool = {x: 4 for x in RULES.kinds}
    for x in kinds(LOCK_P0 + LOCK_P1 + "7z 5m"):
        rules_pool[x] -= 1
    # keep back every waiting tile (9p for p0, 6z / 7z for p1) and 1p
    kept = kinds("9p9p9p 6z6z 7z7z 1p")
    for x in kept:
        rules_pool[x] -= 1
    quiet = [x for x in sorted(rules_pool) for _ in range(rules_pool[x])]
    assert len(quiet) == 35
    return "7z " + " ".join(simkit.tile_name(x) for x in quiet) + " 5m"


def test_no_automatic_kong_on_the_last_drawable_tile():
    draws = _lock_draws()
    p0 = [D("3z"), A.PUNG, R("2z")] + [-2] * 17
    p1 = [R("5m")]
    illegal(LOCK_P0, LOCK_P1, draws, p0=p0 + [AK("5m")], p1=p1, player=0)
    rec, s0, _ = play(LOCK_P0, LOCK_P1, draws, p0=p0 + [D("5m")], p1=p1)
    assert (rec.row["declared_0"], rec.row["declared_1"]) == (1, 2)
    assert (rec.row["winner"], rec.row["tiles_left"], rec.row["kongs_0"]) == (-1, 0, 0)
    assert rec.events[-3:] == [("draw", 0, k("5m"), 0), ("discard", 0, k("5m"), 1), ("exhaustive draw", -1, -1, 0)]
    assert asked(s0) == 21


def test_a_declared_hand_is_locked():
    # Same hand. p1 (MIGI) holds 222z, 444m and 666m: p0's declaring discard 2z and its later 4m
    # offer p1 nothing (no pung / exposed kong after declaring: p1 is only asked at its 19 draws),
    # and p1's draw of the 4th 6m must be discarded (no concealed kong)
    draws = _lock_draws()
    p0 = [D("3z"), A.PUNG, R("2z")] + [-2] * 17 + [D("5m")]
    rec, _, s1 = play(LOCK_P0, LOCK_P1, draws, p0=p0, p1=[R("5m")] + [-2] * 18)
    assert asked(s1) == 19
    assert ("declare", 0, k("2z"), 1) in rec.events and ("discard", 0, k("4m"), 1) in rec.events
    p1_draws = [e for e in rec.events if e[0] == "draw" and e[1] == 1]
    n = p1_draws.index(("draw", 1, k("6m"), 0))  # p1's decision number n + 1
    i = rec.events.index(("draw", 1, k("6m"), 0))
    assert rec.events[i + 1] == ("discard", 1, k("6m"), 2)
    illegal(LOCK_P0, LOCK_P1, draws, p0=p0, p1=[R("5m")] + [-2] * (n - 1) + [CK("6m")])


# ---------------------------------------------------------------------------------------------
# §6 Skipped Win

# p1 waits on 1m / 4m (23m 567m 888m 111z 99p); the dealer discards 1m first
SKIP_P0 = "1m1m 1p1p 2z3z4z5z6z7z 9m 6m 4m 7m"
SKIP_P1 = "23m 567m 888m 111z 9p9p"


def test_skipped_win_records_the_wait_set_and_blocks_a_self_draw():
    rec, _, _ = play(SKIP_P0, SKIP_P1, "4m", p0=(D("1m"),), p1=(A.PASS, D("4m")))
    assert rec.events[1:3] == [("discard", 0, k("1m"), 0), ("skipped win", 1, k("1m"), mask("1m4m"))]
    assert rec.row["skipped_wins_1"] >= 1
    # the same hand, now trying to win on the self-drawn 4m
    illegal(SKIP_P0, SKIP_P1, "4m", p0=(D("1m"),), p1=(A.PASS, A.WIN))


def test_skipped_win_not_lifted_by_discarding_a_tile_of_the_wait_set():
    # p1 skips 1m, draws 4m and discards it (inside the set): the dealer's second 1m is not offered,
    # and a self-drawn 1m cannot be won on either
    draws = "4m 3z 1m"
    rec, _, _ = play(SKIP_P0, SKIP_P1, draws, p0=(D("1m"), D("1m")), p1=(A.PASS, D("4m"), D("1m")))
    assert [e for e in rec.events if e[0] in ("discard", "skipped win")][:5] == [
        ("discard", 0, k("1m"), 0),
        ("skipped win", 1, k("1m"), mask("1m4m")),
        ("discard", 1, k("4m"), 0),
        ("discard", 0, k("1m"), 0),  # p1 is not asked: no win offered
        ("discard", 1, k("1m"), 0),
    ]
    illegal(SKIP_P0, SKIP_P1, draws, p0=(D("1m"), D("1m")), p1=(A.PASS, D("4m"), A.WIN))


def test_skipped_win_lifted_by_discarding_a_tile_outside_the_wait_set():
    # p1 skips 1m, draws 7z and discards it (outside {1m, 4m}): lifted; wins on the dealer's 4m
    rec, _, s1 = play(SKIP_P0, SKIP_P1, "7z 3z", p0=(D("1m"), D("4m")), p1=(A.PASS, D("7z"), A.WIN))
    row = rec.row
    assert (row["winner"], row["win_type"], row["win_tile"], row["skipped_wins_1"]) == (1, 2, k("4m"), 1)
    assert asked(s1) == 3
    assert "human_hand" not in rec.items


def test_skipped_win_lifted_by_the_tile_of_a_concealed_kong():
    # p1 skips 1m, draws the 4th 1z and makes a concealed kong of it (1z is outside {1m, 4m}):
    # lifted, so p1 may win on the replacement 4m
    rec, _, _ = play(SKIP_P0, SKIP_P1, "1z", "4m", p0=(D("1m"),), p1=(A.PASS, CK("1z"), A.WIN))
    row = rec.row
    assert (row["winner"], row["win_type"], row["win_tile"], row["skipped_wins_1"]) == (1, 1, k("4m"), 1)
    assert rec.items["replacement_tile"] == 1


def test_skipped_win_still_allows_a_pung():
    # p1 skips 1m, draws 1m and discards it (inside the set: still under the Skipped Win), then
    # pungs the dealer's 9p
    rec, _, _ = play(SKIP_P0, SKIP_P1, "1m 9p", p0=(D("1m"), D("9p")), p1=(A.PASS, D("1m"), A.PUNG, D("3m")))
    assert rec.events[1:9] == [
        ("discard", 0, k("1m"), 0),
        ("skipped win", 1, k("1m"), mask("1m4m")),
        ("draw", 1, k("1m"), 0),
        ("discard", 1, k("1m"), 0),
        ("draw", 0, k("9p"), 0),
        ("discard", 0, k("9p"), 0),
        ("pung", 1, k("9p"), 0),
        ("discard", 1, k("3m"), 0),
    ]


SELF_SKIP_P0 = "1m 1p1p 2z3z4z5z6z7z 9m 6m 7m 3m 4m"


def test_declining_a_self_draw_win_is_a_skipped_win():
    # p1 draws its winning 4m and discards it: Skipped Win on {1m, 4m} (not lifted: 4m is inside);
    # the dealer's 1m is then not offered, and the self-drawn 1m cannot be won on
    rec, _, _ = play(SELF_SKIP_P0, SKIP_P1, "4m 3z 1m", p0=(D("7z"), D("1m")), p1=(D("4m"), D("1m")))
    assert rec.events[1:9] == [
        ("discard", 0, k("7z"), 0),
        ("draw", 1, k("4m"), 0),
        ("skipped win", 1, k("4m"), mask("1m4m")),
        ("discard", 1, k("4m"), 0),
        ("draw", 0, k("3z"), 0),
        ("discard", 0, k("1m"), 0),  # not offered to p1
        ("draw", 1, k("1m"), 0),
        ("discard", 1, k("1m"), 0),  # no second skipped win: no win was offered
    ]
    illegal(SELF_SKIP_P0, SKIP_P1, "4m 3z 1m", p0=(D("7z"), D("1m")), p1=(D("4m"), A.WIN))


def test_pung_instead_of_win_is_a_skipped_win_lifted_by_the_discard_after_the_pung():
    # p1 waits on 8m / 9p (two pairs) and pungs the dealer's 9p instead of winning: Skipped Win on
    # {8m, 9p}; the discard after the pung, 4m, is outside it: lifted; p1 then waits on 1m / 4m
    # (23m 567m 111z 88m + 999p) and wins on the dealer's 1m
    rec, _, _ = play(
        "9p 1m 1p1p 2z3z4z5z6z7z 9m 6m 7m 3m",
        "234m 567m 111z 9p9p 8m8m",
        "3z",
        p0=(D("9p"), D("1m")),
        p1=(A.PUNG, D("4m"), A.WIN),
    )
    assert rec.events[1:4] == [
        ("discard", 0, k("9p"), 0),
        ("skipped win", 1, k("9p"), mask("8m9p")),
        ("pung", 1, k("9p"), 0),
    ]
    row = rec.row
    assert (row["winner"], row["win_type"], row["win_tile"], row["skipped_wins_1"]) == (1, 2, k("1m"), 1)


# ---------------------------------------------------------------------------------------------
# §6 Skipped Pung

SP_P0 = "3z 1m2m4m5m7m8m 1p 9p 2z 4z 5z 6z 7z"
SP_P1 = "3z3z 13579m 2468m 1p 9p"


@pytest.mark.parametrize("option", ["hand", "turn"])
def test_skipped_pung_second_chance(option):
    # p1 holds 3z3z and passes the dealer's first 3z; after p1's turn the dealer discards another 3z:
    # under 'hand' p1 is not even asked (its 3rd script entry goes to its next draw), under 'turn'
    # it may pung it. (An exposed kong of 3z can no longer arise: 2 held + 1 passed leaves 1.)
    rules = simkit.get_rules("douque", skipped_pung=option)
    third = -1 if option == "hand" else A.PUNG
    rec, _, _ = play(SP_P0, SP_P1, "7z 3z", p0=(D("3z"), D("3z")), p1=(A.PASS, D("7z"), third), rules=rules)
    assert rec.events[1:8] == [
        ("discard", 0, k("3z"), 0),
        ("skipped pung", 1, k("3z"), 0),
        ("draw", 1, k("7z"), 0),
        ("discard", 1, k("7z"), 0),
        ("draw", 0, k("3z"), 0),
        ("discard", 0, k("3z"), 0),
        ("draw", 1, rec.events[7][2], 0) if option == "hand" else ("pung", 1, k("3z"), 0),
    ]
    if option == "hand":
        assert not [e for e in rec.events if e[0] == "pung" and e[2] == k("3z")]


# ---------------------------------------------------------------------------------------------
# §7 first-turn hands (the rules of when they apply)

QUIET_13 = "12345678m 23456z"


def test_heavenly_hand():
    rec, _, _ = play("123m 456m 789m 111z 9p9p", QUIET_13, p0=(A.WIN,))
    assert (rec.row["winner"], rec.row["win_type"]) == (0, 1)
    assert rec.items["heavenly_hand"] == 24
    for gone in ("self_drawn", "concealed_hand", "fully_concealed", "single_wait"):
        assert gone not in rec.items


def test_earthly_hand():
    rec, _, _ = play("12345678m 234567z", "123m 456m 789m 111z 9p", "9p", p0=(D("7z"),), p1=(A.WIN,))
    assert (rec.row["winner"], rec.row["win_type"]) == (1, 1)
    assert rec.items["earthly_hand"] == 16
    for gone in ("self_drawn", "concealed_hand", "fully_concealed"):
        assert gone not in rec.items


def test_not_earthly_after_the_dealers_concealed_kong():
    rec, _, _ = play(
        "2z2z2z2z 1m2m4m5m7m8m 1p 3z 6z 9m", "123m 456m 789m 111z 9p", "9p", "7z", p0=(CK("2z"), D("7z")), p1=(A.WIN,)
    )
    assert (rec.row["winner"], rec.row["win_type"]) == (1, 1)
    assert "earthly_hand" not in rec.items and rec.items["self_drawn"] == 4


def test_not_earthly_after_a_pung():
    # p1 pungs the dealer's first discard, discards, and self-draws on its first draw
    rec, _, _ = play(
        "7z 1m2m4m5m7m8m 1p 2z3z4z5z 6z 9m",
        "123m 456m 789m 7z7z 1z 9p",
        "3z 9p",
        p0=(D("7z"), D("3z")),
        p1=(A.PUNG, D("1z"), A.WIN),
    )
    assert (rec.row["winner"], rec.row["win_type"], rec.row["win_tile"]) == (1, 1, k("9p"))
    assert "earthly_hand" not in rec.items


def test_not_earthly_on_the_second_draw():
    rec, _, _ = play(
        "12345678m 234567z", "123m 456m 789m 111z 9p", "6z 3z 9p", p0=(D("7z"), D("3z")), p1=(D("6z"), A.WIN)
    )
    assert rec.row["winner"] == 1 and "earthly_hand" not in rec.items
    assert rec.items["self_drawn"] == 4


def test_human_hand():
    rec, _, _ = play("12345678m 9p 23456z", "123m 456m 789m 111z 9p", p0=(D("9p"),), p1=(A.WIN,))
    assert (rec.row["winner"], rec.row["payer"], rec.row["win_type"]) == (1, 0, 2)
    assert rec.items["human_hand"] == 8 and "concealed_hand" not in rec.items


def test_not_human_on_the_dealers_second_discard():
    rec, _, _ = play(
        "12345678m 9p 23456z", "123m 456m 789m 111z 9p", "7z 9p", p0=(D("2z"), D("9p")), p1=(D("7z"), A.WIN)
    )
    assert rec.row["winner"] == 1 and rec.row["win_type"] == 2
    assert "human_hand" not in rec.items and rec.items["concealed_hand"] == 1


def test_not_human_after_the_dealers_concealed_kong():
    rec, _, _ = play(
        "2z2z2z2z 1m2m4m5m7m8m 1p 3z 6z 9m", "123m 456m 789m 111z 9p", "", "9p", p0=(CK("2z"), D("9p")), p1=(A.WIN,)
    )
    assert rec.row["winner"] == 1 and rec.row["win_type"] == 2
    assert "human_hand" not in rec.items


# ---------------------------------------------------------------------------------------------
# §4 streak cap, §8 dealer tai


def _check_cap(r, cap):
    """Every transition between consecutive hands of a match; returns how many hands at the cap
    the dealer won or drew (so would have kept the deal without the cap) and a next hand followed."""
    assert r["streak"].max() <= cap
    n = len(r["match"])
    at_cap = 0
    for i in range(n - 1):
        if r["match"][i + 1] != r["match"][i]:
            continue
        if r["streak"][i] == cap:
            at_cap += r["winner"][i] in (-1, r["dealer"][i])
            assert r["dealer"][i + 1] != r["dealer"][i] and r["streak"][i + 1] == 0
        elif r["winner"][i] in (-1, r["dealer"][i]):
            assert r["dealer"][i + 1] == r["dealer"][i] and r["streak"][i + 1] == r["streak"][i] + 1
        else:
            assert r["dealer"][i + 1] != r["dealer"][i] and r["streak"][i + 1] == 0
    return at_cap


def test_streak_cap_option_two():
    rules = simkit.get_rules("douque", streak_cap=2)
    r = simulate_matches(rules, ("random", "random"), 100, seed=11)
    assert _check_cap(r, 2) > 0  # a dealer who wins (or draws) at the cap still loses the deal
    assert (r["dealer_tai"][(r["streak"] == 2) & (r["winner"] >= 0)] == 5).all()


def test_streak_cap_ten():
    r = simulate_matches("douque", ("random", "random"), 300, seed=12)
    assert _check_cap(r, 10) > 0
    assert (r["dealer_tai"][(r["streak"] == 10) & (r["winner"] >= 0)] == 21).all()


def test_dealer_tai_with_streak_three():
    # dealer wins (heavenly) and dealer pays (human hand): dealer tai 1 + 2 * 3 = 7 either way
    rec, _, _ = play("123m 456m 789m 111z 9p9p", QUIET_13, p0=(A.WIN,), streak=3)
    assert rec.row["dealer_tai"] == 7 and rec.row["streak"] == 3
    assert rec.row["points"] == 50 + 20 * (rec.row["hand_tai"] + 7)
    rec, _, _ = play("12345678m 9p 23456z", "123m 456m 789m 111z 9p", p0=(D("9p"),), p1=(A.WIN,), streak=3)
    assert rec.row["dealer_tai"] == 7 and rec.row["winner"] == 1
    assert rec.row["points"] == 50 + 20 * (rec.row["hand_tai"] + 7)
