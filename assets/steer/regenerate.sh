#!/usr/bin/env bash
# Regenerates everything in assets/steer/ (run from the repository root).
# Training is CPU-only, single-threaded and seeded; the sweeps are deterministic.
set -euo pipefail
R="${REASON:-reason}"
A=assets/steer
export OMP_NUM_THREADS=1

if [ "${SKIP_TRAIN:-0}" != 1 ]; then
  $R steer train --out $A/model --steps 800 --seed 0 > $A/train.jsonl
fi

for fam in inductive deductive mathematical; do
  for method in mean mean-diff pca-diff; do
    $R steer derive --model $A/model --task $fam --n 300 --method $method --layers 1..3 --seed 0 \
      --out $A/vectors/$fam-$method.safetensors
    $R -q steer sweep --model $A/model --vector $A/vectors/$fam-$method.safetensors --task $fam \
      --alphas -2:2:0.25 --n-val 300 --n-test 500 --seed 0 \
      --plot $A/plots/$fam-$method.png --out $A/sweeps/$fam-$method.jsonl
  done
done
$R steer export --vector $A/vectors/mathematical-pca-diff.safetensors --gguf $A/vectors/mathematical-pca-diff.gguf
