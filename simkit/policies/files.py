"""Learned policies in files: :func:`save_policy` writes a network's weights (:mod:`simkit.policies.network`)
with what is needed to play them back -- the architecture, the observation layout it was trained
on, the rule set, a short label, the temperature, notes -- to one ``.npz`` file, and
:func:`read_policy_file` reads one back, checked (``simkit.load_policy`` makes it a Policy).

A run's manifest records the file's path and SHA-256 (:meth:`PolicyFile.record`), not its
weights; a replay refuses a file whose SHA-256 changed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from ..engine.actions import N_ACTIONS
from ..errors import PolicyError
from ..rules import get_rules
from .labels import check_label
from .network import HEADER, check_layers, network_params, observation_layout

__all__ = ["FILE_FORMAT", "PolicyFile", "save_policy", "read_policy_file"]

FILE_FORMAT = "simkit-policy-1"  #: the ``format`` a policy file's metadata names


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
        """A few lines on the file, as ``simkit policies FILE`` prints them."""
        shape = " -> ".join(str(n) for n in self.sizes)
        hidden = f", {self.activation} hidden layers" if len(self.sizes) > 2 else ""
        play = "the best legal action" if self.temperature == 0 else f"sampled at temperature {self.temperature:g}"
        lines = [
            f"  file: {self.path} (SHA-256 {self.sha256[:12]})",
            f"  network: {self.architecture}, {shape}{hidden}; plays {play}",
            f"  trained for: {self.rules or 'any rule set'}",
        ]
        lines += [f"  {key}: {value}" for key, value in self.notes.items()]
        return "\n".join(lines)


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
    (``n_in = OBSERVATION_SIZE``) to the actions (``n_out = N_ACTIONS``), stored as float32;
    ``label``: the short name it plays under; ``rules``: the rule set it was trained for (it
    refuses to play another; None: any); ``architecture``: ``"linear"`` (one layer) or ``"mlp"``
    (default: from the number of layers); ``notes``: anything JSON-ready (how it was trained).
    An existing file is replaced only once the new one is complete."""
    path = Path(path)
    if path.suffix != ".npz":
        raise PolicyError(f"a policy file's name ends in .npz, got {str(path)!r}")
    label = check_label(label)
    architecture = architecture or ("linear" if len(layers) == 1 else "mlp")
    layers = check_layers(layers, architecture, f"policy {label}")
    network_params(layers, activation, temperature)  # the activation and temperature, checked
    if rules is not None:
        rules = get_rules(rules).name
    meta = {
        "format": FILE_FORMAT,
        "label": label,
        "architecture": architecture,
        "activation": activation,
        "temperature": float(temperature),
        "rules": rules,
        "observation_layout": observation_layout(),
        "n_actions": N_ACTIONS,
        "notes": notes or {},
    }
    try:
        text = json.dumps(meta, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"policy {label}: notes must be JSON-ready ({exc})") from None
    arrays = {"meta": np.array(text)}
    for i, (w, b) in enumerate(layers):
        arrays[f"weights_{i}"] = w.astype(np.float32)
        arrays[f"biases_{i}"] = b.astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as f:
        np.savez_compressed(f, **arrays)
    partial.replace(path)
    return path


def read_policy_file(path) -> tuple[PolicyFile, np.ndarray, str]:
    """``(PolicyFile, params, label)`` of a policy file, checked: its format, its observation layout
    against this simkit's, its layers' shapes; one-line PolicyError naming the file otherwise."""
    path = Path(path)
    where = f"policy file {str(path)!r}"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise PolicyError(f"{where} does not exist") from None
    except IsADirectoryError:
        raise PolicyError(f"{where} is a directory, not a policy file") from None
    except OSError as exc:
        raise PolicyError(f"{where} cannot be read ({exc.strerror or exc})") from None
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        meta = json.loads(str(arrays.pop("meta")))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        raise PolicyError(f"{where} is not a simkit policy file (save one with simkit.save_policy)") from None
    if not isinstance(meta, dict) or meta.get("format") != FILE_FORMAT:
        raise PolicyError(f"{where} is not a simkit policy file of format {FILE_FORMAT}")
    layout = meta.get("observation_layout")
    if layout != observation_layout():
        ours = {n: s for n, s in observation_layout()}
        theirs = {n: s for n, s in layout} if isinstance(layout, list) else {}
        differ = [n for n in dict.fromkeys([*ours, *theirs]) if ours.get(n) != theirs.get(n)]
        raise PolicyError(
            f"{where} was trained on another observation layout (fields that differ: "
            f"{', '.join(differ) or 'their order'}); retrain it on this version's observation"
        )
    n_layers = sum(1 for k in arrays if k.startswith("weights_"))
    layers = [(arrays.get(f"weights_{i}"), arrays.get(f"biases_{i}")) for i in range(n_layers)]
    if any(w is None or b is None for w, b in layers):
        raise PolicyError(f"{where} lacks a layer's weights or biases")
    label = meta.get("label")
    try:
        label = check_label(label)
        architecture = meta.get("architecture")
        layers = check_layers(layers, architecture, where)
        params = network_params(layers, meta.get("activation"), meta.get("temperature"))
    except PolicyError as exc:
        raise PolicyError(f"{where}: {exc}") from None
    source = PolicyFile(
        path=str(path.resolve()),
        sha256=hashlib.sha256(data).hexdigest(),
        architecture=architecture,
        activation=meta["activation"],
        temperature=float(meta["temperature"]),
        rules=meta.get("rules"),
        sizes=tuple(int(x) for x in params[HEADER : HEADER + n_layers + 1]),
        notes=meta.get("notes") or {},
    )
    return source, params, label
