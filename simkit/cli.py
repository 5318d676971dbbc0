"""The ``simkit`` command: a thin layer over the library.

Every subcommand has ``--help``. Bad input ends with one line ``simkit: error: ...`` on stderr and
exit code 2; the library's messages say what is wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

import numpy as np
import pyarrow.compute as pc
from tqdm import tqdm

from . import __version__, datasets
from .analysis import compare, summarize
from .engine.compiled import record_start_up, start_up_message
from .engine.deal import deal_stats
from .engine.rulesets import DEALS, WALLS
from .errors import InputValueError, SimkitError
from .evaluation.exploitability import exploitability
from .evaluation.ratings import plot_ratings
from .evaluation.sequential import decide
from .hand import discards, is_win, shanten, splits, waits
from .hand.tables import cache_dir, load_tables
from .melds import parse_melds
from .paths import check_figure_path
from .play.exact import completions, exact, warm_exact
from .play.matches import replay
from .play.position import Position, read_position
from .play.race import race
from .play.rollouts import rollouts
from .policies.spec import AGENT_FILES, BUILT_IN, parse_policy, spec_of, split_policies
from .rules import RULE_SETS, get_rules, resolve_rules
from .runs.simulation import simulate
from .scoring import score
from .stats import wilson_interval
from .tiles import as_counts, format_tiles, parse_tile_list, parse_tiles
from .tournament import POLICIES as TOURNAMENT_POLICIES
from .tournament import RULE_SETS as TOURNAMENT_RULES
from .tournament import item_edges, plot_tournament, round_robin

__all__ = ["main", "build_parser"]

#: ``advise`` enumerates a position exactly when it has at most this many completions (seconds)
EXACT_BELOW = 200_000

EXIT_USAGE = 2  #: exit code for bad arguments or bad input


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse prints usage first; keep it short)
        self.exit(EXIT_USAGE, f"simkit: error: {message}\n")


_MAX_ID = 2**63 - 1  #: the largest count, index or seed the command takes (int64 columns and stream counters)


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


#: An integer as the command takes it: digits, or digits in groups of three separated by "," or "_"
#: (one of them throughout): "2000", "2,000", "1_000_000". "1,0" is no number, not 10.
_INTEGER = re.compile(r"\s*\+?(\d+|\d{1,3}(,\d{3})+|\d{1,3}(_\d{3})+)\s*")


def _positive_int(text: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"expected a positive integer (thousands may be separated by ',' or '_', as in 10,000), got {_shown(text)}"
        )
    value = int(text.replace("_", "").replace(",", ""))
    if not 0 < value <= _MAX_ID:
        raise argparse.ArgumentTypeError(f"expected a positive integer below 2**63, got {_shown(text)}")
    return value


def _out_path(text: str) -> str:
    """An output path: any name but the empty one (which would be the working directory)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a path, got an empty one ('' would be the working directory)")
    return text


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {_shown(text)}") from None
    if not 0 <= value <= _MAX_ID:
        raise argparse.ArgumentTypeError(f"seed must be between 0 and 2**63 - 1, got {_shown(text)}")
    return value


def _option_strings(args) -> dict:
    """The ``--option KEY=VALUE`` items as a dict of strings."""
    options = {}
    for item in args.option or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputValueError(f"--option expects KEY=VALUE, got {item!r}")
        options[key.strip()] = value.strip()
    return options


def _rules_from_args(args):
    rules = get_rules(args.rules)
    options = _option_strings(args)
    return rules.with_option_strings(options) if options else rules


def _add_rules_args(p, default="douque"):
    p.add_argument("--rules", default=default, help="rule set: douque (default), night_market, duel, for_two")
    p.add_argument(
        "--option", action="append", metavar="KEY=VALUE", help="rule option (repeatable); see `simkit rules NAME`"
    )


# ---------------------------------------------------------------------------------------------
# subcommands


def _cmd_hand(args) -> int:
    rules = _rules_from_args(args)
    melds = parse_melds(args.melds, rules)
    counts = as_counts(args.hand, rules)
    k = len(melds)
    total = int(counts.sum())
    print(f"hand     {format_tiles(counts)}" + (f"  + {', '.join(str(m) for m in melds)}" if melds else ""))
    print(f"rules    {rules}")
    if total not in (13 - 3 * k, 14 - 3 * k):
        raise InputValueError(
            f"the concealed part has {total} tiles; with {k} meld(s) it must have {13 - 3 * k} or {14 - 3 * k}"
        )
    sh = shanten(counts, melds, rules)
    label = {-1: "complete", 0: "ready"}.get(sh, f"{sh} from ready")
    print(f"shanten  {sh} ({label})")
    if total == 13 - 3 * k:
        w = waits(counts, melds, rules)
        print(f"waits    {' '.join(w) if w else '-'}")
    else:
        print(f"win      {'yes' if is_win(counts, melds, rules) else 'no'}")
        for i, split in enumerate(splits(counts, melds, rules), 1):
            print(f"split {i}  {' | '.join(split)}")

        print("discard  shanten after   live improving tiles   improving kinds")
        for row in discards(counts, melds, rules, visible=args.visible):
            print(f"{row['discard']:<8} {row['shanten']:>13}   {row['live']:>20}   {' '.join(row['improving']) or '-'}")
    return 0


#: ``advise``'s flags that build a position, with their defaults: ``--position`` takes none of them
_ADVISE_POSITION_FLAGS = {
    "hand": None,
    "drawn": None,
    "on_discard": None,
    "melds": [],
    "opp_melds": [],
    "river": "",
    "opp_river": "",
    "declared": 0,
    "opp_declared": 0,
    "declared_at": None,
    "opp_declared_at": None,
    "dealer": False,
    "tiles_left": None,
    "streak": 0,
    "seat_wind": None,
    "prevailing_wind": "E",
    "bid": None,
    "replacement": False,
    "wall": "shared",
    "hand_number": 0,
    "dealerships": 0,
    "score": 0.0,
    "opp_score": 0.0,
    "rules": "douque",
    "option": None,
}


def _advise_position(args) -> Position:
    """The position ``advise`` decides at: ``--position`` (its text or a file holding it), or the
    one its flags build."""
    if args.position is not None:
        given = [k for k, default in _ADVISE_POSITION_FLAGS.items() if getattr(args, k) != default]
        if given:
            flags = ", ".join("HAND" if k == "hand" else "--" + k.replace("_", "-") for k in given)
            raise InputValueError(f"--position holds the whole position (its rule set and options too): drop {flags}")
        return read_position(args.position)
    if args.hand is None:
        raise InputValueError("advise needs the hand (HAND and the position's flags) or --position TEXT|FILE")
    rules = _rules_from_args(args)
    opp_river = args.opp_river
    phase = "draw"
    if args.on_discard is not None:
        if args.drawn is not None:
            raise InputValueError(
                "--drawn and --on-discard exclude each other: a decision is after a draw or on a discard"
            )
        phase = "discard"
        opp_river = _ending_with(opp_river, args.on_discard, rules)
    seat = args.seat_wind or ("E" if args.dealer else "W")
    return Position(
        rules,
        hand=args.hand,
        melds=args.melds,
        opponent_melds=args.opp_melds,
        river=args.river,
        opponent_river=opp_river,
        declared=args.declared,
        opponent_declared=args.opp_declared,
        declared_at=args.declared_at,
        opponent_declared_at=args.opp_declared_at,
        tiles_left=args.tiles_left,
        dealer=args.dealer,
        streak=args.streak,
        seat_wind=seat,
        prevailing_wind=args.prevailing_wind,
        phase=phase,
        drawn=args.drawn,
        replacement=args.replacement,
        bid=args.bid if args.bid is not None else (1 if rules.name == "for_two" else 0),
        stable_wall=args.wall == "stable",
        hand_number=args.hand_number,
        dealerships=args.dealerships,
        score=args.score,
        opponent_score=args.opp_score,
    )


def _cmd_advise(args) -> int:
    _importable_here()
    pos = _advise_position(args)
    actions = [a for a in args.actions.split(";") if a.strip()] if args.actions else None
    if args.continuation is not None:
        if args.policies is not None:
            raise InputValueError(
                "--continuation and --policies exclude each other: --continuation P is --policies P,P"
            )
        args.policies = (args.continuation, args.continuation)
    elif args.policies is None:
        args.policies = ("greedy", "greedy")
    # parsed before the engine is compiled: a text that names no policy is one line, said first
    args.policies = tuple(parse_policy(p) if isinstance(p, str) else p for p in args.policies)
    if _exact_here(pos, args):
        return _advise_exactly(pos, args, actions)
    _warm_rollouts(pos, args, actions)
    t0 = time.perf_counter()
    df = rollouts(pos, n=args.n, policies=args.policies, actions=actions, seed=args.seed, to=args.to)
    dt = time.perf_counter() - t0  # the rollouts alone: the engine was compiled or loaded above
    print(f"position  {pos}")
    print(
        f"rollouts  {args.n:,} per action with {','.join(df.attrs['policies'])}, seed {args.seed}; "
        f"{args.n * len(df):,} in {dt:.1f} s; result = {df.attrs['value']}"
    )
    print(
        f"{'action':<18} {'mean':>9} {'95% interval':>21} {'vs best':>9} {'95% interval':>21} "
        f"{'win':>6} {'self-draw':>9} {'deal-in':>8} {'draw':>6}"
    )
    for r in df.itertuples():
        print(
            f"{r.action:<18} {r.mean:>9.2f} {f'[{r.mean_low:.2f}, {r.mean_high:.2f}]':>21} {r.diff:>9.2f} "
            f"{f'[{r.diff_low:.2f}, {r.diff_high:.2f}]':>21} {r.win_rate:>6.1%} {r.self_draw_rate:>9.1%} "
            f"{r.deal_in_rate:>8.1%} {r.draw_rate:>6.1%}"
        )
    return 0


def _exact_here(pos, args) -> bool:
    """Whether ``advise`` enumerates (``--exact``: always, never, or auto: when the position has at
    most ``--exact-below`` completions, goes to the end of the hand and the rule set allows it)."""
    if args.exact == "never":
        return False
    if args.exact == "always":
        if args.to != "hand":
            raise InputValueError("--exact always goes to the end of the hand: drop --to match")
        return True
    if args.to != "hand" or pos._derived["spec"].game.end_phase:
        return False
    # an undeclared opponent with more possible hands than the limit has more completions: not enumerated
    limit = None if pos.opponent_declared else args.exact_below
    return completions(pos, limit=limit).total <= args.exact_below


def _advise_exactly(pos, args, actions) -> int:
    """``advise`` by :func:`simkit.play.exact.exact`: every completion of the unseen tiles."""
    name = f"{resolve_rules(pos.rules).name} exact"
    print(f"simkit advise: {start_up_message(name)}", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    warm_exact(pos, policies=args.policies)
    seconds = time.perf_counter() - t0
    record_start_up(name, seconds)
    print(f"simkit advise: engine ready in {seconds:.1f} s", file=sys.stderr, flush=True)
    count = completions(pos)
    limit = max(args.exact_below, count.total)  # --exact always: whatever the count
    t0 = time.perf_counter()
    df = exact(pos, policies=args.policies, actions=actions, seed=args.seed, max_completions=limit)
    dt = time.perf_counter() - t0
    print(f"position  {pos}")
    print(
        f"exact     {count} with {','.join(df.attrs['policies'])}; {df.attrs['playouts']:,} hands played "
        f"in {dt:.1f} s; result = {df.attrs['value']}"
    )
    print(f"{'action':<18} {'mean':>9} {'vs best':>9} {'win':>7} {'self-draw':>9} {'deal-in':>8} {'draw':>7}")
    for r in df.itertuples():
        print(
            f"{r.action:<18} {r.mean:>9.3f} {r.diff:>9.3f} {r.win_rate:>7.2%} {r.self_draw_rate:>9.2%} "
            f"{r.deal_in_rate:>8.2%} {r.draw_rate:>7.2%}"
        )
    return 0


def _cmd_race(args) -> int:
    """``simkit race``: :func:`simkit.race` of a position in notation."""
    options = _option_strings(args)
    pos = Position.from_string(args.position)
    if options:
        pos = Position.from_string(args.position, get_rules(pos._derived["rules"].name).with_option_strings(options))
    t0 = time.perf_counter()
    result = race(pos, opponent_hand=args.opp_hand, seed=args.seed)
    dt = time.perf_counter() - t0
    if args.json:
        out = {k: getattr(result, k) for k in ("win", "self_draw", "deal_in", "opponent_win", "opponent_self_draw")}
        out.update(draw=result.draw, mean=result.mean, opponent_hands=result.opponent_hands, position=str(pos))
        out["turns"] = result.turns.to_dict(orient="records")
        print(json.dumps(out, indent=1))
        return 0
    print(f"position  {pos}")
    print(f"{result}\n({result.playouts:,} playouts in {dt:.1f} s)")
    print(result.turns.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    return 0


def _ending_with(river: str, tile: str, rules) -> str:
    """The opponent's river ending with the discard decided on, as :class:`~simkit.Position` takes it
    (``phase="discard"``: the opponent's last discard): ``river`` as given when it ends with ``tile``,
    else with ``tile`` added."""

    counts = parse_tiles(tile, rules)
    if counts.sum() != 1:
        raise InputValueError(f"--on-discard is one tile, got {tile!r}")
    if river.rstrip().endswith("*"):  # its last discard was claimed: the one decided on comes after it
        return f"{river} {tile}"
    last = parse_tile_list(river.replace("*", " "), rules)[-1:] if river.strip() else []
    return river if list(last) == [int(np.flatnonzero(counts)[0])] else f"{river} {tile}".strip()


def _warm_rollouts(pos, args, actions) -> None:
    """Compile (or load from the cache) the rollout engine and the policies with one continuation
    per action, saying first on stderr what that is and how long it took before, so that a cold
    start is not silent and the rollout speed printed after it is the rollouts' own."""

    name = f"{resolve_rules(pos.rules).name} rollout"  # its own record: not the match engine's compile
    print(f"simkit advise: {start_up_message(name)}", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    rollouts(pos, n=1, policies=args.policies, actions=actions, seed=args.seed, to=args.to)
    seconds = time.perf_counter() - t0
    record_start_up(name, seconds)
    print(f"simkit advise: engine ready in {seconds:.1f} s", file=sys.stderr, flush=True)


def _cmd_score(args) -> int:
    rules = _rules_from_args(args)
    result = score(
        args.hand,
        args.win,
        args.melds,
        rules=rules,
        self_drawn=args.self_drawn,
        robbing_kong=args.robbing_kong,
        replacement=args.replacement,
        last_tile=args.last_tile,
        last_discard=args.last_discard,
        first_turn=args.first_turn,
        declared=args.declared,
        seat_wind=args.seat,
        prevailing_wind=args.prevailing,
        dealer=args.dealer,
        streak=args.streak,
        bid=args.bid,
    )
    how = "self-drawn" if args.self_drawn else "on a discard"
    who = ""
    if rules.name in ("douque", "duel"):
        who = " by the dealer" if args.dealer else " by the non-dealer"
    print(f"{args.hand} won {how} on {args.win}{who}; {result.rules}")
    print(result.table())
    return 0


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {_shown(text)}") from None
    if not 0 <= value <= _MAX_ID:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer below 2**63, got {_shown(text)}")
    return value


#: A command whose work is estimated to take longer than this says so (even with --quiet).
ANNOUNCE_AFTER_SECONDS = 60.0


def _say_how_long(total: int, done: int, seconds: float) -> None:
    """After the first ``done`` of ``total`` units took ``seconds``: on stderr, how long the rest
    will take at that rate, when that is longer than :data:`ANNOUNCE_AFTER_SECONDS`."""
    rest = seconds / max(done, 1) * (total - done)
    if rest > ANNOUNCE_AFTER_SECONDS:
        units = ((86400.0 * 365, "years"), (86400.0, "days"), (3600.0, "hours"), (60.0, "minutes"))
        size, name = next((u for u in units if rest >= 2 * u[0]), units[-1])
        print(
            f"simkit: this will take about {rest / size:,.0f} {name} more at {done / max(seconds, 1e-9):,.0f} per "
            "second (Ctrl-C stops it)",
            file=sys.stderr,
            flush=True,
        )


#: The most deals ``simkit deal`` takes: at a few million deals per second a larger count runs for
#: days, and the rates' 95% intervals are already narrower than 1e-5 at this size.
MAX_DEALS = 10**11


def _cmd_deal(args) -> int:
    rules = _rules_from_args(args)
    n = args.hands
    if n > MAX_DEALS:
        raise InputValueError(
            f"--hands: at most {MAX_DEALS:,} deals (a larger count would run for days; the intervals are "
            f"narrower than 1e-5 at that size), got {n:,}"
        )
    chunk = min(n, 1_000_000)
    wins = 0
    ready = 0
    wait_sum = 0
    sh_d = np.zeros(16, np.int64)
    sh_o = np.zeros(16, np.int64)
    t0 = time.perf_counter()
    with tqdm(total=n, unit="deal", unit_scale=True, disable=args.quiet or n <= chunk, file=sys.stderr) as bar:
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            res = deal_stats(m, seed=args.seed, rules=rules, start=start)
            wins += int(res.dealer_win.sum())
            is_ready = res.other_shanten == 0
            ready += int(is_ready.sum())
            wait_sum += int(res.other_wait_kinds[is_ready].sum())
            sh_d += np.bincount(res.dealer_shanten + 1, minlength=16)[:16]
            sh_o += np.bincount(res.other_shanten + 1, minlength=16)[:16]
            bar.update(m)
            if start == 0:
                t1 = time.perf_counter()  # the first chunk also compiled or loaded the kernels
            elif start == chunk:
                _say_how_long(n - chunk, m, time.perf_counter() - t1)
    dt = time.perf_counter() - t0

    def rate(k):
        lo, hi = wilson_interval(k, n)
        return f"{k / n:10.5%}   [{lo:.5%}, {hi:.5%}]   ({k:,} of {n:,})"

    print(f"simkit deal: {n:,} deals of {rules}, seed {args.seed} ({dt:.2f} s, {n / dt:,.0f} deals/s)")
    print("                                         rate        95% interval")
    print(f"dealer's 14 tiles complete (heavenly): {rate(wins)}")
    print(f"non-dealer's 13 tiles ready:           {rate(ready)}")
    if ready:
        print(f"mean winning kinds of a ready non-dealer hand: {wait_sum / ready:.3f}")
    print("\nshanten at the deal     dealer (14)   non-dealer (13)")
    for s in range(16):
        if sh_d[s] or sh_o[s]:
            print(f"  {s - 1:>3}                 {sh_d[s] / n:10.4%}      {sh_o[s] / n:10.4%}")
    return 0


def _policies_arg(text: str) -> tuple[str, str]:
    """Two policies separated by a comma outside braces: ``greedy{declare=0},greedy``,
    ``bold=greedy{claim=1},mypkg.mymodule:my_policy{x=2}``."""

    parts = split_policies(text)
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(
            f"expected two policies separated by a comma (e.g. greedy,random or 'greedy{{declare=0}},greedy'), got {_shown(text)}"
        )
    return parts[0], parts[1]


def _importable_here() -> None:
    """Let ``module:function`` policies come from the working directory, as with ``python -m``."""

    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def _cmd_replay(args) -> int:
    _importable_here()
    if args.run is not None:
        return _replay_from_run(args)
    if args.row is not None or args.deal_id is not None:
        raise InputValueError(
            "--row and --deal-id select a row of a run: give the run directory (simkit replay RUN --row N)"
        )
    if args.seed is None or args.match is None or args.hand is None:
        raise InputValueError("replay needs a run and --row N / --deal-id D, or --seed, --match and --hand")
    args.rules = args.rules or "douque"
    rules = _rules_from_args(args)
    policies = args.policies or ("greedy", "greedy")
    record = replay(args.seed, args.match, args.hand, rules=rules, policies=policies)
    print(f"seed {args.seed}, match {args.match}, hand {args.hand}; {rules}; policies {','.join(policies)}")
    _show_record(record, args)
    return 0


def _replay_from_run(args) -> int:
    if (args.row is None) == (args.deal_id is None):
        raise InputValueError("give one of --row N or --deal-id D to choose the hand of the run")
    for name in ("seed", "match", "hand", "policies", "rules", "option"):
        if getattr(args, name, None):
            raise InputValueError(f"--{name} comes from the run's manifest when replaying a row of a run")
    run = datasets.open_run(args.run)
    columns = ["deal_id", "copy", "seed", "match", "hand", "policy_0", "policy_1"]
    table = run.read(columns=columns)
    if args.row is not None:
        if args.row >= table.num_rows:
            raise InputValueError(
                f"the run has {table.num_rows:,} rows (0 to {table.num_rows - 1:,}); there is no row {args.row:,}"
            )
        index = args.row
    else:
        mask = pc.equal(table["deal_id"], args.deal_id)
        if args.copy is not None:
            mask = pc.and_(mask, pc.equal(table["copy"], args.copy))
        hits = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
        if len(hits) == 0:
            raise InputValueError(
                f"the run has no row with deal_id {args.deal_id}"
                + (f" and copy {args.copy}" if args.copy is not None else "")
            )
        if len(hits) > 1:
            raise InputValueError(
                f"deal_id {args.deal_id} has a row in each copy of this duplicate run: add --copy 0 or --copy 1"
            )
        index = int(hits[0])
    row = {name: table[name][index].as_py() for name in columns}
    record = run.replay(row, allow_changed=args.allow_changed)
    print(
        f"{run.path} row {index}: seed {row['seed']}, match {row['match']}, hand {row['hand']}, copy {row['copy']}; "
        f"{run.rules}; policies {row['policy_0']},{row['policy_1']}"
    )
    _show_record(record, args)
    return 0


def _show_record(record, args) -> None:
    """Print the hand's events; with ``--html FILE`` also write it as a page; with ``--table``
    print the event table (both hands, shanten and waits after each event) instead."""
    if args.table:
        import pandas as pd

        with pd.option_context(
            "display.width", 250, "display.max_columns", None, "display.max_rows", None, "display.max_colwidth", 40
        ):
            print(record.event_table().drop(columns=["text"]).to_string(index=False))
    else:
        for line in record.lines():
            print(line)
    if args.html:
        record.to_html(args.html)
        print(f"written {args.html}")


def _cmd_policies(args) -> int:
    _importable_here()
    names = [args.name] if args.name else [*BUILT_IN, *AGENT_FILES]
    for name in names:
        p = parse_policy(name)
        if p.source is not None:  # a learned policy's file
            print(f"{p.label}: a learned policy\n{p.source.describe()}")
            continue
        spec = spec_of(p.function)
        doc = (getattr(p.function, "__doc__", None) or "").strip().splitlines()
        print(f"{p.name}: {doc[0] if doc else ''}")
        if spec is None or not spec.params:
            print("  no parameters")
        else:
            for key, param in spec.params:
                print(f"  {key}: {param.describe()}")
    return 0


def _cmd_rules(args) -> int:
    names = [args.name] if args.name else list(RULE_SETS)
    for i, name in enumerate(names):
        if i:
            print()
        print(get_rules(name).describe())
    return 0


def _cmd_tables(args) -> int:
    t0 = time.perf_counter()
    tables = load_tables(rebuild=args.rebuild)
    dt = time.perf_counter() - t0
    size = sum(a.nbytes for a in tables) / 2**20
    print(f"hand tables: {size:.1f} MiB in {cache_dir()} ({'built' if args.rebuild else 'ready'} in {dt:.2f} s)")
    return 0


def _cmd_simulate(args) -> int:
    _importable_here()

    rules = None
    if args.rules is not None or args.option:
        rules = get_rules(args.rules or "douque")
        for item in args.option or []:
            if "=" not in item or not item.partition("=")[0].strip():
                raise InputValueError(f"--option expects KEY=VALUE, got {item!r}")
        if args.option:
            rules = rules.with_option_strings(args.option)
    if args.workers > 1:
        # Worker processes ended by Ctrl-C cannot release a semaphore numba took at import; the
        # resource tracker (started with these flags) frees it anyway: keep its warning off stderr.
        sys.warnoptions.append("ignore::UserWarning:multiprocessing.resource_tracker")
    try:
        result = simulate(
            args.out,
            rules=rules,
            policies=args.policies,
            matches=args.matches,
            hands=args.hands,
            seed=args.seed,
            duplicate=args.duplicate,
            deal=args.deal,
            wall=args.wall,
            decisions=args.decisions,
            workers=args.workers,
            chunk_matches=args.chunk_matches,
            overwrite=args.overwrite,
            resume=args.resume,
            progress=not args.quiet,
            scheduler=args.scheduler,
        )
    except KeyboardInterrupt as exc:
        where = getattr(exc, "path", None)
        if where is None:
            raise
        print(
            f"simkit: interrupted; the complete shards are kept in {where}; "
            f"finish the run with: simkit simulate --out {where} --resume",
            file=sys.stderr,
        )
        return 130
    run = result.path
    shards = f"{result.shards} shard{'s' if result.shards != 1 else ''}"
    if result.reused:
        done = "reused: every shard was there already, nothing played"
    else:
        startup = f"start-up {result.startup_seconds:.1f} s, then " if result.startup_seconds >= 0.05 else ""
        workers = ", the workers' start-up included" if args.workers > 1 or args.scheduler else ""
        done = (
            f"{startup}{result.computed_rows:,} hands in {result.play_seconds:.1f} s, "
            f"{result.hands_per_second:,.0f} hands/s{workers}"
        )
    print(f"simkit simulate: {result.rows:,} hands in {result.matches:,} matches -> {run} ({shards}; {done})")
    print(f"summary: simkit summarize {run}")
    return 0


def _cmd_summarize(args) -> int:
    summary = summarize(args.path, by=args.by)
    if args.json:
        print(json.dumps(summary.to_dict(), indent=1))
    else:
        print(summary.table())
    return 0


def _cmd_compare(args) -> int:
    if args.correct_luck:
        _importable_here()  # the luck correction replays the run's policies, a module of the working directory too
    result = compare(
        args.run_a,
        args.run_b,
        value=args.value,
        correct_luck=args.correct_luck,
        interval=args.interval,
        resamples=args.resamples,
        seed=args.seed,
    )
    print(result.table())
    return 0


def _cmd_exploit(args) -> int:
    _importable_here()  # a module:function target from the working directory, in the workers and the replay too
    rules = _rules_from_args(args)
    result = exploitability(
        args.policy,
        rules,
        matches=args.matches,
        seed=args.seed,
        worlds=args.worlds,
        min_worlds=args.min_worlds,
        z=args.z,
        out=args.out,
        workers=args.workers,
        progress=not args.quiet,
    )
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
        return 0
    print(f"policy     {result.policy} ({result.rules})")
    print(f"responder  {result.responder}")
    print(f"played     {result.matches:,} matches x 2 seatings, {result.hands:,} hands, seed {result.seed}")
    print(result.verdict())
    return 0


def _cmd_decide(args) -> int:
    _importable_here()  # a module:function policy from the working directory, in the workers and the replay too
    result = decide(
        args.policy_a,
        args.policy_b,
        _rules_from_args(args),
        margin=args.margin,
        seed=args.seed,
        alpha=args.alpha,
        power=args.power,
        block=args.block,
        max_matches=args.max_matches,
        correct_luck=not args.no_luck_correction,
        out=args.out,
        workers=args.workers,
        progress=not args.quiet,
    )
    print(json.dumps(result.to_dict(), indent=1) if args.json else str(result))
    return 0


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {_shown(text)}") from None


def _names_arg(text: str) -> list[str]:
    """A comma-separated list of names (rule sets): ``douque,duel``."""
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected names separated by commas (e.g. douque,duel), got {_shown(text)}")
    return names


def _policy_list_arg(text: str) -> list[str]:
    """Policies separated by commas outside braces: ``random,greedy{claim=0},value``."""
    parts = split_policies(text)
    if not all(parts):
        raise argparse.ArgumentTypeError(
            f"expected policies separated by commas (e.g. random,greedy,value), got {_shown(text)}"
        )
    return parts


def _cmd_tournament(args) -> int:
    import pandas as pd

    _importable_here()  # module:function policies from the working directory, in the luck correction too
    # the figures' files are checked before the play, which may take hours
    args.figure = None if args.figure is None else check_figure_path(args.figure, "--figure")
    args.heat_map = None if args.heat_map is None else check_figure_path(args.heat_map, "--heat-map")
    progress = not args.quiet and (args.progress or sys.stderr.isatty())
    t0 = time.perf_counter()
    t = round_robin(
        args.policies, args.rules, matches=args.matches, seed=args.seed, directory=args.out, progress=progress
    )
    played = time.perf_counter() - t0
    rated = t.ratings(method=args.method, correct_luck=args.correct_luck, n_boot=args.n_boot, seed=args.boot_seed)
    edges = item_edges(t, *args.items, top=5) if args.items else None
    figures = []
    if args.figure or args.heat_map:
        import matplotlib

        matplotlib.use("Agg")
        for path, draw in ((args.figure, plot_ratings), (args.heat_map, plot_tournament)):
            if path:
                draw(rated if draw is plot_ratings else t)[0].figure.savefig(path, dpi=110)
                figures.append(str(path))
    if args.json:
        doc = {
            "policies": list(t.policies),
            "rules": list(t.rules),
            "matches": t.matches,
            "seed": t.seed,
            "ratings": {
                "method": args.method,
                "correct_luck": args.correct_luck,
                "n_boot": args.n_boot,
                "seed": args.boot_seed,
                "units": rated.attrs["units"],
                "table": rated.to_dict(orient="records"),
            },
            "pairs": t.table.to_dict(orient="records"),
            "figures": figures,
        }
        if edges is not None:
            doc["items"] = edges.to_dict(orient="records")
        print(json.dumps(doc, indent=1, default=float))
        return 0
    print(t.text(rated))
    if args.method == "bradley_terry":
        print("\n(Bradley-Terry ratings: log-odds of winning a deal, on the mean of its two seatings)")
    if edges is not None:
        a, b = args.items
        print(f"\nwhat each rule set rewards: the items where {a}'s and {b}'s scoring differ most per hand")
        with pd.option_context("display.width", 200):
            print(edges.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    for path in figures:
        print(f"figure: {path}")
    print(f"({time.perf_counter() - t0:.0f} s, of which playing {played:.0f} s; runs under {args.out})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``simkit`` command."""
    parser = _Parser(prog="simkit", description="Monte Carlo toolkit for two-player mahjong research.")
    parser.add_argument("--version", action="version", version=f"simkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("hand", help="analyse one hand: shanten, waits, win, splits, and every discard of 14 tiles")
    p.add_argument("hand", help="concealed tiles in m/p/s/z notation, e.g. 1112345678999m")
    p.add_argument("--melds", nargs="*", default=[], metavar="MELD", help='exposed melds, e.g. "pung 555z"')
    p.add_argument(
        "--visible", default=None, metavar="TILES", help="further tiles seen (rivers, the opponent's melds): not live"
    )
    _add_rules_args(p)
    p.set_defaults(func=_cmd_hand)

    p = sub.add_parser(
        "advise",
        help="rank the actions at a position by Monte Carlo rollouts (mean result with 95%% intervals, paired differences)",
    )
    p.add_argument(
        "hand",
        nargs="?",
        default=None,
        help="own concealed tiles, the drawn tile included (e.g. 123m5m79m1p99p11z567z); or give --position",
    )
    p.add_argument(
        "--position",
        default=None,
        metavar="TEXT|FILE",
        help="the whole position in its text form, str(simkit.Position) (e.g. from GameState.position()), or a "
        "file holding it; instead of HAND and the position's flags",
    )
    p.add_argument("--drawn", default=None, metavar="TILE", help="the tile just drawn (needed for a declared hand)")
    p.add_argument("--replacement", action="store_true", help="the drawn tile was a kong replacement")
    p.add_argument(
        "--on-discard",
        default=None,
        metavar="TILE",
        help="decide on the opponent's discard TILE (13 - 3k tiles in hand): win / pung / kong / chow / pass; "
        "TILE is the last of the opponent's river, added to --opp-river unless it ends with it",
    )
    p.add_argument("--melds", nargs="*", default=[], metavar="MELD", help='own melds, e.g. "pung 555z"')
    p.add_argument("--opp-melds", nargs="*", default=[], metavar="MELD", help="the opponent's melds")
    p.add_argument("--river", default="", metavar="TILES", help="own discards in order (* after a claimed one)")
    p.add_argument("--opp-river", default="", metavar="TILES", help="the opponent's discards in order")
    p.add_argument(
        "--declared", type=int, choices=(0, 1, 2), default=0, help="own declaration (douque): 1 ready, 2 MIGI"
    )
    p.add_argument("--opp-declared", type=int, choices=(0, 1, 2), default=0, help="the opponent's declaration")
    p.add_argument(
        "--declared-at",
        type=_non_negative_int,
        default=None,
        metavar="I",
        help="index in --river of the declaring discard (default: the river's last)",
    )
    p.add_argument(
        "--opp-declared-at",
        type=_non_negative_int,
        default=None,
        metavar="I",
        help="index in --opp-river of the opponent's declaring discard (default: its last)",
    )
    p.add_argument("--dealer", action="store_true", help="the deciding player deals")
    p.add_argument(
        "--wall",
        choices=("shared", "stable"),
        default="shared",
        help="the wall mode: shared (default: both draw from the front) or stable (a run's --wall stable: "
        "the player draws from the front, the opponent from the back)",
    )
    p.add_argument(
        "--tiles-left",
        type=_non_negative_int,
        default=None,
        help="drawable tiles left (checked against the tiles seen)",
    )
    p.add_argument("--streak", type=_non_negative_int, default=0, help="the dealer's streak")
    p.add_argument("--seat-wind", choices=("E", "W"), default=None, help="own seat wind (default: E for the dealer)")
    p.add_argument("--prevailing-wind", choices=("E", "S", "W", "N"), default="E")
    p.add_argument("--bid", type=int, choices=(1, 2, 3), default=None, help="for_two: the banker's bid")
    p.add_argument("-n", type=_positive_int, default=10_000, help="continuations per action (default 10,000)")
    p.add_argument(
        "--to",
        choices=("hand", "match"),
        default="hand",
        help="play each continuation to the end of the hand (default) or of the match",
    )
    p.add_argument(
        "--hand-number", type=_non_negative_int, default=0, help="hands already played in the match (--to match)"
    )
    p.add_argument(
        "--dealerships", type=_non_negative_int, default=0, help="deals passed so far in the match (--to match)"
    )
    p.add_argument("--score", type=float, default=0.0, help="own result in the match so far (--to match)")
    p.add_argument(
        "--opp-score", type=float, default=0.0, help="the opponent's result in the match so far (--to match)"
    )
    p.add_argument("--seed", type=_seed, default=0, help="seed of the completions and the policies' streams")
    p.add_argument(
        "--actions", default=None, help="compare only these actions, separated by ';' (e.g. 'discard 6z; discard 1m')"
    )
    p.add_argument(
        "--policies",
        type=_policies_arg,
        default=None,
        help="rollout policies of the player and the opponent (default greedy,greedy)",
    )
    p.add_argument(
        "--continuation",
        default=None,
        metavar="POLICY",
        help="one rollout policy for both players, e.g. value or search (the same as --policies POLICY,POLICY)",
    )
    p.add_argument(
        "--exact",
        choices=("auto", "always", "never"),
        default="auto",
        help="enumerate every completion of the unseen tiles instead of sampling them: auto (default) when there "
        "are at most --exact-below of them, always, or never",
    )
    p.add_argument(
        "--exact-below",
        type=_positive_int,
        default=EXACT_BELOW,
        metavar="N",
        help=f"--exact auto enumerates positions with at most N completions (default {EXACT_BELOW:,})",
    )
    _add_rules_args(p)
    p.set_defaults(func=_cmd_advise)

    p = sub.add_parser(
        "race",
        help="two locked ready hands: each player's chance to win, draw by draw, and the expected result, exactly",
        description="The race of a position in notation (simkit.Position.from_string), the viewer after a draw: "
        "both hands ready and locked (declared, or discarding what they draw). Without --opp-hand, summed over "
        "every ready hand of the unseen tiles.",
    )
    p.add_argument(
        "position",
        help="e.g. 'douque: hand 224447789m55z; drawn 7m; melds pung 111m; declared 1; opponent_declared 1; ...'",
    )
    p.add_argument("--opp-hand", default=None, metavar="TILES", help="the opponent's concealed tiles, when known")
    p.add_argument(
        "--option", action="append", metavar="KEY=VALUE", help="rule option (repeatable); see `simkit rules NAME`"
    )
    p.add_argument("--seed", type=_seed, default=0, help="the players' streams of the pricing playouts")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_cmd_race)

    p = sub.add_parser(
        "score",
        help="score a winning hand: items, tai / fan / combination points, payment",
        description="Score a winning hand under a rule set. Each rule set takes only its own win flags: "
        "douque: --self-drawn --robbing-kong --replacement --last-tile --first-turn --declared --seat "
        "--prevailing --dealer --streak; night_market: --self-drawn --last-tile --last-discard; "
        "duel: --self-drawn --robbing-kong --replacement --last-tile --first-turn heavenly|earthly --dealer; "
        "for_two: --self-drawn --bid.",
    )
    p.add_argument("hand", help="concealed tiles including the winning tile, e.g. 123456789m11122z")
    p.add_argument("--win", required=True, metavar="TILE", help="the winning tile, e.g. 2z")
    p.add_argument(
        "--melds", nargs="*", default=[], metavar="MELD", help='exposed/declared melds, e.g. "pung 555z", "chow 345m"'
    )
    p.add_argument("--self-drawn", action="store_true", help="the winner drew the winning tile")
    p.add_argument("--robbing-kong", action="store_true", help="won on the opponent's added-kong tile (douque, duel)")
    p.add_argument("--replacement", action="store_true", help="self-drawn on a kong replacement (douque, duel)")
    p.add_argument("--last-tile", action="store_true", help="self-drawn on the last drawable tile")
    p.add_argument(
        "--last-discard", action="store_true", help="won on the discard after the last tile was drawn (night_market)"
    )
    p.add_argument(
        "--first-turn",
        choices=["heavenly", "earthly", "human"],
        help="a first-turn win (douque; duel: heavenly, earthly)",
    )
    p.add_argument("--declared", choices=["ready", "migi"], help="the winner declared ready / MIGI (douque)")
    p.add_argument("--seat", choices=["E", "W"], help="the winner's seat wind (douque; default E)")
    p.add_argument("--prevailing", choices=["E", "S", "W", "N"], help="prevailing wind (douque; default E)")
    p.add_argument("--dealer", action="store_true", help="the winner is the dealer (douque, duel)")
    p.add_argument("--streak", type=_non_negative_int, help="the dealer's streak (douque; default 0)")
    p.add_argument("--bid", type=int, metavar="{1,2,3}", help="the banker's bid (for_two; default 1)")
    _add_rules_args(p)
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser("deal", help="deal many hands and report starting-hand statistics")
    p.add_argument(
        "--hands", type=_positive_int, default=1_000_000, help="number of deals (default 1,000,000; at most 10**11)"
    )
    p.add_argument("--seed", type=_seed, default=0, help="master seed (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_rules_args(p)
    p.set_defaults(func=_cmd_deal)

    p = sub.add_parser(
        "replay",
        help="replay one hand, event by event: a row of a run (RUN --row N / --deal-id D) or --seed/--match/--hand",
    )
    p.add_argument(
        "run", nargs="?", metavar="RUN", help="a run directory: replay one of its rows with its recorded policies"
    )
    p.add_argument("--row", type=_non_negative_int, help="with RUN: the row's index in the run (0-based)")
    p.add_argument(
        "--deal-id", type=_non_negative_int, help="with RUN: the row's deal_id (add --copy in a duplicate run)"
    )
    p.add_argument("--copy", type=int, choices=(0, 1), help="with RUN and --deal-id: the copy of a duplicate run")
    p.add_argument(
        "--allow-changed",
        action="store_true",
        help="replay even if the source of a recorded policy's module changed since the run",
    )
    p.add_argument(
        "--table", action="store_true", help="print the event table: both hands, shanten and waits after each event"
    )
    p.add_argument(
        "--html", metavar="FILE", help="also write the hand as an HTML page (tiles drawn, one row per event)"
    )
    p.add_argument("--seed", type=_seed, help="the run's master seed")
    p.add_argument("--match", type=_non_negative_int, help="match index")
    p.add_argument("--hand", type=_non_negative_int, help="hand index within the match")
    p.add_argument(
        "--policies",
        type=_policies_arg,
        default=None,
        help="the run's policies (default greedy,greedy); e.g. 'greedy{declare=0},mymodule:my_policy{x=1}'",
    )
    _add_rules_args(p, default=None)
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser(
        "policies",
        help="the built-in policies (or one given as NAME, module:function or a learned policy's file) and their parameters",
    )
    p.add_argument("name", nargs="?", help="a policy: a built-in name, module:function or path/to/policy.npz")
    p.set_defaults(func=_cmd_policies)

    p = sub.add_parser("rules", help="describe rule sets and their options")
    p.add_argument("name", nargs="?", help="a rule set (default: all)")
    p.set_defaults(func=_cmd_rules)

    p = sub.add_parser("tables", help="build (or check) the cached hand lookup tables")
    p.add_argument("--rebuild", action="store_true", help="rebuild even if cached")
    p.set_defaults(func=_cmd_tables)

    p = sub.add_parser(
        "simulate",
        help="play whole matches into a Parquet dataset (resumable, reproducible)",
        description="Play whole matches and write one row per hand to a directory of Parquet shards "
        "(default: 2,000 matches of douque, greedy vs greedy, into data/runs/). The same arguments give "
        "the same rows whatever --workers; an interrupted run is finished with --resume.",
    )
    p.add_argument("--rules", default=None, help="rule set (default douque)")
    p.add_argument(
        "--option", action="append", metavar="KEY=VALUE", help="rule option (repeatable); see `simkit rules NAME`"
    )
    p.add_argument(
        "--policies",
        type=_policies_arg,
        default=None,
        help="player 0's and player 1's policies (default greedy,greedy): built-in names or module:function, "
        "with parameters and an optional label, or a learned policy's file, e.g. "
        "'never_declare=greedy{declare=0},mymodule:my_policy{x=1}' or 'bot=agents/bot.npz,greedy' "
        "(simkit policies lists the parameters)",
    )
    target = p.add_mutually_exclusive_group()
    target.add_argument("--matches", type=_positive_int, default=None, help="whole matches to play (default 2,000)")
    target.add_argument(
        "--hands",
        type=_positive_int,
        default=None,
        help="play the fewest whole matches, in match order, whose hands (rows) reach N",
    )
    p.add_argument("--seed", type=_seed, default=None, help="master seed (default 0)")
    p.add_argument(
        "--out",
        type=_out_path,
        metavar="DIR",
        default=None,
        help="output directory (default data/runs/<rules>_<policies>_seed<S>_<N>...)",
    )
    p.add_argument(
        "--workers", type=_positive_int, default=1, help="processes (default 1: one process, numba on all cores)"
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run the chunks on a Dask cluster: a scheduler address (tcp://host:8786; --out must be on a filesystem "
        "the workers share) or 'local' (a LocalCluster of --workers processes on this machine)",
    )
    p.add_argument(
        "--duplicate",
        action="store_true",
        default=None,
        help="play every match twice, the second time with the policies' seats swapped (column copy; rows pair by deal_id)",
    )
    p.add_argument(
        "--deal",
        choices=DEALS,
        default=None,
        help="how the wall is dealt: seat (default: each seat's tiles from its own stream, whoever deals; with "
        "--duplicate the tiles follow the policies) or dealer (the dealer takes the wall's first 14 tiles)",
    )
    p.add_argument(
        "--wall",
        choices=WALLS,
        default=None,
        help="stable (default with --deal seat: each seat draws from its own stream, claims shift no draws) or "
        "shared (one wall drawn in turn)",
    )
    p.add_argument(
        "--decisions",
        nargs="?",
        const=True,
        default=None,
        choices=["observations"],
        metavar="observations",
        help="also write the decision log, one row per decision (RUN/_decisions/; simkit.analysis.load(RUN, "
        "table='decisions')); '--decisions observations' also logs each decider's observation and legal "
        "actions (simkit.analysis.decision_arrays(RUN)); a resumed run keeps its setting",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--overwrite", action="store_true", help="replace an existing run in DIR")
    mode.add_argument("--resume", action="store_true", help="finish an interrupted run in DIR")
    p.add_argument(
        "--chunk-matches",
        type=_positive_int,
        default=None,
        metavar="N",
        help="matches per shard (default 2,000; does not change the data)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("summarize", help="summary table of a simulate dataset")
    p.add_argument("path", metavar="PATH", help="a run directory written by simkit simulate")
    p.add_argument(
        "--json", action="store_true", help="the summary as JSON (counts, rates, [mean, low, high] intervals)"
    )
    p.add_argument(
        "--by",
        choices=("policy", "role", "win_type"),
        default=None,
        help="also the summary per policy or role of each player (wins, win rate, result per hand) or per win type "
        "(share of hands, payment per hand)",
    )
    p.set_defaults(func=_cmd_summarize)

    p = sub.add_parser(
        "compare",
        help="paired comparison: the two policies of a --duplicate run, or two runs on the same deals",
    )
    p.add_argument("run_a", metavar="RUN_A", help="a run directory (a --duplicate run when given alone)")
    p.add_argument(
        "run_b",
        metavar="RUN_B",
        nargs="?",
        default=None,
        help="a second run with the same seed and wall design, paired with RUN_A by deal",
    )
    p.add_argument(
        "--value",
        default=None,
        help="two runs: what is compared, result_0, result_1 or a numeric column such as points "
        "(default: the result of the seat whose policy differs, else points)",
    )
    p.add_argument(
        "--correct-luck",
        action="store_true",
        help="remove the luck of the draw from the paired estimates (a - b in a --duplicate run, the "
        "seat's result across two runs): an unbiased control variate; replays the draws in the "
        "compiled engine",
    )
    p.add_argument(
        "--interval",
        choices=("clustered", "bootstrap"),
        default="clustered",
        help="the paired intervals: clustered by match (default; a normal approximation) or a percentile "
        "bootstrap resampling matches",
    )
    p.add_argument(
        "--resamples",
        type=_positive_int,
        default=2000,
        help="--interval bootstrap: resamples (100 to 1,000,000; default 2,000)",
    )
    p.add_argument("--seed", type=_seed, default=0, help="--interval bootstrap: seed of the resamples (default 0)")
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser(
        "exploit",
        help="a lower bound on a policy's exploitability: a local best response plays it in duplicate",
    )
    p.add_argument("policy", metavar="POLICY", help="the target: a built-in, module:function, with {parameters}")
    p.add_argument("--matches", type=_positive_int, default=200, help="matches dealt, each played twice (default 200)")
    p.add_argument("--seed", type=_seed, default=0, help="the run's seed (default 0)")
    p.add_argument(
        "--worlds", type=_positive_int, default=64, help="the responder's worlds per decision at most (default 64)"
    )
    p.add_argument(
        "--min-worlds",
        type=_positive_int,
        default=None,
        help="worlds before a candidate is dropped, at most --worlds (default 16, or --worlds if fewer)",
    )
    p.add_argument("--z", type=_number, default=3.0, help="standard errors that separate two candidates (default 3.0)")
    p.add_argument(
        "--out",
        type=_out_path,
        default=None,
        help="keep the duplicate run in this directory (resumed if unfinished; default none)",
    )
    p.add_argument("--workers", type=_positive_int, default=1, help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_rules_args(p)
    p.set_defaults(func=_cmd_exploit)

    p = sub.add_parser(
        "tournament",
        help="a round robin of policies in duplicate play: pair matrices and ratings with intervals",
        description="Play every pair of --policies as --duplicate runs in every rule set of --rules (one run "
        "per pair under --out: a complete run is reused, an interrupted one finished), then print per rule set "
        "the matrix of the row policy's result minus the column's per hand and the ratings, best first, with "
        "95% intervals bootstrapped by match.",
    )
    p.add_argument(
        "--policies",
        type=_policy_list_arg,
        default=list(TOURNAMENT_POLICIES),
        help="two or more policies, comma-separated, as simulate takes them (default random,greedy,value); "
        "give equal policies distinct labels: 'bold=greedy{claim=1}'",
    )
    p.add_argument(
        "--rules",
        type=_names_arg,
        default=list(TOURNAMENT_RULES),
        help="rule sets, comma-separated (default douque,night_market,duel,for_two)",
    )
    p.add_argument(
        "--matches", type=_positive_int, default=2000, help="duplicate matches per pair and rule set (default 2,000)"
    )
    p.add_argument("--seed", type=_seed, default=0, help="master seed: every pair plays the same deals")
    p.add_argument("--out", type=_out_path, metavar="DIR", default="data/tournament", help="directory of the runs")
    p.add_argument(
        "--method",
        choices=("payment", "bradley_terry"),
        default="payment",
        help="payment ratings: mean a - b per hand against the field (default); bradley_terry: log-odds of "
        "winning a deal",
    )
    p.add_argument(
        "--correct-luck",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="rate the luck-corrected differences (default; replays each run's draws once)",
    )
    p.add_argument("--n-boot", type=_positive_int, default=1000, help="bootstrap replicates (default 1,000)")
    p.add_argument("--boot-seed", type=_seed, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument(
        "--items",
        type=_policies_arg,
        default=None,
        metavar="A,B",
        help="also the scoring items where policies A and B differ most (top 5 per rule set)",
    )
    p.add_argument("--figure", metavar="PNG", default=None, help="save the ratings plot here")
    p.add_argument("--heat-map", metavar="PNG", default=None, help="save the pair matrices' heat map here")
    p.add_argument(
        "--progress",
        action="store_true",
        help="show each run's progress when stderr is not a terminal too (a line every 10 s in a log)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress (shown by default on a terminal)")
    p.add_argument("--json", action="store_true", help="print the ratings and the pairs as JSON")
    p.set_defaults(func=_cmd_tournament)

    p = sub.add_parser(
        "decide",
        help="whether policy A beats B by a margin: duplicate matches block by block until a confidence "
        "sequence decides",
    )
    p.add_argument("policy_a", metavar="A", help="a policy: a built-in, module:function, with {parameters}")
    p.add_argument("policy_b", metavar="B", help="the policy A is measured against")
    p.add_argument(
        "--margin",
        type=_number,
        default=0.0,
        help="A - B per hand to beat, in the rule set's payment unit (default 0: whether A is better at all)",
    )
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--alpha", type=_number, default=0.05, help="probability of a wrong decision, at most (0.05)")
    p.add_argument("--power", type=_number, default=0.9, help="power of the fixed-size z-test reported beside it (0.9)")
    p.add_argument("--block", type=_positive_int, default=100, help="matches per look (default 100)")
    p.add_argument(
        "--max-matches", type=_positive_int, default=5000, help="matches at most, then undecided (default 5000)"
    )
    p.add_argument(
        "--no-luck-correction", action="store_true", help="do not remove the luck of the draw (faster looks)"
    )
    p.add_argument(
        "--out", type=_out_path, default=None, help="keep the duplicate run in this directory (reused if unfinished)"
    )
    p.add_argument("--workers", type=_positive_int, default=1, help="worker processes")
    p.add_argument("--json", action="store_true", help="print the decision and its trace as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_rules_args(p)
    p.set_defaults(func=_cmd_decide)
    return parser


def _one_line(exc: BaseException) -> str:
    """The message of an error on one line (a library message is one already)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def main(argv=None) -> int:
    """Entry point of the ``simkit`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except (SimkitError, ValueError, TypeError, OverflowError) as exc:
        print(f"simkit: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print("simkit: error: out of memory: ask for less at a time", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("simkit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `simkit deal | head`: stop quietly
        sys.stderr.close()
        return 0
