#!/usr/bin/env bash
# Rebuild every shipped sokoban asset and result file from scratch (single thread; 2 x MINUTES of training plus
# about 25 minutes of evaluation on one core).
# Usage: assets/sokoban/regenerate.sh [MINUTES] [TEST_LEVELS] [PROBE_EPISODES] [OUT]
# Small settings make a quick pipeline check: assets/sokoban/regenerate.sh 0.2 40 60 /tmp/sokoban-check
set -euo pipefail
MINUTES=${1:-30}
N_TEST=${2:-1000}
EPISODES=${3:-3000}
OUT=${4:-assets/sokoban}
R="${PYTHON:-python} -m cli"
mkdir -p "$OUT/levels" "$OUT/results"
log() { echo "[regenerate $(date -u +%H:%M:%S)] $*" >&2; }
timed() { local t0; t0=$(date +%s); "$@"; log "$(( $(date +%s) - t0 ))s: ${*:1:6}"; }

if [ ! -f "$OUT/agent/model.safetensors" ]; then
  timed $R --seed 0 sokoban train -o "$OUT/agent" --arch 2,2 --channels 16 --size 6 --boxes 1,2 --envs 64 \
    --minutes "$MINUTES" > "$OUT/results/trained.jsonl"
fi
# the same-size feed-forward baseline, trained as long (TRAIN_FF=0: trained elsewhere, e.g. in a parallel slot)
if [ "${TRAIN_FF:-1}" = 1 ] && [ ! -f "$OUT/ff_agent/model.safetensors" ]; then
  timed $R --seed 0 sokoban train -o "$OUT/ff_agent" --arch ff --channels 16 --size 6 --boxes 1,2 --envs 64 \
    --minutes "$MINUTES" > "$OUT/results/trained-ff.jsonl"
fi
timed $R --seed 0 sokoban gen --size 6 --boxes 1,2 --n "$N_TEST" --max-moves 40 --split test -o "$OUT/levels/test.txt"
timed $R --seed 0 sokoban gen --size 6 --boxes 1,2 --n "$N_TEST" --max-moves 40 --split val -o "$OUT/levels/val.txt"
# probe training levels: the train split with a seed the agent never trained on
timed $R --seed 1 sokoban gen --size 6 --boxes 1,2 --n "$EPISODES" --max-moves 40 --split train -o "$OUT/levels/probe-train.txt"

# claim 1: solve rates (agent, think curve with McNemar; random policy; feed-forward baseline when trained)
timed $R sokoban play "$OUT/levels/test.txt" --agent "$OUT/agent" --think 0,1,2,4,8 --no-episodes > "$OUT/results/solve_rates.jsonl"
timed $R --seed 0 sokoban play "$OUT/levels/test.txt" --agent random --no-episodes > "$OUT/results/random.jsonl"
if [ -f "$OUT/ff_agent/model.safetensors" ]; then
  timed $R sokoban play "$OUT/levels/test.txt" --agent "$OUT/ff_agent" --no-episodes > "$OUT/results/ff.jsonl"
fi

# claim 2: probes (train episodes on probe-train levels, test episodes on the test levels)
timed $R --seed 0 sokoban collect "$OUT/levels/probe-train.txt" --agent "$OUT/agent" --episodes "$EPISODES" -o "$OUT/work/A.safetensors"
timed $R --seed 0 sokoban collect "$OUT/levels/test.txt" --agent "$OUT/agent" --episodes "$N_TEST" -o "$OUT/work/B.safetensors"
timed $R --seed 0 sokoban probe --train "$OUT/work/A.safetensors" --test "$OUT/work/B.safetensors" --concept CA,CB \
  --kernel 1,3 --source cell,hidden,obs --seeds 5 -o "$OUT/probes.safetensors" > "$OUT/results/probes.jsonl"
timed $R sokoban ticks "$OUT/levels/test.txt" --agent "$OUT/agent" --probes "$OUT/probes.safetensors" --think 5 --bidir \
  > "$OUT/results/ticks.jsonl"

# claim 3: interventions on solver-built cases (val levels: disjoint from the test levels used above)
timed $R sokoban cases "$OUT/levels/val.txt" --agent "$OUT/agent" -o "$OUT/cases.jsonl"
if [ ! -s "$OUT/cases.jsonl" ]; then  # an agent that solves (almost) nothing yields no case: nothing to intervene on
  log "no intervention cases"; rm -rf "$OUT/work"; exit 0
fi
timed $R --seed 0 sokoban intervene --agent "$OUT/agent" --cases "$OUT/cases.jsonl" --probes "$OUT/probes.safetensors" \
  --alphas 0.25,0.5,1,2,4 --control random > "$OUT/results/interventions.jsonl"
rm -rf "$OUT/work"
log done
