"""Rule sets as data, and their registry.

Each rule set lives in one module (``douque``, ``night_market``, ``duel``, ``for_two``) that says
only what is particular to it: its title, tile set (``KINDS``), tiles kept back, the claim and kong
flags where it differs from the template's defaults, and its frozen ``Options`` dataclass. The
template in :mod:`simkit.rules._options` holds the rest (option specs and validation, the
:class:`Rules` record, ``RULE_SET_DEFAULTS``) and ``complete_rule_set(globals())`` at the end of
each module adds ``NAME`` (the module's name), the defaults, ``make_rules(**options)`` and
``RULES``. This package looks them up by name::

    >>> from simkit.rules import get_rules
    >>> r = get_rules("douque", migi_tai=4)
    >>> str(r)
    'douque(migi_tai=4)'
    >>> r.n_tiles
    72

Adding a rule set means adding one module here and its name to the tuple in ``_MODULES`` (and
its scoring module under :mod:`simkit.scoring`; the README's "How it works" lists what each must
supply).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from simkit.errors import InputTypeError, RulesError
from simkit.rules import douque, duel, for_two, night_market
from simkit.rules._options import OptionSpec, RuleOptions, Rules
from simkit.tiles import use_rules_resolver

__all__ = [
    "RULE_SETS",
    "DEFAULT_RULE_SET",
    "Rules",
    "RuleOptions",
    "OptionSpec",
    "get_rules",
    "resolve_rules",
    "require_rules",
    "rules_module",
    "options_class",
    "parse_option",
]

_MODULES: dict[str, ModuleType] = {m.NAME: m for m in (douque, night_market, duel, for_two)}

#: Names of the available rule sets, in the order they are documented.
RULE_SETS = tuple(_MODULES)
#: Name of the rule set used when none is given.
DEFAULT_RULE_SET = "douque"


def rules_module(name: str) -> ModuleType:
    """The module of a rule set, e.g. ``rules_module("duel") is simkit.rules.duel``.

    Parameters
    ----------
    name : str
        Rule-set name; case and ``-`` versus ``_`` do not matter (``"Night-Market"``).

    Raises
    ------
    RulesError
        Unknown name; the message lists the valid ones.
    TypeError
        ``name`` is not a str.
    """
    if not isinstance(name, str):
        raise InputTypeError(f"a rule-set name is a str, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_")
    try:
        return _MODULES[key]
    except KeyError:
        raise RulesError(f"unknown rule set {name!r}; valid rule sets: {', '.join(RULE_SETS)}") from None


def options_class(name: str) -> type[RuleOptions]:
    """The frozen options dataclass of a rule set (for help texts and option listings)."""
    return rules_module(name).Options


def get_rules(name: str = DEFAULT_RULE_SET, **options: Any) -> Rules:
    """A rule set by name, with option values (others at their defaults).

    Parameters
    ----------
    name : str
        One of :data:`RULE_SETS` (case-insensitive; ``-`` accepted for ``_``).
    **options
        Option values, e.g. ``heavenly_tai=16``.

    Returns
    -------
    Rules
        Immutable, hashable, equal by value.

    Raises
    ------
    RulesError
        Unknown rule set (lists the valid names), unknown option (lists the rule set's options),
        or a value that is not allowed (says what is).
    """
    return rules_module(name).make_rules(**options)


def resolve_rules(rules: str | Rules) -> Rules:
    """Accept a rule-set name or a :class:`Rules` object; return a Rules object.

    Parameters
    ----------
    rules : str or Rules
        A name (built with default options) or a Rules object (returned as is).

    Raises
    ------
    RulesError
        Unknown name.
    TypeError
        Anything else (the message names the type given).
    """
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return get_rules(rules)
    raise InputTypeError(f"rules must be a rule-set name (str) or a Rules object, got {type(rules).__name__}")


def require_rules(rules, where: str) -> Rules:
    """``rules`` itself when it is a :class:`Rules` object: what a layer below the public doors
    takes, the door having resolved a name once (:func:`resolve_rules`); anything else is an error
    naming ``where``."""
    if isinstance(rules, Rules):
        return rules
    raise InputTypeError(
        f"{where} takes a Rules object (resolve a name once at the door: simkit.resolve_rules), "
        f"got {type(rules).__name__}"
    )


use_rules_resolver(resolve_rules)  # the tile functions take a rule set's name too


def parse_option(rules_name: str | Rules, key: str, text: str) -> Any:
    """Convert a command-line option string (``--option KEY=VALUE``) to a valid value.

    Parameters
    ----------
    rules_name : str or Rules
        The rule set the option belongs to.
    key : str
        Option name.
    text : str
        The value as written: ``true/false/yes/no/on/off/1/0`` for booleans, integers, decimal
        numbers, ``none``/``unlimited`` for ``chips``, comma lists for ``combination_points``.

    Returns
    -------
    object
        The validated value (e.g. ``parse_option("douque", "migi_tai", "4") == 4``).

    Raises
    ------
    RulesError
        Unknown rule set, unknown option, or a value that is not allowed.
    """
    name = rules_name.name if isinstance(rules_name, Rules) else rules_name
    return options_class(name).parse_value(key, text)
