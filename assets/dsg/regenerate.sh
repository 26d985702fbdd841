#!/usr/bin/env bash
# Regenerates assets/dsg: training split, the tiny primitive model, the end-to-end baseline, examples, the
# stand-in schema recording, and the claim figures on fresh seeds (10010 train styles, 10011 held-out styles).
# Usage: bash assets/dsg/regenerate.sh [all|model|e2e-model|assets|claims|headline]   (default: all but headline);
# DSG_CLAIM_N: scenes per concept and split of the claim runs (default 300).
# Each training run is capped at 25 min wall on one thread; the shipped models ran side by side, one core each
# (OMP_NUM_THREADS=1); see README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
R="python -m cli"
stage=${1:-all}
TRAIN=(--model runs/tiny --images-per-batch 8 --per-image 8 --minutes 25 --epochs 12 --lr 3e-3 --eval-every 300
       --seed 0)
if [ "$stage" = all ] || [ "$stage" = model ]; then
  $R dsg gen --concepts tictactoe,maze,stacks --n 1000 --styles train --seed 1 --out runs/tr
  $R dsg tiny --data runs/tr/primitives.jsonl --data runs/tr/items.jsonl --out runs/tiny --seed 0
  OMP_NUM_THREADS=1 $R dsg train --data runs/tr/primitives.jsonl "${TRAIN[@]}" --out runs/model
fi
if [ "$stage" = all ] || [ "$stage" = e2e-model ]; then
  OMP_NUM_THREADS=1 $R dsg train --data runs/tr/primitives.jsonl --abstract runs/tr/items.jsonl --abstract-repeat 4 \
    "${TRAIN[@]}" --out runs/e2e-model
fi
if [ "$stage" = all ] || [ "$stage" = assets ]; then
  for m in model e2e-model; do
    rm -rf assets/dsg/$m && mkdir -p assets/dsg/$m
    cp runs/$m/*.json runs/$m/train_log.jsonl runs/$m/model.safetensors assets/dsg/$m/
  done
  for s in train heldout; do $R dsg gen --n 4 --styles $s --seed 20000 --out assets/dsg/examples/$s; done
  rm -f assets/dsg/schema-replay.jsonl
  for c in maze tictactoe stacks garden; do
    $R dsg schema --concept $c --llm py:toolkit.dsg.standin:schema_llm --record assets/dsg/schema-replay.jsonl \
      > /dev/null
  done
fi
if [ "$stage" = all ] || [ "$stage" = claims ]; then
  for split in train heldout; do
    seed=$([ $split = train ] && echo 10010 || echo 10011)
    d=runs/claims/$split
    $R dsg gen --n "${DSG_CLAIM_N:-300}" --styles $split --seed $seed --out $d
    $R dsg run --items $d/items.jsonl --model assets/dsg/model --mode dsg -o $d/dsg.jsonl
    $R dsg run --items $d/items.jsonl --model assets/dsg/model --mode dsg --compose vlm -o $d/dsg-vlm.jsonl
    $R dsg run --items $d/items.jsonl --model assets/dsg/model --mode direct -o $d/prim-direct.jsonl
    $R dsg run --items $d/items.jsonl --model assets/dsg/e2e-model --mode direct -o $d/e2e-direct.jsonl
    for p in dsg dsg-vlm prim-direct e2e-direct; do
      # chance (weighted by question type) and the question-only prior of the training split beside each score
      $R dsg eval --pred $d/$p.jsonl --gold $d/items.jsonl --prior runs/tr/items.jsonl --json > $d/$p.eval.json
    done
    # claim 1: the primitive model on every 4th primitive question of the split
    python - "$d" <<'PY'
import json, sys
from pathlib import Path
from toolkit.core.vlm import load_vlm
from toolkit.dsg.data import read_primitives
from toolkit.dsg.train import accuracy_by_kind, examples_from
d = Path(sys.argv[1])
rows = examples_from(read_primitives(d / "primitives.jsonl")[::4], None)
acc = accuracy_by_kind(load_vlm("assets/dsg/model", device="cpu"), rows)
n = sum(c for _, c in acc.values())
out = {"n": n, "accuracy": sum(a * c for a, c in acc.values()) / n, "by_node": acc}
(d / "primitives.eval.json").write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out))
PY
  done
fi
if [ "$stage" = headline ]; then
  # the README's headline: fresh held-out seed 10031, DSG with both composers and the end-to-end model asked
  # directly, each next to chance and the question-only prior of a training split in the current generator
  d=runs/headline
  $R dsg gen --n 300 --styles train --seed 1 --out $d/train > /dev/null
  $R dsg gen --n "${DSG_HEADLINE_N:-300}" --styles heldout --seed 10031 --out $d/heldout > /dev/null
  h=$d/heldout
  $R dsg run --items $h/items.jsonl --model assets/dsg/model --mode dsg --compose program -o $h/dsg-program.jsonl
  $R dsg run --items $h/items.jsonl --model assets/dsg/model --mode dsg --compose vlm -o $h/dsg-vlm.jsonl
  $R dsg run --items $h/items.jsonl --model assets/dsg/e2e-model --mode direct -o $h/e2e-direct.jsonl
  for p in dsg-program dsg-vlm e2e-direct; do
    $R dsg eval --pred $h/$p.jsonl --gold $h/items.jsonl --prior $d/train/items.jsonl
  done
  # paired difference against the end-to-end model: bootstrap over items (2,000 resamples, seed 0)
  python - "$h" <<'PY'
import json, random, sys
from toolkit.dsg.data import read_gold
from toolkit.dsg.score import correct
h = sys.argv[1]
gold = read_gold(f"{h}/items.jsonl")
def hits(name):
    out = {}
    for line in open(f"{h}/{name}.jsonl"):
        r = json.loads(line)
        if r["type"] == "dsg.answer":
            g = gold[r["id"]]
            out[r["id"]] = int(correct(r["answer"], str(g["answer"]), g["question_type"], g.get("choices")))
    return out
base = hits("e2e-direct")
for name in ("dsg-program", "dsg-vlm"):
    a = hits(name)
    diff = [a[i] - base[i] for i in sorted(a)]
    rng, k = random.Random(0), len(diff)
    means = sorted(sum(diff[rng.randrange(k)] for _ in range(k)) / k for _ in range(2000))
    print(f"{name} - e2e-direct: {sum(diff) / k:+.4f} [{means[49]:+.4f}, {means[1949]:+.4f}], n={k}")
PY
fi
