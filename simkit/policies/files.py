"""Learned policies in files: :func:`save_policy` writes a network's weights (:mod:`simkit.policies.network`)
with what is needed to play them back -- the architecture, the observation layout it was trained
on, the rule set, a short label, the temperature, notes -- to one ``.npz`` file, and
:func:`read_policy_file` reads one back, checked (``simkit.load_policy`` makes it a Policy).

A policy file is data, never code: it is read without unpickling anything, its sizes are checked
before it is unpacked (:mod:`simkit.policies.archive`), and its metadata is checked field by field,
on saving and on reading alike: the label (:func:`~simkit.policies.labels.check_label`), ``rules``
a rule set's name or None, ``temperature`` a finite number >= 0, ``notes`` a flat mapping of
short names to a string, a number, a flag or None (no lists, no nesting), the whole JSON text at
most :data:`~simkit.policies.archive.MAX_METADATA_CHARS` characters. Text a file supplies is
printed without its terminal control characters (:func:`printable`).

A run's manifest records the file's path and SHA-256 (:meth:`PolicyFile.record`), not its
weights; a replay refuses a file whose SHA-256 changed.
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
import os
import re
import unicodedata
from pathlib import Path

import numpy as np

from ..engine.actions import N_ACTIONS
from ..errors import PolicyError, show
from ..rules import RULE_SETS, get_rules
from .archive import MAX_METADATA_CHARS, as_file_path, read_archive
from .labels import check_label
from .network import ACTIVATIONS, HEADER, MAX_LAYERS, check_layers, network_params, observation_layout

__all__ = ["FILE_FORMAT", "MAX_NOTE_NAME", "PolicyFile", "printable", "save_policy", "read_policy_file"]

FILE_FORMAT = "simkit-policy-1"  #: the ``format`` a policy file's metadata names
MAX_NOTE_NAME = 64  #: a note's name is at most this many characters

#: the fields of a policy file's metadata
_FIELDS = (
    "format",
    "label",
    "architecture",
    "activation",
    "temperature",
    "rules",
    "observation_layout",
    "n_actions",
    "notes",
)
#: how deep the metadata's JSON nests: the metadata, its observation layout, a field of the layout
_DEPTH = 3
# an escape sequence (CSI, OSC or another ESC sequence, ended by BEL or ST where it is a string)
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~])?|\x9b[0-?]*[ -/]*[@-~]"
)


def printable(text) -> str:
    """``text`` without terminal control characters: escape sequences (``ESC [ ...``, OSC
    strings, ...) removed whole, every other C0/C1 control, DEL and Unicode formatting character
    (bidirectional overrides) removed, tabs and line breaks made spaces. File-supplied text is
    printed through it, so that a file cannot clear, recolour or retitle the terminal."""
    text = _ESCAPE.sub("", str(text))
    text = re.sub(r"[\t\n\r\v\f]", " ", text)
    return "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))


@dataclasses.dataclass(frozen=True)
class PolicyFile:
    """Where a learned policy comes from: its file (absolute path), the file's SHA-256, and what the
    file says -- its architecture, activation, temperature, the rule set it was trained for (None:
    any) and any notes (JSON-ready)."""

    path: str
    sha256: str
    architecture: str
    activation: str
    temperature: float
    rules: str | None
    sizes: tuple
    notes: dict

    def record(self) -> dict:
        return {"file": self.path, "sha256": self.sha256, "trained_for": self.rules}

    def describe(self) -> str:
        """A few lines on the file, as ``simkit policies FILE`` prints them (file-supplied text
        without terminal control characters: :func:`printable`)."""
        shape = " -> ".join(str(n) for n in self.sizes)
        hidden = f", {self.activation} hidden layers" if len(self.sizes) > 2 else ""
        play = "the best legal action" if self.temperature == 0 else f"sampled at temperature {self.temperature:g}"
        lines = [
            f"  file: {self.path} (SHA-256 {self.sha256[:12]})",
            f"  network: {self.architecture}, {shape}{hidden}; plays {play}",
            f"  trained for: {self.rules or 'any rule set'}",
        ]
        lines += [f"  {key}: {value}" for key, value in self.notes.items()]
        return "\n".join(printable(line) for line in lines)


def check_notes(notes, where: str) -> dict:
    """``notes`` as a dict if it is a flat mapping of names (non-empty strings of at most
    :data:`MAX_NOTE_NAME` characters) to a string, a finite number, a flag or None; else a one-line
    PolicyError."""
    if notes is None:
        return {}
    if not isinstance(notes, dict):
        raise PolicyError(f"{where}: notes are a mapping of names to strings or numbers, got {show(notes)}")
    out = {}
    for key, value in notes.items():
        if not isinstance(key, str) or not key or len(key) > MAX_NOTE_NAME:
            raise PolicyError(
                f"{where}: a note's name is a non-empty string of at most {MAX_NOTE_NAME} characters, got {show(key)}"
            )
        if isinstance(value, (bool, np.bool_)):
            value = bool(value)
        elif isinstance(value, numbers.Integral):
            value = int(value)
        elif isinstance(value, numbers.Real):
            value = float(value)
            if not math.isfinite(value):
                raise PolicyError(f"{where}: note {key!r} is not a finite number ({value!r})")
        elif value is not None and not isinstance(value, str):
            raise PolicyError(
                f"{where}: note {key!r} is a string, a number, true/false or null (notes are flat), got {show(value)}"
            )
        out[key] = value
    return out


def _check_rules_name(rules, where: str, canonical: bool) -> str | None:
    """``rules`` as a rule set's name, or None (any rule set)."""
    if rules is None:
        return None
    if canonical:  # as a file stores it
        if not isinstance(rules, str) or rules not in RULE_SETS:
            raise PolicyError(f"{where}: rules is a rule set ({', '.join(RULE_SETS)}) or null, got {show(rules)}")
        return rules
    if not isinstance(rules, str):
        raise PolicyError(f"{where}: rules is the name of a rule set or None, got {show(rules)}")
    try:
        return get_rules(rules).name
    except ValueError as exc:
        raise PolicyError(f"{where}: {exc}") from None


def _check_temperature(temperature, where: str) -> float:
    if (
        isinstance(temperature, (bool, np.bool_))
        or not isinstance(temperature, numbers.Real)
        or not math.isfinite(temperature)
        or temperature < 0
    ):
        raise PolicyError(f"{where}: temperature is a finite number >= 0, got {show(temperature)}")
    return float(temperature)


def _check_activation(activation, where: str) -> str:
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise PolicyError(f"{where}: activation is one of {', '.join(ACTIVATIONS)}, got {show(activation)}")
    return activation


def save_policy(
    path,
    layers,
    *,
    label: str,
    rules: str | None = None,
    architecture: str | None = None,
    activation: str = "relu",
    temperature: float = 0.0,
    notes: dict | None = None,
) -> Path:
    """Write a network policy to one ``.npz`` file and return its path.

    ``layers``: ``[(W float[n_in, n_out], b float[n_out]), ...]`` from the observation
    (``n_in = OBSERVATION_SIZE``) to the actions (``n_out = N_ACTIONS``), stored as float32; at
    most :data:`~simkit.policies.network.MAX_LAYERS` layers and
    :data:`~simkit.policies.network.MAX_NUMBERS` numbers; ``label``: the short name it plays under;
    ``rules``: the name of the rule set it was trained for (it refuses to play another; None: any);
    ``architecture``: ``"linear"`` (one layer) or ``"mlp"`` (default: from the number of layers);
    ``temperature``: a finite number >= 0 (0: the best legal action); ``notes``: a flat mapping of
    names to strings, numbers, flags or None (how it was trained).

    Every field is checked before anything is written (a one-line PolicyError); missing folders are
    created; an existing file is replaced only once the new one is complete, and a write that
    fails leaves nothing behind."""
    target = Path(as_file_path(path, "a policy file's"))
    if target.suffix != ".npz":
        raise PolicyError(f"a policy file's name ends in .npz, got {str(target)!r}")
    label = check_label(label)
    where = f"policy {label}"
    if isinstance(layers, (str, bytes, dict)) or not hasattr(layers, "__len__"):
        raise PolicyError(f"{where}: layers are a list of (weights, biases) pairs, got {show(layers)}")
    architecture = architecture if architecture is not None else ("linear" if len(layers) == 1 else "mlp")
    layers = check_layers(layers, architecture, where)
    activation = _check_activation(activation, where)
    temperature = _check_temperature(temperature, where)
    rules = _check_rules_name(rules, where, canonical=False)
    meta = {
        "format": FILE_FORMAT,
        "label": label,
        "architecture": architecture,
        "activation": activation,
        "temperature": temperature,
        "rules": rules,
        "observation_layout": observation_layout(),
        "n_actions": N_ACTIONS,
        "notes": check_notes(notes, where),
    }
    text = json.dumps(meta, sort_keys=True)
    if len(text) > MAX_METADATA_CHARS:
        raise PolicyError(f"{where}: its metadata would be {len(text):,} characters, at most {MAX_METADATA_CHARS:,}")
    arrays = {"meta": np.array(text)}
    for i, (w, b) in enumerate(layers):
        arrays[f"weights_{i}"] = w.astype(np.float32)
        arrays[f"biases_{i}"] = b.astype(np.float32)
    _write_archive(target, arrays)
    return target


def _write_archive(target: Path, arrays: dict) -> None:
    """``arrays`` as a compressed ``.npz`` at ``target``, whole or not at all."""
    where = f"cannot write policy file {str(target)!r}"
    if target.is_dir():
        raise PolicyError(f"{where}: it is a directory")
    partial = target.with_name(target.name + ".partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.replace(partial, target)
    except OSError as exc:
        try:
            partial.unlink()
        except OSError:
            pass
        why = "a folder on its path is a file" if isinstance(exc, (FileExistsError, NotADirectoryError)) else None
        raise PolicyError(f"{where} ({why or exc.strerror or exc})") from None


def _nesting(text: str) -> int:
    """How deep a JSON text's arrays and objects nest (its strings skipped), counted without
    parsing it, so that a deeply nested text is refused before the parser recurses into it."""
    depth = deepest = 0
    for ch in re.sub(r'"(?:[^"\\]|\\.)*"', "", text):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _read_metadata(arrays: dict, where: str) -> dict:
    """The metadata of a policy file, its size, nesting and fields checked."""
    if "meta" not in arrays:
        raise PolicyError(f"{where} is not a simkit policy file (save one with simkit.save_policy)")
    text = str(arrays.pop("meta"))
    if len(text) > MAX_METADATA_CHARS:
        raise PolicyError(f"{where}: its metadata is {len(text):,} characters, at most {MAX_METADATA_CHARS:,}")
    if _nesting(text) > _DEPTH:
        raise PolicyError(f"{where}: its metadata nests deeper than a policy file's ({_DEPTH} levels)")
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError):
        raise PolicyError(f"{where} is not a simkit policy file (its metadata is not JSON)") from None
    if not isinstance(meta, dict) or meta.get("format") != FILE_FORMAT:
        raise PolicyError(f"{where} is not a simkit policy file of format {FILE_FORMAT}")
    unknown = [k for k in meta if k not in _FIELDS]
    if unknown:
        raise PolicyError(f"{where}: its metadata has fields a policy file does not have: {show(unknown)}")
    layout = meta.get("observation_layout")
    if layout != observation_layout():
        ours = {n: s for n, s in observation_layout()}
        pairs = isinstance(layout, list) and all(isinstance(x, list) and len(x) == 2 for x in layout)
        theirs = {str(n): s for n, s in layout} if pairs else {}
        differ = [n for n in dict.fromkeys([*ours, *theirs]) if ours.get(n) != theirs.get(n)]
        raise PolicyError(
            f"{where} was trained on another observation layout (fields that differ: "
            f"{printable(', '.join(differ))[:200] if differ else 'their order'}); retrain it on this version's observation"
        )
    meta["label"] = check_label(meta.get("label"))
    meta["activation"] = _check_activation(meta.get("activation"), where)
    meta["temperature"] = _check_temperature(meta.get("temperature"), where)
    meta["rules"] = _check_rules_name(meta.get("rules"), where, canonical=True)
    meta["notes"] = check_notes(meta.get("notes"), where)
    return meta


def _naming_the_file(exc: PolicyError, where: str) -> PolicyError:
    """``exc`` with ``where`` (``policy file '...'``) before its message, unless it names the file
    already (its quoted path may have been cut to a readable length, so the prefix is compared)."""
    message = str(exc)
    return PolicyError(message if message.startswith("policy file ") else f"{where}: {message}")


def read_policy_file(path) -> tuple[PolicyFile, np.ndarray, str]:
    """``(PolicyFile, params, label)`` of a policy file, checked: that it is a regular file within
    the size caps (:mod:`simkit.policies.archive`), its format, its metadata's fields, its
    observation layout against this simkit's, its layers' shapes; one-line PolicyError naming the
    file otherwise (InputTypeError for a path that is not a str or os.PathLike)."""
    text, where, arrays, sha256 = read_archive(path)
    try:
        meta = _read_metadata(arrays, where)
    except PolicyError as exc:
        raise _naming_the_file(exc, where) from None
    n_layers = sum(1 for k in arrays if k.startswith("weights_"))
    layers = [(arrays.get(f"weights_{i}"), arrays.get(f"biases_{i}")) for i in range(n_layers)]
    if n_layers > MAX_LAYERS or any(w is None or b is None for w, b in layers) or len(arrays) != 2 * n_layers:
        raise PolicyError(f"{where} lacks a layer's weights or biases")
    try:
        layers = check_layers(layers, meta.get("architecture"), where)
        params = network_params(layers, meta["activation"], meta["temperature"])
    except PolicyError as exc:
        raise _naming_the_file(exc, where) from None
    source = PolicyFile(
        path=str(Path(text).resolve()),
        sha256=sha256,
        architecture=meta["architecture"],
        activation=meta["activation"],
        temperature=meta["temperature"],
        rules=meta["rules"],
        sizes=tuple(int(x) for x in params[HEADER : HEADER + n_layers + 1]),
        notes=meta["notes"],
    )
    return source, params, meta["label"]
