"""Grouping keys (``by``): columns of the data, or the player keys :data:`PLAYER_KEYS`, taken at the
winner in per-win statistics and at each player in per-player ones (see :mod:`simkit.analysis`).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputValueError
from .loading import _as_list, _require

#: Grouping keys that describe a player rather than a hand (see the package docstring).
PLAYER_KEYS = ("player", "policy", "role", "seat_wind")


def _keys(by) -> list[str]:
    keys = _as_list(by, "by")
    if len(set(keys)) != len(keys):
        raise InputValueError(f"by names a key twice: {keys}")
    return keys


def _key_columns(keys) -> list[str]:
    """Columns the keys are computed from."""
    cols = []
    for k in keys:
        if k == "player":
            cols += ["winner"]
        elif k == "policy":
            cols += ["policy_0", "policy_1"]
        elif k == "role":
            cols += ["dealer"]
        elif k == "seat_wind":
            cols += ["seat_wind_0", "seat_wind_1"]
        else:
            cols.append(k)
    return cols


def _check_keys(df, keys):
    bad = [k for k in keys if k not in PLAYER_KEYS and k not in df.columns]
    if bad:
        raise InputValueError(
            f"unknown grouping key{'s' if len(bad) > 1 else ''} {', '.join(repr(b) for b in bad)}: use a column of the "
            f"data or one of {', '.join(PLAYER_KEYS)}"
        )
    for k in keys:
        if k in PLAYER_KEYS:
            _require(df, *(c for c in _key_columns([k]) if c != "winner"))


def _player_key(df, key, player: int):
    """The value of a player key for player ``player`` in every row (numpy or pandas array)."""
    import pandas as pd

    n = len(df)
    if key == "player":
        return np.full(n, player, np.int8)
    if key == "policy":
        return df[f"policy_{player}"].array
    if key == "seat_wind":
        return df[f"seat_wind_{player}"].array
    if key == "role":
        dealer = df["dealer"].to_numpy() == player
        return pd.Categorical.from_codes(np.where(dealer, 0, 1), ["dealer", "non-dealer"])
    raise AssertionError(key)


def _pick(a0, a1, first):
    """Row-wise ``a0`` where ``first`` else ``a1``, keeping categoricals categorical."""
    import pandas as pd

    if isinstance(a0, pd.Categorical) or isinstance(getattr(a0, "dtype", None), pd.CategoricalDtype):
        c0, c1 = pd.Categorical(a0), pd.Categorical(a1)
        cats = c0.categories.union(c1.categories) if not c0.categories.equals(c1.categories) else c0.categories
        c0 = c0.set_categories(cats)
        c1 = c1.set_categories(cats)
        return pd.Categorical.from_codes(np.where(first, c0.codes, c1.codes), cats)
    return np.where(first, np.asarray(a0), np.asarray(a1))


def _winner_keys(df, keys, won):
    """Key columns of the won rows (``won`` bool[n]), player keys taken at the winner: dict name -> array."""
    first = df["winner"].to_numpy() == 0
    out = {}
    for k in keys:
        if k == "player":
            out[k] = df["winner"].to_numpy()[won].astype(np.int8)
        elif k in PLAYER_KEYS:
            out[k] = _pick(_player_key(df, k, 0), _player_key(df, k, 1), first)[won]
        else:
            out[k] = df[k].array[won]
    return out


def _hands_per_group(df, keys):
    """Hands in which a player of each group sits (each hand once): a Series indexed by the keys."""
    import pandas as pd

    n = len(df)
    if not keys:
        return None
    if not any(k in PLAYER_KEYS for k in keys):
        frame = pd.DataFrame({k: df[k].array for k in keys})
        return frame.groupby(keys, observed=True, sort=True).size()
    parts = []
    for p in (0, 1):
        cols = {"_row": np.arange(n)}
        for k in keys:
            cols[k] = _player_key(df, k, p) if k in PLAYER_KEYS else df[k].array
        parts.append(pd.DataFrame(cols))
    frame = pd.concat(parts, ignore_index=True).drop_duplicates()
    return frame.groupby(keys, observed=True, sort=True).size()
