#!/usr/bin/env bash
# Rebuild everything in assets/maps and the figures in its README (run from the repository root).
# The learned PPM's training is capped by wall clock (--minutes 30, two threads), so the steps it reaches depend on
# the CPU (2,547 on the two cores of the shipped run).
set -euo pipefail
R="reason --quiet"
# training data: item i of a seed is the same whatever --n is
$R maps generate --tier small --n 9000 --seed 1000 --questions 0 --out-dir runs/maps/train-small --workers 2
$R maps generate --tier medium --n 6000 --seed 1000 --questions 0 --out-dir runs/maps/train-medium --workers 2
$R maps train --data runs/maps/train-small --data runs/maps/train-medium --out assets/maps/ppm --minutes 30 \
  --cache runs/maps/train15k-256.npz
# the grid reader (perceive's default): 10,000 circuits of training seeds 1000 and 1001, 2,500 steps of one thread
# in resumable chunks of at most 10 minutes (the checkpoint stays in runs/), then the shipped files are copied
for s in 1000 1001; do
  $R maps generate --tier small --n 2500 --seed $s --questions 0 --out-dir runs/maps/grid-small-$s --workers 2
  $R maps generate --tier medium --n 2500 --seed $s --questions 0 --out-dir runs/maps/grid-medium-$s --workers 2
done
G="--data runs/maps/grid-small-1000 --data runs/maps/grid-medium-1000 --data runs/maps/grid-small-1001"
G="$G --data runs/maps/grid-medium-1001 --out runs/maps/ppm-grid --cache runs/maps/grid-train.npz --steps 2500"
OMP_NUM_THREADS=1 $R maps train --kind grid $G --minutes 10
until grep -q '"done": true' runs/maps/ppm-grid/config.json; do
  OMP_NUM_THREADS=1 $R maps train --kind grid $G --minutes 10 --resume
done
mkdir -p assets/maps/ppm-grid
cp runs/maps/ppm-grid/{grid.safetensors,config.json,loss.jsonl} assets/maps/ppm-grid/
# the exemplar reader, fitted on the first 310/244 items
$R maps generate --tier small --n 310 --seed 1000 --questions 0 --out-dir runs/maps/exemplar-small
$R maps generate --tier medium --n 244 --seed 1000 --questions 0 --out-dir runs/maps/exemplar-medium
$R maps train --kind exemplar --data runs/maps/exemplar-small --data runs/maps/exemplar-medium \
  --out assets/maps/ppm-exemplar
$R maps generate --tier small --n 20 --seed 7 --out-dir assets/maps/examples
# the stand-in LLM recording (pipeline demo, not a model result): the README pipeline with --answerer llm
$R maps perceive assets/maps/examples/circuits.jsonl | $R maps simulate - > runs/maps/examples-sims.jsonl
rm -f assets/maps/replay.jsonl
$R maps answer --answerer llm --llm py:toolkit.maps.standin:respond --record assets/maps/replay.jsonl \
  --questions assets/maps/examples/questions.jsonl runs/maps/examples-sims.jsonl > /dev/null
# held-out evaluation sets (fresh seeds)
$R maps generate --tier small --n 500 --seed 5000 --out-dir runs/maps/eval-small --workers 2
$R maps generate --tier medium --n 100 --seed 6000 --out-dir runs/maps/eval-medium --workers 2
for M in assets/maps/ppm assets/maps/ppm-exemplar; do
  for t in small medium; do
    d=runs/maps/eval-$t; o=$d/$(basename $M)
    mkdir -p $o
    $R maps perceive $d/circuits.jsonl --model $M > $o/netlists.jsonl
    $R maps equiv $o/netlists.jsonl --gold $d/circuits.jsonl | tail -n 1 > $o/equiv.json
    $R maps simulate $o/netlists.jsonl > $o/sims.jsonl
    $R maps answer --questions $d/questions.jsonl $o/sims.jsonl | $R maps eval - --gold $d/questions.jsonl > $o/rule-eval.json
    $R maps answer --answerer reduce --questions $d/questions.jsonl $o/netlists.jsonl \
      | $R maps eval - --gold $d/questions.jsonl > $o/reduce-eval.json
    if [ "$(basename $M)" = ppm ]; then  # the learned PPM keeps each grid text
      PYTHONPATH=. python assets/maps/breakdown.py $o/netlists.jsonl $d/circuits.jsonl > $o/breakdown.json
    fi
  done
done
for t in small medium; do
  d=runs/maps/eval-$t
  $R maps simulate $d/circuits.jsonl | $R maps answer --questions $d/questions.jsonl - \
    | $R maps eval - --gold $d/questions.jsonl > $d/gold-rule-eval.json
  $R maps answer --answerer reduce --questions $d/questions.jsonl $d/circuits.jsonl \
    | $R maps eval - --gold $d/questions.jsonl > $d/gold-reduce-eval.json
done
PYTHONPATH=. python assets/maps/crosscheck.py 300 1 small
PYTHONPATH=. python assets/maps/crosscheck.py 100 1 medium
# the exemplar reader's confidence: threshold chosen on validation seed 8000, measured on fresh seed 9000
$R maps generate --tier small --n 200 --seed 8000 --questions 0 --out-dir runs/maps/val-small --workers 2
$R maps generate --tier small --n 150 --seed 9000 --out-dir runs/maps/test-small --workers 2
$R maps generate --tier medium --n 100 --seed 9000 --out-dir runs/maps/test-medium --workers 2
for d in runs/maps/val-small runs/maps/test-small runs/maps/test-medium; do
  $R maps perceive $d/circuits.jsonl --model assets/maps/ppm-exemplar > $d/exemplar-netlists.jsonl
  $R maps equiv $d/exemplar-netlists.jsonl --gold $d/circuits.jsonl | tail -n 1 > $d/exemplar-equiv.json
done
# the grid reader: its confidence threshold chosen on validation seed 8000 (small 200, medium 100), its figures
# measured on fresh seed 9100 (small 150, medium 100, with questions), the exemplar reader beside it
$R maps generate --tier medium --n 100 --seed 8000 --questions 0 --out-dir runs/maps/val-medium --workers 2
$R maps generate --tier small --n 150 --seed 9100 --out-dir runs/maps/test9100-small --workers 2
$R maps generate --tier medium --n 100 --seed 9100 --out-dir runs/maps/test9100-medium --workers 2
for d in runs/maps/val-small runs/maps/val-medium runs/maps/test9100-small runs/maps/test9100-medium; do
  for M in ppm-grid ppm-exemplar; do
    o=$d/$M; mkdir -p $o
    $R maps perceive $d/circuits.jsonl --model assets/maps/$M > $o/netlists.jsonl
    $R maps equiv $o/netlists.jsonl --gold $d/circuits.jsonl | tail -n 1 > $o/equiv.json
    if [ -s $d/questions.jsonl ]; then
      $R maps simulate $o/netlists.jsonl > $o/sims.jsonl
      $R maps answer --questions $d/questions.jsonl $o/sims.jsonl | $R maps eval - --gold $d/questions.jsonl \
        > $o/rule-eval.json
      $R maps answer --answerer reduce --questions $d/questions.jsonl $o/netlists.jsonl \
        | $R maps eval - --gold $d/questions.jsonl > $o/reduce-eval.json
    fi
  done
done
