#!/bin/bash
# Matcha with the base-TTA hyperparameters chosen by `reason matcha select` (select-t3a.jsonl, select-tent.jsonl,
# validation seed 0), measured on the homophily-shift pairs of fresh seeds 5-9 (source models trained and saved in
# MODELS by the bench when missing). Usage: bash assets/matcha/tuned.sh MODELS [SEEDS] [OUT_DIR] [SETTINGS]
set -euo pipefail
A=assets/matcha
MODELS=$1 SEEDS=${2:-5-9} OUT=${3:-$A} SETTINGS=${4:-homo2hetero}
REASON=${REASON:-reason}
chosen() {  # the last record's choice as bench options: lr -> --lr (Matcha), t3a_temperature -> --t3a-temperature
  tail -n 1 "$1" | python3 -c 'import json, sys
print(" ".join(f"--{k.replace(chr(95), chr(45))} {v}" for k, v in json.loads(sys.stdin.read())["chosen"].items()))'
}
for tta in t3a tent; do
  # shellcheck disable=SC2046
  $REASON --quiet matcha bench --settings "$SETTINGS" --seeds "$SEEDS" --tta "$tta" --models "$MODELS" \
    --save-models "$MODELS" \
    $(chosen "$A/select-$tta.jsonl") --resume -o "$OUT/cells-tuned-$tta.jsonl"
done
cat "$OUT/cells-tuned-t3a.jsonl" "$OUT/cells-tuned-tent.jsonl" > "$OUT/cells-tuned.jsonl"
$REASON matcha report "$OUT/cells-tuned.jsonl" --md-out "$OUT/table-tuned.md" > /dev/null
