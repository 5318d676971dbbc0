"""Machinery shared by the rule sets: declared, validated options and the :class:`Rules` record.

Each rule-set module declares its options once, as fields of a frozen dataclass derived from
:class:`RuleOptions`::

    @dataclass(frozen=True)
    class DouqueOptions(RuleOptions):
        RULE_SET: ClassVar[str] = "douque"
        heavenly_tai: int = option(24, one_of(24, 16), "tai of Heavenly Hand")

:func:`option` stores an :class:`OptionSpec` (validator, command-line parser and a human text of
what is allowed) and a one-line doc in the field metadata. ``RuleOptions.__post_init__`` runs every
field's validator, so an options object that exists is valid; a bad value raises
:class:`~simkit.errors.RulesError` naming the option, the value given and what is allowed.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from simkit.errors import RulesError, show
from simkit.tiles import MAX_COPIES, N_KINDS, format_kind_set, kinds_mask, parse_tiles

__all__ = [
    "RULE_SET_EXPORTS",
    "RULE_SET_DEFAULTS",
    "complete_rule_set",
    "tile_set",
    "rules_of_module",
    "OptionSpec",
    "option",
    "one_of",
    "boolean",
    "number",
    "positive",
    "match_hands_option",
    "base_option",
    "per_unit_option",
    "MAX_BASE",
    "optional",
    "number_tuple",
    "RuleOptions",
    "Rules",
    "bad_value_message",
]


class _Invalid(Exception):
    """Raised by an OptionSpec check or parse; turned into RulesError with full context."""


# ---------------------------------------------------------------------------------------------
# option specifications
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSpec:
    """How one rule option is validated and parsed from a command-line string.

    Attributes
    ----------
    allowed : str
        Human text of the allowed values, used in error messages and ``describe()``
        (e.g. ``"24, 16"`` or ``"any positive number"``).
    check : callable
        ``check(value) -> value``: returns the value normalised (NumPy scalars to Python
        scalars, lists to tuples) or raises ``_Invalid``.
    parse : callable
        ``parse(text) -> value``: converts a command-line string, or raises ``_Invalid``.
    """

    allowed: str
    check: Callable[[Any], Any]
    parse: Callable[[str], Any]


def option(default: Any, spec: OptionSpec, doc: str) -> Any:
    """Declare a rule option: a dataclass field with its default, spec and one-line doc.

    Parameters
    ----------
    default : object
        Default value (must pass ``spec.check``; must be immutable).
    spec : OptionSpec
        Validator and parser, e.g. from :func:`one_of` or :func:`number`.
    doc : str
        One line saying what the option means.

    Returns
    -------
    dataclasses.Field
    """
    return field(default=default, metadata={"spec": spec, "doc": doc})


def _is_integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _to_python_number(value):
    return int(value) if _is_integer(value) else float(value)


def _parse_int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise _Invalid from None


def _parse_number(text: str):
    s = text.strip()
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        raise _Invalid from None


def one_of(*values) -> OptionSpec:
    """An option whose value is one of a fixed list of ints or of strings.

    Parameters
    ----------
    *values : int or str
        The allowed values, default first.

    Returns
    -------
    OptionSpec
        Ints must be integers (not bools or floats); strings must match exactly (the
        command-line parser lower-cases and strips).
    """
    strings = all(isinstance(v, str) for v in values)
    allowed = ", ".join(str(v) for v in values)

    def check(value):
        if strings:
            if isinstance(value, str) and value in values:
                return value
        elif _is_integer(value) and int(value) in values:
            return int(value)
        raise _Invalid

    def parse(text: str):
        return text.strip().lower() if strings else _parse_int(text)

    return OptionSpec(allowed, check, parse)


_TRUE_WORDS = ("true", "yes", "on", "1")
_FALSE_WORDS = ("false", "no", "off", "0")


def boolean() -> OptionSpec:
    """A true/false option (Python ``bool`` or ``numpy.bool_``; ints are not accepted).

    Returns
    -------
    OptionSpec
        The parser accepts true/false, yes/no, on/off, 1/0 in any case.
    """

    def check(value):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise _Invalid

    def parse(text: str):
        word = text.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        raise _Invalid

    return OptionSpec("true, false", check, parse)


def number(
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    min_inclusive: bool = True,
    max_inclusive: bool = True,
    integer: bool = False,
    allowed: str,
) -> OptionSpec:
    """A finite number (optionally an integer) within bounds.

    Parameters
    ----------
    minimum, maximum : float, optional
        Bounds; ``None`` for no bound.
    min_inclusive, max_inclusive : bool
        Whether the bounds themselves are allowed.
    integer : bool
        Require an integer (bools and floats are rejected).
    allowed : str
        Human text of the allowed values, e.g. ``"any positive number"``.

    Returns
    -------
    OptionSpec
    """

    def check(value):
        if integer:
            if not _is_integer(value):
                raise _Invalid
        else:
            try:
                if not _is_real(value) or not math.isfinite(float(value)):
                    raise _Invalid
            except OverflowError:  # an int too large for a float
                raise _Invalid from None
        value = _to_python_number(value)
        if minimum is not None and (value < minimum or (not min_inclusive and value == minimum)):
            raise _Invalid
        if maximum is not None and (value > maximum or (not max_inclusive and value == maximum)):
            raise _Invalid
        return value

    return OptionSpec(allowed, check, _parse_int if integer else _parse_number)


def positive(maximum: float, allowed: str) -> OptionSpec:
    """A number ``0 < x <= maximum`` (``allowed``: its human text, e.g. ``"any positive number up to 1e9"``)."""
    return number(minimum=0, min_inclusive=False, maximum=maximum, allowed=allowed)


#: Largest ``base`` of the rule sets that pay ``base + value x units`` (douque, night_market).
MAX_BASE = 1e9


def base_option(doc: str) -> Any:
    """The ``base`` option of the rule sets whose payment is ``base + value x units`` (50 by
    default, any positive number up to :data:`MAX_BASE`; ``doc`` gives the rule set's formula)."""
    return option(50, positive(MAX_BASE, "any positive number up to 1e9"), doc)


def per_unit_option(default: float, maximum: float, allowed: str, unit: str) -> Any:
    """The ``value`` of ``base + value x units`` (``tai_value``, ``fan_value``): points per ``unit``
    (tai, fan) in the payment, any positive number up to ``maximum`` (``allowed``: its text)."""
    return option(default, positive(maximum, allowed), f"points per {unit} in the payment")


def match_hands_option(doc: str) -> Any:
    """The ``match_hands`` option of the rule sets whose match is a number of hands (16 by default,
    1 to 10,000; ``doc`` says what the rule set's file says of it)."""
    return option(16, number(minimum=1, maximum=10_000, integer=True, allowed="any integer from 1 to 10000"), doc)


_NONE_WORDS = ("none", "unlimited")


def optional(spec: OptionSpec, meaning: str = "unlimited") -> OptionSpec:
    """``None`` or a value allowed by ``spec``.

    Parameters
    ----------
    spec : OptionSpec
        Spec of the non-None values.
    meaning : str
        What ``None`` means, for the allowed text.

    Returns
    -------
    OptionSpec
        The parser maps "none" and "unlimited" (any case) to ``None``.
    """

    def check(value):
        return None if value is None else spec.check(value)

    def parse(text: str):
        return None if text.strip().lower() in _NONE_WORDS else spec.parse(text)

    return OptionSpec(f"none ({meaning}) or {spec.allowed}", check, parse)


def number_tuple(length: int, element: OptionSpec, allowed: str) -> OptionSpec:
    """A tuple of ``length`` numbers, each allowed by ``element``.

    Parameters
    ----------
    length : int
        Required number of elements.
    element : OptionSpec
        Spec of each element.
    allowed : str
        Human text of the allowed values.

    Returns
    -------
    OptionSpec
        Lists and NumPy arrays are accepted and stored as tuples; the parser accepts
        comma- or space-separated values, optionally in parentheses or brackets.
    """

    def check(value):
        if isinstance(value, (str, bytes)) or not isinstance(value, (Iterable, np.ndarray)):
            raise _Invalid
        try:
            items = tuple(value)
        except TypeError:  # e.g. a 0-d array
            raise _Invalid from None
        if len(items) != length:
            raise _Invalid
        return tuple(element.check(v) for v in items)

    def parse(text: str):
        body = text.strip().strip("()[]").strip()
        if not body:
            raise _Invalid
        return tuple(element.parse(p) for p in re.split(r"[,\s]+", body) if p)

    return OptionSpec(allowed, check, parse)


def bad_value_message(rule_set: str, key: str, value: Any, allowed: str) -> str:
    """Text of the error for an option value that is not allowed.

    Returns
    -------
    str
        e.g. ``"rule set 'douque': heavenly_tai=20 is not allowed; allowed: 24, 16"``.
    """

    return f"rule set {rule_set!r}: {key}={show(value)} is not allowed; allowed: {allowed}"


# ---------------------------------------------------------------------------------------------
# options base class
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleOptions:
    """Base of each rule set's frozen options dataclass.

    Subclasses set the class variable ``RULE_SET`` and declare every option with
    :func:`option`. Instances are immutable, hashable, equal by value, and always valid.
    """

    RULE_SET: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            spec: OptionSpec = f.metadata["spec"]
            value = getattr(self, f.name)
            try:
                normalised = spec.check(value)
            except _Invalid:
                raise RulesError(bad_value_message(self.RULE_SET, f.name, value, spec.allowed)) from None
            if normalised is not value:
                object.__setattr__(self, f.name, normalised)

    # -- class-level description ---------------------------------------------------------------

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """Names of the options, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Default value of every option."""
        return {f.name: f.default for f in dataclasses.fields(cls)}

    @classmethod
    def _field(cls, key: str) -> dataclasses.Field:
        for f in dataclasses.fields(cls):
            if f.name == key:
                return f
        raise RulesError(
            f"unknown option {key!r} for rule set {cls.RULE_SET!r}; valid options: {', '.join(cls.option_names())}"
        )

    @classmethod
    def spec(cls, key: str) -> OptionSpec:
        """The :class:`OptionSpec` of one option (RulesError if there is no such option)."""
        return cls._field(key).metadata["spec"]

    @classmethod
    def doc(cls, key: str) -> str:
        """The one-line doc of one option (RulesError if there is no such option)."""
        return cls._field(key).metadata["doc"]

    @classmethod
    def create(cls, **values: Any) -> "RuleOptions":
        """Build validated options, with RulesError (not TypeError) for unknown names.

        Raises
        ------
        RulesError
            An unknown option (the message lists the valid ones) or a value not allowed.
        """
        for key in values:
            cls._field(key)
        return cls(**values)

    @classmethod
    def parse_value(cls, key: str, text: Any) -> Any:
        """Convert a command-line string to a valid value of option ``key``.

        Parameters
        ----------
        key : str
            Option name.
        text : str
            The string given (non-strings are validated as they are).

        Returns
        -------
        object
            The validated value.

        Raises
        ------
        RulesError
            Unknown option, or text that does not give an allowed value.
        """
        spec = cls.spec(key)
        try:
            value = spec.parse(text) if isinstance(text, str) else text
            return spec.check(value)
        except _Invalid:
            raise RulesError(bad_value_message(cls.RULE_SET, key, text, spec.allowed)) from None

    # -- instance helpers ----------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """Plain dict of option name -> value, in declaration order."""
        return {name: getattr(self, name) for name in self.option_names()}

    def non_default(self) -> dict[str, Any]:
        """Options whose value differs from the default."""
        defaults = self.defaults()
        return {k: v for k, v in self.values().items() if v != defaults[k]}

    def replace(self, **changes: Any) -> "RuleOptions":
        """New options with some values changed (validated like :meth:`create`)."""
        return self.create(**{**self.values(), **changes})


# ---------------------------------------------------------------------------------------------
# the rule set record
# ---------------------------------------------------------------------------------------------


def _kinds_tuple(kinds) -> tuple[int, ...]:
    try:
        values = sorted({int(k) for k in kinds})
    except (TypeError, ValueError):
        raise RulesError(f"kinds must be integers 0-{N_KINDS - 1}, got {kinds!r}") from None
    if not values or values[0] < 0 or values[-1] >= N_KINDS:
        raise RulesError(f"kinds must be a non-empty set of integers 0-{N_KINDS - 1}, got {kinds!r}")
    return tuple(values)


_FLAGS = (
    "claim_pung",
    "claim_exposed_kong",
    "claim_chow",
    "concealed_kong",
    "added_kong",
    "robbing_kong",
    "seven_pairs",
)


def _format_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(_format_value(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class Rules:
    """A rule set with its option values: immutable, hashable, equal by value.

    Build one with :func:`simkit.rules.get_rules`; change options with :meth:`with_options`.

    Attributes
    ----------
    name : str
        Rule-set name, one of :data:`simkit.rules.RULE_SETS`.
    options : RuleOptions
        The rule set's frozen options dataclass instance.
    kinds : tuple of int
        Sorted kind indices of the tile set (four copies of each).
    kept_back : int
        Tiles at the end of the wall that are never drawn.
    dealer_tiles, hand_tiles : int
        Tiles dealt to the dealer (14) and to the other player (13).
    claim_pung, claim_exposed_kong, claim_chow : bool
        Which melds may be claimed from the opponent's discard.
    concealed_kong, added_kong : bool
        Whether concealed kongs and added kongs (a drawn 4th tile on a claimed pung) exist.
    robbing_kong : bool
        Whether the opponent may win on the tile of an added kong.
    seven_pairs : bool
        Whether seven pairs is a winning hand.
    result_columns : tuple of str
        The engine's result columns particular to this rule set (``fan``, ``bid``, ...), which its
        datasets keep beside the shared ones (not part of equality).
    title : str
        One-line description (not part of equality).
    n_tiles : int
        Number of tiles in the set, ``4 * len(kinds)`` (derived).
    """

    name: str
    options: RuleOptions
    kinds: tuple[int, ...]
    kept_back: int
    dealer_tiles: int
    hand_tiles: int
    claim_pung: bool
    claim_exposed_kong: bool
    claim_chow: bool
    concealed_kong: bool
    added_kong: bool
    robbing_kong: bool
    seven_pairs: bool
    title: str = field(default="", compare=False, repr=False)
    result_columns: tuple[str, ...] = field(default=(), compare=False, repr=False)
    n_tiles: int = field(init=False)
    _mask: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise RulesError(f"a rule set name is a non-empty str, got {self.name!r}")
        if not isinstance(self.options, RuleOptions) or self.options.RULE_SET != self.name:
            raise RulesError(
                f"options of rule set {self.name!r} must be its options dataclass, got {type(self.options).__name__}"
            )
        kinds = _kinds_tuple(self.kinds)
        object.__setattr__(self, "kinds", kinds)
        for key in ("kept_back", "dealer_tiles", "hand_tiles"):
            value = getattr(self, key)
            if not _is_integer(value) or value < 0:
                raise RulesError(f"{key} must be an integer >= 0, got {value!r}")
            object.__setattr__(self, key, int(value))
        for key in _FLAGS:
            value = getattr(self, key)
            if not isinstance(value, (bool, np.bool_)):
                raise RulesError(f"{key} must be a bool, got {value!r}")
            object.__setattr__(self, key, bool(value))
        object.__setattr__(self, "n_tiles", MAX_COPIES * len(kinds))
        mask = kinds_mask(kinds)
        mask.flags.writeable = False
        object.__setattr__(self, "_mask", mask)

    # -- tiles ---------------------------------------------------------------------------------

    @property
    def tile_mask(self) -> np.ndarray:
        """Read-only ``bool[34]``: True for the kinds in this rule set's tile set."""
        return self._mask

    @property
    def tiles_text(self) -> str:
        """The tile set in compact notation, e.g. ``"1-9m 1p 9p 1-7z"``."""
        return format_kind_set(self.kinds)

    # -- options -------------------------------------------------------------------------------

    def option_values(self) -> dict[str, Any]:
        """Plain dict of option name -> value (all options, declaration order)."""
        return self.options.values()

    def non_default_options(self) -> dict[str, Any]:
        """Plain dict of the options whose value differs from the default."""
        return self.options.non_default()

    def with_options(self, **options: Any) -> "Rules":
        """A new Rules with some option values changed.

        Raises
        ------
        RulesError
            Unknown option (the message lists the valid ones) or a value not allowed.
        """
        return dataclasses.replace(self, options=self.options.replace(**options))

    def with_option_strings(self, options: Mapping[str, str] | Iterable[str]) -> "Rules":
        """A new Rules with options given as command-line strings.

        Parameters
        ----------
        options : mapping or iterable of str
            ``{"migi_tai": "4", "fully_melded_single_wait": "false"}``, or
            ``["migi_tai=4", "fully_melded_single_wait=false"]`` as from repeated
            ``--option KEY=VALUE`` arguments.

        Returns
        -------
        Rules

        Raises
        ------
        RulesError
            A string without ``=``, an unknown option, or a value that is not allowed.
        """
        if isinstance(options, str):
            options = [options]
        if isinstance(options, Mapping):
            pairs = list(options.items())
        else:
            pairs = []
            for item in options:
                if not isinstance(item, str) or "=" not in item:
                    raise RulesError(f"expected an option as KEY=VALUE, got {item!r}")
                key, _, text = item.partition("=")
                pairs.append((key.strip(), text.strip()))
        parsed = {key: self.options.parse_value(key, text) for key, text in pairs}
        return self.with_options(**parsed)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready provenance record: ``{"name": ..., "options": {...}}``.

        ``get_rules(d["name"], **d["options"])`` rebuilds an equal Rules.
        """
        values = {k: list(v) if isinstance(v, tuple) else v for k, v in self.option_values().items()}
        return {"name": self.name, "options": values}

    # -- text ----------------------------------------------------------------------------------

    def describe(self) -> str:
        """Multi-line human description: tiles, deal, claims, kongs, options and defaults."""
        claims = [
            label
            for label, on in (
                ("pung", self.claim_pung),
                ("exposed kong", self.claim_exposed_kong),
                ("chow", self.claim_chow),
            )
            if on
        ]
        kongs = [label for label, on in (("concealed", self.concealed_kong), ("added", self.added_kong)) if on]
        kong_text = ", ".join(kongs) if kongs else "none"
        if self.added_kong:
            kong_text += "; an added kong can be robbed" if self.robbing_kong else ("; an added kong cannot be robbed")
        lines = [
            f"rule set {self.name}" + (f": {self.title}" if self.title else ""),
            f"  tiles: {self.tiles_text} ({len(self.kinds)} kinds x {MAX_COPIES} = "
            f"{self.n_tiles} tiles; {self.kept_back} kept back)",
            f"  deal: dealer {self.dealer_tiles} tiles, other player {self.hand_tiles}",
            f"  claims on a discard: {', '.join(claims) if claims else 'none'}"
            + ("" if self.claim_chow else " (no chow)"),
            f"  kongs: {kong_text}",
            f"  seven pairs: {'yes' if self.seven_pairs else 'no'}",
            "  options:",
        ]
        defaults = self.options.defaults()
        for key, value in self.option_values().items():
            if value == defaults[key]:
                mark = "(default)"
            else:
                mark = f"(default {_format_value(defaults[key])})"
            spec = self.options.spec(key)
            lines.append(f"    {key} = {_format_value(value)} {mark}: {self.options.doc(key)}; allowed: {spec.allowed}")
        return "\n".join(lines)

    def __str__(self) -> str:
        changed = self.non_default_options()
        if not changed:
            return self.name
        inner = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"{self.name}({inner})"


# ---------------------------------------------------------------------------------------------
# the rule-set template
# ---------------------------------------------------------------------------------------------

#: The names every rule-set module exports: the constants its :class:`Rules` is made of, its options
#: class (``Options``), its factory ``make_rules(**options)`` and ``RULES`` (every option at its default).
RULE_SET_EXPORTS = (
    "NAME",  # registry name
    "TITLE",  # one-line description
    "KINDS",  # kinds of the tile set (four copies each)
    "KEPT_BACK",  # tiles at the end of the wall that are never drawn
    "DEALER_TILES",
    "HAND_TILES",
    "CLAIM_PUNG",
    "CLAIM_EXPOSED_KONG",
    "CLAIM_CHOW",
    "CONCEALED_KONG",
    "ADDED_KONG",
    "ROBBING_KONG",  # the opponent may win on the tile of an added kong
    "SEVEN_PAIRS",  # seven pairs is a winning hand
    "RESULT_COLUMNS",  # engine result columns particular to the rule set, kept in its datasets
    "Options",
    "make_rules",
    "RULES",
)

#: The template's value of each constant a rule-set module need not set: the engine's deal (14 tiles
#: to the dealer, 13 to the other player), pung and exposed kong claims but no chow claims,
#: concealed and added kongs that cannot be robbed, no seven pairs, no result columns beyond the
#: shared ones.
RULE_SET_DEFAULTS = {
    "DEALER_TILES": 14,
    "HAND_TILES": 13,
    "CLAIM_PUNG": True,
    "CLAIM_EXPOSED_KONG": True,
    "CLAIM_CHOW": False,
    "CONCEALED_KONG": True,
    "ADDED_KONG": True,
    "ROBBING_KONG": False,
    "SEVEN_PAIRS": False,
    "RESULT_COLUMNS": (),
}


def tile_set(text: str) -> tuple[int, ...]:
    """The kinds of a tile set written in notation, e.g. ``tile_set("123456789m 19p 1234567z")``
    (each kind once; the set has four copies of each)."""
    return tuple(int(k) for k in np.flatnonzero(parse_tiles(text.replace(" ", ""))))


def complete_rule_set(namespace: dict) -> None:
    """Finish a rule-set module (call ``complete_rule_set(globals())`` at its end).

    The module sets what is particular to its rule set: ``TITLE``, ``KINDS`` (:func:`tile_set`),
    ``KEPT_BACK``, ``Options`` (its :class:`RuleOptions` class), and each constant of
    :data:`RULE_SET_DEFAULTS` it differs in (``CLAIM_CHOW``, ``ROBBING_KONG``, ...). This adds ``NAME`` (the registry
    name is the module's name; ``Options.RULE_SET`` is set to it), the defaults of the others,
    ``make_rules(**options)``, ``RULES`` and the template's names to ``__all__``.

    Raises
    ------
    TypeError
        A constant the module must set is missing, or ``Options`` does not belong to ``NAME``.
    """
    namespace["NAME"] = namespace["__name__"].rsplit(".", 1)[-1]
    if isinstance(namespace.get("Options"), type) and issubclass(namespace["Options"], RuleOptions):
        namespace["Options"].RULE_SET = namespace["NAME"]
    for key, value in RULE_SET_DEFAULTS.items():
        namespace.setdefault(key, value)
    missing = [key for key in RULE_SET_EXPORTS if key not in namespace and key not in ("make_rules", "RULES")]
    if missing:
        raise TypeError(f"rule-set module {namespace.get('__name__')} does not set {', '.join(missing)}")
    name = namespace["NAME"]
    if not (
        isinstance(namespace["Options"], type)
        and issubclass(namespace["Options"], RuleOptions)
        and namespace["Options"].RULE_SET == name
    ):
        raise TypeError(f"rule-set module {namespace.get('__name__')}: Options must be {name}'s RuleOptions class")

    def make_rules(**options) -> Rules:
        return rules_of_module(namespace, **options)

    make_rules.__module__ = namespace["__name__"]
    make_rules.__doc__ = f"""The ``{name}`` rule set with the given option values (others at their defaults).

    Raises
    ------
    RulesError
        Unknown option or a value that is not allowed.
    """
    namespace["make_rules"] = make_rules
    namespace["RULES"] = make_rules()
    particular = [key for key in namespace.get("__all__", ()) if key not in RULE_SET_EXPORTS]
    namespace["__all__"] = [*RULE_SET_EXPORTS, *particular]


def rules_of_module(module, **options: Any) -> Rules:
    """The :class:`Rules` described by a rule-set module's constants (the module, or its namespace
    dict), with ``options`` applied.

    A rule-set module defines ``NAME``, ``TITLE``, ``KINDS``, ``KEPT_BACK``, ``DEALER_TILES``,
    ``HAND_TILES``, the claim and kong flags, ``RESULT_COLUMNS`` and its ``Options`` class
    (:func:`complete_rule_set` adds the template's defaults); this is its one factory.
    """
    m = module if isinstance(module, Mapping) else vars(module)
    # every constant but Options / make_rules / RULES fills the Rules field of its lower-case name
    constants = {key.lower(): m[key] for key in RULE_SET_EXPORTS if key.isupper() and key != "RULES"}
    return Rules(options=m["Options"].create(**options), **constants)
