#!/usr/bin/env bash
# Regenerate every ssm_limits asset from the repository root: bash assets/ssm_limits/regenerate.sh [problems|replay|models|sweep]
# The CPU-heavy parts (models, sweep) run single-threaded; on a shared machine wrap them in a job slot.
set -euo pipefail
A=assets/ssm_limits
what=${1:-all}  # all | problems | replay | models | matched-mamba | sweep | automaton
r() { reason "$@"; }
command -v reason >/dev/null || r() { python -m cli "$@"; }

# the two resumable runs of one architecture: the base (n = 8, then 8 and 16; stopped at step 7,217, where the
# transformer's first 9-minute chunk ended) and its continuation to n = 64 from the base's weights
two_runs() {
  local arch=$1 base=$A/models/$2 full=$A/models/$3
  for chunk in 1 2 3 4 5 6 7 8 9 10; do
    res=""; [[ -f $base/train_state.pt ]] && res="--resume"
    grep -qs '"steps": 7217,' $base/ssm_limits.json && break
    r --seed 0 ssm-limits train --arch $arch --task iterate --size 8,16 --depths 1..4 --mode cot \
      --layers 2 --hidden 64 --lr 1e-3 --batch 32 --x-last --warmup 200 --curriculum '8:1..4@2000' \
      --steps 14000 --stop-at 7217 --minutes 9 --probe-every 2000 $res -o $base
  done
  for chunk in 1 2 3 4 5 6 7 8 9 10; do
    res=""; [[ -f $full/train_state.pt ]] && res="--resume"
    grep -qs '"done": true' $full/ssm_limits.json && break
    r --seed 0 ssm-limits train --arch $arch --task iterate --size 8,16,32,64 --depths 1..4 --mode cot \
      --layers 2 --hidden 64 --lr 1e-3 --batch 32 --x-last --warmup 200 \
      --curriculum '8,16:1..4@1000;8,16,32:1..4@3000' --steps 12000 --minutes 9 --probe-every 2000 \
      --init $base $res -o $full
  done
}

if [[ $what == all || $what == problems ]]; then
  mkdir -p $A/problems
  r --seed 0 ssm-limits gen --task compose --size 4,8,16,32 --depth 2 --n 50 --split test -o $A/problems/compose.jsonl
  r --seed 0 ssm-limits gen --task iterate --size 8,16,32,64 --depth 1..5 --n 10 --split test -o $A/problems/iterate.jsonl
  : > $A/problems/mult.jsonl; : > $A/problems/zebra.jsonl
  for s in 2 3 4 5; do
    r --seed 0 ssm-limits gen --task mult --size $s --depth $s --n 50 --split test >> $A/problems/mult.jsonl
    r --seed 0 ssm-limits gen --task zebra --size $s --depth $s --n 50 --split test >> $A/problems/zebra.jsonl
  done
  r --seed 0 ssm-limits gen --task dp --size 6,8,10,12 --n 50 --split test -o $A/problems/dp.jsonl
fi

if [[ $what == all || $what == replay ]]; then
  # the noisy stand-in (pipeline demo, not a model result) on the first 10 problems of each task and size, CoT
  rm -f $A/replay.jsonl
  for t in compose iterate mult dp zebra; do
    python - "$A/problems/$t.jsonl" > /tmp/ssm_subset_$t.jsonl <<'PY'
import json, sys
seen = {}
for line in open(sys.argv[1]):
    p = json.loads(line)
    key = (p["params"]["size"], p["params"]["depth"])
    seen[key] = seen.get(key, 0) + 1
    if seen[key] <= 10:
        print(line, end="")
PY
    r --seed 0 ssm-limits ask /tmp/ssm_subset_$t.jsonl --llm py:toolkit.ssm_limits.standin:noisy --mode cot \
      --record $A/replay.jsonl -o /tmp/ssm_resp_$t.jsonl
  done
  cat /tmp/ssm_resp_*.jsonl > /tmp/ssm_resp_all.jsonl
  cat $A/problems/*.jsonl > /tmp/ssm_problems_all.jsonl
  r ssm-limits score /tmp/ssm_resp_all.jsonl --problems /tmp/ssm_problems_all.jsonl -o /tmp/ssm_standin_scores.jsonl
  grep '"ssm.curve"' /tmp/ssm_standin_scores.jsonl > $A/standin_curves.jsonl
fi

if [[ $what == all || $what == models ]]; then
  # transformer, two runs. Base (models/transformer-base): x-last prompts, n = 8 for 2,000 steps then n = 8 and 16,
  # a 14,000-step cosine budget stopped at step 7,217 (where its first 9-minute chunk ended). Shipped
  # (models/transformer): started from the base's weights (--init), n = 8,16 to step 1,000, 8..32 to 3,000, then
  # 8..64, a 12,000-step cosine budget; symbols from the 64-symbol pool. Both in resumable chunks of <= 9 minutes.
  two_runs transformer transformer-base transformer
  # mamba: the shipped model is still the 12-minute time-budgeted run (no step budget, old prompt format)
  r --seed 0 ssm-limits train --arch mamba --task iterate --size 8,16,32,64 --depths 1..4 --mode cot \
    --layers 2 --hidden 64 --steps 0 --minutes 12 --lr 2e-3 --batch 32 -o $A/models/mamba
  : > $A/curves.jsonl
  for arch in transformer mamba; do
    r --seed 1 ssm-limits eval --model $A/models/$arch --task iterate --size 8,16,32,64 --depths 1..8 --n 100 >> $A/curves.jsonl
  done
fi

if [[ $what == matched-mamba ]]; then
  # the Mamba trained exactly as the shipped transformer (same two runs, settings, steps and seed; the fused scan):
  # the matched comparison of claim 1 (about 55 CPU-minutes on this machine; resumable, rerun until both are done)
  two_runs mamba mamba-base mamba-64
  r --seed 1 ssm-limits eval --model $A/models/mamba-base --task iterate --size 8,16,64 --depths 1..4 --n 100 \
    > $A/curves-matched-mamba.jsonl
  r --seed 1 ssm-limits eval --model $A/models/mamba-64 --task iterate --size 8,16,32,64 --depths 1..8 --n 100 \
    >> $A/curves-matched-mamba.jsonl
fi

if [[ $what == all || $what == sweep ]]; then
  # the shipped sweep was budgeted in seconds (--steps-per-run 0); the default is now a step budget
  r --seed 0 ssm-limits sweep --sizes 4,8,16,32 --bits 4 --tasks iterate --steps-per-run 0 --seconds-per-run 40 \
    -o $A/sweep.jsonl --resume
  # supplementary: the same points with 3x the training time
  r --seed 0 ssm-limits sweep --sizes 4,8,16 --floats 16,32,64,128,256 --bits 4 --tasks iterate --steps-per-run 0 --seconds-per-run 120 \
    -o $A/sweep-120s.jsonl --resume
fi

if [[ $what == all || $what == automaton ]]; then
  rm -rf $A/automaton
  r --seed 0 ssm-limits automaton --model $A/automaton --bits 4 --train-seconds 300 -o $A/automaton.jsonl
fi
