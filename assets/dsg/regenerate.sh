#!/usr/bin/env bash
# Regenerates assets/dsg: training split, the tiny primitive model, the end-to-end baseline, examples, the
# stand-in schema recording, and the claim figures on fresh seeds (10010 train styles, 10011 held-out styles).
# Usage: bash assets/dsg/regenerate.sh [all|grounder|model|e2e-model|assets|claims|headline]
#   (default: all but grounder and headline);
# DSG_CLAIM_N: scenes per concept and split of the claim runs (default 300).
# Each training run is capped at 25 min wall on one thread; the shipped models ran side by side, one core each
# (OMP_NUM_THREADS=1); see README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
R="python -m cli"
stage=${1:-all}
TRAIN=(--model runs/tiny --images-per-batch 8 --per-image 8 --minutes 25 --epochs 12 --lr 3e-3 --eval-every 300
       --seed 0)
if [ "$stage" = grounder ]; then
  # the default grounding model: the CNN grounder on 2,000 train-style scenes per concept (primitive questions
  # and each scene's abstract question), 7 epochs at lr 2e-3, then three stages at 1e-3 (2, 3 and 3 epochs, the last
  # with --outlines), each from the weights of the one before, in resumable chunks of <= 9.5 min on one thread
  $R dsg gen --concepts tictactoe,maze,stacks --n 2000 --styles train --seed 1 --out runs/cnn-tr > /dev/null
  D=(--data runs/cnn-tr/primitives.jsonl --abstract runs/cnn-tr/items.jsonl --minutes 9.5)
  for stage in 1 2 3 4; do
    case $stage in
      1) G=("${D[@]}" --out runs/grounder --epochs 7 --lr 2e-3 --seed 0) ;;
      2) G=("${D[@]}" --out runs/grounder2 --init runs/grounder --epochs 2 --lr 1e-3 --seed 1) ;;
      3) G=("${D[@]}" --out runs/grounder3 --init runs/grounder2 --epochs 3 --lr 1e-3 --seed 0) ;;
      4) G=("${D[@]}" --out runs/grounder4 --init runs/grounder3 --outlines --epochs 3 --lr 1e-3 --seed 0) ;;
    esac
    OMP_NUM_THREADS=1 nice -n 10 $R dsg train-grounder "${G[@]}" > runs/grounder-chunk.out
    until grep -q '"done": true' runs/grounder-chunk.out; do
      OMP_NUM_THREADS=1 nice -n 10 $R dsg train-grounder "${G[@]}" --resume > runs/grounder-chunk.out
    done
  done
  rm -rf assets/dsg/grounder && mkdir -p assets/dsg/grounder
  cp runs/grounder4/grounder.json runs/grounder4/model.safetensors runs/grounder4/train_log.jsonl assets/dsg/grounder/
  cp runs/grounder/train_log.jsonl assets/dsg/grounder/stage1_train_log.jsonl
  cp runs/grounder2/train_log.jsonl assets/dsg/grounder/stage2_train_log.jsonl
  cp runs/grounder3/train_log.jsonl assets/dsg/grounder/stage3_train_log.jsonl
fi
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
  # the README's headline: fresh held-out seed 10031, the default grounding model (assets/dsg/grounder) with both
  # composers, the same network asked directly (end-to-end), each next to chance and the question-only prior of a
  # training split; the primitive questions of the same scenes per component against the prior
  d=runs/headline
  $R dsg gen --n 300 --styles train --seed 1 --out $d/train > /dev/null
  $R dsg gen --n "${DSG_HEADLINE_N:-300}" --styles heldout --seed 10031 --out $d/heldout > /dev/null
  h=$d/heldout
  $R dsg run --items $h/items.jsonl --mode dsg --compose program -o $h/dsg-program.jsonl
  $R dsg run --items $h/items.jsonl --mode dsg --compose vlm -o $h/dsg-vlm.jsonl
  $R dsg run --items $h/items.jsonl --mode direct -o $h/e2e-direct.jsonl
  for p in dsg-program dsg-vlm e2e-direct; do
    $R dsg eval --pred $h/$p.jsonl --gold $h/items.jsonl --prior $d/train/items.jsonl --json > $h/$p.eval.json
    $R dsg eval --pred $h/$p.jsonl --gold $h/items.jsonl --prior $d/train/items.jsonl
  done
  python - "$d" <<'PY'
import json, random, sys
from toolkit.core.assets import asset_path
from toolkit.dsg.cnn import CNNGrounder
from toolkit.dsg.data import read_gold, read_primitives
from toolkit.dsg.evaluate import primitive_accuracy
from toolkit.dsg.ground import GrounderAsker
from toolkit.dsg.score import correct
d = sys.argv[1]
h = f"{d}/heldout"
# primitives: every primitive question of the held-out scenes, per component, against the question-only prior
asker = GrounderAsker(CNNGrounder(asset_path("dsg/grounder")), "local:grounder")
prims = primitive_accuracy(asker, read_primitives(f"{h}/primitives.jsonl"), read_primitives(f"{d}/train/primitives.jsonl"))
open(f"{h}/primitives.eval.json", "w").write(json.dumps(prims, indent=1) + "\n")
print(json.dumps(prims))
# paired difference against the end-to-end answers: bootstrap over items (2,000 resamples, seed 0)
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
