"""The CLI end to end: gen | solve as a user pipes it, and every bad input as one error line with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from tests.conftest import ROOT
from toolkit.sokoban.drc import AgentConfig, DRCAgent, save_agent

LEVEL6 = "; b\n########\n#@$.   #\n#      #\n#      #\n#      #\n#      #\n#      #\n########\n\n"
LEVEL = "; a\n######\n#@$. #\n#    #\n#    #\n#    #\n######\n\n"  # 4x4 interior, one push


def _main(capsys, monkeypatch, *args: str):
    """The real entry point in-process (startup-free): (exit code, stdout, stderr)."""
    from cli.main import main

    monkeypatch.setattr(sys, "argv", ["reason", *args])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def agent_dir(tmp_path):
    torch.manual_seed(0)
    save_agent(DRCAgent(AgentConfig(depth=1, ticks=1, channels=4, grid=(6, 6), hidden=16)), tmp_path / "agent")
    return tmp_path / "agent"


def test_gen_pipe_solve(tmp_path):
    cmd = (f"{sys.executable} -m cli --seed 3 sokoban gen --size 5 --boxes 1 --n 3 --max-moves 20 --split test | "
           f"{sys.executable} -m cli sokoban solve - --algo astar")
    res = subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    sols = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(sols) == 3 and all(s["type"] == "sokoban.solution" and s["solved"] for s in sols)
    assert all(len(s["lurd"]) == s["moves"] and s["moves"] <= 20 for s in sols)


def test_play_grid_mismatch_names_both(tmp_path, capsys, monkeypatch, agent_dir):
    (tmp_path / "small.txt").write_text(LEVEL)
    code, out, err = _main(capsys, monkeypatch, "sokoban", "play", str(tmp_path / "small.txt"), "--agent",
                           str(agent_dir))
    assert code == 2 and out == "" and "4x4" in err and "6x6" in err and err.count("\n") == 1


def test_agent_dir_without_config(tmp_path, capsys, monkeypatch, agent_dir):
    (agent_dir / "config.json").unlink()
    (tmp_path / "l.txt").write_text(LEVEL)
    code, out, err = _main(capsys, monkeypatch, "sokoban", "play", str(tmp_path / "l.txt"), "--agent", str(agent_dir))
    assert code == 2 and "without config.json" in err


def test_agent_with_corrupted_weights(tmp_path, capsys, monkeypatch, agent_dir):
    (agent_dir / "model.safetensors").write_bytes(b"\xff" * 100)
    (tmp_path / "l.txt").write_text(LEVEL)
    code, out, err = _main(capsys, monkeypatch, "sokoban", "play", str(tmp_path / "l.txt"), "--agent", str(agent_dir))
    assert code == 2 and out == "" and "model.safetensors: corrupted" in err and err.count("\n") == 1, err


def test_agent_with_mismatched_shapes(capsys, monkeypatch, agent_dir, tmp_path):
    cfg = json.loads((agent_dir / "config.json").read_text())
    (agent_dir / "config.json").write_text(json.dumps({**cfg, "channels": 8}))
    (tmp_path / "l.txt").write_text(LEVEL)
    code, _, err = _main(capsys, monkeypatch, "sokoban", "play", str(tmp_path / "l.txt"), "--agent", str(agent_dir))
    assert code == 2 and "has shape" in err


@pytest.mark.parametrize("args, message", [
    (["play", "{levels}", "--think", "-1"], "--think"),
    (["probe", "--train", "{x}", "--test", "{x}", "--kernel", "2", "-o", "{p}"], "--kernel"),
    (["probe", "--train", "{x}", "--test", "{x}", "--concept", "CZ", "-o", "{p}"], "CZ"),
    (["intervene", "--cases", "{empty}", "--probes", "{x}", "--alphas", "1,x"], "alphas"),
    (["intervene", "--cases", "{empty}", "--probes", "{x}"], "no cases"),
])
def test_bad_options(tmp_path, capsys, monkeypatch, agent_dir, args, message):
    (tmp_path / "l.txt").write_text(LEVEL)
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "x.safetensors").write_bytes(b"")
    paths = {"levels": str(tmp_path / "l.txt"), "x": str(tmp_path / "x.safetensors"), "p": str(tmp_path / "p"),
             "empty": str(tmp_path / "empty.jsonl")}
    full = ["sokoban", *[a.format(**paths) for a in args]]
    if args[0] in ("play", "intervene"):
        full += ["--agent", str(agent_dir)]
    code, out, err = _main(capsys, monkeypatch, *full)
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "p").exists()


def test_probes_of_another_agent(tmp_path, capsys, monkeypatch, agent_dir):
    import numpy as np

    from toolkit.sokoban.probes import save_probes

    save_probes({"CA.cell.L0.k1": (np.zeros((5, 4), np.float32), np.zeros(5, np.float32))}, tmp_path / "p.safetensors",
                "0123456789abcdef", {})
    (tmp_path / "l.txt").write_text(LEVEL6)
    code, out, err = _main(capsys, monkeypatch, "sokoban", "ticks", str(tmp_path / "l.txt"), "--agent", str(agent_dir),
                           "--probes", str(tmp_path / "p.safetensors"))
    assert code == 2 and out == "" and "probes of another agent" in err


def test_train_init_continues_the_agent_and_refuses_another_shape(tmp_path, capsys, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    common = ["--size", "4", "--boxes", "1", "--envs", "4", "--levels", "20", "--max-moves", "8", "--channels", "4",
              "--arch", "1,1"]
    code, out, err = _main(capsys, monkeypatch, "--seed", "0", "sokoban", "train", "-o", str(first), *common,
                           "--minutes", "0.02")
    assert code == 0, err
    (rec,) = [json.loads(line) for line in out.splitlines()]
    code, out, err = _main(capsys, monkeypatch, "--seed", "2", "sokoban", "train", "-o", str(second), *common,
                           "--minutes", "0.02", "--init", str(first), "--min-moves", "2")
    assert code == 0, err
    log = json.loads((second / "train_log.json").read_text())
    before = json.loads((first / "train_log.json").read_text())
    # each log names its own level pool: the continuation ran on levels of >= 2 optimal moves
    assert before["level_spec"] == {"grid": [4, 4], "boxes": [1], "min_moves": 1, "max_moves": 8}
    assert log["level_spec"] == {**before["level_spec"], "min_moves": 2}
    cont = log["continued_from"]
    assert cont["dir"] == str(first) and cont["frames"] == rec["frames"] == before["frames"]
    assert cont["curriculum"] == before["curriculum_end"]
    assert log["total_frames"] == log["frames"] + before["frames"]
    # the continuation starts from the first agent's weights (a zero budget hands them back unchanged)
    from toolkit.sokoban.drc import load_agent
    from toolkit.sokoban.levels import parse_text
    from toolkit.sokoban.ppo import PPOConfig, train

    start = load_agent(first)
    same = train(parse_text(LEVEL, "a"), start.cfg, PPOConfig(envs=2), 0, seed=5, init=start).agent.state_dict()
    assert all(torch.equal(v, same[k]) for k, v in start.state_dict().items())
    code, out, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "third"),
                           *common[:-1], "2,1", "--minutes", "0.02", "--init", str(first))
    assert code == 2 and out == "" and "--init" in err and str(first) in err and err.count("\n") == 1


def test_train_writes_checkpoints_that_continue_and_a_final_log(tmp_path, capsys, monkeypatch):
    from toolkit.sokoban.drc import load_agent
    from toolkit.sokoban.levels import parse_text
    from toolkit.sokoban.ppo import PPOConfig, train

    seen = []

    def keep(agent, log, moments):  # what a run stopped after this update would leave behind
        save_agent(agent, tmp_path / "ckpt", log, moments=moments)
        seen.append((log["updates"], log["partial"], load_agent(tmp_path / "ckpt").fingerprint))

    cfg = AgentConfig(depth=1, ticks=1, channels=4, grid=(4, 4))
    result = train(parse_text(LEVEL, "a"), cfg, PPOConfig(envs=2, unroll=4), 600, seed=0, max_updates=3,
                   checkpoint=keep, checkpoint_seconds=0)
    assert [(u, p) for u, p, _ in seen] == [(1, True), (2, True), (3, True)]
    assert len({f for _, _, f in seen}) == 3  # each checkpoint holds that update's weights
    assert "partial" not in result.log and result.log["updates"] == 3
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir()) == ["config.json", "model.safetensors",
                                                                      "optimizer.safetensors", "train_log.json"]
    # the CLI writes the same directory at the end, without the partial mark; a checkpoint continues with --init
    out = tmp_path / "agent"
    common = ["--size", "4", "--boxes", "1", "--envs", "2", "--levels", "10", "--max-moves", "8", "--channels", "4",
              "--arch", "1,1", "--minutes", "0.01"]
    code, _, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(out), *common, "--checkpoint-minutes",
                         "0.0001")
    assert code == 0, err
    assert "partial" not in json.loads((out / "train_log.json").read_text())
    code, _, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "next"), *common,
                         "--init", str(tmp_path / "ckpt"), "--raw-encoder")
    assert code == 2 and "encoder_relu" in err
    save_agent(DRCAgent(AgentConfig(depth=1, ticks=1, channels=4, grid=(4, 4), hidden=16)), tmp_path / "narrow")
    code, _, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "next"), *common,
                         "--init", str(tmp_path / "narrow"))
    assert code == 2 and "hidden" in err and err.count("\n") == 1
    code, _, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "next"), *common,
                         "--init", str(tmp_path / "ckpt"))
    assert code == 0, err
    assert json.loads((tmp_path / "next" / "train_log.json").read_text())["continued_from"]["frames"] == 3 * 2 * 4


def test_train_on_a_level_file_uses_its_levels_and_moves(tmp_path, capsys, monkeypatch):
    """--levels-file: `gen --jsonl` records train with their own `moves` (the curriculum reads them: records claiming
    2 moves start it at 2, not the default 3), a Boxoban text file trains without the curriculum, and the log names
    the file and its levels' digest; generation options beside it, a grid mismatch and a bad record are one-line
    errors."""
    pool = tmp_path / "pool.jsonl"
    code, _, err = _main(capsys, monkeypatch, "--seed", "4", "sokoban", "gen", "--size", "4", "--boxes", "1", "--n",
                         "12", "--min-moves", "1", "--max-moves", "8", "--jsonl", "-o", str(pool))
    assert code == 0, err
    records = [json.loads(line) for line in pool.read_text().splitlines()]
    assert len(records) == 12 and all(isinstance(r["moves"], int) for r in records)
    pool.write_text("".join(json.dumps({**r, "moves": 2}) + "\n" for r in records))
    common = ["--size", "4", "--envs", "2", "--channels", "4", "--arch", "1,1", "--minutes", "0.01"]
    code, out, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "a"), *common,
                           "--levels-file", str(pool))
    assert code == 0, err
    log = json.loads((tmp_path / "a" / "train_log.json").read_text())
    assert log["levels"] == 12 and log["level_spec"]["file"] == str(pool) and log["level_spec"]["moves_known"]
    assert log["curriculum_end"]["max_moves"] == 2
    (tmp_path / "b.txt").write_text(LEVEL)
    code, _, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "b"), *common,
                         "--levels-file", str(tmp_path / "b.txt"))
    assert code == 0, err
    text_log = json.loads((tmp_path / "b" / "train_log.json").read_text())
    assert text_log["levels"] == 1 and not text_log["level_spec"]["moves_known"]
    assert text_log["curriculum_end"]["max_moves"] is None
    assert text_log["level_spec"]["sha256"] != log["level_spec"]["sha256"]
    for extra, named in ((["--boxes", "2"], "--boxes"), (["--size", "6"], "6x6")):
        code, out, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "c"), *common, *extra,
                               "--levels-file", str(pool))
        assert code == 2 and out == "" and named in err and err.count("\n") == 1, err
    pool.write_text(pool.read_text() + '{"type": "sokoban.level", "rows": [\n')
    code, out, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "c"), *common,
                           "--levels-file", str(pool))
    assert code == 2 and out == "" and f"{pool}:13" in err and err.count("\n") == 1, err
    assert not (tmp_path / "c").exists()


def test_restored_adam_moments_take_the_uninterrupted_step():
    """A chunk that continues with the saved moments steps as the uninterrupted optimizer would (bfloat16 storage:
    within 2%); fresh moments step every weight by about lr whatever its history, far from it."""
    from toolkit.sokoban.ppo import adam_moments, restore_moments

    torch.manual_seed(0)
    agent = DRCAgent(AgentConfig(depth=1, ticks=1, channels=4, grid=(4, 4), hidden=16))
    obs = torch.rand(8, 7, 4, 4)

    def grads(seed):
        torch.manual_seed(seed)
        agent.zero_grad()
        logits, value, _ = agent(obs * torch.rand(1), agent.initial_state(8))
        (logits.pow(2).mean() + value.mean()).backward()

    opt = torch.optim.Adam(agent.parameters(), lr=1e-3)
    for step in range(5):
        grads(step)
        opt.step()
    saved = adam_moments(opt, agent)
    assert all(float(v[0]) == 5 for k, v in saved.items() if k.startswith("step."))
    before = {n: p.detach().clone() for n, p in agent.named_parameters()}

    def next_step(make):
        with torch.no_grad():
            for n, p in agent.named_parameters():
                p.copy_(before[n])
        o = make()
        grads(99)
        o.step()
        return torch.cat([(p.detach() - before[n]).flatten() for n, p in agent.named_parameters()])

    uninterrupted = next_step(lambda: opt)

    def restored():
        o = torch.optim.Adam(agent.parameters(), lr=1e-3)
        restore_moments(o, agent, saved)
        return o

    again = next_step(restored)
    fresh = next_step(lambda: torch.optim.Adam(agent.parameters(), lr=1e-3))
    scale = uninterrupted.norm()
    assert (again - uninterrupted).norm() < 0.02 * scale
    assert (fresh - uninterrupted).norm() > 0.2 * scale


@pytest.mark.parametrize("lr", ["0", "-1e-3"])
def test_train_rejects_a_learning_rate_not_above_zero(lr, tmp_path, capsys, monkeypatch):
    code, _, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "agent"), "--lr", lr)
    assert code != 0 and f"--lr {float(lr)}: expected a learning rate above 0" in err
    assert not (tmp_path / "agent").exists()


def test_train_init_continues_the_saved_moments(tmp_path, capsys, monkeypatch):
    from safetensors.torch import load_file

    first, second = tmp_path / "first", tmp_path / "second"
    common = ["--size", "4", "--boxes", "1", "--envs", "2", "--levels", "10", "--max-moves", "8", "--channels", "4",
              "--arch", "1,1", "--minutes", "0.01"]
    assert _main(capsys, monkeypatch, "sokoban", "train", "-o", str(first), *common)[0] == 0
    steps = float(load_file(str(first / "optimizer.safetensors"))["step.encoder.weight"][0])
    updates = json.loads((first / "train_log.json").read_text())["updates"]
    assert steps == updates * 2 * 2  # 2 epochs x 2 minibatches (2 envs) per update
    code, _, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(second), *common, "--init", str(first),
                         "--gamma", "0.97", "--lambda", "0.95", "--lr", "4e-4", "--anneal-lr")
    assert code == 0, err
    log = json.loads((second / "train_log.json").read_text())
    assert log["continued_from"]["adam_moments"] == "saved"
    assert (log["ppo"]["gamma"], log["ppo"]["lam"], log["ppo"]["lr"], log["ppo"]["anneal_lr"]) == \
        (0.97, 0.95, 4e-4, True)
    first_ppo = json.loads((first / "train_log.json").read_text())["ppo"]
    assert (first_ppo["gamma"], first_ppo["lr"], first_ppo["anneal_lr"]) == (0.9, 2e-3, False)
    assert float(load_file(str(second / "optimizer.safetensors"))["step.encoder.weight"][0]) == \
        steps + log["updates"] * 4
    # moments left from other weights (the model rewritten since) are skipped with a warning, not applied
    from toolkit.sokoban.drc import load_agent

    save_agent(load_agent(first), first, half=False)
    code, _, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "third"), *common,
                         "--init", str(first))
    assert code == 0 and "saved with other weights" in err
    assert json.loads((tmp_path / "third" / "train_log.json").read_text())["continued_from"]["adam_moments"] == "fresh"
    (second / "optimizer.safetensors").write_bytes(b"\x01" * 40)
    code, out, err = _main(capsys, monkeypatch, "sokoban", "train", "-o", str(tmp_path / "fourth"), *common,
                           "--init", str(second))
    assert code == 2 and out == "" and "optimizer.safetensors: corrupted" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("fit", ["conv", "logreg"])
def test_probe_and_train_run_on_the_threads_asked(tmp_path, capsys, monkeypatch, agent_dir, fit):
    """--threads sets torch's and the BLAS pools for the fit (so two runs can share two cores) and lets them go."""
    from threadpoolctl import threadpool_info

    import toolkit.sokoban.probes as probes

    (tmp_path / "l.txt").write_text(LEVEL6)
    data = str(tmp_path / "d.safetensors")
    assert _main(capsys, monkeypatch, "sokoban", "collect", str(tmp_path / "l.txt"), "--agent", str(agent_dir),
                 "--episodes", "2", "-o", data)[0] == 0
    seen, fit_and_score = [], probes.fit_and_score

    def blas():
        return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}

    def spy(*args, **kwargs):
        seen.append((torch.get_num_threads(), blas()))
        return fit_and_score(*args, **kwargs)

    before = torch.get_num_threads(), blas()
    monkeypatch.setattr(probes, "fit_and_score", spy)
    try:
        code, out, err = _main(capsys, monkeypatch, "sokoban", "probe", "--train", data, "--test", data, "--concept",
                               "CA", "--source", "obs", "--kernel", "1", "--seeds", "1", "--fit", fit, "--epochs", "1",
                               "--threads", "3", "-o", str(tmp_path / "p.safetensors"))
        assert code == 0, err
        assert seen[0][1] == {3} and (fit != "conv" or seen[0][0] == 3)
        assert blas() == before[1]  # the BLAS limit ends with the fit
        code, out, err = _main(capsys, monkeypatch, "--seed", "0", "sokoban", "train", "-o", str(tmp_path / "a"),
                               "--size", "4", "--boxes", "1", "--envs", "2", "--levels", "10", "--max-moves", "8",
                               "--channels", "4", "--arch", "1,1", "--minutes", "0.01", "--threads", "2")
        assert code == 0, err
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before[0])


def test_probe_threads_reach_the_pools_its_fit_loads_later(tmp_path, agent_dir):
    """In a fresh interpreter sklearn and scipy load their BLAS only when the fit starts: the limit must reach them."""
    (tmp_path / "l.txt").write_text(LEVEL6)
    data = str(tmp_path / "d.safetensors")
    argv = ["reason", "sokoban", "probe", "--train", data, "--test", data, "--concept", "CA", "--source", "obs",
            "--kernel", "1", "--seeds", "1", "--fit", "logreg", "--threads", "3", "-o", str(tmp_path / "p.safetensors")]
    script = f"""
import json, sys
from pathlib import Path
import toolkit.sokoban.probes as probes
from cli.main import main
from toolkit.sokoban.drc import load_agent
from toolkit.sokoban.levels import parse_text
assert "sklearn" not in sys.modules
agent = load_agent({str(agent_dir)!r})
probes.save_dataset(probes.collect(agent, parse_text(open({str(tmp_path / "l.txt")!r}).read(), "l"), 2, 0),
                    Path({data!r}), agent.fingerprint)
seen, real = [], probes.fit_and_score
def spy(*args, **kwargs):  # the pools as the fit leaves them, those it loaded included
    from threadpoolctl import threadpool_info
    result = real(*args, **kwargs)
    seen.append(sorted({{p["num_threads"] for p in threadpool_info()}}))
    return result
probes.fit_and_score = spy
sys.argv = {argv!r}
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps(seen))
"""
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == [[3]]
