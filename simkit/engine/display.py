"""A replayed hand a researcher can read: the event table (the state of both hands after every
event) and an HTML page with the tiles drawn, for Jupyter and for saving.

:func:`event_table` rebuilds both players' tiles from the hand's wall and its event log (the
engine's own record of every draw, discard, claim, kong, declaration and win) -- no replaying of
policies -- and adds each player's shanten and, for a ready hand, its waits. :func:`render_html`
draws it: one row per event with both hands, melds and rivers as SVG tiles.

``HandRecord.event_table()``, ``HandRecord._repr_html_`` (a record displays as the page in
Jupyter), ``HandRecord.to_html(path)`` and ``simkit replay ... --html out.html`` use them.

Event table columns: ``step`` (0 is the deal), ``event`` (``deal``, ``draw``, ``replacement``,
``discard``, ``declare``, ``pung``, ``kong``, ``concealed kong``, ``added kong``, ``chow``,
``skipped win``, ``skipped pung``, ``win``, ``exhaustive draw``, ``bid``, ``follow``, ``fold``),
``player`` (-1: nobody), ``tile`` (notation, empty when none), ``text`` (the line of
:meth:`HandRecord.lines`), then for each player ``p``: ``hand_p`` (concealed tiles after the
event), ``melds_p``, ``river_p`` (discards in order, ``*`` after a claimed one), ``shanten_p``
(-1 complete) and ``waits_p`` (the winning tiles of a ready 13 - 3k tile hand, else empty).
"""

from __future__ import annotations

import html

import numpy as np

from ..hand import shanten, waits
from ..rules import resolve_rules
from ..tiles import format_tiles, parse_tile_list, tile_name
from . import table as eng

__all__ = ["event_table", "render_html"]


class _Seat:
    def __init__(self, counts):
        self.hand = np.asarray(counts, np.int64).copy()
        self.melds = []  # (type name, kinds)
        self.river = []  # [kind, claimed]


def _apply(seats, name, p, tile, extra, last_discard):
    """Update the seats for one logged event; returns the kind just discarded (or the last one)."""
    if name in ("draw", "replacement"):
        seats[p].hand[tile] += 1
    elif name in ("discard", "declare"):
        seats[p].hand[tile] -= 1
        seats[p].river.append([tile, False])
        return (p, tile)
    elif name in ("pung", "kong"):
        seats[p].hand[tile] -= 2 if name == "pung" else 3
        seats[p].melds.append((name, [tile] * (3 if name == "pung" else 4)))
        _claim(seats, p)
    elif name == "chow":
        start, claimed = tile, extra
        for k in (start, start + 1, start + 2):
            if k != claimed:
                seats[p].hand[k] -= 1
        seats[p].melds.append(("chow", [start, start + 1, start + 2]))
        _claim(seats, p)
    elif name == "concealed kong":
        seats[p].hand[tile] -= 4
        seats[p].melds.append(("concealed_kong", [tile] * 4))
    elif name == "added kong":
        seats[p].hand[tile] -= 1
        for i, (kind, kinds) in enumerate(seats[p].melds):
            if kind == "pung" and kinds[0] == tile:
                seats[p].melds[i] = ("added_kong", [tile] * 4)
                break
    elif name == "win" and extra in (eng.WIN_DISCARD, eng.WIN_ROBBED):
        seats[p].hand[tile] += 1  # the winning tile shown in the hand
        if extra == eng.WIN_DISCARD:
            _claim(seats, p)
    return last_discard


def _claim(seats, p):
    river = seats[1 - p].river
    if river:
        river[-1][1] = True


def _analysis(seat, rules):
    melds = [f"{t} {format_tiles(np.bincount(k, minlength=34))}" for t, k in seat.melds]
    n = int(seat.hand.sum())
    k = len(seat.melds)
    if n not in (13 - 3 * k, 14 - 3 * k) or (seat.hand < 0).any():
        return None, ""
    try:
        sh = shanten(seat.hand, melds, rules)
        w = " ".join(waits(seat.hand, melds, rules)) if n == 13 - 3 * k and sh == 0 else ""
    except Exception:  # a display helper: a state the kernels refuse shows no analysis
        return None, ""
    return sh, w


def event_table(record):
    """The record's events with both players' tiles, shanten and waits after each (a DataFrame;
    see the module docstring for the columns)."""
    import pandas as pd

    rules = resolve_rules(record.rule_set)
    dealer = int(record.row["dealer"])
    dealt = eng.dealt_hands(record.wall, dealer, record.wall_design)
    seats = [_Seat(dealt[0]), _Seat(dealt[1])]
    lines = record.lines()
    texts = [ln for ln in lines[1:]]  # line 0 is the heading; line 1 the deal
    rows = []
    last = None
    step = 0
    text_i = 0
    for name, p, tile, extra in record.events:
        if name != "deal":
            last = _apply(seats, name, p, tile, extra, last)
        text = texts[text_i] if text_i < len(texts) else ""
        text_i += 1 if name != "deal" or step == 0 else 0
        row = {
            "step": step,
            "event": name,
            "player": p,
            "tile": tile_name(tile) if tile >= 0 and name not in ("bid", "follow", "fold") else "",
            "text": text,
        }
        for q in (0, 1):
            s = seats[q]
            sh, w = _analysis(s, rules)
            row[f"hand_{q}"] = format_tiles(np.maximum(s.hand, 0)) if s.hand.sum() else ""
            row[f"melds_{q}"] = ", ".join(f"{t} {format_tiles(np.bincount(k, minlength=34))}" for t, k in s.melds)
            row[f"river_{q}"] = " ".join(tile_name(k) + ("*" if c else "") for k, c in s.river)
            row[f"shanten_{q}"] = sh
            row[f"waits_{q}"] = w
        rows.append(row)
        step += 1
    if not rows or rows[0]["event"] != "deal":  # a log without its deal event: the deal as step 0
        pass
    df = pd.DataFrame(rows)
    df.attrs.update(rules=record.rule_set, dealer=dealer)
    return df


# ---------------------------------------------------------------------------------------------
# HTML

_SUIT_COLOR = {"m": "#b22222", "p": "#1f5fa8", "s": "#1b7a3a", "z": "#222222"}
_HONOR = {1: "E", 2: "S", 3: "W", 4: "N", 5: "Wh", 6: "G", 7: "R"}
_HONOR_COLOR = {5: "#555555", 6: "#1b7a3a", 7: "#b22222"}


def _tile_svg(kind: int, x: int, claimed=False) -> str:
    name = tile_name(kind)
    number, suit = int(name[0]), name[1]
    color = _HONOR_COLOR.get(number, _SUIT_COLOR[suit]) if suit == "z" else _SUIT_COLOR[suit]
    label = _HONOR[number] if suit == "z" else str(number)
    small = "" if suit == "z" else suit  # the suit letter (no font is needed for it)
    fill = "#f3e9c6" if claimed else "#fffdf5"
    return (
        f'<g transform="translate({x},0)"><title>{name}</title>'
        f'<rect x="1" y="1" width="24" height="34" rx="3" fill="{fill}" stroke="#8a7f62"/>'
        f'<text x="13" y="18" font-size="14" font-weight="bold" text-anchor="middle" fill="{color}" '
        f'font-family="sans-serif">{label}</text>'
        f'<text x="13" y="31" font-size="9" text-anchor="middle" fill="{color}" font-family="sans-serif">{small}</text></g>'
    )


def _tiles_svg(kinds, claimed=()) -> str:
    kinds = list(kinds)
    if not kinds:
        return '<span class="none">-</span>'
    claimed = list(claimed) or [False] * len(kinds)
    width = 26 * len(kinds)
    parts = "".join(_tile_svg(k, 26 * i, c) for i, (k, c) in enumerate(zip(kinds, claimed)))
    return f'<svg class="tiles" width="{width}" height="36" viewBox="0 0 {width} 36">{parts}</svg>'


def _kinds_of(notation: str):
    return parse_tile_list(notation) if notation else []


def render_html(record, title: str | None = None, standalone: bool = True) -> str:
    """The hand as HTML: a heading, then one row per event with both players' concealed tiles,
    melds and river drawn as SVG tiles, shanten and waits. ``standalone``: a whole page (for a
    file), else a fragment (for Jupyter)."""
    df = event_table(record)
    lines = record.lines()
    head = html.escape(title or lines[0])
    rows = []
    for r in df.itertuples(index=False):
        cells = [f'<td class="step">{r.step}</td><td class="ev">{html.escape(r.text)}</td>']
        for q in (0, 1):
            hand = _tiles_svg(_kinds_of(getattr(r, f"hand_{q}")))
            melds = getattr(r, f"melds_{q}")
            meld_svg = " ".join(_tiles_svg(_kinds_of(m.split(" ", 1)[1])) for m in melds.split(", ")) if melds else ""
            river = getattr(r, f"river_{q}").split()
            river_svg = _tiles_svg([_kinds_of(t.rstrip("*"))[0] for t in river], [t.endswith("*") for t in river])
            sh = getattr(r, f"shanten_{q}")
            waits = getattr(r, f"waits_{q}")
            info = (
                ""
                if sh is None or sh != sh
                else f"shanten {int(sh)}" + (f", waits {html.escape(waits)}" if waits else "")
            )
            cells.append(
                f'<td class="p{q}"><div>{hand} {meld_svg}</div><div class="river">{river_svg}</div>'
                f'<div class="info">{info}</div></td>'
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    tail = "".join(
        f"<li>{html.escape(ln)}</li>"
        for ln in lines
        if ln.startswith(
            ("items:", "hand tai", "fan", "scores", "payment", "combination", "not played", "fees", "kong")
        )
    )
    body = (
        f'<div class="simkit-hand"><h3>{head}</h3>'
        f"<table><thead><tr><th>#</th><th>event</th><th>player 0</th><th>player 1</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table><ul>{tail}</ul></div>"
    )
    style = (
        "<style>.simkit-hand table{border-collapse:collapse;font-family:sans-serif;font-size:12px}"
        ".simkit-hand td,.simkit-hand th{border-bottom:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}"
        ".simkit-hand .river svg{transform:scale(0.75);transform-origin:left top}.simkit-hand .info{color:#555}"
        ".simkit-hand .ev{max-width:260px}</style>"
    )
    if not standalone:
        return style + body
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{head}</title>{style}</head>'
        f"<body>{body}</body></html>"
    )
