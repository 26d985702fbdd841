#!/usr/bin/env bash
# Rebuild every shipped sokoban asset and result file from scratch (single thread; each agent trains MINUTES,
# then MORE minutes continued with 256 envs, the DRC agent and the feed-forward baseline alike; then about
# 25 minutes of evaluation on one core). The two trainings are independent: TRAIN_FF=0 leaves the baseline to
# another slot.
# Usage: assets/sokoban/regenerate.sh [MINUTES] [TEST_LEVELS] [PROBE_EPISODES] [OUT] [MORE]
# Small settings make a quick pipeline check of the 6x6 part (8 minutes):
#   STAGE3=0.2 EIGHT=0 assets/sokoban/regenerate.sh 0.2 40 60 /tmp/sokoban-check 0.2
# The 8x8 part's chunks default to their full minutes; set each one small (EIGHT=0.1 EIGHT2=0.1 RESUME3=0.1 ...) or
# copy the shipped agent directories into OUT first, so that only the measurements run.
set -euo pipefail
MINUTES=${1:-30}
N_TEST=${2:-1000}
EPISODES=${3:-3000}
OUT=${4:-assets/sokoban}
MORE=${5:-85}
R="${PYTHON:-python} -m cli"
mkdir -p "$OUT/levels" "$OUT/results"
log() { echo "[regenerate $(date -u +%H:%M:%S)] $*" >&2; }
timed() { local t0 rc=0; t0=$(date +%s); "$@" || rc=$?; log "$(( $(date +%s) - t0 ))s: ${*:1:6}"; return $rc; }
# probe datasets of one agent: EPISODES episodes on the probe-train levels -> work/A$TAG, TEST on the test levels -> work/B$TAG
collect_pair() {  # AGENT EPISODES TEST TAG
  timed $R --seed 0 sokoban collect "$OUT/levels/probe-train.txt" --agent "$1" --episodes "$2" -o "$OUT/work/A$4.safetensors"
  timed $R --seed 0 sokoban collect "$OUT/levels/test.txt" --agent "$1" --episodes "$3" -o "$OUT/work/B$4.safetensors"
}

# stage 1: 64 envs from scratch (seed 0 levels); stage 2: continued with 256 envs on 10000 other train levels
# (seed 2: seed 1 makes the probe-training levels below)
train_agent() {  # DIR ARCH RECORD-NAME
  if [ ! -f "$OUT/$1/model.safetensors" ]; then
    timed $R --seed 0 sokoban train -o "$OUT/work/$1-stage1" --arch "$2" --channels 16 --size 6 --boxes 1,2 \
      --envs 64 --minutes "$MINUTES" > "$OUT/results/$3.jsonl"
    timed $R --seed 2 sokoban train -o "$OUT/$1" --init "$OUT/work/$1-stage1" --arch "$2" --channels 16 --size 6 \
      --boxes 1,2 --envs 256 --levels 10000 --minutes "$MORE" > "$OUT/results/$3-continued.jsonl"
  fi
}
train_agent agent 2,2 trained
# the same-size feed-forward baseline, trained as long (TRAIN_FF=0: trained elsewhere, e.g. in a parallel slot)
if [ "${TRAIN_FF:-1}" = 1 ]; then
  train_agent ff_agent ff trained-ff
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
# the FF after stage 1: fewer transitions than the DRC's two stages (the comparison at a transition budget)
if [ -f "$OUT/work/ff_agent-stage1/model.safetensors" ]; then
  timed $R sokoban play "$OUT/levels/test.txt" --agent "$OUT/work/ff_agent-stage1" --no-episodes > "$OUT/results/ff-stage1.jsonl"
fi

# claim 2: probes (train episodes on probe-train levels, test episodes on the test levels). The shipped probes are
# the logistic-regression fit (--fit logreg); the default is now the official conv-probe fit (FIT=conv to use it)
FIT=${FIT:-logreg}
collect_pair "$OUT/agent" "$EPISODES" "$N_TEST" ""
timed $R --seed 0 sokoban probe --train "$OUT/work/A.safetensors" --test "$OUT/work/B.safetensors" --concept CA,CB \
  --kernel 1,3 --source cell,hidden,obs --seeds 5 --fit "$FIT" -o "$OUT/probes.safetensors" > "$OUT/results/probes.jsonl"
# diagnostic: the same 3x3 probes on the steps of solved episodes only (a stuck agent's capped tail carries no plan)
if ! timed $R --seed 0 sokoban probe --train "$OUT/work/A.safetensors" --test "$OUT/work/B.safetensors" --concept CA,CB \
  --kernel 3 --source cell,obs --seeds 5 --fit "$FIT" --solved-only -o "$OUT/work/P-solved.safetensors" > "$OUT/results/probes-solved.jsonl"; then
  log "no solved episode to probe (an agent trained too briefly): solved-only probes skipped"
fi
timed $R sokoban ticks "$OUT/levels/test.txt" --agent "$OUT/agent" --probes "$OUT/probes.safetensors" --think 5 --bidir \
  > "$OUT/results/ticks.jsonl"

# claim 3: interventions on solver-built cases (val levels: disjoint from the test levels used above). The shipped
# sweep ran the first-push protocol with per-square random vectors; PROTOCOL=official CONTROL=random is the default
# of `intervene` (the official protocol and control)
PROTOCOL=${PROTOCOL:-first-push}
CONTROL=${CONTROL:-random-per-square}
timed $R sokoban cases "$OUT/levels/val.txt" --agent "$OUT/agent" -o "$OUT/cases.jsonl"
if [ -s "$OUT/cases.jsonl" ]; then  # an agent that solves (almost) nothing yields no case: nothing to intervene on
  timed $R --seed 0 sokoban intervene --agent "$OUT/agent" --cases "$OUT/cases.jsonl" --probes "$OUT/probes.safetensors" \
    --alphas 0.25,0.5,1,2,4 --protocol "$PROTOCOL" --control "$CONTROL" > "$OUT/results/interventions.jsonl"
else
  log "no intervention cases"
fi

# stage 3 (the resume point, not the default agent): the agent continued STAGE3 minutes on harder levels (seed 3,
# at least 8 optimal moves, 1-3 boxes), then its solve rates, 3x3 probes (shipped protocol), the smaller 1x1 run and
# the interventions that write its probes. STAGE3=0 skips it.
STAGE3=${STAGE3:-65}
if [ "$STAGE3" != 0 ]; then
  S3="$OUT/results/stage3"; mkdir -p "$S3"
  if [ ! -f "$OUT/agent-stage3/model.safetensors" ]; then
    timed $R --seed 3 sokoban train -o "$OUT/agent-stage3" --init "$OUT/agent" --arch 2,2 --channels 16 --size 6 \
      --envs 256 --levels 10000 --min-moves 8 --boxes 1,2,3 --minutes "$STAGE3" > "$S3/trained.jsonl"
  fi
  timed $R sokoban play "$OUT/levels/test.txt" --agent "$OUT/agent-stage3" --think 0,1,2,4 --no-episodes > "$S3/solve_rates.jsonl"
  # the thinking curve where the agent fails more often: 600 test-split 3-box levels of 12-40 optimal moves
  timed $R --seed 9300 sokoban gen --size 6 --boxes 3 --min-moves 12 --max-moves 40 --n $(( N_TEST * 3 / 5 )) --split test \
    -o "$OUT/work/hard3.txt"
  timed $R sokoban play "$OUT/work/hard3.txt" --agent "$OUT/agent-stage3" --think 0,1,2,4,8 --no-episodes > "$S3/solve_rates-hard3.jsonl"
  collect_pair "$OUT/agent-stage3" "$EPISODES" "$N_TEST" 3
  timed $R --seed 0 sokoban probe --train "$OUT/work/A3.safetensors" --test "$OUT/work/B3.safetensors" --concept CA,CB \
    --kernel 3 --source cell,hidden,obs --seeds 5 --fit logreg -o "$OUT/work/P3.safetensors" > "$S3/probes.jsonl"
  collect_pair "$OUT/agent-stage3" $(( EPISODES / 2 )) $(( N_TEST / 2 )) 3s
  timed $R --seed 0 sokoban probe --train "$OUT/work/A3s.safetensors" --test "$OUT/work/B3s.safetensors" --concept CA,CB \
    --kernel 1,3 --source cell,obs --seeds 1 --fit logreg -o "$OUT/work/P3s.safetensors" > "$S3/probes-small.jsonl"
  timed $R sokoban cases "$OUT/levels/val.txt" --agent "$OUT/agent-stage3" -o "$OUT/work/cases3.jsonl"
  if [ -s "$OUT/work/cases3.jsonl" ]; then
    timed $R --seed 0 sokoban intervene --agent "$OUT/agent-stage3" --cases "$OUT/work/cases3.jsonl" \
      --probes "$OUT/work/P3s.safetensors" --alphas 0.5,1,2,4 | { grep intervention_summary || true; } > "$S3/interventions-summary.jsonl"
  fi
fi
# the 8x8 agents (resume points; not the default agent): DRC(2,2) and the paper's DRC(3,3), both C = 16 and the
# official raw encoder, on 10000 8x8 levels of 1-3 boxes: chunk 1 EIGHT minutes from scratch (seed 20), chunk 2
# EIGHT2 minutes continued (seed 21); then their solve rates and thinking curves (the test levels, 600 hard 3-box
# levels and 1000 more to confirm), the random policy, a small probe run (1500 / 500 episodes, one seed), the
# full-size one (EPISODES / N_TEST episodes, 5 seeds) and the interventions writing the small run's 1x1 CA probes on
# 8x8 val cases. EIGHT=0 skips it.
EIGHT=${EIGHT:-95}
EIGHT2=${EIGHT2:-82}
if [ "$EIGHT" != 0 ]; then
  S8="$OUT/results/8x8"; mkdir -p "$S8"
  timed $R --seed 0 sokoban gen --size 8 --boxes 1,2,3 --n "$N_TEST" --max-moves 60 --split test -o "$OUT/levels/test-8x8.txt"
  timed $R --seed 0 sokoban gen --size 8 --boxes 1,2,3 --n "$N_TEST" --max-moves 60 --split val -o "$OUT/work/val-8x8.txt"
  timed $R --seed 9400 sokoban gen --size 8 --boxes 3 --min-moves 14 --max-moves 60 --n $(( N_TEST * 3 / 5 )) --split test \
    -o "$OUT/work/hard-8x8.txt"
  # a second, larger hard set (seed 9500) to confirm or refute what the first one shows
  timed $R --seed 9500 sokoban gen --size 8 --boxes 3 --min-moves 14 --max-moves 60 --n "$N_TEST" --split test \
    -o "$OUT/work/hard-confirm-8x8.txt"
  timed $R --seed 1 sokoban gen --size 8 --boxes 1,2,3 --n $(( EPISODES / 2 )) --max-moves 60 --split train \
    -o "$OUT/work/probe-train-8x8.txt"
  # the full-size probe run's training levels: the first EPISODES of seed 1
  timed $R --seed 1 sokoban gen --size 8 --boxes 1,2,3 --n "$EPISODES" --max-moves 60 --split train \
    -o "$OUT/work/probe-train-full-8x8.txt"
  timed $R --seed 0 sokoban play "$OUT/levels/test-8x8.txt" --agent random --no-episodes > "$S8/random.jsonl"
  timed $R --seed 0 sokoban play "$OUT/work/hard-8x8.txt" --agent random --no-episodes > "$S8/random-hard.jsonl"
  # solve rates and thinking curves, the small and the full-size probe runs and the interventions of one agent
  # PROBE-ARGS default to the logistic-regression fit of every source and both kernels
  full_probe_run() {  # DIR TRAIN-LEVELS TEST-LEVELS NAME [PROBE-ARGS]: EPISODES / N_TEST episodes, 5 seeds -> $S8/NAME.jsonl
    local fit=("${@:5}")
    [ ${#fit[@]} = 0 ] && fit=(--kernel 1,3 --source cell,hidden,obs --fit logreg)
    timed $R --seed 0 sokoban collect "$2" --agent "$1" --episodes "$EPISODES" -o "$OUT/work/A-$4.safetensors"
    timed $R --seed 0 sokoban collect "$3" --agent "$1" --episodes "$N_TEST" -o "$OUT/work/B-$4.safetensors"
    timed $R --seed 0 sokoban probe --train "$OUT/work/A-$4.safetensors" --test "$OUT/work/B-$4.safetensors" \
      --concept CA,CB "${fit[@]}" --seeds 5 -o "$OUT/work/P-$4.safetensors" > "$S8/$4.jsonl"
    rm -f "$OUT/work/A-$4.safetensors" "$OUT/work/B-$4.safetensors"
  }
  measure8() {  # TAG DIR ALPHAS
    timed $R sokoban play "$OUT/levels/test-8x8.txt" --agent "$2" --think 0,1,2,4 --no-episodes > "$S8/solve_rates-$1.jsonl"
    timed $R sokoban play "$OUT/work/hard-8x8.txt" --agent "$2" --think 0,1,2,4 --no-episodes > "$S8/solve_rates-hard-$1.jsonl"
    timed $R sokoban play "$OUT/work/hard-confirm-8x8.txt" --agent "$2" --think 0,1,2,4 --no-episodes \
      > "$S8/solve_rates-hard-confirm-$1.jsonl"
    timed $R --seed 0 sokoban collect "$OUT/work/probe-train-8x8.txt" --agent "$2" --episodes $(( EPISODES / 2 )) \
      -o "$OUT/work/A8$1.safetensors"
    timed $R --seed 0 sokoban collect "$OUT/levels/test-8x8.txt" --agent "$2" --episodes $(( N_TEST / 2 )) \
      -o "$OUT/work/B8$1.safetensors"
    timed $R --seed 0 sokoban probe --train "$OUT/work/A8$1.safetensors" --test "$OUT/work/B8$1.safetensors" \
      --concept CA,CB --kernel 1,3 --source cell,hidden,obs --seeds 1 --fit logreg -o "$OUT/work/P8$1.safetensors" \
      > "$S8/probes-$1.jsonl"
    # the full-size probe run: EPISODES / N_TEST episodes, 5 seeds
    full_probe_run "$2" "$OUT/work/probe-train-full-8x8.txt" "$OUT/levels/test-8x8.txt" "probes-full-$1"
    # claim 3: cases on 8x8 val levels, the official protocol writing the 1x1 CA cell-state probes
    timed $R sokoban cases "$OUT/work/val-8x8.txt" --agent "$2" -o "$OUT/work/cases8$1.jsonl"
    if [ -s "$OUT/work/cases8$1.jsonl" ]; then
      timed $R --seed 0 sokoban intervene --agent "$2" --cases "$OUT/work/cases8$1.jsonl" \
        --probes "$OUT/work/P8$1.safetensors" --alphas "$3" | { grep -v '"sokoban.intervention"' || true; } \
        > "$S8/interventions-$1.jsonl"
    fi
  }
  for arch in 2,2 3,3; do
    tag=drc${arch/,/}; dir="$OUT/agent-8x8"; alphas=8,16,32,64
    [ "$tag" = drc33 ] && dir="$OUT/agent-8x8-drc33" && alphas=4,8,16,32,64
    if [ ! -f "$dir/model.safetensors" ]; then
      timed $R --seed 20 sokoban train -o "$OUT/work/$tag-c1" --arch "$arch" --channels 16 --size 8 --boxes 1,2,3 \
        --envs 256 --levels 10000 --max-moves 60 --raw-encoder --minutes "$EIGHT" > "$S8/trained-$tag-c1.jsonl"
      timed $R --seed 21 sokoban train -o "$dir" --init "$OUT/work/$tag-c1" --arch "$arch" --channels 16 --size 8 \
        --boxes 1,2,3 --envs 256 --levels 10000 --max-moves 60 --minutes "$EIGHT2" > "$S8/trained-$tag-c2.jsonl"
      cp "$OUT/work/$tag-c1/train_log.json" "$dir/train_log-chunk1.json"  # the learning curve's first part
    fi
    measure8 "$tag" "$dir" "$alphas"
  done
  # the resume chunks at the official discount (gamma = lambda = 0.97): the DRC(3,3)'s chunk 3 (RESUME3 minutes,
  # seed 22) and chunk 4 (RESUME4 minutes, seed 23, Adam's moments continued), and the DRC(2,2)'s chunk 3 on harder
  # levels (>= 10 optimal moves; RESUMEH minutes, seed 22); then both lines one chunk further on harder levels still
  # (2-3 boxes, >= 12 optimal moves, seed 24, RESUME5H minutes each: the DRC(3,3)'s chunk 5h, the DRC(2,2)'s chunk 4h);
  # then chunk 3's solve rates and the others measured like the agents above. RESUME3=0 skips them.
  RESUME3=${RESUME3:-52}; RESUME4=${RESUME4:-75}; RESUMEH=${RESUMEH:-68}; RESUME5H=${RESUME5H:-76}
  if [ "$RESUME3" != 0 ]; then
    C3="$OUT/resume/agent-8x8-drc33-c3"; C4="$OUT/resume/agent-8x8-drc33-c4"; CH="$OUT/resume/agent-8x8-c3h"
    C5H="$OUT/resume/agent-8x8-drc33-c5h"; C4H="$OUT/resume/agent-8x8-c4h"
    cont="--channels 16 --size 8 --boxes 1,2,3 --envs 256 --levels 10000 --max-moves 60 --gamma 0.97 --lambda 0.97"
    if [ ! -f "$C4/model.safetensors" ]; then
      timed $R --seed 22 sokoban train -o "$C3" --init "$OUT/agent-8x8-drc33" --arch 3,3 $cont --minutes "$RESUME3" \
        > "$S8/trained-drc33-c3.jsonl"
      timed $R --seed 23 sokoban train -o "$C4" --init "$C3" --arch 3,3 $cont --minutes "$RESUME4" \
        > "$S8/trained-drc33-c4.jsonl"
    fi
    if [ ! -f "$CH/model.safetensors" ]; then
      timed $R --seed 22 sokoban train -o "$CH" --init "$OUT/agent-8x8" --arch 2,2 $cont --min-moves 10 \
        --minutes "$RESUMEH" > "$S8/trained-drc22-c3h.jsonl"
    fi
    hard="--channels 16 --size 8 --boxes 2,3 --envs 256 --levels 10000 --min-moves 12 --max-moves 60 --gamma 0.97 --lambda 0.97"
    hard_chunk() {  # DIR INIT SEED MINUTES TAG [TRAIN-OPTIONS...]: one DRC(2,2) chunk on these levels, unless DIR holds one
      [ -f "$1/model.safetensors" ] || timed $R --seed "$3" sokoban train -o "$1" --init "$2" --arch 2,2 $hard \
        --minutes "$4" "${@:6}" > "$S8/trained-drc22-$5.jsonl"
    }
    if [ ! -f "$C5H/model.safetensors" ]; then
      timed $R --seed 24 sokoban train -o "$C5H" --init "$C4" --arch 3,3 $hard --minutes "$RESUME5H" \
        > "$S8/trained-drc33-c5h.jsonl"
    fi
    hard_chunk "$C4H" "$CH" 24 "$RESUME5H" c4h
    timed $R sokoban play "$OUT/levels/test-8x8.txt" --agent "$C3" --think 0,1 --no-episodes > "$S8/solve_rates-c3-drc33.jsonl"
    timed $R sokoban play "$OUT/work/hard-confirm-8x8.txt" --agent "$C3" --think 0,1 --no-episodes \
      > "$S8/solve_rates-hard-confirm-c3-drc33.jsonl"
    measure8 c4-drc33 "$C4" 4,8,16,32,64
    measure8 c3h-drc22 "$CH" 8,16,32,64,128
    measure8 c5h-drc33 "$C5H" 4,8,16,32,64
    measure8 c4h-drc22 "$C4H" 8,16,32,64,128
    # the DRC(2,2) chunk 4h's thinking on fresh levels: 2000 hard ones (seed 9600) and 2000 of the test distribution
    # (seed 9700), then its k = 2 on 2000 more (seed 9800) to confirm or refute the first
    fresh_play() {  # NAME SEED THINK GEN-OPTIONS...: FRESH_N (2000) fresh levels, made once, played by every agent in $FRESH
      [ -f "$OUT/work/fresh-$1-8x8.txt" ] || timed $R --seed "$2" sokoban gen --size 8 "${@:4}" --max-moves 60 \
        --n "${FRESH_N:-$(( N_TEST * 2 ))}" --split test -o "$OUT/work/fresh-$1-8x8.txt"
      for tag in $FRESH; do
        timed $R sokoban play "$OUT/work/fresh-$1-8x8.txt" --agent "$OUT/resume/agent-8x8-${tag%-drc22}" --think "$3" \
          --no-episodes > "$S8/solve_rates-fresh-$1-$tag.jsonl"
      done
    }
    FRESH=c4h-drc22
    fresh_play hard 9600 0,2,4 --boxes 3 --min-moves 14
    fresh_play test 9700 0,2,4 --boxes 1,2,3
    fresh_play test2 9800 0,2 --boxes 1,2,3
    # the DRC(2,2) chunk 4h's intervention inputs ship: tests replay its test half
    ship_intervention_inputs() {  # TAG: the small-run probes and the cases, which tests replay
      cp "$OUT/work/P8$1.safetensors" "$S8/probes-$1.safetensors"
      cp "$OUT/work/cases8$1.jsonl" "$S8/cases-$1.jsonl"
    }
    ship_intervention_inputs c4h-drc22
    # the DRC(2,2) one chunk further, two ways side by side (RESUME6H minutes each): chunk 5h on chunk 4h's levels
    # (seed 25) and the branch 5x on harder levels still (3 boxes, >= 16 optimal moves, seed 26); measured as above,
    # with a wider alpha sweep, and on the fresh levels plus 2000 more hard ones (seed 9900)
    RESUME6H=${RESUME6H:-75}
    C5D="$OUT/resume/agent-8x8-c5h"; C5X="$OUT/resume/agent-8x8-c5x"
    hard_chunk "$C5D" "$C4H" 25 "$RESUME6H" c5h
    if [ ! -f "$C5X/model.safetensors" ]; then
      timed $R --seed 26 sokoban train -o "$C5X" --init "$C4H" --arch 2,2 --channels 16 --size 8 --boxes 3 --envs 256 \
        --levels 10000 --min-moves 16 --max-moves 80 --gamma 0.97 --lambda 0.97 --minutes "$RESUME6H" \
        > "$S8/trained-drc22-c5x.jsonl"
    fi
    measure8 c5h-drc22 "$C5D" 8,16,32,64,128,256
    measure8 c5x-drc22 "$C5X" 8,16,32,64,128,256
    fresh_sets() {  # the three fresh sets above and 2000 more hard levels (seed 9900), played by every agent in $FRESH
      fresh_play hard 9600 0,2,4 --boxes 3 --min-moves 14
      fresh_play hard2 9900 0,2,4 --boxes 3 --min-moves 14
      fresh_play test 9700 0,2,4 --boxes 1,2,3
      fresh_play test2 9800 0,2 --boxes 1,2,3
    }
    FRESH="c5h-drc22 c5x-drc22" fresh_sets
    # chunk 5h's longer thinking on the seed-9600 hard levels
    timed $R sokoban play "$OUT/work/fresh-hard-8x8.txt" --agent "$C5D" --think 0,8,16 --no-episodes \
      > "$S8/solve_rates-fresh-hard-k16-c5h-drc22.jsonl"
    ship_intervention_inputs c5h-drc22
    # chunk 6h: chunk 5h's line one chunk further on the same levels (seed 27, RESUME7H minutes), measured as above
    RESUME7H=${RESUME7H:-75}
    C6D="$OUT/resume/agent-8x8-c6h"
    hard_chunk "$C6D" "$C5D" 27 "$RESUME7H" c6h
    measure8 c6h-drc22 "$C6D" 8,16,32,64,128,256
    FRESH=c6h-drc22 fresh_sets
    ship_intervention_inputs c6h-drc22
    # chunk 7h: the next resume point (seed 28, RESUME8H minutes), trained beside chunk 6h's measurements; not measured
    RESUME8H=${RESUME8H:-44}
    C7D="$OUT/resume/agent-8x8-c7h"
    hard_chunk "$C7D" "$C6D" 28 "$RESUME8H" c7h
    # chunk 8h, two ways side by side from chunk 7h on the same levels (seed 29, RESUME9H minutes each), differing
    # only in the learning rate: the official 4e-4 (c8lo) and the 2e-3 of every chunk before (c8hi); measured as above
    RESUME9H=${RESUME9H:-70}
    C8L="$OUT/resume/agent-8x8-c8lo"; C8H="$OUT/resume/agent-8x8-c8hi"
    hard_chunk "$C8L" "$C7D" 29 "$RESUME9H" c8lo --lr 4e-4
    hard_chunk "$C8H" "$C7D" 29 "$RESUME9H" c8hi --lr 2e-3
    measure_one() {  # TAG DIR: one agent measured as above, its intervention inputs shipped
      measure8 "$1-drc22" "$2" 8,16,32,64,128,256
      FRESH="$1-drc22" fresh_sets
      ship_intervention_inputs "$1-drc22"
    }
    measure_pair() { measure_one "$1" "$2"; measure_one "$3" "$4"; }  # TAG-A DIR-A TAG-B DIR-B: two branches
    measure_pair c8lo "$C8L" c8hi "$C8H"
    # the thinking gains seen above (c8lo k = 1 on the 600 hard levels, c8hi k = 4 on the seed-9600 and 9700 sets),
    # confirmed or refuted on 4000 new hard levels (seed 10100) and 4000 new test-distribution levels (seed 10200)
    sized_play() { FRESH_N=$(( N_TEST * $1 )) fresh_play "${@:2}"; }  # TIMES NAME ...: fresh_play on TIMES x N_TEST levels
    FRESH="c8lo-drc22 c8hi-drc22"
    sized_play 4 confirm-hard 10100 0,1,2,4 --boxes 3 --min-moves 14
    sized_play 4 confirm-test 10200 0,1,2,4 --boxes 1,2,3
    # chunk 9h: chunk 8h-lo's line one chunk further at 4e-4 (seed 30, RESUME10H minutes); the next start, not measured
    RESUME10H=${RESUME10H:-35}
    C9D="$OUT/resume/agent-8x8-c9lo"
    hard_chunk "$C9D" "$C8L" 30 "$RESUME10H" c9lo --lr 4e-4
    # chunk 10h, two ways side by side from chunk 9h at 4e-4 (RESUME11H minutes each): on the same levels (c10lo,
    # seed 31) and on harder ones, as the 5x branch (c10x: 3 boxes, >= 16 optimal moves, seed 32); measured as above
    RESUME11H=${RESUME11H:-80}
    C10L="$OUT/resume/agent-8x8-c10lo"; C10X="$OUT/resume/agent-8x8-c10x"
    hard_chunk "$C10L" "$C9D" 31 "$RESUME11H" c10lo --lr 4e-4
    hard_chunk "$C10X" "$C9D" 32 "$RESUME11H" c10x --lr 4e-4 --boxes 3 --min-moves 16 --max-moves 80
    measure_pair c10lo "$C10L" c10x "$C10X"
    # the thinking check fixed before chunk 10h was played: k = 4 against k = 0 on the 4000 hard levels of seed 10100
    # and on 4000 new ones (seed 10300); the test-distribution set of seed 10200 beside them
    FRESH="c10lo-drc22 c10x-drc22"
    sized_play 4 confirm-hard 10100 0,1,2,4 --boxes 3 --min-moves 14
    sized_play 4 confirm-hard2 10300 0,4 --boxes 3 --min-moves 14
    sized_play 4 confirm-test 10200 0,1,2,4 --boxes 1,2,3
    # chunk 11h, two ways side by side from chunk 10h-x at 4e-4 (RESUME12H minutes each): on chunk 10h-x's kind of
    # level (c11x, seed 33) and on harder ones still (c11h: >= 18 optimal moves, 6000 of them, seed 34); measured as above
    RESUME12H=${RESUME12H:-75}
    C11X="$OUT/resume/agent-8x8-c11x"; C11H="$OUT/resume/agent-8x8-c11h"
    hard_chunk "$C11X" "$C10X" 33 "$RESUME12H" c11x --lr 4e-4 --boxes 3 --min-moves 16 --max-moves 80
    hard_chunk "$C11H" "$C10X" 34 "$RESUME12H" c11h --lr 4e-4 --boxes 3 --min-moves 18 --max-moves 80 --levels 6000
    measure_pair c11x "$C11X" c11h "$C11H"
    # the thinking check fixed before chunk 11h, judged on chunk 10h-x alone: k = 4 against k = 0 on two sets of 12000
    # new hard levels (seeds 10400, 10500); the chunk-11h agents beside it
    FRESH="c10x-drc22 c11x-drc22 c11h-drc22"
    sized_play 12 think-c 10400 0,4 --boxes 3 --min-moves 14
    sized_play 12 think-d 10500 0,4 --boxes 3 --min-moves 14
    # chunk 12h: chunk 11h-h's line one chunk further on its levels (seed 35, RESUME13H minutes), measured as above
    RESUME13H=${RESUME13H:-65}
    C12H="$OUT/resume/agent-8x8-c12h"
    hard_chunk "$C12H" "$C11H" 35 "$RESUME13H" c12h --lr 4e-4 --boxes 3 --min-moves 18 --max-moves 80 --levels 6000
    measure_one c12h "$C12H"
    # the thinking check fixed before chunk 12h was played, judged on chunk 11h-h alone: k = 4 against k = 0 on two
    # more sets of 12000 new hard levels (seeds 10600, 10700); chunks 10h-x, 11h-x and 12h beside it, and chunk 12h
    # on the sets of the check before
    FRESH="c11h-drc22 c10x-drc22 c11x-drc22 c12h-drc22"
    sized_play 12 think-e 10600 0,4 --boxes 3 --min-moves 14
    sized_play 12 think-f 10700 0,4 --boxes 3 --min-moves 14
    # set (e) missed it; the powered check then fixed, again on chunk 11h-h alone: two sets of 36000 (seeds 10800, 10900)
    FRESH=c11h-drc22
    sized_play 36 think-g 10800 0,4 --boxes 3 --min-moves 14
    sized_play 36 think-h 10900 0,4 --boxes 3 --min-moves 14
    FRESH=c12h-drc22
    sized_play 12 think-c 10400 0,4 --boxes 3 --min-moves 14
    sized_play 12 think-d 10500 0,4 --boxes 3 --min-moves 14
    # the probe check fixed before its levels existed, judged on chunk 12h alone: the full probe run on levels of the
    # full box count, as the official datasets (EPISODES new 3-box training levels, seed 11000; N_TEST test ones, 11100)
    timed $R --seed 11000 sokoban gen --size 8 --boxes 3 --max-moves 60 --n "$EPISODES" --split train \
      -o "$OUT/work/probe-train-3box-8x8.txt"
    timed $R --seed 11100 sokoban gen --size 8 --boxes 3 --max-moves 60 --n "$N_TEST" --split test \
      -o "$OUT/work/test-3box-8x8.txt"
    probe_3box() {  # TAG DIR: measure8's full probe run on the 3-box levels
      full_probe_run "$2" "$OUT/work/probe-train-3box-8x8.txt" "$OUT/work/test-3box-8x8.txt" "probes-full-3box-$1"
    }
    probe_3box c12h-drc22 "$C12H"
    # chunk 13, two ways side by side from chunk 12h on one pool made once (`gen --jsonl`, 10000 3-box levels of >= 16
    # optimal moves, seed 36) and passed to `train --levels-file`: at 4e-4 (c13, seed 37, RESUME14H minutes) and 2e-4
    # (c13lo, seed 38, RESUME14L minutes); measured as above, and on the 3-box probe levels. Then chunk 14-lo, chunk
    # 13-lo's line one chunk further on the pool (seed 39, RESUME15L minutes): the next start, not measured
    RESUME14H=${RESUME14H:-62}; RESUME14L=${RESUME14L:-58}; RESUME15L=${RESUME15L:-42}
    POOL16="$OUT/work/pool-16.jsonl"; C13="$OUT/resume/agent-8x8-c13"; C13L="$OUT/resume/agent-8x8-c13lo"
    C14L="$OUT/resume/agent-8x8-c14lo"
    pool_chunk() {  # DIR INIT SEED TAG LR MINUTES [TRAIN-OPTIONS...]: one DRC(2,2) chunk on the pool (made once),
      [ -f "$1/model.safetensors" ] && return  # unless DIR holds one
      [ -f "$POOL16" ] || timed $R --seed 36 sokoban gen --size 8 --boxes 3 --min-moves 16 --max-moves 80 --n 10000 \
        --jsonl -o "$POOL16"
      timed $R --seed "$3" sokoban train -o "$1" --init "$2" --arch 2,2 --channels 16 --size 8 --envs 256 \
        --levels-file "$POOL16" --gamma 0.97 --lambda 0.97 --lr "$5" --minutes "$6" "${@:7}" > "$S8/trained-drc22-$4.jsonl"
    }
    pool_chunk "$C13" "$C12H" 37 c13 4e-4 "$RESUME14H"
    pool_chunk "$C13L" "$C12H" 38 c13lo 2e-4 "$RESUME14L"
    measure_pair c13 "$C13" c13lo "$C13L"
    probe_3box c13-drc22 "$C13"
    probe_3box c13lo-drc22 "$C13L"
    pool_chunk "$C14L" "$C13L" 39 c14lo 2e-4 "$RESUME15L"
    # chunk 15, two learning rates side by side from chunk 14-lo on the pool (RESUME16 minutes each): 2e-4 (c15lo,
    # seed 40) and 1e-4 (c15vlo, seed 41); measured as above, and on the 3-box probe levels
    RESUME16=${RESUME16:-75}
    C15L="$OUT/resume/agent-8x8-c15lo"; C15V="$OUT/resume/agent-8x8-c15vlo"
    pool_chunk "$C15L" "$C14L" 40 c15lo 2e-4 "$RESUME16"
    pool_chunk "$C15V" "$C14L" 41 c15vlo 1e-4 "$RESUME16"
    measure_pair c15lo "$C15L" c15vlo "$C15V"
    probe_3box c15lo-drc22 "$C15L"
    probe_3box c15vlo-drc22 "$C15V"
    # chunk 16-lo: chunk 15-lo's line one chunk further on the pool (seed 42, RESUME17L minutes); chunk 17-lo one
    # further still from it (seed 43, RESUME18L minutes), measured as chunk 15
    RESUME17L=${RESUME17L:-35}; RESUME18L=${RESUME18L:-75}
    C16L="$OUT/resume/agent-8x8-c16lo"; C17L="$OUT/resume/agent-8x8-c17lo"
    pool_chunk "$C16L" "$C15L" 42 c16lo 2e-4 "$RESUME17L"
    pool_chunk "$C17L" "$C16L" 43 c17lo 2e-4 "$RESUME18L"
    measure_one c17lo "$C17L"
    probe_3box c17lo-drc22 "$C17L"
    # claim 2 two more ways on the full probe runs' data: with probe's default fit, the official conv probe (3x3, cell
    # states and the observation), and on the diagnostic tanh(cell) source (logreg, 1x1 and 3x3)
    probe_run_as() {  # KIND TAG DIR LEVELS(mixed|3box) PROBE-ARGS...: -> $S8/probes-full[-3box]-KIND-TAG.jsonl
      if [ "$4" = 3box ]; then
        full_probe_run "$3" "$OUT/work/probe-train-3box-8x8.txt" "$OUT/work/test-3box-8x8.txt" "probes-full-3box-$1-$2" "${@:5}"
      else
        full_probe_run "$3" "$OUT/work/probe-train-full-8x8.txt" "$OUT/levels/test-8x8.txt" "probes-full-$1-$2" "${@:5}"
      fi
    }
    both_ways() {  # TAG DIR LEVELS
      probe_run_as conv "$@" --kernel 3 --source cell,obs --fit conv
      probe_run_as tanh "$@" --kernel 1,3 --source tanh-cell --fit logreg
    }
    both_ways c13lo-drc22 "$C13L" mixed
    both_ways c15lo-drc22 "$C15L" mixed
    both_ways c15lo-drc22 "$C15L" 3box
    probe_run_as conv c17lo-drc22 "$C17L" mixed --kernel 3 --source cell,obs --fit conv
    # chunk 18, two ways side by side from chunk 17-lo on the pool (RESUME19 minutes each): at 2e-4 falling linearly
    # to 0 over the chunk (c18an, seed 44; the official schedule's end) and at 2e-4 throughout (c18lo, seed 45); the
    # full probe run of both, then the one with the larger top-cell margins (c18lo) measured as chunk 17-lo
    RESUME19=${RESUME19:-65}
    C18A="$OUT/resume/agent-8x8-c18an"; C18L="$OUT/resume/agent-8x8-c18lo"
    pool_chunk "$C18A" "$C17L" 44 c18an 2e-4 "$RESUME19" --anneal-lr
    pool_chunk "$C18L" "$C17L" 45 c18lo 2e-4 "$RESUME19"
    full_probe_run "$C18A" "$OUT/work/probe-train-full-8x8.txt" "$OUT/levels/test-8x8.txt" probes-full-c18an-drc22
    measure_one c18lo "$C18L"
    probe_3box c18lo-drc22 "$C18L"
    both_ways c18lo-drc22 "$C18L" mixed
    # chunk 19-lo: chunk 18-lo's line one chunk further at 2e-4 (seed 46, RESUME20 minutes), measured by the full
    # probe runs on both kinds of level, the official conv fit and tanh(c); then chunk 20-lo, one further still from
    # it (seed 47, RESUME21 minutes), measured by the full probe run and the official conv fit
    RESUME20=${RESUME20:-65}; RESUME21=${RESUME21:-90}
    C19L="$OUT/resume/agent-8x8-c19lo"
    pool_chunk "$C19L" "$C18L" 46 c19lo 2e-4 "$RESUME20"
    full_probe_run "$C19L" "$OUT/work/probe-train-full-8x8.txt" "$OUT/levels/test-8x8.txt" probes-full-c19lo-drc22
    probe_3box c19lo-drc22 "$C19L"
    both_ways c19lo-drc22 "$C19L" mixed
    C20L="$OUT/resume/agent-8x8-c20lo"
    pool_chunk "$C20L" "$C19L" 47 c20lo 2e-4 "$RESUME21"
    full_probe_run "$C20L" "$OUT/work/probe-train-full-8x8.txt" "$OUT/levels/test-8x8.txt" probes-full-c20lo-drc22
    probe_run_as conv c20lo-drc22 "$C20L" mixed --kernel 3 --source cell,obs --fit conv
  fi
fi
rm -rf "$OUT/work"
log done
