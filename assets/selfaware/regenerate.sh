#!/usr/bin/env bash
# Regenerate every file in assets/selfaware (from the repository root). CPU: ~14 min pretraining plus
# ~30-40 min of LoRA runs on one thread.
set -euo pipefail
A=assets/selfaware
reason --seed 0 selfaware pretrain --out $A/model --minutes 14
rm -f $A/ooc-results.jsonl $A/ooc-noembed.jsonl
reason selfaware ooc --model $A/model --lr-pick 1e-3,3e-3,1e-2 -o $A/ooc-results.jsonl --resume
LR=$(grep -m1 '"selfaware.ooc_lr_pick"' $A/ooc-results.jsonl | python -c "import json,sys;print(json.loads(sys.stdin.read())['lr'])")
reason selfaware ooc --model $A/model --lr "$LR" --personas 8 --families risk --conditions A,B --no-embedding-row \
  -o $A/ooc-noembed.jsonl --resume
reason selfaware probe $A/ooc-results.jsonl --model $A/model > $A/probe.json
reason selfaware eval --llm py:toolkit.selfaware.standin:answer --questions risk --samples 100 --group standin \
  --record $A/standin-replay.jsonl > /dev/null
