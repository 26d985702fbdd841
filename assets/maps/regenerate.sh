#!/usr/bin/env bash
# Rebuild everything in assets/maps and the figures in its README (run from the repository root).
set -euo pipefail
R="reason --quiet"
# training data: item i of a seed is the same whatever --n is, so these are the first 310/244 items
$R maps generate --tier small --n 310 --seed 1000 --questions 0 --out-dir runs/maps/train-small
$R maps generate --tier medium --n 244 --seed 1000 --questions 0 --out-dir runs/maps/train-medium
$R maps train --data runs/maps/train-small --data runs/maps/train-medium --out assets/maps/ppm
$R maps generate --tier small --n 20 --seed 7 --out-dir assets/maps/examples
# held-out evaluation sets (fresh seeds)
$R maps generate --tier small --n 500 --seed 5000 --out-dir runs/maps/eval-small
$R maps generate --tier medium --n 200 --seed 6000 --out-dir runs/maps/eval-medium
for t in small medium; do
  d=runs/maps/eval-$t
  $R maps perceive $d/circuits.jsonl > $d/ppm.jsonl
  $R maps equiv $d/ppm.jsonl --gold $d/circuits.jsonl | tail -n 1 > $d/ppm-equiv.json
  $R maps simulate $d/ppm.jsonl > $d/ppm-sims.jsonl
  $R maps answer --questions $d/questions.jsonl $d/ppm-sims.jsonl > $d/ppm-rule.jsonl
  $R maps eval $d/ppm-rule.jsonl --gold $d/questions.jsonl > $d/ppm-rule-eval.json
  $R maps answer --answerer reduce --questions $d/questions.jsonl $d/ppm.jsonl > $d/ppm-reduce.jsonl
  $R maps eval $d/ppm-reduce.jsonl --gold $d/questions.jsonl > $d/ppm-reduce-eval.json
  $R maps simulate $d/circuits.jsonl > $d/gold-sims.jsonl
  $R maps answer --questions $d/questions.jsonl $d/gold-sims.jsonl | $R maps eval - --gold $d/questions.jsonl > $d/gold-rule-eval.json
  $R maps answer --answerer reduce --questions $d/questions.jsonl $d/gold-sims.jsonl | $R maps eval - --gold $d/questions.jsonl > $d/gold-reduce-eval.json
done
PYTHONPATH=. python assets/maps/crosscheck.py 300 1 small
