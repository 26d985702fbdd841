"""Evaluation methods behind `play` and `ticks`: the random-policy rollout, solve rates per thinking steps k with
the paired McNemar test against k = 0, and plan F1 per step, tick and layer from cell-state probes."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from toolkit.sokoban.levels import Level
from toolkit.sokoban.rollout import Episode, rollout
from toolkit.sokoban.stats import discordant, mcnemar


def random_rollout(levels: list[Level], seed: int, cap: int) -> list[Episode]:
    """Uniformly random moves (no no-op) until solved or capped."""
    from toolkit.sokoban.env import BatchEnv

    rng = np.random.default_rng(seed)
    env = BatchEnv(levels, len(levels), sample=False, cap=cap)
    eps = [Episode(lv.id) for lv in levels]
    done = np.zeros(len(levels), bool)
    while not done.all():
        _, term, trunc = env.step(rng.integers(1, 5, len(levels)), auto_reset=False)
        for b in np.flatnonzero(~done):
            eps[b].steps += 1
            if term[b] or trunc[b]:
                eps[b].solved, done[b] = bool(term[b]), True
    return eps


def solve_rates(agent, levels: list[Level], ks: list[int], mode: str, cap: int, seed: int
                ) -> Iterator[tuple[int, list[Episode], dict]]:
    """Per k: (k, episodes, solve-rate row); the McNemar p is against k = 0, run (and not reported) when k = 0 is
    not among ks, with its discordant counts (levels solved at k only, at k = 0 only), so that sets can be pooled.
    agent None: the random policy (the same episodes for every k)."""
    def run(k):
        return random_rollout(levels, seed, cap) if agent is None else rollout(agent, levels, k, mode, cap)

    results = {k: run(k) for k in ks}
    base = [e.solved for e in (results[0] if 0 in results else run(0))]
    for k in ks:
        solved = [e.solved for e in results[k]]
        by_boxes = {}
        for nb in sorted({level.n_boxes for level in levels}):
            sel = [s for s, level in zip(solved, levels, strict=True) if level.n_boxes == nb]
            by_boxes[str(nb)] = round(sum(sel) / len(sel), 4)
        only_k0, only_k = discordant(base, solved)
        yield k, results[k], {"think": k, "mode": mode, "n": len(solved), "solved": sum(solved),
                              "rate": round(sum(solved) / len(solved), 4), "by_boxes": by_boxes,
                              "mcnemar_p_vs_k0": mcnemar(base, solved), "only_k": only_k, "only_k0": only_k0}


def plan_f1(agent, eps: list[Episode], table: dict, think: int, kernel: int, where: str) -> Iterator[dict]:
    """Plan F1 of the cell-state probes at every tick of the first 1+think steps, against the episode's labels."""
    from toolkit.core.errors import InputError
    from toolkit.sokoban.concepts import labels
    from toolkit.sokoban.probes import features, predict, probe_key, score

    for concept in ("CA", "CB"):
        lab = [labels(e.players, e.actions, e.pushes, agent.cfg.grid, concept) for e in eps]
        for step in range(think + 1):
            rows = [i for i, e in enumerate(eps) if e.steps > step]
            if not rows:
                continue
            y = np.concatenate([lab[i][step].reshape(-1) for i in rows])
            for tick in range(agent.cfg.ticks):
                for layer in range(agent.cfg.depth):
                    key = probe_key(concept, "cell", layer, kernel)
                    if key not in table:
                        raise InputError(f"{where}: no probe '{key}'")
                    grid = np.stack([eps[i].states[step][tick, 0, layer] for i in rows]).astype(np.float32)
                    res = score(y, predict(*table[key], features(grid, kernel)))
                    yield {"concept": concept, "step": step, "tick": tick, "layer": layer, "kernel": kernel,
                           "think": think, "n": len(rows), "macro_f1": res["macro_f1"]}


def bidirectionality(agent, eps: list[Episode], table: dict, think: int, kernel: int) -> Iterator[dict]:
    """The bidirectionality index of the top layer's CB probe over the ticks of the thinking steps (no-op steps
    keep the labels of step 0, so every tick of them is compared to those)."""
    from toolkit.sokoban.bidirectional import index
    from toolkit.sokoban.concepts import labels
    from toolkit.sokoban.probes import features, predict, probe_key

    keep = [i for i, e in enumerate(eps) if e.steps > think]
    top, key = agent.cfg.depth - 1, probe_key("CB", "cell", agent.cfg.depth - 1, kernel)
    preds = np.stack([np.stack([predict(*table[key], features(
        eps[i].states[s][t, 0, top][None].astype(np.float32), kernel)).reshape(agent.cfg.grid)
        for i in keep]) for s in range(think + 1) for t in range(agent.cfg.ticks)])
    lab0 = np.stack([labels(eps[i].players, eps[i].actions, eps[i].pushes, agent.cfg.grid, "CB")[0] for i in keep])
    obs0 = np.stack([np.asarray(eps[i].obs[0]) for i in keep])
    for row in index(preds, lab0, obs0):
        yield {"layer": top, "kernel": kernel, **row}
