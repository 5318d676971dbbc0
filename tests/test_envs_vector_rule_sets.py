"""simkit.envs.VectorEnv on the rule sets besides douque: for_two self-play is the step API, and
duel's tables are reproducible whatever the batch and threads. Slow (``-m slow``): each compiles
another rule set's vector kernel (over a minute on 2 cores); the default run checks the same on
douque (tests/test_vector_env.py)."""

from __future__ import annotations

import pytest

from tests.test_vector_env import reproducible_per_table, self_play_is_the_step_api


@pytest.mark.slow
def test_for_two_self_play_is_the_step_api_and_the_encoders_are_the_references():
    self_play_is_the_step_api("for_two")


@pytest.mark.slow
def test_duel_tables_are_reproducible_whatever_the_batch_and_threads():
    reproducible_per_table("duel")
