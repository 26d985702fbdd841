#!/usr/bin/env bash
# Regenerates assets/dsg: training split, the tiny primitive model, the end-to-end baseline, examples, the
# stand-in schema recording, and the claim figures on fresh seeds (10000 train styles, 10001 held-out styles).
# Training runs are capped at 12 min wall each (one thread); see README.md for the measured figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
R="python -m cli"
$R dsg gen --concepts tictactoe,maze,stacks --n 1000 --styles train --seed 1 --out runs/tr
$R dsg tiny --data runs/tr/primitives.jsonl --data runs/tr/items.jsonl --out runs/tiny --seed 0
$R dsg train --data runs/tr/primitives.jsonl --model runs/tiny --out runs/model --per-image 8 --minutes 12 \
  --epochs 3 --batch-size 16 --lr 2e-3 --eval-every 100 --seed 0
$R dsg train --data runs/tr/primitives.jsonl --abstract runs/tr/items.jsonl --abstract-repeat 4 --model runs/tiny \
  --out runs/e2e-model --per-image 8 --minutes 12 --epochs 3 --batch-size 16 --lr 2e-3 --eval-every 100 --seed 0
for m in model e2e-model; do
  rm -rf assets/dsg/$m && mkdir -p assets/dsg/$m
  cp runs/$m/{config.json,generation_config.json,model.safetensors,processor_config.json,tokenizer.json,tokenizer_config.json,tiny_spec.json,train_log.jsonl,train_summary.json} assets/dsg/$m/ 2>/dev/null || true
  cp runs/$m/*.json assets/dsg/$m/ 2>/dev/null || true
done
for s in train heldout; do $R dsg gen --n 4 --styles $s --seed 20000 --out assets/dsg/examples/$s; done
rm -f assets/dsg/schema-replay.jsonl
for c in maze tictactoe stacks garden; do
  $R dsg schema --concept $c --llm py:toolkit.dsg.standin:schema_llm --record assets/dsg/schema-replay.jsonl > /dev/null
done
for split in train heldout; do
  seed=$([ $split = train ] && echo 10000 || echo 10001)
  $R dsg gen --n 300 --styles $split --seed $seed --out runs/claims/$split
  $R dsg run --items runs/claims/$split/items.jsonl --model assets/dsg/model --mode dsg -o runs/claims/$split/dsg.jsonl
  $R dsg run --items runs/claims/$split/items.jsonl --model assets/dsg/model --mode direct -o runs/claims/$split/prim-direct.jsonl
  $R dsg run --items runs/claims/$split/items.jsonl --model assets/dsg/e2e-model --mode direct -o runs/claims/$split/e2e-direct.jsonl
  for p in dsg prim-direct e2e-direct; do
    $R dsg eval --pred runs/claims/$split/$p.jsonl --gold runs/claims/$split/items.jsonl --json > runs/claims/$split/$p.eval.json
  done
done
