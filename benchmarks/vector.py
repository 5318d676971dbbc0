"""Agent steps per second of the vector environment ``simkit.envs.VectorEnv`` (douque, 4,096
tables, all threads): random legal actions chosen in numpy and ``step``, in self-play and against
greedy, and ``step`` alone; with the finished episodes' final observations (the default) and
without (``final_obs=False``).

Usage: ``python3 benchmarks/vector.py [--repeat 3] [--json OUT]``
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _common import fmt as _fmt
from _common import main_for

FAMILY = "vector"
OPTIONS = ("repeat",)


def run(args, rec) -> None:
    _vector_rates(args.repeat, rec=rec)


def _vector_rates(repeat: int, n_envs: int = 4096, steps: int = 300, rec=None) -> None:
    """Agent steps per second of ``simkit.envs.VectorEnv`` (douque, ``n_envs`` tables, all threads):
    the whole loop -- random legal actions chosen in numpy (``random_legal_actions``), then
    ``step`` -- and ``step`` alone, in self-play and against greedy, with and without the final
    observations (``final_obs``); best of ``repeat`` runs of ``steps`` steps, compile and reset
    excluded."""
    import simkit.envs as E

    print(f"\n  vector environment: douque, {n_envs:,} tables, all threads, {steps} steps, best of {repeat}")
    print(f"  {'opponent':<24} {'final_obs':<10} {'whole loop':>14} {'step alone':>14}")
    for opponent, final_obs in ((None, True), (None, False), ("greedy", True), ("greedy", False)):
        env = E.VectorEnv("douque", n_envs, opponent=opponent, seed=1, final_obs=final_obs)
        rng = np.random.default_rng(0)
        obs, _ = env.reset()
        env.step(E.random_legal_actions(obs["action_mask"], rng))  # compile or load
        best_loop = best_step = 0.0
        for _ in range(repeat):
            obs, _ = env.reset()
            in_step = 0.0
            t0 = time.perf_counter()
            for _ in range(steps):
                actions = E.random_legal_actions(obs["action_mask"], rng)
                t1 = time.perf_counter()
                obs, rewards, terminated, truncated, info = env.step(actions)
                in_step += time.perf_counter() - t1
            total = time.perf_counter() - t0
            best_loop = max(best_loop, steps * n_envs / total)
            best_step = max(best_step, steps * n_envs / in_step)
        label = "none (self-play)" if opponent is None else opponent
        print(f"  {label:<24} {str(final_obs):<10} {_fmt(best_loop):>14} {_fmt(best_step):>14}")
        if rec is not None:
            for what, rate in (("whole loop", best_loop), ("step alone", best_step)):
                rec.add(
                    f"agent steps/s, {what}",
                    rate,
                    "steps/s",
                    n=steps * n_envs,
                    rules="douque",
                    opponent=opponent or "self-play",
                    final_obs=final_obs,
                    tables=n_envs,
                    steps=steps,
                )
    print("  peers (published, not measured here): Mahjax, about 2M steps/s for four-player riichi on eight A100 GPUs.")


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
