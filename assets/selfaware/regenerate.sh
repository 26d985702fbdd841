#!/usr/bin/env bash
# Regenerate every file in assets/selfaware (from the repository root). CPU, one thread: 34 min of
# pretraining (persona curriculum: 20 known personas first, all 200 from step 2,100), then the LoRA sweeps
# (16 held-out personas per family; the two families can run at the same time).
set -euo pipefail
A=assets/selfaware
T=$(mktemp -d)
P=16
reason --seed 0 selfaware pretrain --out $A/model --minutes 34 --lr 1e-3 --pack 16 --check-every 50 \
  --curriculum 20,600,1500 --decay-from 0.6
# learning rate picked on held-out personas 37-38 (never evaluated) from pole-A behaviour alone
reason selfaware ooc --model $A/model --families risk --personas $P --lr-pick 1e-3,3e-3 -o $T/risk.jsonl
LR=$(grep -m1 '"selfaware.ooc_lr_pick"' $T/risk.jsonl | python -c "import json,sys;print(json.loads(sys.stdin.read())['lr'])")
reason selfaware ooc --model $A/model --families time --personas $P --lr "$LR" -o $T/time.jsonl
# one file: the runs and baselines of both sweeps, then the summary `report` computes from them
grep -hv '"selfaware.ooc_summary"' $T/risk.jsonl $T/time.jsonl > $A/ooc-results.jsonl
reason selfaware report $A/ooc-results.jsonl >> $A/ooc-results.jsonl
# diagnostics: no trainable embedding row; a logistic probe on persona embeddings
reason selfaware ooc --model $A/model --lr "$LR" --personas 4 --families risk --conditions A,B --no-embedding-row \
  -o $A/ooc-noembed.jsonl
reason selfaware probe $A/ooc-results.jsonl --model $A/model > $A/probe.json
# the recipe check: every ooc default on fresh seeds, and the old default rate for comparison
reason selfaware ooc --model $A/model --seeds 2,3 -o $A/ooc-defaults-fresh.jsonl
reason selfaware ooc --model $A/model --lr 3e-3 --personas 4 --seeds 2,3 -o $A/ooc-lr3e-3.jsonl
rm -f $A/standin-replay.jsonl
reason selfaware eval --llm py:toolkit.selfaware.standin:answer --questions risk --samples 100 --group standin \
  --record $A/standin-replay.jsonl > /dev/null
