"""A finite-precision SSM is a finite automaton: train a one-layer selective SSM whose state is quantized to
p bits after every step on a^n b^n membership, enumerate its reachable (quantized state, conv window) pairs,
build the DFA they form, minimise it (automata-lib), and watch accuracy collapse once n exceeds what the
finitely many states can count.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from toolkit.core.models import load_torch_state
from toolkit.ssm_limits.selective import FakeQuant, SelectiveMixer

TOKENS = {"<s>": 0, "a": 1, "b": 2}
WEIGHTS = "automaton.pt"


class StepSSM(nn.Module):
    """One selective mixer run step by step, with the recurrent state fake-quantized after every step."""

    def __init__(self, hidden: int = 16, state: int = 2, channels: int = 4, bits: int = 4):
        super().__init__()
        self.embed = nn.Embedding(len(TOKENS), hidden)
        self.mixer = SelectiveMixer(hidden, state, channels)
        self.quant = FakeQuant(channels, bits)
        self.head = nn.Linear(hidden, 1)
        self.config = {"hidden": hidden, "state": state, "channels": channels, "bits": bits}

    def step(self, token: torch.Tensor, h: torch.Tensor, window: torch.Tensor):
        """token (B,), h (B, D, N), window (B, D, k-1) of past conv inputs -> (logit, h, window)."""
        m = self.mixer
        e = self.embed(token)
        xs, z = m.in_proj(e).chunk(2, dim=-1)
        full = torch.cat([window, xs.unsqueeze(-1)], dim=-1)  # (B, D, k)
        conv = (full * m.conv1d.weight.squeeze(1)).sum(-1) + m.conv1d.bias
        u = F.silu(conv)
        dt, b, c = torch.split(m.x_proj(u), [m.dt_rank, m.state, m.state], dim=-1)
        dt = F.softplus(m.dt_proj(dt))
        a = -torch.exp(m.A_log)
        h = self.quant(torch.exp(dt.unsqueeze(-1) * a) * h + dt.unsqueeze(-1) * b.unsqueeze(1) * u.unsqueeze(-1))
        y = (h * c.unsqueeze(1)).sum(-1) + m.D * u
        out = e + m.out_proj(y * F.silu(z))
        return self.head(out).squeeze(-1), h, full[..., 1:]

    def initial(self, batch: int):
        m = self.mixer
        return torch.zeros(batch, m.channels, m.state), torch.zeros(batch, m.channels, m.kernel - 1)

    def run(self, tokens: torch.Tensor) -> torch.Tensor:
        h, w = self.initial(tokens.shape[0])
        logits = []
        for t in range(tokens.shape[1]):
            logit, h, w = self.step(tokens[:, t], h, w)
            logits.append(logit)
        return torch.stack(logits, dim=1)


def in_language(s: str) -> bool:
    n = len(s) // 2
    return n >= 1 and s == "a" * n + "b" * n


def sample_string(rng: random.Random, max_n: int) -> str:
    n = rng.randint(1, max_n)
    kind = rng.random()
    if kind < 0.6:
        return "a" * n + "b" * max(0, n + rng.choice([0, 0, 0, -1, 1, 2]))
    if kind < 0.8:
        return "a" * n + "b" * rng.randint(0, max_n + 1)
    return "".join(rng.choice("ab") for _ in range(rng.randint(1, 2 * max_n)))


def encode(strings: list[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    width = max(len(s) for s in strings) + 1
    ids = torch.zeros(len(strings), width, dtype=torch.long)
    labels = torch.zeros(len(strings), width)
    mask = torch.zeros(len(strings), width)
    for i, s in enumerate(strings):
        ids[i, 1: len(s) + 1] = torch.tensor([TOKENS[c] for c in s])
        for t in range(len(s) + 1):
            labels[i, t] = float(in_language(s[:t]))
            mask[i, t] = 1.0
    return ids, labels, mask


def train(out: Path, bits: int, seconds: float, max_n: int, seed: int) -> StepSSM:
    torch.manual_seed(seed)
    rng = random.Random(seed)
    model = StepSSM(bits=bits)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3)
    start, steps = time.time(), 0
    model.train()
    while time.time() - start < seconds:
        ids, labels, mask = encode([sample_string(rng, max_n) for _ in range(64)])
        # positives are rare: weight them up so "always reject" is not a cheap optimum
        weight = mask * (1 + 4 * labels)
        bce = F.binary_cross_entropy_with_logits(model.run(ids), labels, reduction="none")
        loss = (bce * weight).sum() / weight.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
    out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out / WEIGHTS)
    (out / "automaton.json").write_text(json.dumps({**model.config, "max_n": max_n, "seconds": seconds,
                                                    "steps": steps, "seed": seed}, indent=1) + "\n")
    return model.eval()


def load(model_dir: Path) -> tuple[StepSSM, dict]:
    from toolkit.core.errors import InputError

    meta_path = model_dir / "automaton.json"
    if not meta_path.exists():
        raise InputError(f"{model_dir}: no automaton.json (train one with --train-seconds)")
    meta = json.loads(meta_path.read_text())
    model = StepSSM(meta["hidden"], meta["state"], meta["channels"], meta["bits"])
    model.load_state_dict(load_torch_state(model_dir / WEIGHTS, weights_only=True))
    return model.eval(), meta


def build_dfa(model: StepSSM, cap: int = 100_000):
    """BFS over reachable (quantized state, conv window) pairs; returns automata-lib DFA and its minimisation."""
    from automata.fa.dfa import DFA

    def key(h, w):  # one hashable key per row: the quantized state's levels and the conv window
        levels = torch.round((h / model.quant.scale.view(1, -1, 1)) * 1e4).to(torch.int64).flatten(1).tolist()
        window = torch.round(w * 1e5).to(torch.int64).flatten(1).tolist()
        return [(tuple(x), tuple(y)) for x, y in zip(levels, window, strict=True)]

    with torch.no_grad():
        h, w = model.initial(1)
        logit, h, w = model.step(torch.tensor([TOKENS["<s>"]]), h, w)
        start = key(h, w)[0]
        states = {start: (h[0], w[0], bool(logit.item() > 0))}
        order, transitions, frontier = [start], {}, [start]
        while frontier and len(states) < cap:
            hs = torch.stack([states[k][0] for k in frontier])
            ws = torch.stack([states[k][1] for k in frontier])
            nxt = []
            for sym in "ab":  # the whole frontier in one batch per symbol
                logit, h2, w2 = model.step(torch.full((len(frontier),), TOKENS[sym]), hs, ws)
                for i, k in enumerate(key(h2, w2)):
                    transitions.setdefault(frontier[i], {})[sym] = k
                    if k not in states:
                        states[k] = (h2[i], w2[i], bool(logit[i].item() > 0))
                        order.append(k)
                        nxt.append(k)
            frontier = nxt
    complete = not frontier
    names = {k: f"q{i}" for i, k in enumerate(order)}
    sink = "q_cap"
    delta = {names[s]: {sym: names[t] for sym, t in tr.items()} for s, tr in transitions.items()}
    for s in order:  # states at the cap have no expansion: send them to a rejecting sink
        delta.setdefault(names[s], {"a": sink, "b": sink})
    delta[sink] = {"a": sink, "b": sink}
    dfa = DFA(states=set(delta), input_symbols={"a", "b"}, transitions=delta, initial_state=names[start],
              final_states={names[k] for k, v in states.items() if v[2]}, allow_partial=False)
    return dfa, dfa.minify(), complete, len(states)


def analyse(model_dir: Path, bits: int, seconds: float, max_n: int, test_n: int, seed: int) -> dict:
    from toolkit.core.records import make_record

    if (model_dir / "automaton.json").exists():
        model, meta = load(model_dir)
    else:
        model = train(model_dir, bits, seconds, max_n, seed)
        meta = json.loads((model_dir / "automaton.json").read_text())
    dfa, minimal, complete, reachable = build_dfa(model)
    by_n, agree, total = [], 0, 0
    with torch.no_grad():
        for n in range(1, test_n + 1):
            cases = ["a" * n + "b" * n, "a" * n + "b" * (n - 1), "a" * n + "b" * (n + 1), "a" * (n + 1) + "b" * n]
            ids, labels, _ = encode(cases)
            logits = model.run(ids)
            model_says = [bool(logits[i, len(s)] > 0) for i, s in enumerate(cases)]
            dfa_says = [dfa.accepts_input(s) for s in cases]
            agree += sum(x == y for x, y in zip(model_says, dfa_says, strict=True))
            total += len(cases)
            by_n.append({"n": n, "accuracy": sum(m == in_language(s) for m, s in zip(model_says, cases, strict=True))
                         / len(cases)})
    max_ok = 0
    for row in by_n:
        if row["accuracy"] < 1:
            break
        max_ok = row["n"]
    # dfa_agreement: the DFA replays the model exactly except where a logit sits at ~0 (float ties)
    return make_record("ssm.automaton", model=str(model_dir), bits=meta["bits"], trained_max_n=meta["max_n"],
                       train_steps=meta["steps"], reachable_states=reachable, enumeration_complete=complete,
                       minimal_states=len(minimal.states), dfa_agreement=round(agree / total, 4),
                       max_n_all_correct=max_ok, accuracy_by_n=by_n)
