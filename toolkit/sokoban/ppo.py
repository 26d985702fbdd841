"""PPO for the recurrent agent, from the official V-trace run's values (unroll 20, entropy 1e-2, Adam eps 1e-4 for a
summed loss) with CPU-scale departures (lr, gamma/lambda, below, each with its measured reason), clip 0.2, the
recurrent state stored at each unroll's start, a difficulty curriculum (levels of at most 3 optimal moves first,
widened as they get solved) and a 1 -> 2 box curriculum (2-box levels join once 1-box episodes are solved often).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from toolkit.core import console
from toolkit.core.errors import InputError
from toolkit.sokoban.drc import AgentConfig, DRCAgent, load_agent, saved_moments
from toolkit.sokoban.env import CAP, BatchEnv
from toolkit.sokoban.levels import Level


@dataclass
class PPOConfig:
    envs: int = 64
    unroll: int = 20
    # official 0.97 / 0.97; on the 4x4 one-push task 100 updates reached greedy 0.47 with 0.9 / 0.9 vs 0.28 with 0.97
    gamma: float = 0.9
    lam: float = 0.9
    # official 4e-4 (for 250M frames); at ~1M CPU frames 2e-3 (with gamma 0.9 and the curriculum; 1e-3 and 0.97: 0%)
    # gave the first greedy solves on 6x6 within 4 minutes (4.7% on 6+ move val levels)
    lr: float = 2e-3
    adam_eps: float = 1e-4
    entropy: float = 1e-2
    value_coef: float = 0.5
    clip: float = 0.2
    epochs: int = 2
    minibatches: int = 4  # 4 x 2 = 8 optimizer steps per unroll batch, at the compute of 2 x 2
    max_grad_norm: float = 2.5
    # returns reach ~11 (+10 solve bonus); unscaled, the value loss dominates the clipped gradient norm and
    # starves the policy update, so the learner sees rewards x0.1 (the env's rewards are unchanged)
    reward_scale: float = 0.1
    # with raw advantages (|A| ~ 0.03 at rewards x0.1) the entropy bonus is as large as the policy signal; with the
    # curriculum every batch holds solved episodes, so per-minibatch normalization no longer amplifies pure noise
    # (4-minute 6x6 pilots: greedy 5.3% normalized vs 4.7% raw, on 300 val levels)
    normalize_advantages: bool = True
    # lr falling linearly to 0 over the budget (the official run's schedule, over its 250M steps): off from scratch,
    # where a 4-minute 6x6 pilot with it reached greedy 1.0% vs 5.3% without; for a competent agent's last chunk
    anneal_lr: bool = False
    cap: int = CAP  # episode step cap while training (evaluation keeps the env's 120)
    curriculum_switch: float = 0.6  # 1-box solve rate (recent episodes) at which 2-box levels join
    # difficulty curriculum (when the levels' optimal move counts are given): the pool starts with levels of at most
    # `start_moves` moves and widens by `widen_by` each time the recent sampled solve rate reaches `widen_at`
    start_moves: int = 3
    widen_by: int = 2
    widen_at: float = 0.6
    bootstrap_truncation: bool = True  # a truncated episode is not a failure: bootstrap from the value
    log_every: int = 20


@dataclass
class TrainResult:
    agent: DRCAgent
    log: dict = field(default_factory=dict)
    moments: dict = field(default_factory=dict)  # Adam's state per parameter, for the next chunk (adam_moments)


def adam_moments(opt: torch.optim.Adam, agent: DRCAgent) -> dict[str, torch.Tensor]:
    """Adam's step count and first and second moments per named parameter. bfloat16 keeps the file at half the
    float32 size with float32's range (squared gradients of ~1e-10 underflow float16)."""
    names = {id(p): n for n, p in agent.named_parameters()}
    out = {}
    for group in opt.param_groups:
        for p in group["params"]:
            st = opt.state.get(p)
            if st:
                n = names[id(p)]
                out[f"exp_avg.{n}"] = st["exp_avg"].detach().to(torch.bfloat16)
                out[f"exp_avg_sq.{n}"] = st["exp_avg_sq"].detach().to(torch.bfloat16)
                out[f"step.{n}"] = torch.tensor([float(st["step"])])
    return out


def restore_moments(opt: torch.optim.Adam, agent: DRCAgent, moments: dict[str, torch.Tensor]) -> None:
    """Put saved moments back, so a continued chunk takes the steps the uninterrupted run would have taken (Adam's
    first steps from fresh moments are lr-sized for every weight, whatever its gradient history)."""
    for n, p in agent.named_parameters():
        if f"step.{n}" in moments:
            opt.state[p] = {"step": torch.tensor(float(moments[f"step.{n}"][0])),
                            "exp_avg": moments[f"exp_avg.{n}"].float().clone(),
                            "exp_avg_sq": moments[f"exp_avg_sq.{n}"].float().clone()}


def _curriculum_weights(levels: list[Level], two_share: float, moves: np.ndarray | None = None,
                        limit: float = np.inf) -> np.ndarray:
    boxes = np.array([lv.n_boxes for lv in levels])
    w = np.ones(len(levels))
    if (boxes > 1).any() and (boxes <= 1).any():
        w = np.where(boxes <= 1, 1.0 - two_share, two_share)
    if moves is not None:
        easy = moves <= limit
        for k in np.unique(boxes):  # each box count keeps at least its easiest levels
            group = boxes == k
            if not (easy & group).any():
                easy |= group & (moves == moves[group].min())
        w = w * easy
    return w / w.sum()


def train(levels: list[Level], cfg: AgentConfig, ppo: PPOConfig, seconds: float, seed: int,
          max_updates: int | None = None, moves: list[int] | None = None, init: DRCAgent | None = None,
          curriculum: dict | None = None, checkpoint: Callable[[DRCAgent, dict, dict], None] | None = None,
          checkpoint_seconds: float = 600.0, moments: dict | None = None) -> TrainResult:
    """PPO for `seconds` (or `max_updates`); `moves` (optimal moves per level) enables the difficulty curriculum.

    `init` continues from a trained agent, with Adam's `moments` of its run where given (else fresh);
    `curriculum` ({"two_box_share", "max_moves"}, where an earlier run ended) resumes both curricula there instead
    of restarting them from 1 box and 3 moves. `checkpoint(agent, log, moments)` is called every
    `checkpoint_seconds` with the log so far (marked "partial"), so that a long run stopped from outside keeps its
    last checkpoint.
    """
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    agent = DRCAgent(cfg)
    if init is not None:
        agent.load_state_dict(init.state_dict())
        agent.train()
    # the official eps applies to a loss summed over the batch; this loss is the batch mean, so the same Adam
    # steps need eps divided by the minibatch's sample count (with eps 1e-4 as is, median gradients of ~1e-5 made
    # the steps ~10x smaller than lr and the 20-minute agent stayed uniform)
    per_minibatch = ppo.unroll * max(1, ppo.envs // ppo.minibatches)
    opt = torch.optim.Adam(agent.parameters(), lr=ppo.lr, eps=ppo.adam_eps / per_minibatch)
    if moments:
        restore_moments(opt, agent, moments)
    env = BatchEnv(levels, ppo.envs, seed=seed, cap=ppo.cap)
    two_share = 0.0
    move_arr = None if moves is None else np.asarray(moves)
    limit = np.inf if move_arr is None else float(ppo.start_moves)
    if curriculum is not None:
        two_share = float(curriculum.get("two_box_share") or 0.0)
        if move_arr is not None and curriculum.get("max_moves") is not None:
            limit = float(curriculum["max_moves"])
    env.weights = _curriculum_weights(levels, two_share, move_arr, limit)
    since_change: list[float] = []
    state = agent.initial_state(ppo.envs)
    obs = torch.from_numpy(env.observe().copy())
    recent: dict[int, list[float]] = {1: [], 2: []}
    history, start, update, frames = [], time.time(), 0, 0
    last_checkpoint = start

    def log_so_far() -> dict:
        return {"updates": update, "frames": frames, "seconds": round(time.time() - start, 1), "history": history,
                "ppo": ppo.__dict__, "seed": seed,
                "curriculum_end": {"two_box_share": two_share,
                                   "max_moves": None if move_arr is None else min(limit, int(move_arr.max()))}}
    while time.time() - start < seconds and (max_updates is None or update < max_updates):
        state0 = state.clone()
        buf_obs, buf_act, buf_logp, buf_val, buf_rew, buf_done = [], [], [], [], [], []
        with torch.no_grad():
            for _ in range(ppo.unroll):
                logits, value, state = agent(obs, state)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
                counts = env.pool[2][env.level_index].reshape(ppo.envs, -1).sum(1)
                rew, term, trunc = env.step(action.numpy())
                done = term | trunc
                for b in np.flatnonzero(done):
                    recent[min(int(counts[b]), 2)].append(float(term[b]))
                    since_change.append(float(term[b]))
                buf_obs.append(obs)
                buf_act.append(action)
                buf_logp.append(dist.log_prob(action))
                buf_val.append(value)
                r = torch.from_numpy(rew).float() * ppo.reward_scale
                if ppo.bootstrap_truncation:  # the cut-off future is worth about what this state is worth
                    r = r + ppo.gamma * value * torch.from_numpy(trunc & ~term).float()
                buf_rew.append(r)
                buf_done.append(torch.from_numpy(done))
                obs = torch.from_numpy(env.observe().copy())
                state = state * torch.from_numpy(~done).float().view(-1, 1, 1, 1, 1, 1)
            _, last_value, _ = agent(obs, state)
        frames += ppo.unroll * ppo.envs
        rewards, dones, values = torch.stack(buf_rew), torch.stack(buf_done).float(), torch.stack(buf_val)
        adv = torch.zeros_like(rewards)
        gae = torch.zeros(ppo.envs)
        for t in reversed(range(ppo.unroll)):
            nxt = last_value if t == ppo.unroll - 1 else values[t + 1]
            delta = rewards[t] + ppo.gamma * nxt * (1 - dones[t]) - values[t]
            gae = delta + ppo.gamma * ppo.lam * (1 - dones[t]) * gae
            adv[t] = gae
        returns = adv + values
        obs_t, act_t, logp_t = torch.stack(buf_obs), torch.stack(buf_act), torch.stack(buf_logp)
        for _ in range(ppo.epochs):
            # fewer environments than minibatches: one environment each (an empty minibatch has no loss)
            for idx in np.array_split(rng.permutation(ppo.envs), min(ppo.minibatches, ppo.envs)):
                idx_t = torch.from_numpy(idx)
                s = state0[idx_t]
                logits_all, values_all = [], []
                for t in range(ppo.unroll):
                    lg, v, s = agent(obs_t[t, idx_t], s)
                    logits_all.append(lg)
                    values_all.append(v)
                    s = s * (1 - dones[t, idx_t]).view(-1, 1, 1, 1, 1, 1)
                dist = torch.distributions.Categorical(logits=torch.stack(logits_all))
                logp = dist.log_prob(act_t[:, idx_t])
                a = adv[:, idx_t]
                if ppo.normalize_advantages:
                    a = (a - a.mean()) / (a.std() + 1e-8)
                ratio = torch.exp(logp - logp_t[:, idx_t])
                pg = -torch.min(ratio * a, ratio.clamp(1 - ppo.clip, 1 + ppo.clip) * a).mean()
                vloss = 0.5 * (torch.stack(values_all) - returns[:, idx_t]).pow(2).mean()
                loss = pg + ppo.value_coef * vloss - ppo.entropy * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(agent.parameters(), ppo.max_grad_norm)
                opt.step()
        update += 1
        if ppo.anneal_lr:
            done_share = (time.time() - start) / seconds
            if max_updates is not None:
                done_share = max(done_share, update / max_updates)
            for group in opt.param_groups:
                group["lr"] = ppo.lr * max(0.0, 1.0 - done_share)
        one = recent[1][-200:]
        changed = False
        if two_share == 0.0 and len(one) >= 100 and np.mean(one) >= ppo.curriculum_switch:
            two_share, changed = 0.5, True
        if move_arr is not None and limit < move_arr.max() and len(since_change) >= 200 \
                and np.mean(since_change[-200:]) >= ppo.widen_at:
            limit, changed = limit + ppo.widen_by, True
        if changed:
            env.weights = _curriculum_weights(levels, two_share, move_arr, limit)
            since_change = []
        if update % ppo.log_every == 0:
            two = recent[2][-200:]
            row = {"update": update, "frames": frames, "seconds": round(time.time() - start, 1),
                   "solve_1box": round(float(np.mean(one)), 3) if one else None,
                   "solve_2box": round(float(np.mean(two)), 3) if two else None, "two_box_share": two_share,
                   "max_moves": None if move_arr is None else min(limit, int(move_arr.max())),
                   "lr": opt.param_groups[0]["lr"]}
            history.append(row)
            console.info(f"update {update} frames {frames} 1-box {row['solve_1box']} 2-box {row['solve_2box']} "
                         f"max moves {row['max_moves']}")
        if checkpoint is not None and time.time() - last_checkpoint >= checkpoint_seconds:
            checkpoint(agent, {**log_so_far(), "partial": True}, adam_moments(opt, agent))
            last_checkpoint = time.time()
    agent.eval()
    return TrainResult(agent, log_so_far(), adam_moments(opt, agent))


def continue_from(path: Path, cfg: AgentConfig, relu_given: bool = True) -> tuple[DRCAgent, dict, dict | None]:
    """The agent to continue training, its training log and its run's Adam moments (None: none saved, or saved for
    other weights); its shape (and encoder ReLU, where asked for) must be the one asked for."""
    agent = load_agent(path)
    if relu_given and agent.cfg.encoder_relu != cfg.encoder_relu:
        raise InputError(f"--init {path}: agent has encoder_relu={agent.cfg.encoder_relu}, the options ask for "
                         f"{cfg.encoder_relu}")
    have = (agent.cfg.arch, agent.cfg.depth, agent.cfg.ticks, agent.cfg.channels, tuple(agent.cfg.grid),
            agent.cfg.hidden)
    want = (cfg.arch, cfg.depth, cfg.ticks, cfg.channels, tuple(cfg.grid), cfg.hidden)
    if have != want:
        raise InputError(f"--init {path}: agent is (arch, depth, ticks, channels, grid, hidden) {have}, the "
                         f"options ask for {want}")
    log_file = Path(path) / "train_log.json"
    try:
        earlier = json.loads(log_file.read_text()) if log_file.is_file() else {}
    except json.JSONDecodeError as exc:
        raise InputError(f"{log_file}: not JSON ({exc})") from None
    return agent, earlier, saved_moments(Path(path), agent)


def curriculum_end(log: dict) -> dict:
    """Where an earlier run's curricula stood at its end (older logs: their last history row)."""
    if "curriculum_end" in log:
        return log["curriculum_end"]
    last = (log.get("history") or [{}])[-1]
    return {"two_box_share": last.get("two_box_share", 0.0), "max_moves": last.get("max_moves")}
