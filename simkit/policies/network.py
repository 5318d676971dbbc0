"""Learned policies' networks, played in the engine: a linear layer or a multi-layer perceptron
over the observation of the deciding player (:func:`simkit.envs.encode_view`, the environments'
observation, float32[OBSERVATION_SIZE]) giving one score per action.

:func:`network_policy` plays the legal action of highest score (temperature 0) or samples the legal
actions in proportion to ``exp(score / temperature)`` from its own random stream. Its parameter
vector (:func:`network_params`) is a header -- the number of layers, the activation, the
temperature, the layer sizes -- then each layer's weights (row-major, input by output) and
biases. The input layer adds only the rows of the observation's non-zero entries (most of it is
zero), so a decision costs about (non-zero inputs) x (first layer's width) multiply-adds.

A network is saved to and loaded from one file by :mod:`simkit.policies.files`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._jit import jit
from ..engine.actions import N_ACTIONS
from ..engine.observation import OBSERVATION_LAYOUT, OBSERVATION_SIZE, encode_view
from ..engine.rng import uniform
from ..errors import PolicyError, show

__all__ = [
    "ARCHITECTURES",
    "ACTIVATIONS",
    "HEADER",
    "MAX_LAYERS",
    "MAX_NUMBERS",
    "check_layers",
    "network_policy",
    "network_params",
    "network_scores",
    "observation_layout",
]

ARCHITECTURES = ("linear", "mlp")
ACTIVATIONS = ("relu", "tanh")  #: the hidden layers' activation (index = its code in the header)
HEADER = 3  #: a parameter vector starts with the layers, the activation code, the temperature; then the sizes
#: The largest network simkit accepts: at most this many layers ...
MAX_LAYERS = 16
#: ... holding at most this many weights and biases in all (64 MiB as a file's float32)
MAX_NUMBERS = 2**24


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
        width = max(width, np.int64(params[HEADER + i]))
    a = np.zeros(width, np.float64)
    b = np.zeros(width, np.float64)
    for j in range(x.shape[0]):
        a[j] = x[j]
    at = HEADER + n_layers + 1
    for layer in range(n_layers):
        n_in = np.int64(params[HEADER + layer])
        n_out = np.int64(params[HEADER + layer + 1])
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


def check_layers(layers, architecture: str, where: str) -> list:
    """The layers as ``[(W float64[n_in, n_out], b float64[n_out]), ...]``, shapes chained from the
    observation to the actions, at most :data:`MAX_LAYERS` layers and :data:`MAX_NUMBERS` numbers,
    or a one-line PolicyError."""
    if not isinstance(architecture, str) or architecture not in ARCHITECTURES:
        raise PolicyError(f"{where}: architecture is one of {', '.join(ARCHITECTURES)}, got {show(architecture)}")
    if isinstance(layers, (str, bytes, dict)) or not hasattr(layers, "__len__"):
        raise PolicyError(f"{where}: layers are a list of (weights, biases) pairs, got {show(layers)}")
    if len(layers) > MAX_LAYERS:
        raise PolicyError(f"{where}: a network has at most {MAX_LAYERS} layers, got {len(layers)}")
    try:
        pairs = [tuple(layer) for layer in layers]
        if any(len(pair) != 2 for pair in pairs):
            raise ValueError
        shapes = [(np.shape(w), np.shape(b)) for w, b in pairs]
        if sum(math.prod(sw) + math.prod(sb) for sw, sb in shapes) > MAX_NUMBERS:
            raise PolicyError(f"{where}: a network has at most {MAX_NUMBERS:,} weights and biases")
        layers = [(np.asarray(w, np.float64), np.asarray(b, np.float64)) for w, b in pairs]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, PolicyError):
            raise
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
    layers = check_layers(layers, "linear" if len(layers) == 1 else "mlp", "network")
    if activation not in ACTIVATIONS:
        raise PolicyError(f"network: activation is one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if not (
        isinstance(temperature, numbers.Real)
        and not isinstance(temperature, (bool, np.bool_))
        and math.isfinite(temperature)
        and temperature >= 0
    ):
        raise PolicyError(f"network: temperature is a number >= 0, got {temperature!r}")
    sizes = [OBSERVATION_SIZE] + [w.shape[1] for w, _ in layers]
    header = [len(layers), ACTIVATIONS.index(activation), float(temperature), *sizes]
    return np.concatenate([np.asarray(header, np.float64)] + [a.reshape(-1) for w, b in layers for a in (w, b)])
