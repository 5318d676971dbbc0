"""Learned policies: a small neural network over the observation, saved to one file and played in
the engine like any jitted policy.

A network maps the observation of the deciding player (:func:`simkit.envs.encode_view`, the
environments' observation, float32[OBSERVATION_SIZE]) to one score per action: a linear layer
(``architecture="linear"``) or a multi-layer perceptron with ReLU or tanh hidden layers
(``"mlp"``). The policy plays the legal action of highest score (``temperature=0``) or samples
the legal actions in proportion to ``exp(score / temperature)`` from its own random stream.

:func:`save_policy` writes the weights with what is needed to play them back -- the architecture,
the observation layout the network was trained on, the rule set, a short label -- to one
``.npz`` file; :func:`load_policy` reads it as a :class:`~simkit.policies.spec.Policy`, which
every door a policy goes through takes (``simulate``, ``compare``, ``round_robin``, workers,
Dask, ``replay``, the command line's ``--policies label=path/to/agent.npz``). A run's manifest
records the file's path and SHA-256, not its weights, and a replay refuses a file that changed.

Inside the engine the network is the jitted :func:`network_policy`; its parameter vector
(:func:`network_params`) is a header -- the number of layers, the activation, the temperature,
the layer sizes -- followed by each layer's weights (row-major, input by output) and biases.
The input layer skips the observation's zeros (most of it), so a decision costs about
(non-zero inputs) x (first layer's width) multiply-adds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import zipfile
from pathlib import Path

import numpy as np

from .._jit import jit
from ..engine.actions import N_ACTIONS
from ..engine.observation import OBSERVATION_LAYOUT, OBSERVATION_SIZE, encode_view
from ..engine.rng import uniform
from .spec import Policy, PolicyError, check_label

__all__ = [
    "ARCHITECTURES",
    "ACTIVATIONS",
    "FILE_FORMAT",
    "PolicyFile",
    "network_policy",
    "network_params",
    "network_scores",
    "save_policy",
    "load_policy",
    "read_policy_file",
]

FILE_FORMAT = "simkit-policy-1"  #: the ``format`` a policy file's metadata names
ARCHITECTURES = ("linear", "mlp")
ACTIVATIONS = ("relu", "tanh")  #: the hidden layers' activation (index = its code in the header)
_HEADER = 3  #: layers, activation code, temperature; then the layers + 1 sizes


def observation_layout() -> list:
    """``[[name, size], ...]``: the observation layout (:data:`simkit.envs.OBSERVATION_LAYOUT`) as a
    policy file records it, so that a network is never fed a vector laid out differently."""
    return [[name, s.stop - s.start] for name, s in OBSERVATION_LAYOUT.items()]


@jit
def network_scores(params, x, out):  # pragma: no cover - compiled
    """The network of ``params`` (:func:`network_params`) applied to the observation ``x``: one
    score per action, written into ``out`` (float64[N_ACTIONS]). The input layer adds only the rows
    of the observation's non-zero entries."""
    n_layers = np.int64(params[0])
    activation = np.int64(params[1])
    width = 0
    for i in range(n_layers + 1):
        width = max(width, np.int64(params[_HEADER + i]))
    a = np.zeros(width, np.float64)
    b = np.zeros(width, np.float64)
    for j in range(x.shape[0]):
        a[j] = x[j]
    at = _HEADER + n_layers + 1
    for layer in range(n_layers):
        n_in = np.int64(params[_HEADER + layer])
        n_out = np.int64(params[_HEADER + layer + 1])
        bias = at + n_in * n_out
        for k in range(n_out):
            b[k] = params[bias + k]
        for j in range(n_in):
            v = a[j]
            if v != 0.0:
                row = at + j * n_out
                for k in range(n_out):
                    b[k] += v * params[row + k]
        last = layer == n_layers - 1
        for k in range(n_out):
            y = b[k]
            if not last:
                y = max(y, 0.0) if activation == 0 else math.tanh(y)
            a[k] = y
        at = bias + n_out
    for k in range(out.shape[0]):
        out[k] = a[k]


@jit
def network_policy(view, legal, params, rng):  # pragma: no cover - compiled
    """A learned policy (:func:`load_policy`): the legal action of highest network score, or with a
    temperature above zero one sampled in proportion to ``exp(score / temperature)``."""
    x = encode_view(view)
    scores = np.empty(N_ACTIONS, np.float64)
    network_scores(params, x, scores)
    temperature = params[2]
    best, best_score = -1, -np.inf
    for a in range(legal.shape[0]):
        if legal[a] and scores[a] > best_score:
            best, best_score = a, scores[a]
    if temperature <= 0.0 or best < 0:
        return best
    total = 0.0
    for a in range(legal.shape[0]):
        if legal[a]:
            scores[a] = math.exp((scores[a] - best_score) / temperature)
            total += scores[a]
    u = uniform(rng) * total
    for a in range(legal.shape[0]):
        if legal[a]:
            u -= scores[a]
            if u < 0.0:
                return a
    return best


def _check_layers(layers, architecture: str, where: str) -> list:
    """The layers as ``[(W float64[n_in, n_out], b float64[n_out]), ...]``, shapes chained from the
    observation to the actions, or a one-line PolicyError."""
    if architecture not in ARCHITECTURES:
        raise PolicyError(f"{where}: architecture is one of {', '.join(ARCHITECTURES)}, got {architecture!r}")
    try:
        layers = [(np.asarray(w, np.float64), np.asarray(b, np.float64)) for w, b in layers]
    except (TypeError, ValueError):
        raise PolicyError(f"{where}: layers are (weights, biases) pairs of numbers") from None
    if not layers:
        raise PolicyError(f"{where}: a network has at least one layer")
    if architecture == "linear" and len(layers) != 1:
        raise PolicyError(f"{where}: a linear network has one layer, got {len(layers)}")
    if architecture == "mlp" and len(layers) < 2:
        raise PolicyError(f"{where}: an mlp has a hidden layer (two layers or more), got {len(layers)}")
    n_in = OBSERVATION_SIZE
    for i, (w, b) in enumerate(layers):
        if w.ndim != 2 or w.shape[0] != n_in or b.shape != (w.shape[1],):
            raise PolicyError(
                f"{where}: layer {i} has weights {w.shape} and biases {b.shape}; expected ({n_in}, n) and (n,)"
            )
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise PolicyError(f"{where}: layer {i} has a weight that is not finite")
        n_in = w.shape[1]
    if n_in != N_ACTIONS:
        raise PolicyError(f"{where}: the last layer has {n_in} outputs; a policy scores the {N_ACTIONS} actions")
    return layers


def network_params(layers, activation: str = "relu", temperature: float = 0.0) -> np.ndarray:
    """The parameter vector :func:`network_policy` plays: the header, then each layer's weights and
    biases (``layers``: ``[(W[n_in, n_out], b[n_out]), ...]`` from the observation to the actions)."""
    layers = _check_layers(layers, "linear" if len(layers) == 1 else "mlp", "network")
    if activation not in ACTIVATIONS:
        raise PolicyError(f"network: activation is one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if not (isinstance(temperature, (int, float)) and math.isfinite(temperature) and temperature >= 0):
        raise PolicyError(f"network: temperature is a number >= 0, got {temperature!r}")
    sizes = [OBSERVATION_SIZE] + [w.shape[1] for w, _ in layers]
    header = [len(layers), ACTIVATIONS.index(activation), float(temperature), *sizes]
    return np.concatenate([np.asarray(header, np.float64)] + [a.reshape(-1) for w, b in layers for a in (w, b)])


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
    layers = _check_layers(layers, architecture, f"policy {label}")
    network_params(layers, activation, temperature)  # the activation and temperature, checked
    if rules is not None:
        from ..rules import get_rules

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
        np.savez(f, **arrays)
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
        import io

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
        layers = _check_layers(layers, architecture, where)
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
        sizes=tuple(int(x) for x in params[_HEADER : _HEADER + n_layers + 1]),
        notes=meta.get("notes") or {},
    )
    return source, params, label


def load_policy(path, label: str | None = None) -> Policy:
    """The policy saved in ``path`` (:func:`save_policy`) as a :class:`~simkit.policies.spec.Policy`
    labelled with the file's label (or ``label``)."""
    source, params, file_label = read_policy_file(path)
    return Policy(
        network_policy,
        params,
        NETWORK_NAME,
        check_label(label) if label is not None else file_label,
        None,
        None,
        source,
    )


NETWORK_NAME = "simkit.policies.network:network_policy"
