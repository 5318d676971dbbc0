"""What a policy label may be: the name a policy has in datasets, tables and plots."""

from __future__ import annotations

import re

from ..errors import PolicyError

__all__ = ["check_label"]

_LABEL = re.compile(r"^[A-Za-z0-9_.\-+\[\]{}=,:]+$")


def check_label(label) -> str:
    """``label`` if it can name a policy (letters, digits and ``_ . - + [ ] { } = , :``), else a
    one-line PolicyError."""
    if not isinstance(label, str) or not label or not _LABEL.match(label):
        raise PolicyError(
            f"a policy label is a non-empty string of letters, digits and _ . - + [ ] {{ }} = , :, got {label!r}"
        )
    return label
