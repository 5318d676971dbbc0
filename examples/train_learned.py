"""Train the learned reference agent: behaviour cloning from ``value``'s decisions, then policy-gradient
fine-tuning on the vector environment against the field; numpy only, on a laptop.

1. **Data.** ``value`` plays itself (``simkit.simulate(..., decisions="observations")``) and
   :func:`simkit.analysis.decision_arrays` gives every decision's observation, legal mask and
   action (decisions with one legal action are left out: nothing to learn there).
2. **Behaviour cloning.** A multi-layer perceptron (``--hidden``, ReLU) over the standardised
   observation learns ``value``'s action by masked softmax cross-entropy (Adam, minibatches of
   512); a twentieth of the matches is held out, and each epoch reports the held-out accuracy.
3. **Fine-tuning.** The cloned network plays one seat of ``simkit.envs.VectorEnv`` against the
   field (``--field``: a group of tables per opponent) for ``--pg-updates`` updates, sampling its
   actions, and learns by REINFORCE on each hand's result (advantage: the hand's return minus the
   batch mean, over its standard deviation), with the cloning loss kept on ``value``'s decisions
   (``--anchor``) so that it does not drift from what it learned.
4. **Evaluation and choice.** The cloned and the fine-tuned networks each play ``greedy`` in
   duplicate on selection deals (``--select-matches``); the better one is saved
   (:func:`simkit.save_policy`, the standardisation folded into its first layer), then measured
   against ``greedy`` and ``value`` on other deals (``--eval-matches``, luck-corrected).

The training curve (held-out accuracy by epoch; result per hand against the field by minute)
goes to ``--curve`` (JSON), and ``--figure`` draws it. The same seed and settings train the same
network (the runs, the cloning and the fine-tuning are seeded; the fine-tuning runs a number of
updates, not a time).

Usage: ``python examples/train_learned.py [--rules douque] [--matches 2500] [--epochs 8]
[--hidden 256] [--pg-updates 2000] [--out agents/learned-douque.npz] [--work data/train_learned]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


class MaskedMLP:
    """A ReLU multi-layer perceptron scoring the actions, softmax over the legal ones, trained by
    Adam on a weighted log-likelihood: weight 1 is behaviour cloning, an advantage is REINFORCE."""

    def __init__(self, sizes, rng):
        self.W = [(rng.normal(size=(a, b)) * np.sqrt(2.0 / a)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
        self.b = [np.zeros(b, np.float32) for b in sizes[1:]]
        self._m = [np.zeros_like(p) for p in self.W + self.b]
        self._v = [np.zeros_like(p) for p in self.W + self.b]
        self._t = 0

    def _layers(self, x):
        acts = [x]
        for i, (W, b) in enumerate(zip(self.W, self.b)):
            x = x @ W + b
            if i < len(self.W) - 1:
                x = np.maximum(x, 0.0)
            acts.append(x)
        return acts

    @staticmethod
    def _softmax(scores, legal):
        z = np.where(legal, scores, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def probabilities(self, x, legal):
        return self._softmax(self._layers(x)[-1], legal)

    def best(self, x, legal):
        return np.where(legal, self._layers(x)[-1], -np.inf).argmax(axis=1)

    def sample(self, x, legal, rng):
        p = self.probabilities(x, legal)
        u = rng.random((len(p), 1))
        a = (p.cumsum(axis=1) < u).sum(axis=1)
        a = np.minimum(a, p.shape[1] - 1)
        bad = ~legal[np.arange(len(a)), a]  # rounding past the last legal action
        a[bad] = p[bad].argmax(axis=1)
        return a

    def update(self, x, legal, actions, weights, lr):
        """One Adam step descending ``-mean(weights * log p(actions))``; returns the cross-entropy."""
        acts = self._layers(x)
        p = self._softmax(acts[-1], legal)
        n = len(actions)
        g = p * weights[:, None]
        g[np.arange(n), actions] -= weights
        g /= n
        grads_w, grads_b = [None] * len(self.W), [None] * len(self.W)
        for i in range(len(self.W) - 1, -1, -1):
            grads_w[i] = acts[i].T @ g
            grads_b[i] = g.sum(axis=0)
            if i:
                g = (g @ self.W[i].T) * (acts[i] > 0)
        self._t += 1
        for k, (param, grad) in enumerate(zip(self.W + self.b, grads_w + grads_b)):
            self._m[k] = 0.9 * self._m[k] + 0.1 * grad
            self._v[k] = 0.999 * self._v[k] + 0.001 * grad * grad
            m_hat = self._m[k] / (1 - 0.9**self._t)
            v_hat = self._v[k] / (1 - 0.999**self._t)
            param -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        return float(-np.log(p[np.arange(n), actions] + 1e-12).mean())

    def copy(self):
        other = MaskedMLP.__new__(MaskedMLP)
        other.W, other.b = [w.copy() for w in self.W], [b.copy() for b in self.b]
        other._m, other._v, other._t = [m.copy() for m in self._m], [v.copy() for v in self._v], self._t
        return other

    def layers(self, mean, scale):
        """``[(W, b), ...]`` on the raw observation: the standardisation ``(x - mean) / scale``
        folded into the first layer."""
        W0 = self.W[0] / scale[:, None]
        b0 = self.b[0] - (mean / scale) @ self.W[0]
        return [(W0, b0)] + list(zip(self.W[1:], self.b[1:]))


def decisions_of_value(rules, matches, seed, work: Path):
    """Every decision of ``value`` against itself with more than one legal action:
    ``(observations, legal, actions, match)``."""
    import simkit
    from simkit.analysis import decision_arrays

    run = work / f"value-{rules}-{matches}-{seed}"
    # a run played before is reused, an interrupted one finished
    settings = dict(rules=rules, policies=("value", "value"), matches=matches, seed=seed, decisions="observations")
    simkit.simulate(run, resume=run.exists(), **settings)
    d = decision_arrays(run)
    keep = d["legal"].sum(axis=1) > 1
    return d["observation"][keep], d["legal"][keep].astype(bool), d["action"][keep], d["match"][keep]


def behaviour_cloning(X, L, A, match, hidden, epochs, lr, rng, curve):
    held = match % 20 == 0  # a twentieth of the matches, for the held-out accuracy
    mean = X[~held].mean(axis=0)
    scale = X[~held].std(axis=0)
    scale[scale < 1e-6] = 1.0
    Z = ((X - mean) / scale).astype(np.float32)
    net = MaskedMLP([X.shape[1], *hidden, L.shape[1]], rng)
    train = np.flatnonzero(~held)
    t0 = time.perf_counter()
    print(f"behaviour cloning: {len(train):,} decisions, {int(held.sum()):,} held out, network {[X.shape[1], *hidden]}")
    for epoch in range(epochs):
        rng.shuffle(train)
        step_lr = lr if epoch < epochs - 2 else lr / 3 if epoch == epochs - 2 else lr / 10
        losses = [
            net.update(Z[b], L[b], A[b], np.ones(len(b), np.float32), step_lr)
            for b in (train[i : i + 512] for i in range(0, len(train), 512))
        ]
        accuracy = float((net.best(Z[held], L[held]) == A[held]).mean())
        curve["cloning"].append({"epoch": epoch + 1, "loss": float(np.mean(losses)), "held_out_accuracy": accuracy})
        print(f"  epoch {epoch + 1}: loss {np.mean(losses):.3f}, held-out accuracy {accuracy:.3f}, "
              f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
    return net, mean, scale, (Z[~held], L[~held], A[~held])


def returns_to_go(rewards, terminated):
    """Per step, the rewards from that step to its episode's end within the horizon; NaN for a step
    whose episode did not end in it."""
    out = np.full(rewards.shape, np.nan)
    running = np.full(rewards.shape[1], np.nan)
    for t in range(len(rewards) - 1, -1, -1):
        running = np.where(terminated[t], rewards[t], running + rewards[t])
        out[t] = running
    return out


def fine_tune(net, mean, scale, anchor_data, rules, field, updates, envs, horizon, lr, anchor, seed, rng, curve):
    """``updates`` steps of REINFORCE against the field on ``VectorEnv`` tables (``len(field)``
    groups of tables, one opponent each), with the cloning loss on ``anchor_data`` weighted by
    ``anchor``. A number of updates, not a time, so that the same seed trains the same network."""
    import simkit.envs as E

    groups = [E.VectorEnv(rules, envs // len(field), opponent=o, seed=seed + i) for i, o in enumerate(field)]
    obs = [g.reset(seed=seed + i)[0] for i, g in enumerate(groups)]
    ZA, LA, AA = anchor_data
    t0 = time.perf_counter()
    results, hands = 0.0, 0
    print(f"fine-tuning against {', '.join(field)}: {envs} tables, {updates:,} updates of {horizon} steps")
    for update in range(1, updates + 1):
        batch = []
        for g, gi in zip(groups, range(len(groups))):
            Z = np.empty((horizon, g.num_envs, ZA.shape[1]), np.float32)
            Lm = np.empty((horizon, g.num_envs, LA.shape[1]), bool)
            Ac = np.empty((horizon, g.num_envs), np.int64)
            R = np.empty((horizon, g.num_envs))
            D = np.empty((horizon, g.num_envs), bool)
            for t in range(horizon):
                Z[t] = (obs[gi]["observation"] - mean) / scale
                Lm[t] = obs[gi]["action_mask"] > 0
                Ac[t] = net.sample(Z[t], Lm[t], rng)
                obs[gi], R[t], D[t], _, _ = g.step(Ac[t])
                results += float(R[t][D[t]].sum())
                hands += int(D[t].sum())
            G = returns_to_go(R, D)
            keep = ~np.isnan(G)
            batch.append((Z[keep], Lm[keep], Ac[keep], G[keep]))
        Z, Lm, Ac, G = (np.concatenate(parts) for parts in zip(*batch))
        if len(G):
            adv = ((G - G.mean()) / (G.std() + 1e-6)).astype(np.float32)
            net.update(Z, Lm, Ac, adv, lr)
            if anchor > 0:
                b = rng.integers(0, len(AA), 512)
                net.update(ZA[b], LA[b], AA[b], np.full(512, anchor, np.float32), lr)
        if update % max(updates // 10, 1) == 0 or update == updates:
            per_hand = results / max(hands, 1)
            minutes = (time.perf_counter() - t0) / 60
            curve["fine_tuning"].append(
                {"update": update, "minutes": minutes, "hands": hands, "result_per_hand": per_hand}
            )
            print(
                f"  update {update:,} ({minutes:.1f} min): {hands:,} hands, {per_hand:+.1f} per hand against the field"
            )
            results, hands = 0.0, 0
    return net


def duplicate_against(agent_path, label, opponent, rules, matches, seed, work: Path):
    """``agent - opponent`` per hand in duplicate, luck-corrected: (mean, low, high). The run is
    named by the agent file's SHA-256, so a run of the same file is reused and another file's kept."""
    import simkit
    from simkit.analysis import compare

    agent = simkit.load_policy(agent_path, label)
    run = work / f"{label}-{agent.source.sha256[:12]}-vs-{opponent}-{matches}-{seed}"
    settings = dict(rules=rules, policies=(agent, opponent), matches=matches, seed=seed, duplicate=True)
    simkit.simulate(run, resume=run.exists(), **settings)
    return tuple(float(x) for x in compare(run, correct_luck=True).difference)


def draw_curve(curve: dict, path) -> None:
    """The training curve: held-out accuracy by epoch of cloning, then the result per hand against
    the field by minute of fine-tuning, and the final results against greedy and value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
    epochs = [c["epoch"] for c in curve["cloning"]]
    left.plot(epochs, [c["held_out_accuracy"] for c in curve["cloning"]], marker="o")
    left.set_xlabel("epoch of behaviour cloning")
    left.set_ylabel("held-out accuracy (value's action)")
    left.set_title("cloning value")
    tuning = curve["fine_tuning"]
    if tuning:
        by = "update" if "update" in tuning[0] else "minutes"
        right.plot([c[by] for c in tuning], [c["result_per_hand"] for c in tuning], marker="o")
        right.axhline(0, color="grey", lw=0.8)
        right.set_xlabel("policy-gradient updates" if by == "update" else "minutes of policy gradient")
        right.set_ylabel("result per hand, sampling its actions")
        right.set_title("policy gradient against " + ", ".join(curve.get("field", [])))
    else:
        right.set_axis_off()
    lines = [
        f"learned ({curve['chosen']}) - {o}: {m:+.1f} [{lo:+.1f}, {hi:+.1f}]"
        for o, (m, lo, hi) in curve.get("results", {}).items()
    ]
    fig.suptitle(f"{curve.get('rules', '')}: " + "; ".join(lines) + " per hand (95%)", fontsize=9)
    fig.savefig(path, dpi=110)


#: the options that decide the network (the others say where its files go)
TRAINING_OPTIONS = (
    "rules", "matches", "hidden", "epochs", "lr", "pg_updates", "field", "envs", "horizon", "pg_lr", "anchor",
    "select_matches", "eval_matches", "seed",
)  # fmt: skip


def training_command(ap, args) -> str:
    """The command that trains this network again: the script with the options of
    :data:`TRAINING_OPTIONS` that differ from their defaults."""
    changed = [
        f"--{name.replace('_', '-')} {getattr(args, name)}"
        for name in TRAINING_OPTIONS
        if getattr(args, name) != ap.get_default(name)
    ]
    return " ".join(["python3 examples/train_learned.py", *changed])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="douque")
    ap.add_argument("--matches", type=int, default=3000, help="matches of value against itself to clone")
    ap.add_argument("--hidden", default="512", help="hidden layer widths, e.g. 512 or 256x128")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-3, help="behaviour cloning's learning rate")
    ap.add_argument("--pg-updates", type=int, default=2000, help="policy-gradient updates (0: none)")
    ap.add_argument("--field", default="greedy,value", help="the fine-tuning opponents")
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--horizon", type=int, default=32)
    ap.add_argument("--pg-lr", type=float, default=1e-4)
    ap.add_argument("--anchor", type=float, default=1.0, help="weight of the cloning loss while fine-tuning")
    ap.add_argument("--select-matches", type=int, default=500)
    ap.add_argument("--eval-matches", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="the policy file (default agents/learned-RULES.npz)")
    ap.add_argument("--work", default="data/train_learned", help="the runs it plays go here")
    ap.add_argument("--curve", default=None, help="write the training curve and the results as JSON here")
    ap.add_argument("--figure", default=None, help="draw the training curve to this PNG")
    ap.add_argument("--draw", default=None, help="only draw --figure from a --curve JSON written before")
    args = ap.parse_args(argv)
    if args.draw:
        draw_curve(json.loads(Path(args.draw).read_text()), args.figure or "learned.png")
        return 0

    import simkit

    rng = np.random.default_rng(args.seed)
    work = Path(args.work)
    out = Path(args.out or f"agents/learned-{args.rules}.npz")
    hidden = [int(h) for h in args.hidden.split("x")]
    curve = {"rules": args.rules, "cloning": [], "fine_tuning": [], "field": args.field.split(",")}
    started = time.perf_counter()

    X, L, A, match = decisions_of_value(args.rules, args.matches, args.seed, work)
    net, mean, scale, anchor_data = behaviour_cloning(X, L, A, match, hidden, args.epochs, args.lr, rng, curve)
    candidates = {"cloned": net.copy()}
    if args.pg_updates > 0:
        field = [f.strip() for f in args.field.split(",")]
        candidates["fine_tuned"] = fine_tune(
            net, mean, scale, anchor_data, args.rules, field, args.pg_updates, args.envs, args.horizon,
            args.pg_lr, args.anchor, args.seed + 1, rng, curve,
        )  # fmt: skip

    notes = {"trained_by": training_command(ap, args)}
    paths, selection = {}, {}
    for name, candidate in candidates.items():
        paths[name] = simkit.save_policy(
            work / f"{name}.npz", candidate.layers(mean, scale), label=name, rules=args.rules, notes=notes
        )
        selection[name] = duplicate_against(
            paths[name], name, "greedy", args.rules, args.select_matches, args.seed + 100, work
        )
        print(f"selection: {name} - greedy {selection[name][0]:+.2f} per hand [{selection[name][1]:+.2f}, "
              f"{selection[name][2]:+.2f}]")  # fmt: skip
    chosen = max(selection, key=lambda k: selection[k][0])
    final = candidates[chosen]
    results = {}
    for opponent in ("greedy", "value"):
        results[opponent] = duplicate_against(
            paths[chosen], "learned", opponent, args.rules, args.eval_matches, args.seed + 200, work
        )
    notes.update(
        stage=chosen,
        **{f"vs_{o}": f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}] per hand" for o, (m, lo, hi) in results.items()},
    )
    simkit.save_policy(out, final.layers(mean, scale), label="learned", rules=args.rules, notes=notes)
    for opponent, (m, lo, hi) in results.items():
        print(f"learned ({chosen}) - {opponent}: {m:+.2f} per hand [{lo:+.2f}, {hi:+.2f}], "
              f"{args.eval_matches:,} duplicate matches, luck-corrected")  # fmt: skip
    print(f"saved {out} ({(time.perf_counter() - started) / 60:.1f} minutes in all)")
    curve.update(chosen=chosen, selection=selection, results=results)
    if args.curve:
        Path(args.curve).write_text(json.dumps(curve, indent=1) + "\n")
    if args.figure:
        draw_curve(curve, args.figure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
