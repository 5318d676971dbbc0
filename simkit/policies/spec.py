"""Policies as research objects: named parameters, labels, the text syntax, and where a policy
comes from.

A policy is a function ``policy(view, legal, params, rng) -> action`` (:mod:`simkit.policies.basic`);
``params`` is a float64 vector. :func:`policy` declares, once and next to the function, what the
entries of that vector are called, their defaults, kinds and bounds::

    import simkit

    @simkit.policy(
        push=simkit.Param(1, int, low=0, high=8, doc="shanten at or below which it ignores danger"),
        claim=simkit.Param(True, bool, doc="claim pungs and chows"),
    )
    @simkit.jit
    def cautious(view, legal, params, rng):
        push, claim = params[0], params[1] != 0  # in declaration order
        ...

A :class:`Policy` is such a function with values for its parameters and a label: the label names
it in datasets, tables and plots, so two settings of one policy are two policies. Build one with
:func:`as_policy` from any of

* a name with optional parameters and label, as on the command line: ``"greedy"``,
  ``"greedy{declare=0,claim=1}"``, ``"never_declare=greedy{declare=0}"``, or a function in an
  importable module, ``"mypkg.mymodule:cautious{push=2}"``;
* a function (its defaults), ``(function, {"push": 2})`` or ``(function, vector)``;
* a :class:`Policy` (``Policy.with_params(push=2)``, ``Policy.with_label("bold")``).

Every value is checked (an unknown name, a value of the wrong kind or out of range: one line
naming the policy and the parameter). :meth:`Policy.record` is what a run's manifest stores --
label, name, module and function, the named values and the vector, and a hash of the source of
the module that defines the function -- and :func:`from_record` brings the policy back for replay,
refusing when that source has changed since the run (``allow_changed=True`` replays anyway).
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import math
import re
import sys
from typing import Any

import numpy as np

from ..engine.table import POLICY_FUNCTION, POLICY_GREEDY, POLICY_RANDOM
from ..errors import InputValueError, PolicyError
from .files import read_policy_file
from .labels import check_label
from .modules import file_sha256, function_in_module, module_source_sha256
from .network import network_policy

__all__ = [
    "Param",
    "PolicySpec",
    "Policy",
    "PolicyError",
    "policy",
    "spec_of",
    "as_policy",
    "check_policy_function",
    "where_defined",
    "parse_policy",
    "split_policies",
    "from_record",
    "load_policy",
    "check_label",
    "BUILT_IN",
    "AGENT_FILES",
]


_KINDS = (bool, int, float)


@dataclasses.dataclass(frozen=True)
class Param:
    """One named parameter of a policy: its default, kind (``bool``, ``int`` or ``float``),
    inclusive bounds and a line of documentation. The engine passes it as a float64 (``bool``:
    0.0 or 1.0)."""

    default: Any
    kind: type = float
    low: float | None = None
    high: float | None = None
    doc: str = ""

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise PolicyError(f"a Param's kind is bool, int or float, got {self.kind!r}")
        for bound in ("low", "high"):
            value = getattr(self, bound)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value)
            ):
                raise PolicyError(f"a Param's {bound} is a number or None, got {value!r}")
        self.check("default", self.default, "the declaration")

    def check(self, name: str, value, owner: str) -> float:
        """``value`` as the float the engine passes, or a one-line :class:`PolicyError`."""
        where = f"{owner}: parameter {name}"
        if self.kind is bool:
            if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer, float)) and value in (0, 1)):
                return float(bool(value))
            raise PolicyError(f"{where} is a flag (0/1, true/false), got {value!r}")
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise PolicyError(f"{where} is {'an integer' if self.kind is int else 'a number'}, got {value!r}")
        x = float(value)
        if not math.isfinite(x):
            raise PolicyError(f"{where} must be finite, got {value!r}")
        if self.kind is int and not x.is_integer():
            raise PolicyError(f"{where} is an integer, got {value!r}")
        if self.low is not None and x < self.low:
            raise PolicyError(f"{where} must be >= {self.low:g}, got {value!r}")
        if self.high is not None and x > self.high:
            raise PolicyError(f"{where} must be <= {self.high:g}, got {value!r}")
        return x

    def text(self, x: float) -> str:
        """The value ``x`` as the label and the command line write it."""
        if self.kind is bool:
            return "1" if x else "0"
        if self.kind is int:
            return str(int(x))
        return f"{x:g}"

    def describe(self) -> str:
        bounds = ""
        if self.low is not None or self.high is not None:
            lo = "" if self.low is None else f"{self.low:g}"
            hi = "" if self.high is None else f"{self.high:g}"
            bounds = f", {lo}..{hi}"
        default = self.text(self.check("default", self.default, "the declaration"))
        return f"{self.kind.__name__} (default {default}{bounds}){': ' + self.doc if self.doc else ''}"


@dataclasses.dataclass(frozen=True)
class PolicySpec:
    """A policy function's declared parameters, in the order of its ``params`` vector."""

    name: str
    params: tuple  # ((name, Param), ...)
    #: ``rules_data(rules) -> float64[]``: what the policy reads from the rule set it plays (e.g. the
    #: value of its hands under that rule set's scoring), appended to the params vector the engine
    #: passes (:meth:`Policy.engine_params`); None for a policy that reads nothing from the rules
    rules_data: Any = None
    #: the text of the policy it plays out with by default, for a policy that searches
    #: (:mod:`simkit.policies.search`); None for any other
    continuation: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.params)

    @property
    def defaults(self) -> np.ndarray:
        return np.array([p.check(n, p.default, self.name) for n, p in self.params], np.float64)

    def vector(self, values: dict | None = None, base=None) -> np.ndarray:
        """The params vector for named ``values`` (the rest from ``base`` or the defaults)."""
        out = self.defaults if base is None else np.array(base, np.float64, copy=True)
        index = {n: i for i, (n, _) in enumerate(self.params)}
        for key, value in (values or {}).items():
            if key not in index:
                known = ", ".join(self.names) or "none"
                raise PolicyError(f"policy {self.name} has no parameter {key!r} (its parameters: {known})")
            out[index[key]] = self.params[index[key]][1].check(key, value, f"policy {self.name}")
        return out

    def check_vector(self, vector) -> np.ndarray:
        """A whole vector given by position, checked entry by entry."""
        v = np.asarray(vector, np.float64).reshape(-1)
        if len(v) != len(self.params):
            raise PolicyError(
                f"policy {self.name} takes {len(self.params)} parameters ({', '.join(self.names) or 'none'}), "
                f"got a vector of {len(v)}"
            )
        return np.array(
            [p.check(n, x, f"policy {self.name}") for (n, p), x in zip(self.params, v.tolist())], np.float64
        )

    def changed(self, vector) -> dict:
        """``{name: value}`` of the entries of ``vector`` that differ from the defaults, as the label shows them."""
        d = self.defaults
        return {n: p.text(x) for (n, p), x, dx in zip(self.params, vector, d) if x != dx}

    def describe(self) -> str:
        lines = [f"{self.name}:"] + [f"  {n}: {p.describe()}" for n, p in self.params]
        return "\n".join(lines) if self.params else f"{self.name}: no parameters"


def policy(_fn=None, *, name: str | None = None, rules_data=None, continuation: str | None = None, **params: Param):
    """Declare a policy's named parameters: ``@simkit.policy(x=simkit.Param(1, int), ...)`` above the
    function (jitted or plain Python). ``name`` defaults to the function's name.

    ``rules_data``: a function ``rules -> float64 array`` for a policy that adapts to the rule set
    it plays: its result is appended to the named parameters in the vector the policy receives
    (``params[len(named):]``), computed from the run's rule set and options whenever the policy is
    bound to one. The named parameters stay what labels, manifests and replays record; the
    appended entries follow from the recorded rule set.

    ``continuation``: for the built-in search (:mod:`simkit.policies.search`), the policy text it
    plays out with by default (a :class:`Policy` of it holds its own, :attr:`Policy.continuation`)."""
    if rules_data is not None and not callable(rules_data):
        raise PolicyError(f"rules_data is a function of the rule set, got {rules_data!r}")

    for key, p in params.items():
        if not isinstance(p, Param):
            raise PolicyError(f"parameter {key} of a policy is declared with simkit.Param(...), got {p!r}")
        if not key.isidentifier():
            raise PolicyError(f"a parameter name is an identifier, got {key!r}")

    def wrap(fn):
        if not callable(fn):
            raise PolicyError(f"@simkit.policy decorates a function, got {fn!r}")
        py = getattr(fn, "py_func", fn)
        spec = PolicySpec(name or py.__name__, tuple(params.items()), rules_data, continuation)
        fn.simkit_policy_spec = spec
        if py is not fn:  # on the Python function too: a jitted function pickled by value keeps it
            py.simkit_policy_spec = spec
        return fn

    return wrap(_fn) if _fn is not None else wrap


def spec_of(fn) -> PolicySpec | None:
    """The declared parameters of a policy function, or None when it declares none (read from the
    jitted function or its Python function, which travels with it when it is pickled by value)."""
    spec = getattr(fn, "simkit_policy_spec", None)
    if spec is None:
        spec = getattr(getattr(fn, "py_func", None), "simkit_policy_spec", None)
    return spec


# ---------------------------------------------------------------------------------------------
# a policy with values and a label


def check_policy_function(fn):
    """``fn`` if it can be a policy: callable with ``(view, legal, params, rng)`` (checked on the
    Python function, jitted or not, before anything is compiled)."""
    if not callable(fn) or isinstance(fn, type) or inspect.isbuiltin(fn):
        raise InputValueError(
            f"a policy must be a built-in name, a jitted function (simkit.jit / numba.njit) or a Python "
            f"function policy(view, legal, params, rng) -> action, got {fn!r}"
        )
    py = getattr(fn, "py_func", fn)
    try:
        inspect.signature(py).bind(None, None, None, None)
    except TypeError:
        raise InputValueError(
            f"policy {where_defined(py)} takes (view, legal, params, rng) and returns an action; it takes {inspect.signature(py)}"
        ) from None
    except ValueError:
        pass  # no signature to check (some builtins)
    return fn


def where_defined(py) -> str:
    """``name (file:line)`` of a Python function."""
    name = getattr(py, "__qualname__", getattr(py, "__name__", repr(py)))
    try:
        return f"{name} ({inspect.getsourcefile(py)}:{inspect.getsourcelines(py)[1]})"
    except (OSError, TypeError):
        return name


#: The built-in policies by name (filled by :mod:`simkit.policies.registry`).
BUILT_IN: dict = {}
#: The built-in learned agents by name: name -> the policy file shipped with simkit (filled by
#: :mod:`simkit.policies.registry`).
AGENT_FILES: dict = {}


def _source_of(fn) -> tuple[str, str, str | None]:
    """``(module, qualified name, SHA-256 of the module's source file or None)``."""
    py = getattr(fn, "py_func", fn)
    module = getattr(py, "__module__", None) or "__main__"
    qualname = getattr(py, "__qualname__", getattr(py, "__name__", repr(py)))
    try:
        path = inspect.getsourcefile(py)
    except (OSError, TypeError):
        path = None
    return module, qualname, file_sha256(path) if path else None


@dataclasses.dataclass(frozen=True, eq=False)
class Policy:
    """A policy function with values for its parameters and a label.

    ``function`` runs in the engine (jitted) or from Python; ``params`` is the float64 vector it
    receives; ``label`` names it in datasets (default: its name, then the parameters that differ
    from the defaults, e.g. ``greedy{declare=0}``); ``name`` is its built-in name or
    ``module:function``; ``continuation`` is the policy a search plays out with (None for a
    policy that does not search).
    """

    function: Any
    params: np.ndarray
    name: str
    label: str
    spec: PolicySpec | None = None
    continuation: "Policy | None" = None
    #: the file a learned policy was loaded from (:class:`simkit.policies.files.PolicyFile`), else None
    source: Any = None

    # -- derived
    @property
    def values(self) -> dict:
        """``{parameter: value}`` (empty without declared parameters)."""
        if self.spec is None:
            return {}
        return {
            n: (bool(x) if p.kind is bool else int(x) if p.kind is int else x)
            for (n, p), x in zip(self.spec.params, self.params.tolist())
        }

    @property
    def built_in(self) -> bool:
        return self.name in BUILT_IN and BUILT_IN[self.name] is self.function

    @property
    def agent(self) -> str | None:
        """The name of the built-in learned agent (:data:`AGENT_FILES`) this policy plays, else None."""
        if self.source is None:
            return None
        return next((n for n, f in AGENT_FILES.items() if str(f) == self.source.path), None)

    def text(self) -> str:
        """The policy in the command line's syntax, label first when it is not the default one."""
        if self.source is not None:
            agent = self.agent
            if agent is not None:  # a built-in agent by its name: its file is wherever simkit is
                return agent if self.label == agent else f"{self.label}={agent}"
            return f"{self.label}={self.source.path}"
        body = self.name + _values_text(self)
        return body if self.label == default_label(self) else f"{self.label}={body}"

    def with_params(self, **values) -> Policy:
        """The same policy with some parameters set (the label follows unless it was given)."""
        if self.spec is None:
            raise PolicyError(f"policy {self.name} declares no named parameters (see simkit.policy)")
        params = self.spec.vector(values, base=self.params)
        p = dataclasses.replace(self, params=params)
        keep = self.label != default_label(self)
        return p if keep else dataclasses.replace(p, label=default_label(p))

    def with_label(self, label: str) -> Policy:
        return dataclasses.replace(self, label=check_label(label))

    def with_continuation(self, continuation) -> Policy:
        """The same search playing out with ``continuation`` (anything :func:`as_policy` takes;
        the label follows unless it was given)."""
        if self.continuation is None:
            raise PolicyError(f"policy {self.label} does not search: it has no continuation")
        p = dataclasses.replace(self, continuation=_check_continuation(as_policy(continuation), self.name))
        keep = self.label != default_label(self)
        return p if keep else dataclasses.replace(p, label=default_label(p))

    def runnable(self) -> tuple:
        """``(function, params)``: the named parameters alone, without what a ``rules_data`` policy
        reads from the rule set. simkit passes the Policy itself to the engine, which builds the
        vector the policy plays with (:meth:`engine_params`)."""
        return self.function, self.params

    def engine_params(self, rules) -> np.ndarray:
        """The vector the policy receives when it plays ``rules`` (a Rules object): its parameters,
        then what its ``rules_data`` (:func:`policy`) reads from the rule set, if it declares one.

        The engine plays no other vector: its length is checked against the declaration here, so
        that a policy cannot read past its parameters (the vector itself, not a copy, for a policy
        without ``rules_data``: a policy may use the vector it was given as scratch)."""
        if self.source is not None and self.source.rules is not None:
            played = getattr(rules, "name", rules)
            if played != self.source.rules:
                raise PolicyError(
                    f"policy {self.label} was trained for {self.source.rules} ({self.source.path}); "
                    f"this run plays {played}"
                )
        if self.spec is None:
            return self.params
        if self.continuation is not None:
            # the search's settings, the continuation's kind, then the continuation's own vector
            return np.concatenate(
                [self.params, [_continuation_kind(self.continuation)], self.continuation.engine_params(rules)]
            )
        if len(self.params) != len(self.spec.params):
            raise PolicyError(
                f"policy {self.label} declares {len(self.spec.params)} parameters "
                f"({', '.join(self.spec.names) or 'none'}), but its vector has {len(self.params)}"
            )
        if self.spec.rules_data is None:
            return self.params
        try:
            data = np.asarray(self.spec.rules_data(rules), np.float64)
        except (TypeError, ValueError) as exc:
            raise PolicyError(f"policy {self.label}: its rules_data does not give numbers ({exc})") from None
        if data.ndim != 1 or not np.isfinite(data).all():
            raise PolicyError(
                f"policy {self.label}: its rules_data gives a 1-D array of finite numbers, got shape "
                f"{data.shape}" + ("" if data.ndim != 1 else " with a value that is not finite")
            )
        return np.concatenate([self.params, data])

    def __reduce__(self):
        # pickled (to a worker process or a Dask worker) by reference when the function can be
        # imported by its name, so that the worker plays the very function, with its declaration,
        # built-in status and compiled code; the function itself travels too for a worker that
        # cannot import it (its declaration is on its Python function: spec_of)
        ref = _reference_of(self.function)
        fallback = None if self.built_in else self.function
        return (
            _unpickle_policy,
            (ref, fallback, self.params, self.name, self.label, self.continuation, self.source),
        )

    def record(self) -> dict:
        """What a run's manifest stores about the policy (JSON-ready): for a learned policy its file's
        path and SHA-256, not its weights."""
        if self.source is not None:
            agent = self.agent
            return {
                "label": self.label,
                "name": self.name,
                **self.source.record(),
                **({"agent": agent} if agent else {}),
            }
        module, qualname, digest = _source_of(self.function)
        rec = {"label": self.label, "name": self.name, "params": [float(x) for x in self.params]}
        if self.spec is not None:
            rec["values"] = self.values
        if not self.built_in:
            rec.update(module=module, function=qualname, source_sha256=digest)
        if self.continuation is not None:
            rec["continuation"] = self.continuation.record()
        return rec

    def __eq__(self, other):
        return (
            isinstance(other, Policy)
            and self.function is other.function
            and self.label == other.label
            and np.array_equal(self.params, other.params)
            and self.continuation == other.continuation
        )

    def __hash__(self):
        return hash((id(self.function), self.label, self.params.tobytes(), self.continuation))

    def __repr__(self):
        return f"Policy({self.text()!r})"


def _reference_of(fn) -> str | None:
    """``module:qualname`` of a function that importing that name gives back, else None."""
    py = getattr(fn, "py_func", fn)
    module, qualname = getattr(py, "__module__", None), getattr(py, "__qualname__", None)
    if not module or not qualname or module == "__main__" or "<" in qualname:
        return None
    try:
        found = _function_named(f"{module}:{qualname}")
    except PolicyError:
        return None
    return f"{module}:{qualname}" if found is fn else None


def _unpickle_policy(ref, fallback, params, name, label, continuation=None, source=None) -> Policy:
    fn = None
    if ref is not None:
        try:
            fn = _function_named(ref)
        except PolicyError:
            if fallback is None:
                raise
    if fn is None:
        fn = fallback
    return Policy(fn, params, name, label, spec_of(fn), continuation, source)


#: a vector longer than this is named in a label by its length and a hash, not written out
LABEL_VALUES = 8


def _values_text(p: Policy) -> str:
    if p.spec is not None:
        changed = p.spec.changed(p.params)
        if p.continuation is not None and p.continuation != as_policy(p.spec.continuation):
            changed["continuation"] = p.continuation.text()
        return "{" + ",".join(f"{k}={v}" for k, v in changed.items()) + "}" if changed else ""
    if len(p.params) > LABEL_VALUES:
        digest = hashlib.sha256(np.ascontiguousarray(p.params, np.float64).tobytes()).hexdigest()[:8]
        return f"[n={len(p.params)},sha256={digest}]"
    if len(p.params):
        return "[" + ",".join(f"{x:g}" for x in p.params.tolist()) + "]"
    return ""


def default_label(p: Policy) -> str:
    """The label a policy gets when none is given: its short name, then the parameters that differ
    from the defaults."""
    short = p.name if p.built_in else p.name.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
    return short + _values_text(p)


def _name_of(fn) -> str:
    for key, f in BUILT_IN.items():
        if f is fn:
            return key
    module, qualname, _ = _source_of(fn)
    return f"{module}:{qualname}"


def _make(fn, params, label=None, continuation=None) -> Policy:
    fn = check_policy_function(fn)
    spec = spec_of(fn)
    if spec is not None and spec.continuation is not None:
        continuation = _check_continuation(as_policy(continuation or spec.continuation), _name_of(fn))
    elif continuation is not None:
        raise PolicyError(f"policy {_name_of(fn)} does not search: it takes no continuation")
    p = Policy(fn, params, _name_of(fn), "", spec, continuation)
    return dataclasses.replace(p, label=check_label(label) if label is not None else default_label(p))


def as_policy(policy, label: str | None = None) -> Policy:
    """A :class:`Policy` from a name or text (``"greedy{declare=0}"``, ``"lbl=mod:fn{x=1}"``), a
    function, ``(function, {name: value})``, ``(function, vector)``, or a Policy; ``label``
    overrides its label."""
    if isinstance(policy, Policy):
        p = policy
    elif isinstance(policy, str):
        p = parse_policy(policy)
    elif isinstance(policy, tuple) and len(policy) == 2:
        fn, values = policy
        if isinstance(fn, str):
            base = parse_policy(fn)
            fn = base.function
        fn = check_policy_function(fn)
        spec = spec_of(fn)
        name = getattr(getattr(fn, "py_func", fn), "__name__", "policy")
        if isinstance(values, dict):
            if spec is None:
                raise PolicyError(f"policy {name} declares no named parameters (see simkit.policy); pass a vector")
            params = spec.vector(values)
        else:
            try:
                params = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
            except (TypeError, ValueError):
                raise PolicyError(
                    f"a policy's params are a dict of named values or an array of numbers, got {values!r}"
                ) from None
            if spec is not None:
                params = spec.check_vector(params)
        p = _make(fn, params)
    else:
        fn = policy
        fn = check_policy_function(fn)
        spec = spec_of(fn)
        p = _make(fn, spec.defaults if spec is not None else np.zeros(0, np.float64))
    return p.with_label(label) if label is not None else p


# ---------------------------------------------------------------------------------------------
# text syntax

_TEXT = re.compile(
    r"^\s*(?:(?P<label>[A-Za-z0-9_.\-+]+)\s*=\s*(?=[A-Za-z_]))?"
    r"(?P<name>[A-Za-z_][\w.]*(?::[A-Za-z_][\w.]*)?)\s*"
    r"(?:\{(?P<values>.*)\})?\s*$"  # a search's continuation is a policy text, braces and all
)


def _value_of(text: str, key: str, owner: str):
    t = text.strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        raise PolicyError(f"policy {owner}: parameter {key} is a number or true/false, got {text!r}") from None


_FILE_TEXT = re.compile(r"^\s*(?:(?P<label>[A-Za-z0-9_.\-+]+)\s*=\s*)?(?P<path>[^{}=]+\.npz)\s*$")


def parse_policy(text: str) -> Policy:
    """A :class:`Policy` from the command line's syntax: ``[label=]name[{key=value,...}]``, where
    name is a built-in policy or ``module:function`` (an importable module defining a policy), or
    ``[label=]path/to/policy.npz``, a learned policy's file
    (:func:`load_policy`)."""
    if not isinstance(text, str):
        raise PolicyError(f"a policy text is a string, got {text!r}")
    file = _FILE_TEXT.match(text)
    if file is not None:
        return load_policy(file.group("path").strip(), file.group("label"))
    m = _TEXT.match(text)
    if m is None:
        raise PolicyError(
            f"cannot read policy {text!r}: expected [label=]name[{{key=value,...}}], e.g. greedy{{declare=0}} or "
            "mypkg.mymodule:my_policy{x=1}"
        )
    name = m.group("name")
    if name in AGENT_FILES:
        if m.group("values") is not None and m.group("values").strip():
            raise PolicyError(f"policy {name} is a learned agent: it takes no parameters, got {{{m.group('values')}}}")
        return load_policy(AGENT_FILES[name], m.group("label") or name)
    fn = _function_named(name)
    spec = spec_of(fn)
    values = {}
    continuation = None
    if m.group("values") is not None and m.group("values").strip():
        if m.group("values").count("{") != m.group("values").count("}"):
            raise PolicyError(f"policy {name}: unbalanced braces in {{{m.group('values')}}}")
        for item in split_policies(m.group("values")):
            if "=" not in item:
                raise PolicyError(f"policy {name}: expected key=value inside {{...}}, got {item.strip()!r}")
            key, value = (s.strip() for s in item.split("=", 1))
            if key in values or (key == "continuation" and continuation is not None):
                raise PolicyError(f"policy {name}: parameter {key} is given twice")
            if key == "continuation":
                if spec is None or spec.continuation is None:
                    raise PolicyError(f"policy {name} does not search: it takes no continuation")
                continuation = parse_policy(value)
                continue
            values[key] = _value_of(value, key, name)
    if values and spec is None:
        raise PolicyError(
            f"policy {name} declares no named parameters (see simkit.policy), got {{{m.group('values')}}}"
        )
    params = spec.vector(values) if spec is not None else np.zeros(0, np.float64)
    p = _make(fn, params, continuation=continuation)
    return p.with_label(m.group("label")) if m.group("label") else p


def _function_named(name: str):
    if ":" not in name:
        if name in BUILT_IN:
            return BUILT_IN[name]
        raise PolicyError(
            f"unknown policy {name!r}; built-in policies: {', '.join([*BUILT_IN, *AGENT_FILES])}, or "
            "module:function for your own"
        )
    return function_in_module(name)


def split_policies(text: str) -> list[str]:
    """Split ``"a{x=1,y=2},b"`` at the commas outside braces."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


# ---------------------------------------------------------------------------------------------
# back from a manifest


def from_record(record: dict, *, allow_changed: bool = False) -> Policy:
    """The policy a run's manifest recorded (:meth:`Policy.record`): a built-in by name, anything
    else imported from its module; refuses when the module's source differs from the run's
    (``allow_changed=True`` replays anyway)."""
    name = record.get("name")
    if not isinstance(name, str):
        raise PolicyError(f"the run's policy record has no name: {record!r}")
    params = np.asarray(record.get("params", []), np.float64)
    label = record.get("label", name)
    if "file" in record:
        return _from_file_record(record, label, allow_changed)
    if name in BUILT_IN and "module" not in record:
        fn = BUILT_IN[name]
    else:
        module, function = record.get("module"), record.get("function")
        if module is None:  # a run from before policies were recorded with their module
            module, _, function = name.rpartition(".")
        if not module or not function:
            raise PolicyError(f"the run's policy {label!r} ({name}) records no module to import it from")
        recorded = record.get("source_sha256")
        check = recorded is not None and not allow_changed
        if check and module not in sys.modules:  # compared before the import runs the module's code
            _check_source(label, module, recorded, module_source_sha256(module))
        fn = _function_named(f"{module}:{function}")
        if check:
            _check_source(label, module, recorded, _source_of(fn)[2])
    spec = spec_of(fn)
    if spec is not None and len(params) < len(spec.params):
        # parameters declared since the run was played, appended at their defaults: a parameter is
        # only ever added with a default that plays as before under the options such a run records
        # (e.g. the blind bid's, unused when for_two bids after the deal)
        params = np.concatenate([params, spec.defaults[len(params) :]])
    if spec is not None and len(params) != len(spec.params):
        raise PolicyError(
            f"the run's policy {label!r} has {len(params)} parameters, {name} now declares {len(spec.params)}"
        )
    continuation = None
    if spec is not None and spec.continuation is not None:
        recorded = record.get("continuation")
        continuation = (
            as_policy(spec.continuation) if recorded is None else from_record(recorded, allow_changed=allow_changed)
        )
        continuation = _check_continuation(continuation, name)
    return Policy(fn, params, _name_of(fn), label, spec, continuation)


def _check_source(label: str, module: str, recorded, digest) -> None:
    """Refuse a recorded policy whose module's source is not the run's."""
    if digest != recorded:
        raise PolicyError(
            f"the source of policy {label!r} ({module}) changed since the run (SHA-256 {str(recorded)[:12]} then, "
            f"{(digest or 'unknown')[:12]} now): replaying would play different code; pass allow_changed=True "
            "(--allow-changed) to replay anyway"
        )


def load_policy(path, label: str | None = None) -> Policy:
    """The learned policy saved in ``path`` (:func:`simkit.policies.files.save_policy`), played by
    :func:`~simkit.policies.network.network_policy`, labelled with the file's label (or ``label``)."""
    source, params, file_label = read_policy_file(path)
    label = check_label(label) if label is not None else file_label
    return Policy(network_policy, params, _name_of(network_policy), label, None, None, source)


def _from_file_record(record: dict, label: str, allow_changed: bool) -> Policy:
    """A learned policy a run recorded by its file: loaded again, refused when the file changed."""
    path = AGENT_FILES.get(record.get("agent"), record["file"])  # a built-in agent: where simkit is now
    try:
        p = load_policy(path, label)
    except PolicyError as exc:
        raise PolicyError(f"the run's policy {label!r}: {exc}") from None
    recorded = record.get("sha256")
    if recorded is not None and p.source.sha256 != recorded and not allow_changed:
        raise PolicyError(
            f"the file of policy {label!r} ({record['file']}) changed since the run (SHA-256 {recorded[:12]} then, "
            f"{p.source.sha256[:12]} now): replaying would play other weights; pass allow_changed=True "
            "(--allow-changed) to replay anyway"
        )
    return p


def _check_continuation(p: Policy, owner: str) -> Policy:
    """A search's continuation: a jitted policy that does not search (the engine plays it out)."""
    if p.continuation is not None:
        raise PolicyError(
            f"policy {owner}: its continuation {p.label} searches too; a search plays out with a policy that does not"
        )
    if not hasattr(p.function, "py_func"):
        raise PolicyError(
            f"policy {owner}: its continuation {p.label} is a plain Python function; the search plays it out inside "
            "the engine, so it must be jitted (simkit.jit)"
        )
    return p


def _continuation_kind(p: Policy) -> float:
    """How the engine calls a search's continuation (``POLICY_*`` of :mod:`simkit.engine.table`)."""
    kinds = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY}
    return float(kinds[p.name] if p.built_in and p.name in kinds else POLICY_FUNCTION)
