"""Replay a researcher can read: the event table (both hands after every event, shanten, waits)
rebuilt from the engine's log, and the HTML page of a hand, rendered in a real headless browser
(Debian's chromium) when one is installed."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import simkit
from simkit.cli import main


def _counts(notation, rules):
    return simkit.as_counts(notation, rules).astype(int) if notation else np.zeros(34, int)


def _meld_tiles(text, rules):
    from simkit.melds import meld_counts

    return meld_counts(simkit.parse_melds(text.split(", "), rules)).astype(int) if text else np.zeros(34, int)


@pytest.mark.parametrize("rules", ["douque", "night_market", "duel", "for_two"])
def test_event_table_follows_the_engine_state(rules):
    """Every row conserves the tiles (hands + melds + unclaimed discards never exceed four copies,
    and their total is what was dealt and drawn), and at a win the winner's rebuilt hand is the
    engine's ``win_hand``."""
    for hand in range(4):
        rec = simkit.replay(2, 0, hand, rules=rules)
        df = rec.event_table()
        assert df["step"].tolist() == list(range(len(df))) and df["event"].iloc[0] == "deal"
        assert len(df) == len(rec.events)
        drawn = 0
        for r in df.itertuples():
            drawn += r.event in ("draw", "replacement")
            seen = np.zeros(34, int)
            for q in (0, 1):
                seen += _counts(getattr(r, f"hand_{q}"), rules) + _meld_tiles(getattr(r, f"melds_{q}"), rules)
                river = [t for t in getattr(r, f"river_{q}").split() if not t.endswith("*")]
                seen += _counts(" ".join(river), rules)
            assert seen.max() <= 4
            if r.event not in ("win",):
                assert seen.sum() == 27 + drawn, (rules, hand, r.step, r.event)
        last = df.iloc[-1]
        if rec.row["winner"] >= 0 and rec.row["win_type"] in (1, 2):
            w = int(rec.row["winner"])
            assert np.array_equal(_counts(last[f"hand_{w}"], rules), rec.row["win_hand"])
            assert last[f"shanten_{w}"] == -1


def test_shanten_and_waits_columns():
    rec = simkit.replay(5, 0, 1)
    df = rec.event_table()
    for r in df.itertuples():
        for q in (0, 1):
            hand = getattr(r, f"hand_{q}")
            melds = getattr(r, f"melds_{q}")
            melds = melds.split(", ") if melds else []
            if hand and getattr(r, f"shanten_{q}") is not None and not np.isnan(getattr(r, f"shanten_{q}")):
                assert getattr(r, f"shanten_{q}") == simkit.shanten(hand, melds)
                if getattr(r, f"waits_{q}"):
                    assert getattr(r, f"waits_{q}").split() == simkit.waits(hand, melds)


def test_html_page_and_jupyter_repr(tmp_path):
    rec = simkit.replay(1, 0, 2)
    page = rec.to_html(tmp_path / "hand.html")
    assert page.startswith("<!DOCTYPE html>") and (tmp_path / "hand.html").read_text() == page
    df = rec.event_table()
    assert page.count("<tr>") == len(df) + 1 and page.count("<svg") > 2 * len(df)  # the header row and one per event
    frag = rec._repr_html_()
    assert not frag.startswith("<!DOCTYPE") and "<table>" in frag
    assert main(["replay", "--seed", "1", "--match", "0", "--hand", "2", "--html", str(tmp_path / "cli.html")]) == 0
    assert (tmp_path / "cli.html").read_text() == page
    assert main(["replay", "--seed", "1", "--match", "0", "--hand", "2", "--table"]) == 0


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(BROWSER is None, reason="no headless browser: install Debian's chromium (.ci/run does)")
def test_page_renders_in_a_headless_browser(tmp_path):
    """Chromium renders the page: its DOM has a row per event with SVG tiles, and the screenshot
    shows tile faces in the suits' colours."""
    from matplotlib import image

    rec = simkit.replay(1, 0, 2)
    path = tmp_path / "hand.html"
    rec.to_html(path)
    common = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    dom = subprocess.run(common + ["--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120).stdout
    n = len(rec.event_table())
    assert dom.count("<tr>") == n + 1 and dom.count("<rect") > 20 * n
    shot = tmp_path / "hand.png"
    subprocess.run(
        common + [f"--screenshot={shot}", "--window-size=1400,1200", path.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    img = image.imread(shot)[..., :3]
    px = (img * 255).round().astype(int).reshape(-1, 3)
    face = np.all(np.abs(px - [255, 253, 245]) <= 2, axis=1).mean()  # the tiles' face colour
    red = np.all(np.abs(px - [178, 34, 34]) <= 30, axis=1).sum()  # characters
    assert face > 0.03 and red > 200
