"""Train a small policy with the vector environment and watch it learn: plain numpy, no framework.

A linear softmax policy over the legal actions (logits = observation @ W + b, illegal actions
masked out) plays one seat of ``simkit.envs.VectorEnv`` (a gymnasium vector environment) against a
simkit policy (``random`` by default) and learns by REINFORCE: every step's log-probability gradient is weighted by the
return of the rest of its episode (its change of score to the hand's end) minus a baseline (the
mean return of the batch), normalised by the batch's standard deviation; Adam updates the
weights. Every ``--report`` seconds it prints the episodes finished, the agent's win rate and its
mean points per hand over the episodes of that interval (the first line: the untrained policy,
uniform over the legal actions), so the rise is visible; with ``--plot PATH`` it also draws the
win rate against training time. A "win" is an episode the agent ends with a positive change of
score.

Usage: ``python examples/train_pg.py [--rules douque] [--opponent random] [--minutes 3]
[--envs 256] [--horizon 32] [--lr 0.01] [--seed 0] [--plot notebooks/figures/train_pg.png]
[--save agents/pg.npz]``; the saved policy plays in ``simkit simulate``, ``compare`` and every
other door a policy goes through.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


class LinearPolicy:
    """Masked softmax over ``n_actions`` with logits ``obs @ W + b``, trained by Adam."""

    def __init__(self, n_obs: int, n_actions: int, lr: float, rng):
        self.W = np.zeros((n_obs, n_actions), np.float32)
        self.b = np.zeros(n_actions, np.float32)
        self.lr = lr
        self.rng = rng
        self._m = [np.zeros_like(self.W), np.zeros_like(self.b)]
        self._v = [np.zeros_like(self.W), np.zeros_like(self.b)]
        self._t = 0

    def probabilities(self, obs, masks):
        logits = obs @ self.W + self.b
        logits = np.where(masks > 0, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        return p

    def act(self, obs, masks):
        p = self.probabilities(obs, masks)
        u = self.rng.random((len(p), 1), dtype=np.float32)
        actions = (p.cumsum(axis=1) < u).sum(axis=1)
        # rounding can leave u above the last cumulative sum: fall back to the most likely action
        bad = (actions >= p.shape[1]) | (masks[np.arange(len(p)), np.minimum(actions, p.shape[1] - 1)] == 0)
        actions[bad] = p[bad].argmax(axis=1)
        return actions

    def update(self, obs, masks, actions, advantages):
        """One Adam step on the policy-gradient loss of a batch."""
        p = self.probabilities(obs, masks)
        grad_logits = -p
        grad_logits[np.arange(len(actions)), actions] += 1.0
        grad_logits *= advantages[:, None] / len(actions)
        grads = [obs.T @ grad_logits, grad_logits.sum(axis=0)]
        self._t += 1
        for k, (param, g) in enumerate(zip((self.W, self.b), grads)):
            self._m[k] = 0.9 * self._m[k] + 0.1 * g
            self._v[k] = 0.999 * self._v[k] + 0.001 * g * g
            # moments of weights whose gradient stays zero decay into subnormal floats, whose
            # arithmetic is many times slower: flush them to zero
            self._m[k][np.abs(self._m[k]) < 1e-20] = 0.0
            self._v[k][self._v[k] < 1e-30] = 0.0
            m_hat = self._m[k] / (1 - 0.9**self._t)
            v_hat = self._v[k] / (1 - 0.999**self._t)
            param += self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)  # ascent: more of what paid


def returns_to_go(rewards, terminated):
    """Per step, the sum of the rewards from that step to the end of its episode within the
    collected horizon (``rewards``, ``terminated``: [horizon, n_envs]); steps whose episode did not
    end in the horizon get NaN (they are left out of the update)."""
    horizon, n = rewards.shape
    out = np.full((horizon, n), np.nan, np.float64)
    running = np.full(n, np.nan)
    for t in range(horizon - 1, -1, -1):
        running = np.where(terminated[t], rewards[t], running + rewards[t])
        out[t] = running
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="douque")
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--minutes", type=float, default=3.0, help="training time")
    ap.add_argument("--envs", type=int, default=256, help="tables stepped at once")
    ap.add_argument("--horizon", type=int, default=32, help="steps collected per update")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--report", type=float, default=10.0, help="seconds between progress lines")
    ap.add_argument("--plot", help="save the win rate against training time to this PNG")
    ap.add_argument(
        "--save",
        help="save the trained policy to this .npz (simkit.save_policy), to play it wherever simkit takes a "
        "policy: --policies 'pg=PATH,greedy'",
    )
    args = ap.parse_args(argv)

    import simkit.envs as E

    rng = np.random.default_rng(args.seed)
    env = E.VectorEnv(args.rules, args.envs, opponent=args.opponent, seed=args.seed, copy=True)
    policy = LinearPolicy(E.OBSERVATION_SIZE, env.n_actions, args.lr, rng)
    obs, _ = env.reset()
    print(
        f"train_pg: {args.rules}, a linear softmax policy against {args.opponent}, {args.envs} tables, "
        f"{args.minutes:g} minutes"
    )
    print(f"{'minutes':>8} {'steps':>11} {'episodes':>9} {'win rate':>9} {'points/hand':>12}")
    n_obs = E.OBSERVATION_SIZE
    # the untrained policy (uniform over the legal actions) first, for the starting point
    wins = episodes = 0
    points = 0.0
    while episodes < 20 * args.envs:
        obs, rewards, terminated, _, _ = env.step(policy.act(obs["observation"], obs["action_mask"]))
        ended = np.flatnonzero(terminated)
        episodes += len(ended)
        wins += int((rewards[ended] > 0).sum())
        points += float(rewards[ended].sum())
    print(f"{0.0:>8.2f} {'untrained':>11} {episodes:>9,} {wins / episodes:>9.3f} {points / episodes:>12.1f}")
    history = [(0.0, wins / episodes, episodes)]
    start = last = time.perf_counter()
    steps = 0
    interval_wins = interval_episodes = 0
    interval_points = 0.0
    while time.perf_counter() - start < args.minutes * 60:
        Obs = np.empty((args.horizon, args.envs, n_obs), np.float32)
        M = np.empty((args.horizon, args.envs, env.n_actions), np.int8)
        Act = np.empty((args.horizon, args.envs), np.int64)
        R = np.empty((args.horizon, args.envs), np.float64)
        D = np.empty((args.horizon, args.envs), np.bool_)
        for t in range(args.horizon):
            actions = policy.act(obs["observation"], obs["action_mask"])
            Obs[t], M[t], Act[t] = obs["observation"], obs["action_mask"], actions
            obs, rewards, terminated, _, _ = env.step(actions)
            R[t], D[t] = rewards, terminated
            ended = np.flatnonzero(terminated)
            interval_episodes += len(ended)
            interval_wins += int((rewards[ended] > 0).sum())
            interval_points += float(rewards[ended].sum())
        steps += args.horizon * args.envs
        G = returns_to_go(R, D)
        keep = ~np.isnan(G)
        if keep.sum() > 0:
            g = G[keep]
            adv = (g - g.mean()) / (g.std() + 1e-6)
            policy.update(Obs[keep], M[keep], Act[keep], adv.astype(np.float32))
        now = time.perf_counter()
        if now - last >= args.report and interval_episodes:
            minutes = (now - start) / 60
            rate = interval_wins / interval_episodes
            print(
                f"{minutes:>8.2f} {steps:>11,} {interval_episodes:>9,} {rate:>9.3f} "
                f"{interval_points / interval_episodes:>12.1f}",
                flush=True,
            )
            history.append((minutes, rate, interval_episodes))
            interval_wins = interval_episodes = 0
            interval_points = 0.0
            last = now
    if args.save:
        import simkit

        # the policy samples while it learns; saved, it plays its most likely legal action
        path = simkit.save_policy(
            args.save,
            [(policy.W, policy.b)],
            label="pg",
            rules=args.rules,
            notes={"trained_by": "examples/train_pg.py", "opponent": args.opponent, "minutes": args.minutes},
        )
        print(f"train_pg: policy in {path}; play it with --policies 'pg={path},{args.opponent}' --duplicate")
    if args.plot and history:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        minutes, rate, n = (np.array(x) for x in zip(*history))
        err = 1.96 * np.sqrt(rate * (1 - rate) / n)
        fig, ax = plt.subplots(figsize=(6, 3.5), constrained_layout=True)
        ax.errorbar(minutes, rate, yerr=err, marker="o", capsize=3)
        ax.set_xlabel("training time (minutes)")
        ax.set_ylabel("agent's win rate per hand")
        ax.set_ylim(0, 1)
        ax.set_title(f"{args.rules}: linear policy against {args.opponent} (95% intervals)")
        fig.savefig(args.plot, dpi=110)
        print(f"train_pg: plot in {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
