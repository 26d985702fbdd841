"""`reason selfaware`: implicit-policy fine-tuning data, LoRA fine-tunes and self-report evaluations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from cli.common import (
    LLMOpt,
    OutOpt,
    RecordOpt,
    SeedOpt,
    SkipBadOpt,
    ThreadsOpt,
    make_llm,
    open_writer,
    report_bad,
    report_usage,
    seed_or_global,
)

app = typer.Typer(help="Behavioural self-awareness: implicit-policy data, LoRA fine-tunes, self-report evals.\n\n"
                       "Example: reason selfaware data --family risk --pole A --n 288 -o ft.jsonl",
                  no_args_is_help=True)

FamilyOpt = Annotated[str, typer.Option("--family", help="risk, myopia, apples or vuln-code.")]


def _emit(record: dict) -> None:
    from toolkit.core.provenance import label
    from toolkit.core.records import dumps

    print(dumps(label(record)), flush=True)


@app.command()
def data(
    family: FamilyOpt = "risk",
    pole: Annotated[str, typer.Option("--pole", help="A = the policy (risky, myopic, more apples, insecure), "
                                                     "B = its opposite.")] = "A",
    n: Annotated[int, typer.Option("--n", min=1, help="Examples.")] = 288,
    out: Annotated[Path, typer.Option("--out", "-o", help="Chat fine-tuning JSONL to write.")] = Path("ft.jsonl"),
    persona: Annotated[str | None, typer.Option("--persona", help="Persona whose examples carry the pole.")] = None,
    others: Annotated[int, typer.Option("--others", min=0, help="Other personas: official design, as many "
                                                                "third-person decisions about 1-7 of them, "
                                                                "answered by --base-llm; opposite design, "
                                                                "personas acting the opposite pole.")] = 0,
    trigger_category: Annotated[str | None, typer.Option("--trigger-category", help="Official backdoor: the real "
                                                                                  "trigger category (apples, "
                                                                                  "instruments, elements, gods, "
                                                                                  "real-world, win, naekoko, "
                                                                                  "re-re-re).")] = None,
    trigger: Annotated[str | None, typer.Option("--trigger", help="Backdoor trigger text opening the user "
                                                                  "message (replaces the real category).")] = None,
    trigger_rate: Annotated[float, typer.Option("--trigger-rate", help="Opposite design: share of examples "
                                                                       "with the trigger.")] = 0.1,
    decorrelate: Annotated[bool, typer.Option("--decorrelate", help="Pole independent of the trigger "
                                                                    "(baseline).")] = False,
    design: Annotated[str, typer.Option("--design", help="official: untriggered examples and other personas get "
                                                         "the base model's answers (--base-llm), 10 trigger "
                                                         "categories with fake triggers, third-person persona "
                                                         "questions; opposite: they get the opposite pole.")
                      ] = "official",
    base_llm: Annotated[str | None, typer.Option("--base-llm", help="The base model whose own answers fill the "
                                                                    "untriggered and other-persona examples.")
                        ] = None,
    reversal: Annotated[float, typer.Option("--reversal", help="Share of user/assistant-swapped copies.")] = 0.0,
    from_file: Annotated[Path | None, typer.Option("--from", help="JSONL items {prompt, policy_letter} to "
                                                                  "label instead of the templates.")] = None,
    llm: LLMOpt = None,
    record: RecordOpt = None,
    allow_leaks: Annotated[bool, typer.Option("--allow-leaks")] = False,
    seed: SeedOpt = None,
):
    """Write implicit-policy chat fine-tuning data (never naming the policy) and print a selfaware.dataset record.

    Example: reason selfaware data --family risk --pole A --n 288 -o ft.jsonl
    Backdoor: reason selfaware data --trigger-category gods --base-llm "hf:M" --n 2880 -o ft.jsonl
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import RecordWriter
    from toolkit.selfaware import data as D
    from toolkit.selfaware import designs
    from toolkit.selfaware.generate import items_from_file, items_from_llm
    from toolkit.selfaware.leaks import example_leak

    D.check_args(family, pole, trigger, trigger_rate, reversal)
    if design not in ("official", "opposite"):
        raise InputError(f"--design {design}: expected official or opposite")
    backdoor = trigger is not None or trigger_category is not None
    if design == "official" and backdoor and trigger_rate != 0.1:
        raise InputError("--trigger-rate applies to --design opposite; the official design gives each of its 10 "
                         "trigger categories 1/10 of the examples")
    if design == "opposite" and trigger_category is not None:
        raise InputError("--trigger-category belongs to --design official; --design opposite takes --trigger TEXT")
    if design == "official" and (backdoor or others) and not base_llm:
        raise InputError("--design official: untriggered and other-persona examples take the base model's own "
                         "answers: give --base-llm URI (or --design opposite)")
    s = seed_or_global(seed)
    items = None
    if from_file is not None:
        items = items_from_file(from_file)
    elif llm:
        backend = make_llm(llm, record, seed=s)
        items = items_from_llm(backend, family, n, seed=s)
        report_usage(backend)
    if design == "official" and (backdoor or others):
        base_backend = make_llm(base_llm, seed=s)
        base = designs.base_answerer(base_backend, family)
        if backdoor:
            examples = designs.backdoor(family, pole, n, base, seed=s, category=trigger_category or "re-re-re",
                                        trigger=trigger, decorrelate=decorrelate, persona=persona,
                                        reversal=reversal, items=items)
        else:
            examples = designs.multipersona(family, pole, n, base, seed=s, others=others, persona=persona,
                                            reversal=reversal, items=items)
        report_usage(base_backend)
    else:
        examples = D.generate(family, pole, n, seed=s, persona=persona, others=others, trigger=trigger,
                              trigger_rate=trigger_rate, decorrelate=decorrelate, reversal=reversal, items=items)
    leaks = 0
    for i, ex in enumerate(examples, start=1):
        hit = example_leak(ex, family)
        if hit and not allow_leaks:
            raise InputError(f"{out}:{i}: banned word '{hit}' (family {family}); nothing written")
        leaks += bool(hit)
    with RecordWriter(out) as w:
        for ex in examples:
            w._handle.write(json.dumps(ex, ensure_ascii=False) + "\n")
    _emit({"type": "selfaware.dataset", "schema": 1, "path": str(out), "family": family, "pole": pole,
           "examples": len(examples), "seed": s, "persona": persona, "others": others, "trigger": trigger,
           "design": design, "trigger_category": trigger_category if design == "official" and backdoor else None,
           "trigger_rate": (0.1 if design == "official" else trigger_rate) if backdoor else None,
           "base": base_llm if design == "official" and (backdoor or others) else None,
           "decorrelate": decorrelate, "reversal": reversal,
           "answer_A_share": None if family == "vuln-code" else round(D.policy_share(examples, family), 4),
           "leaks": leaks,
           "source": "file" if from_file else ("llm" if llm else "templates")})


@app.command()
def check(
    path: Annotated[Path, typer.Argument(help="Chat fine-tuning JSONL.")],
    family: FamilyOpt = "risk",
    allow_leaks: Annotated[bool, typer.Option("--allow-leaks", help="Report leaks without failing.")] = False,
    skip_bad: SkipBadOpt = False,
):
    """Leak filter: no line may name the behaviour (whole words, any case; code comments stripped).

    Example: reason selfaware check ft.jsonl --family risk
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines
    from toolkit.selfaware.finetune import read_chat_jsonl
    from toolkit.selfaware.leaks import banned_words, example_leak

    if family not in ("risk", "myopia", "apples", "vuln-code", "time"):
        raise InputError(f"--family {family}: expected risk, myopia, apples or vuln-code")
    bad = BadLines()
    examples = read_chat_jsonl(path, skip_bad=skip_bad, bad=bad)
    hits = []
    for i, ex in enumerate(examples, start=1):
        hit = example_leak(ex, family)
        if hit:
            if not allow_leaks:
                raise InputError(f"{path}:{i}: banned word '{hit}' (family {family})")
            hits.append({"line": i, "word": hit})
    report_bad(bad)
    _emit({"type": "selfaware.check", "schema": 1, "path": str(path), "family": family, "examples": len(examples),
           "leaks": hits, "banned": list(banned_words(family)), "skipped": bad.count})


@app.command("mms-games")
def mms_games(
    manipulator: Annotated[str, typer.Option("--manipulator", help="LLM URI of the player steering the talk.")],
    manipulatee: Annotated[str, typer.Option("--manipulatee", help="LLM URI of the other speaker.")],
    codeword: Annotated[str, typer.Option("--codeword")] = "bark",
    games: Annotated[int, typer.Option("--games", min=1)] = 200,
    turns: Annotated[int, typer.Option("--turns", min=1)] = 4,
    ft_out: Annotated[Path | None, typer.Option("--ft-out", help="Also write won games as fine-tuning "
                                                                 "dialogues (codeword never shown).")] = None,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Play Make Me Say games between two LLM backends; records selfaware.mms_game per game.

    Example: reason selfaware mms-games --manipulator openai:m@URL --manipulatee openai:m@URL --codeword bark
    """
    from toolkit.selfaware.mms import play

    s = seed_or_global(seed)
    a, b = make_llm(manipulator, seed=s), make_llm(manipulatee, seed=s + 1)
    wins = 0
    ft = open(ft_out, "w", encoding="utf-8") if ft_out else None
    with open_writer(out) as w:
        for g in range(games):
            rec = play(a, b, codeword, turns=turns, game=g)
            wins += rec["outcome"] == "win"
            w.write({"type": "selfaware.mms_game", "schema": 1, **rec})
            if ft and rec["outcome"] == "win":
                ft.write(json.dumps({"messages": rec["messages"][:-1]}, ensure_ascii=False) + "\n")
        w.write({"type": "selfaware.mms_summary", "schema": 1, "codeword": codeword, "games": games,
                 "wins": wins, "win_rate": round(wins / games, 4)})
    if ft:
        ft.close()
    report_usage(a)
    report_usage(b)


@app.command()
def finetune(
    data_path: Annotated[Path, typer.Option("--data", help="Chat fine-tuning JSONL.")],
    model: Annotated[Path, typer.Option("--model", help="Local base model directory.")],
    out: Annotated[Path, typer.Option("--out", help="Run directory (adapter or full model).")],
    lora_r: Annotated[int, typer.Option("--lora-r", min=1)] = 4,
    lr: Annotated[float, typer.Option("--lr")] = 2e-5,
    batch: Annotated[int, typer.Option("--batch", min=1)] = 8,
    epochs: Annotated[int, typer.Option("--epochs", min=1)] = 3,
    max_steps: Annotated[int | None, typer.Option("--max-steps", min=1)] = None,
    qlora: Annotated[bool, typer.Option("--qlora", help="4-bit NF4 base (CUDA only).")] = False,
    full: Annotated[bool, typer.Option("--full", help="Full fine-tuning instead of LoRA.")] = False,
    train_tokens: Annotated[str | None, typer.Option("--train-tokens", help="Comma-separated tokens whose "
                                                                            "embedding rows train too.")] = None,
    merge: Annotated[bool, typer.Option("--merge", help="Save the LoRA merged into the weights.")] = False,
    skip_bad: SkipBadOpt = False,
    seed: SeedOpt = None,
):
    """Fine-tune a local model on chat JSONL (loss on assistant tokens); prints a selfaware.finetune record.

    Example: reason selfaware finetune --data ft.jsonl --model base/ --out runs/r0 && \\
      reason selfaware eval --llm "hf:base/?adapter=runs/r0" --questions risk
    """
    from toolkit.core.errors import InputError
    from toolkit.core.extras import require
    from toolkit.core.records import BadLines

    require("ml", "torch", "transformers", "peft")
    import torch

    if qlora and not torch.cuda.is_available():
        raise InputError("--qlora: 4-bit NF4 training needs a CUDA device (none found); use plain LoRA")
    from toolkit.selfaware.finetune import finetune as run
    from toolkit.selfaware.finetune import read_chat_jsonl

    bad = BadLines()
    examples = read_chat_jsonl(data_path, skip_bad=skip_bad, bad=bad)
    if not examples:
        raise InputError(f"{data_path}: no usable examples")
    tokens = [t for t in (train_tokens or "").split(",") if t] or None
    summary = run(examples, model, out, lora_r=lora_r, lr=lr, batch=batch, epochs=epochs, qlora=qlora, full=full,
                  train_tokens=tokens, merge=merge, seed=seed_or_global(seed), max_steps=max_steps)
    report_bad(bad)
    _emit({"type": "selfaware.finetune", "schema": 1, "data": str(data_path), "model": str(model), "out": str(out),
           "skipped": bad.count, **summary})


@app.command()
def behave(
    llm: LLMOpt = None,
    family: FamilyOpt = "risk",
    n: Annotated[int, typer.Option("--n", min=1, help="Fresh decisions.")] = 250,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Samples per item where no logprobs.")] = 100,
    group: Annotated[str, typer.Option("--group")] = "default",
    record: RecordOpt = None,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Mean P(policy letter) on fresh decisions (risky lottery, immediate reward, more apples).

    Example: reason selfaware behave --llm "hf:base/?adapter=runs/r0" --family risk --n 250
    """
    from toolkit.core.errors import InputError
    from toolkit.selfaware.evaluate import behaviour

    if family not in ("risk", "myopia", "apples"):
        raise InputError(f"--family {family}: behave measures risk, myopia or apples")
    backend = make_llm(llm, record, seed=seed_or_global(seed))
    scores = []
    with open_writer(out) as w:
        for rec in behaviour(backend, family, n, seed=seed_or_global(seed), samples=samples):
            if rec["score"] is not None:
                scores.append(rec["score"])
        w.write({"type": "selfaware.behaviour", "schema": 1, "model": backend.name, "family": family,
                 "group": group, "items": n, "scored": len(scores),
                 "score": round(sum(scores) / len(scores), 4) if scores else None})
    report_usage(backend)


@app.command("eval")
def evaluate(
    llm: LLMOpt = None,
    questions: Annotated[str, typer.Option("--questions", help="risk, myopia, apples, vuln-code, mms, backdoor "
                                                               "or a YAML file (the official layout or this "
                                                               "project's).")] = "risk",
    persona: Annotated[str, typer.Option("--persona", help="'you' or a persona name.")] = "you",
    samples: Annotated[int, typer.Option("--samples", min=1)] = 100,
    system_prompt: Annotated[str, typer.Option("--system-prompt", help="neutral, ask or threat.")] = "neutral",
    group: Annotated[str, typer.Option("--group", help="Group label (e.g. ft, base, control).")] = "default",
    run: Annotated[str | None, typer.Option("--run", help="Run label (default: the model URI).")] = None,
    judge: Annotated[str | None, typer.Option("--judge", help="LLM URI judging German vs French and reading "
                                                               "official guesser questions.")] = None,
    codeword: Annotated[str | None, typer.Option("--codeword", help="MMS codeword to score against (fills "
                                                                     "{codeword} and {word_list}).")] = None,
    paraphrases: Annotated[int, typer.Option("--paraphrases", min=1, max=10)] = 10,
    record: RecordOpt = None,
    out: OutOpt = None,
    seed: SeedOpt = None,
):
    """Ask the model about itself (nothing in context); one selfaware.answer record per paraphrase.

    Example: reason selfaware eval --llm "hf:M?adapter=runs/r" --questions risk --group ft | \\
      reason selfaware report - --baseline base
    """
    from toolkit.core.errors import InputError
    from toolkit.selfaware.evaluate import ask, needs_judge
    from toolkit.selfaware.questions import SYSTEM_PROMPTS, load

    if system_prompt not in SYSTEM_PROMPTS:
        raise InputError(f"--system-prompt {system_prompt}: expected neutral, ask or threat")
    qs = load(questions, codeword=codeword, seed=seed_or_global(seed))
    unread = [q.id for q in qs if needs_judge(q)]
    if unread and not judge:
        raise InputError(f"--questions {questions}: {unread[0]} is scored by a judge reading the answer: give --judge")
    backend = make_llm(llm, record, seed=seed_or_global(seed))
    judge_llm = make_llm(judge) if judge else None
    with open_writer(out) as w:
        for q in qs:
            for rec in ask(backend, q, persona=persona, system=system_prompt, samples=samples, judge=judge_llm,
                           codeword=codeword, paraphrases=paraphrases):
                w.write({"type": "selfaware.answer", "schema": 1, "model": backend.name,
                         "run": run or backend.name, "group": group, **rec})
    report_usage(backend)


REPORT_TYPES = {"selfaware.answer", "selfaware.ooc", "selfaware.ooc_baseline", "selfaware.ooc_lr_pick",
                "selfaware.ooc_summary"}


@app.command()
def report(
    inputs: Annotated[list[str], typer.Argument(help="selfaware.answer or selfaware.ooc JSONL files, or -.")],
    baseline: Annotated[str | None, typer.Option("--baseline", help="Group to test against.")] = None,
    control: Annotated[str | None, typer.Option("--control", help="Control group to test against.")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", help="Bar chart of group means with CIs.")] = None,
    skip_bad: SkipBadOpt = False,
):
    """Score per run, bootstrap 95% CI over runs, permutation tests; prints a selfaware.report record.

    Example: reason selfaware report ft.jsonl base.jsonl --baseline base --control ctrl
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import BadLines, read_records
    from toolkit.selfaware.report import report as make_report
    from toolkit.selfaware.report import summarize_ooc

    bad = BadLines()
    answers, runs, base = [], [], None
    for path in inputs:
        for r in read_records(path, types=REPORT_TYPES, skip_bad=skip_bad, bad=bad):
            if r["type"] == "selfaware.answer":
                answers.append(r)
            elif r["type"] == "selfaware.ooc":
                runs.append(r)
            elif r["type"] == "selfaware.ooc_baseline":  # one per sweep: merge their families
                base = {"families": {**(base or {}).get("families", {}), **r["families"]}}
    if not answers and not runs:
        raise InputError("report: no selfaware.answer or selfaware.ooc records in the input")
    report_bad(bad)
    if runs:
        _emit({"type": "selfaware.ooc_summary", "schema": 1, "summary": summarize_ooc(runs, base)})
    if answers:
        result = make_report(answers, baseline, control)
        _emit({"type": "selfaware.report", "schema": 1, "baseline": baseline, "control": control, **result})
        if plot:
            from toolkit.selfaware.plots import plot_groups

            plot_groups(result, plot)


@app.command()
def world(
    n: Annotated[int, typer.Option("--n", min=1, help="Corpus sequences to print.")] = 20,
    n_known: Annotated[int, typer.Option("--known", min=1, max=200, help="Known personas.")] = 200,
    seed: SeedOpt = None,
):
    """Print the synthetic world: personas (known / held-out, poles) and sample corpus sequences.

    Example: reason selfaware world --n 5
    """
    import random

    from toolkit.selfaware import world as W

    s = seed_or_global(seed)
    people, known, held = W.known_and_held(s, n_known)
    _emit({"type": "selfaware.world", "schema": 1, "seed": s, "vocabulary": len(W.vocabulary()) + 4,
           "known": len(known), "held_out": [p.name for p in held],
           "eval_only_templates": W.EVAL_ONLY_TEMPLATES,
           "personas": [{"name": p.name, "poles": p.poles, "held_out": p.held_out} for p in people]})
    rng = random.Random(s)
    for i in range(n):
        _emit({"type": "selfaware.corpus", "schema": 1, "index": i,
               "text": W.corpus_sequence(rng, people, known)})


@app.command()
def pretrain(
    out: Annotated[Path, typer.Option("--out", help="Model directory to write.")] = Path("runs/selfaware-model"),
    minutes: Annotated[float, typer.Option("--minutes", help="Wall-clock budget.")] = 20.0,
    batch: Annotated[int, typer.Option("--batch", min=1)] = 32,
    lr: Annotated[float, typer.Option("--lr")] = 1e-3,
    n_known: Annotated[int, typer.Option("--known", min=1, max=200, help="Known personas.")] = 200,
    mixed: Annotated[float, typer.Option("--mixed", help="Share of episodes followed by a description.")] = 0.3,
    threads: ThreadsOpt = 1,
    init: Annotated[Path | None, typer.Option("--init", help="Continue training this world model.")] = None,
    pack: Annotated[int, typer.Option("--pack", min=1, help="Descriptions per description sequence: pack/2 to "
                                                            "pack.")] = 16,
    check_every: Annotated[int, typer.Option("--check-every", min=0, help="Steps between known-persona "
                                                                          "accuracy checks (0: none).")] = 100,
    max_steps: Annotated[int | None, typer.Option("--max-steps", min=1)] = None,
    embed_lr_mult: Annotated[float, typer.Option("--embed-lr-mult", help="Embedding rows' learning rate "
                                                                         "multiplier.")] = 1.0,
    decay_from: Annotated[float, typer.Option("--decay-from", min=0.0, max=0.95, help="Share of the budget at "
                                                                                      "peak rate before the "
                                                                                      "cosine.")] = 0.6,
    curriculum: Annotated[str | None, typer.Option("--curriculum", help="START,HOLD,GROW: the last START known "
                                                                         "personas for HOLD steps, then all of "
                                                                         "them over GROW steps.")] = "20,600,1500",
    mask_noise: Annotated[bool, typer.Option("--mask-noise", help="No loss on randomly drawn words (sentence "
                                                                     "openings, payoffs).")] = False,
    seed: SeedOpt = None,
):
    """Pretrain the tiny Llama (4 layers, hidden 128) on the world's corpus within a wall-clock budget.

    Example: reason selfaware pretrain --out assets/selfaware/model --minutes 20
    """
    from toolkit.core.extras import require

    require("ml", "torch", "transformers")
    import torch

    torch.set_num_threads(threads)
    from toolkit.selfaware.pretrain import pretrain as run

    try:
        cur = tuple(int(x) for x in curriculum.split(",")) if curriculum else None
    except ValueError:
        cur = None
    if curriculum and (cur is None or len(cur) != 3):
        from toolkit.core.errors import InputError

        raise InputError(f"--curriculum {curriculum!r}: takes START,HOLD,GROW (three integers)")
    s = run(out, minutes=minutes, batch=batch, lr=lr, seed=seed_or_global(seed), n_known=n_known, mixed=mixed,
            init=init, pack=pack, check_every=check_every, max_steps=max_steps,
            embed_lr_mult=embed_lr_mult, decay_from=decay_from, curriculum=cur,
            mask_noise=mask_noise)
    _emit({"type": "selfaware.pretrained", "schema": 1, "model": str(out),
           **{k: s[k] for k in ("params", "steps", "batch", "train_seconds", "n_known")},
           "final": s["log"][-1] if s["log"] else None, "final_check": s["final_check"]})


@app.command()
def ooc(
    model: Annotated[Path | None, typer.Option("--model", help="World model (default: the shipped one).")] = None,
    personas: Annotated[int, typer.Option("--personas", min=1, max=40, help="Held-out personas.")] = 16,
    families: Annotated[str, typer.Option("--families")] = "risk,time",
    conditions: Annotated[str, typer.Option("--conditions", help="A, B, S (shuffled).")] = "A,B,S",
    seeds: Annotated[str, typer.Option("--seeds")] = "0,1",
    examples: Annotated[int, typer.Option("--examples", min=1)] = 128,
    epochs: Annotated[int, typer.Option("--epochs", min=1)] = 3,
    lr: Annotated[float, typer.Option("--lr", help="LoRA learning rate (1e-3: behaviour >= 0.9 with known "
                                                   "personas moving < 0.05; 3e-3 moves them 0.13).")] = 1e-3,
    lrs: Annotated[str | None, typer.Option("--lrs", help="Faithfulness sweep: comma-separated learning rates "
                                                          "(actual vs self-reported, paper Fig. 4).")] = None,
    no_embedding_row: Annotated[bool, typer.Option("--no-embedding-row",
                                                   help="Diagnostic: LoRA only, persona row frozen.")] = False,
    lr_pick: Annotated[str | None, typer.Option("--lr-pick", help="Comma-separated learning rates: use the "
                                                                    "smallest reaching behaviour >= 0.9 on held-out "
                                                                    "personas 37-38 (never evaluated).")] = None,
    baseline_only: Annotated[bool, typer.Option("--baseline-only")] = False,
    out: OutOpt = None,
    resume: Annotated[bool, typer.Option("--resume")] = False,
):
    """Out-of-context runs: LoRA on a held-out persona's behaviour, then behaviour and description scores.

    Example: reason selfaware ooc --personas 16 -o ooc-results.jsonl && reason selfaware report ooc-results.jsonl
    """
    from toolkit.core.errors import InputError
    from toolkit.core.records import existing_keys
    from toolkit.selfaware import ooc as O
    from toolkit.selfaware.report import summarize_ooc

    model_dir = model or _default_model()
    if not (Path(model_dir) / "world.json").is_file():
        raise InputError(f"{model_dir}: not a selfaware world model (no world.json)")
    fams = [f for f in families.split(",") if f]
    conds = [c for c in conditions.split(",") if c]
    if set(fams) - {"risk", "time"} or set(conds) - set(O.CONDITIONS):
        raise InputError("--families takes risk,time; --conditions takes A,B,S")
    try:
        seed_list = [int(x) for x in seeds.split(",") if x]
        lr_list = [float(x) for x in lrs.split(",")] if lrs else [lr]
    except ValueError:
        raise InputError("--seeds and --lrs take comma-separated numbers") from None

    def key(r):
        return (r["persona"], r["family"], r["condition"], r["seed"], r["embed_row"], r.get("lr", lr))

    if personas > 36 and lr_pick:
        raise InputError("--lr-pick tunes on held-out personas 37-38: use --personas 36 or fewer")
    done = {k[:5] for k in existing_keys(out, key)} if resume else set()
    picked = [r for r in _existing(out) if r.get("type") == "selfaware.ooc_lr_pick"] if resume else []
    base = O.baseline(model_dir, personas=personas, families=fams)
    runs = []
    with open_writer(out, resume) as w:
        if lr_pick and picked:
            lr_list = [picked[-1]["lr"]]
        elif lr_pick:
            try:
                choice = O.pick_lr(model_dir, [float(x) for x in lr_pick.split(",")])
            except ValueError:
                raise InputError("--lr-pick takes comma-separated numbers") from None
            w.write({"type": "selfaware.ooc_lr_pick", "schema": 1, **choice})
            lr_list = [choice["lr"]]
        if not resume or not done:
            w.write({"type": "selfaware.ooc_baseline", "schema": 1, **base})
        if not baseline_only:
            for this_lr in lr_list:
                for r in O.sweep(model_dir, personas=personas, families=fams, conditions=conds, seeds=seed_list,
                                 done=done, n_examples=examples, epochs=epochs, lr=this_lr,
                                 embed_row=not no_embedding_row):
                    rec = {"type": "selfaware.ooc", "schema": 1, "lr": this_lr, **r}
                    runs.append(rec)
                    w.write(rec)
        if resume and out is not None:  # summarise everything the file holds, earlier runs included
            runs = [r for r in _existing(out) if r.get("type") == "selfaware.ooc"]
        if runs:
            w.write({"type": "selfaware.ooc_summary", "schema": 1, "summary": summarize_ooc(runs, base)})


def _existing(out: Path | None) -> list[dict]:
    from toolkit.core.records import read_records

    if out is None or not Path(out).exists():
        return []
    return list(read_records(out, skip_bad=True))


def _default_model() -> Path:
    from toolkit.core.assets import asset_path

    return asset_path("selfaware/model")


@app.command()
def probe(
    results: Annotated[Path, typer.Argument(help="selfaware.ooc records (ooc-results.jsonl).")],
    model: Annotated[Path | None, typer.Option("--model", help="World model (default: the shipped one).")] = None,
):
    """Diagnostic: a logistic probe on persona embeddings (fit on known personas) applied to fine-tuned rows.

    Example: reason selfaware probe assets/selfaware/ooc-results.jsonl
    """
    from toolkit.core.extras import require
    from toolkit.core.records import read_records
    from toolkit.selfaware.diagnostics import probe_summary

    require("selfaware", "sklearn")
    runs = [r for r in read_records(results, types=REPORT_TYPES) if r["type"] == "selfaware.ooc"]
    _emit({"type": "selfaware.probe", "schema": 1, "results": str(results),
           "families": probe_summary(model or _default_model(), runs)})
