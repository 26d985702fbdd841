#!/usr/bin/env bash
# Regenerate every file in assets/selfaware (from the repository root). CPU, one thread: 14 min of
# pretraining in two stages, then the LoRA sweeps (the two families can run at the same time).
set -euo pipefail
A=assets/selfaware
T=$(mktemp -d)
reason --seed 0 selfaware pretrain --out $T/pretrain-1 --minutes 14
reason selfaware pretrain --init $T/pretrain-1 --out $A/model --minutes 15
# learning rate picked on held-out personas 37-38 (never evaluated) from pole-A behaviour alone
reason selfaware ooc --model $A/model --families risk --lr-pick 1e-3,3e-3 -o $T/risk.jsonl
LR=$(grep -m1 '"selfaware.ooc_lr_pick"' $T/risk.jsonl | python -c "import json,sys;print(json.loads(sys.stdin.read())['lr'])")
reason selfaware ooc --model $A/model --families time --lr "$LR" -o $T/time.jsonl
# one file: the runs and baselines of both sweeps, then the summary `report` computes from them
grep -hv '"selfaware.ooc_summary"' $T/risk.jsonl $T/time.jsonl > $A/ooc-results.jsonl
reason selfaware report $A/ooc-results.jsonl >> $A/ooc-results.jsonl
# diagnostics: no trainable embedding row; a logistic probe on persona embeddings
reason selfaware ooc --model $A/model --lr "$LR" --personas 8 --families risk --conditions A,B --no-embedding-row \
  -o $A/ooc-noembed.jsonl
reason selfaware probe $A/ooc-results.jsonl --model $A/model > $A/probe.json
rm -f $A/standin-replay.jsonl
reason selfaware eval --llm py:toolkit.selfaware.standin:answer --questions risk --samples 100 --group standin \
  --record $A/standin-replay.jsonl > /dev/null
