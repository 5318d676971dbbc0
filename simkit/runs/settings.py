"""A run's settings: the arguments of :func:`~simkit.runs.simulation.simulate` checked (strict types,
counts in range, a chunk size that fits this machine's memory) and resolved into the run's spec and
the policies that play it; with ``resume``, taken from the run's manifest, every argument given
agreeing with it and every policy unchanged since the run recorded it (:mod:`simkit.runs.resume`).
Also the default run directory of a spec and the one-line message of an operating-system error
while writing a run."""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
from pathlib import Path

import numpy as np

from .. import datasets
from ..engine.rulesets import DEALS, WALLS, wall_design, wall_settings
from ..errors import InputValueError, SimkitError
from ..play.runtime import decisions_setting
from ..policies.spec import as_policy, default_label, from_record
from ..rules import get_rules, resolve_rules
from .resume import check_policies_unchanged, verified_done

__all__ = [
    "DEFAULT_MATCHES",
    "DEFAULT_CHUNK_MATCHES",
    "RUNS_DIR",
    "MAX_MATCHES",
    "MAX_WORKERS",
    "positive",
    "flag",
    "check_chunk_memory",
    "default_out",
    "resolve_run",
    "os_message",
]

#: Matches of a run when neither ``matches`` nor ``hands`` is given.
DEFAULT_MATCHES = 2000
#: Matches per chunk (= per shard). The engine preallocates ``8 * (streak_cap + 1)`` hand rows per
#: match (88 by default), about 25 kB, and a random-vs-random match has about 77 hands, so a chunk
#: peaks around 2000 * 25 kB + its rows: ~150 MB, whatever the run's size.
DEFAULT_CHUNK_MATCHES = 2000
#: Where runs go when no output directory is given.
RUNS_DIR = Path("data") / "runs"

# ---------------------------------------------------------------------------------------------
# the arguments


#: Most matches a run may have: ``deal_id = match << 16 | hand`` must fit a signed 64-bit integer.
MAX_MATCHES = 2 ** (63 - 16)
#: Most worker processes.
MAX_WORKERS = 256


def positive(name, value, limit=None):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise InputValueError(f"{name} must be a positive integer, got {value!r}")
    if limit is not None and value > limit[0]:
        raise InputValueError(f"{name} must be at most {limit[1]}, got {value!r}")
    return int(value)


def flag(name, value, optional=False):
    """A real boolean (``True``/``False``, numpy's too): ``"no"`` or ``1`` is refused, not truthy."""
    if value is None and optional:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise InputValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


#: Bytes per buffered row of a chunk, an upper bound with room for Arrow's copies (~60 columns of at
#: most 8 bytes, the notation strings, the (match, copy, hand) reordering of a duplicate run).
_ROW_BYTES = 1024
#: Bytes per hand row of a run with decisions, in addition: up to 64 decisions a hand (random vs
#: random douque makes 43) of about 150 bytes (the engine's log, its columns, the Arrow table), and
#: with observations about 400 (the observed facts too).
_DECISION_BYTES_PER_HAND = {True: 64 * 150, "observations": 64 * 400}


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 2**40


def check_chunk_memory(spec: dict, rules, workers: int) -> None:
    """Refuse, before allocating anything, a chunk size whose buffers cannot fit this machine's memory:
    every process holding a chunk buffers up to ``chunk_matches`` x copies x the rule set's most hands
    per match (``8 x (streak_cap + 1)``, the engine's preallocation) rows (and their decisions, in a run
    with decisions)."""
    k = spec["chunk_matches"]
    target = spec["target"]
    per_chunk = min(k, target["matches"]) if "matches" in target else k
    chunks = math.ceil(target["matches"] / k) if "matches" in target else workers
    cap = getattr(rules.options, "streak_cap", 10)
    hands = 8 * (int(cap) + 1) if isinstance(cap, (int, np.integer)) and 0 <= cap < 10**6 else 88
    row = _ROW_BYTES + _DECISION_BYTES_PER_HAND.get(spec.get("decisions", False), 0)
    need = per_chunk * (2 if spec["duplicate"] else 1) * hands * row * max(1, min(workers, chunks))
    have = _physical_memory()
    if need > have:
        raise InputValueError(
            f"chunk_matches {k:,} needs about {need / 2**30:,.1f} GiB of buffers ({min(workers, chunks)} chunk(s) in "
            f"memory at once), more than this machine's {have / 2**30:,.1f} GiB; use a smaller --chunk-matches "
            f"(default {DEFAULT_CHUNK_MATCHES:,})"
        )


def _policy_entries(policies) -> list[tuple[dict, object]]:
    """``[(manifest record, Policy)]`` of the two policies (:class:`~simkit.policies.spec.Policy`
    records: label, name, parameters, module and source hash). Two different policies get two labels:
    when their default labels collide (one function name in two modules), their full names."""

    ps = [as_policy(p) for p in policies]
    if len(ps) == 2 and ps[0].label == ps[1].label and ps[0] != ps[1]:
        given = any(p.label != default_label(p) for p in ps)  # a label the user chose is never replaced
        if not given and ps[0].function is not ps[1].function and ps[0].name != ps[1].name:
            ps = [p.with_label(p.name + p.label[len(p.label.split("{")[0]) :]) for p in ps]
        if ps[0].label == ps[1].label:
            raise InputValueError(
                f"the two policies differ but share the label {ps[0].label!r}: give them different labels (label=policy{{...}})"
            )
    return [(p.record(), p) for p in ps]


def default_out(spec: dict) -> Path:
    """The default run directory of a specification: ``data/runs/<rules>_<p0>-<p1>_seed<S>_<N><unit>``.

    Non-default rule options add a short hash of their values; ``duplicate`` adds ``_duplicate``, a
    wall design other than the default ``_<deal>-<wall>``.
    """

    r = spec["rules"]
    name = r["name"]
    defaults = get_rules(name).to_dict()["options"]
    if r["options"] != defaults:
        digest = hashlib.sha1(json.dumps(r["options"], sort_keys=True).encode()).hexdigest()[:8]
        name += f"-{digest}"
    labels = "-".join(p["label"] for p in spec["policies"])
    ((unit, n),) = spec["target"].items()
    dup = "_duplicate" if spec["duplicate"] else ""
    design = (
        ""
        if spec.get("deal") == DEALS[0] and spec.get("wall") == WALLS[0]
        else f"_{spec.get('deal')}-{spec.get('wall')}"
    )
    return RUNS_DIR / f"{name}_{labels}_seed{spec['seed']}_{n}{unit}{dup}{design}"


# ---------------------------------------------------------------------------------------------
# the arguments and, on resume, the manifest


def resolve_run(
    out, rules, policies, matches, hands, seed, duplicate, chunk_matches, resume, deal=None, wall=None, decisions=None
):
    """The run directory, its spec and the runnable policies, from the arguments (and, with
    ``resume``, the run's manifest: arguments given must agree with it)."""

    limit = (MAX_MATCHES, "2**47 (match ids and deal_id = match << 16 | hand must fit 64 bits)")
    matches = positive("matches", matches, limit)
    hands = positive("hands", hands, limit)
    chunk_matches = positive("chunk_matches", chunk_matches, limit)
    if matches is not None and hands is not None:
        raise InputValueError("give matches or hands, not both")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63
    ):
        raise InputValueError(f"seed must be an integer between 0 and 2**63 - 1, got {seed!r}")
    if policies is not None and (isinstance(policies, str) or len(policies) != 2):
        raise InputValueError(f"policies must be two policies (player 0's, player 1's), got {policies!r}")
    duplicate = flag("duplicate", duplicate, optional=True)
    decisions = None if decisions is None else decisions_setting(decisions)
    if deal is not None or wall is not None:
        wall_design(deal, wall)  # values and their combination checked; resume compares what was given

    stored = None
    if resume:
        if out is None:
            raise InputValueError("resume needs the run directory (--out DIR)")
        try:
            manifest = datasets.read_manifest(out)
            if manifest["status"] != "overwriting":  # (that one is refused under the run's lock, saying so)
                verified_done(Path(out), manifest)  # its spec is its shards' (an edited target or seed is refused)
            stored = manifest["spec"]
        except OSError as exc:
            raise InputValueError(os_message(out, exc)) from None

    rules_obj = resolve_rules(rules) if rules is not None else None
    entries = _policy_entries(policies) if policies is not None else None
    given = {
        "rules": rules_obj.to_dict() if rules_obj is not None else None,
        "policies": [e for e, _ in entries] if entries is not None else None,
        "seed": None if seed is None else int(seed),
        "target": {"matches": matches} if matches is not None else {"hands": hands} if hands is not None else None,
        "duplicate": None if duplicate is None else bool(duplicate),
        "chunk_matches": chunk_matches,
        "deal": deal,
        "wall": wall,
        "decisions": decisions,
    }
    if stored is not None:  # resume: the run's settings; any given must agree
        settings = {**stored, **datasets.wall_settings_of(stored)}  # a run from before the wall designs: its deal
        settings.setdefault("decisions", False)  # a run from before the decision log has none
        settings["rules"] = datasets.rules_from_dict(stored["rules"]).to_dict()  # options it predates: as played
        for key, value in given.items():
            if key == "policies" and value is not None:
                if not _same_policies(entries, stored["policies"]):
                    labels = ", ".join(r["label"] for r in stored["policies"])
                    raise InputValueError(
                        f"cannot resume {out}: policies {', '.join(r['label'] for r in value)} differ from the run's {labels}"
                    )
                entries = [(record, p) for record, (_, p) in zip(stored["policies"], entries)]
                continue
            if value is not None and value != settings[key]:
                raise InputValueError(
                    f"cannot resume {out}: {key} {json.dumps(value)} differs from the run's {json.dumps(settings[key])}"
                )
        rules_obj = datasets.rules_from_dict(stored["rules"])
        if entries is None:
            entries = [(record, from_record(record, allow_changed=True)) for record in stored["policies"]]
        check_policies_unchanged(out, entries)  # a changed file or source: refused, not played on
    else:
        rules_obj = rules_obj if rules_obj is not None else resolve_rules("douque")
        if entries is None:
            entries = _policy_entries(("greedy", "greedy"))
    policies = tuple(p for _, p in entries)
    spec = stored or {
        "rules": rules_obj.to_dict(),
        "policies": [e for e, _ in entries],
        "seed": 0 if seed is None else int(seed),
        "target": given["target"] or {"matches": DEFAULT_MATCHES},
        "duplicate": bool(duplicate),
        "chunk_matches": chunk_matches or DEFAULT_CHUNK_MATCHES,
        "items": list(datasets.item_names(rules_obj)),
        **dict(zip(("deal", "wall"), wall_settings(wall_design(deal, wall)))),
        "decisions": decisions if decisions is not None else False,
    }
    directory = Path(out) if out is not None else default_out(spec)
    return directory, spec, rules_obj, policies


def _same_policies(entries, records) -> bool:
    """Whether the given policies are the run's: the same functions with the same parameters (the
    labels may be written differently, e.g. by an earlier version)."""

    for (_, given), record in zip(entries, records):
        try:
            stored = from_record(record, allow_changed=True)
        except SimkitError:
            return False
        if stored.function is not given.function or not np.array_equal(stored.params, given.params):
            return False
    return len(entries) == len(records)


def os_message(directory, exc: OSError) -> str:
    """One line for an operating-system error while writing a run (a full disk, a too-long name, ...)."""

    reason = exc.strerror or (str(exc).splitlines() or [type(exc).__name__])[0]
    where = exc.filename if getattr(exc, "filename", None) else directory
    hint = ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        hint = f"; free some space, then finish the run with: simkit simulate --out {directory} --resume"
    elif exc.errno == errno.ENAMETOOLONG:
        hint = " (a file or directory name longer than the filesystem allows); choose a shorter --out"
    return f"cannot write the run {directory}: {reason}: {where}{hint}"
