"""simkit.envs.VectorEnv on the rule sets besides douque: for_two self-play is the step API, and
duel's tables are reproducible whatever the batch and threads. A file of its own, named to come
early (the test workers take files in name order), so that these vector kernels compile side by
side with test_vector_env.py's and not at the end of the run."""

from __future__ import annotations

import numpy as np

import simkit.envs as E
from tests.test_vector_env import _choose, self_play_is_the_step_api


def test_for_two_self_play_is_the_step_api_and_the_encoders_are_the_references():
    self_play_is_the_step_api("for_two")


def test_reproducible_per_table_whatever_the_batch_and_threads():
    def run(n, threads):
        env = E.VectorEnv("duel", n, seed=2, episode="match", threads=threads)
        obs, masks, _ = env.reset()
        seen = []
        for step in range(80):
            obs, masks, rewards, terminated, _, info = env.step(_choose(masks, step, range(n)))
            seen.append((obs[:3].copy(), rewards[:3].copy(), terminated[:3].copy()))
        return seen

    a, b = run(3, 1), run(7, 2)
    for (oa, ra, ta), (ob, rb, tb) in zip(a, b):
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(ta, tb)
