#!/usr/bin/env bash
# Regenerates every file of assets/chase_sql: the demo databases and the recorded LLM replay.
# The replay is produced by the real pipeline (`reason chase-sql run --record`) talking to the
# deterministic rule-based stand-in toolkit/chase_sql/standin/, not to a real LLM. The stand-in
# reads only the prompts it is sent (never dev.json or the gold SQL): a pipeline demo, not a model result.
set -euo pipefail
cd "$(dirname "$0")/../.."
REASON=${REASON:-"python -m cli"}
$REASON chase-sql make-demo --out assets/chase_sql/demo
rm -f assets/chase_sql/replay-dev.jsonl
cache=$(mktemp -d)
$REASON --quiet chase-sql run --data assets/chase_sql/demo --split dev \
  --llm py:toolkit.chase_sql.standin:complete --record assets/chase_sql/replay-dev.jsonl --cache-dir "$cache" \
  --seed 0 --out assets/chase_sql/predictions-dev.jsonl
rm -rf "$cache"

# --- Models trained here (`bash assets/chase_sql/regenerate.sh models`; about 150 minutes on 2 cores;
# the shipped generator was trained with two threads and no other job). Training and selector-pool worlds
# use the train split (invented train names); the shipped test world uses the
# test split's names (none in common with training) and its own seed.
if [ "${1:-}" = "models" ]; then
  export OMP_NUM_THREADS=1
  W=${WORLDS:-$(mktemp -d)}
  # the generator's training world: names invented per database (English words or syllable strings, never a test
  # or validation name), so the model has to copy names from its prompt instead of learning them by heart
  $REASON chase-sql world --seed 31 --dbs 250 --split train --names random --questions-per-db 10 --out "$W/train"
  rm -rf assets/chase_sql/world-test
  $REASON chase-sql world --seed 101 --dbs 10 --split test --questions-per-db 10 --out assets/chase_sql/world-test
  rm -rf assets/chase_sql/generator assets/chase_sql/selector
  $REASON --seed 0 chase-sql train-generator "$W/train" --out assets/chase_sql/generator --minutes 25 --seed 0 \
    --schema compact --copy-head
  # Selector pools: the shipped generator's own candidates (every default but the fixer, off: schema constraint on)
  # on three fresh train-split worlds (invented names; seed 64 varied names): 63 candidates a question on the first
  # 36 questions of seed 62 and 15 of seed 64, 21 a question (the test pools' size) on 120 of seed 63.
  GEN="hf:assets/chase_sql/generator?batch_size=21"
  for s in 62 63; do
    $REASON chase-sql world --seed $s --dbs 40 --split train --names random --questions-per-db 3 --out "$W/sel$s"
  done
  $REASON chase-sql world --seed 64 --dbs 40 --split train --names varied --questions-per-db 3 --out "$W/sel64"
  for spec in 62:36:21 64:15:21 63:120:7; do
    IFS=: read -r s n k <<<"$spec"
    $REASON --quiet chase-sql run --data "$W/sel$s" --limit "$n" --llm "hf:assets/chase_sql/generator?batch_size=$k" \
      --selector self-consistency --per-generator "$k" --fix-attempts 0 --seed 0 --cache-dir "$W/idx" -o "$W/sel$s.jsonl"
  done
  $REASON --seed 0 chase-sql train-selector "$W/sel62.jsonl" "$W/sel64.jsonl" "$W/sel63.jsonl" \
    --data "$W/sel62" --data "$W/sel64" --data "$W/sel63" --split dev \
    --model assets/chase_sql/generator --classifier --minutes 10 --per-question 32 --pair-unit sql --batch-size 16 \
    --seed 0 --out "$W/selector0"
  # ... continued (its A/B head kept) on pools of three more fresh train-split worlds, 120 questions each, 21
  # candidates a question: seeds 71 and 73 invented names, 72 varied names (about 50 minutes of sampling, one thread)
  for spec in 71:random 72:varied 73:random; do
    IFS=: read -r s names <<<"$spec"
    $REASON chase-sql world --seed $s --dbs 40 --split train --names $names --questions-per-db 3 --out "$W/sel$s"
    $REASON --quiet chase-sql run --data "$W/sel$s" --limit 120 --llm "hf:assets/chase_sql/generator?batch_size=7" \
      --selector self-consistency --per-generator 7 --fix-attempts 0 --seed 0 --cache-dir "$W/idx" -o "$W/sel$s.jsonl"
  done
  $REASON --seed 0 chase-sql train-selector "$W/sel71.jsonl" "$W/sel72.jsonl" "$W/sel73.jsonl" \
    --data "$W/sel71" --data "$W/sel72" --data "$W/sel73" --split dev \
    --model "$W/selector0" --classifier --minutes 10 --per-question 32 --pair-unit sql --batch-size 16 \
    --seed 0 --out assets/chase_sql/selector
  rm -f assets/chase_sql/selector/chat_template.jinja
  # The generator's pools on the shipped test world, the source of the test pairs and of the README's pool figures
  # (`breakdown --pool ...`). selector-test-pairs.jsonl came from this run (fixer on) before the schema constraint
  # was the default (add --no-schema-constraint to remake it); pools-test21.jsonl and
  # selector-test-pairs-constrained.jsonl from the default path without the fixer (with it: about 73 s a question).
  $REASON --quiet chase-sql run --data assets/chase_sql/world-test --llm "$GEN" --selector self-consistency \
    --per-generator 21 --seed 0 --cache-dir "$W/idx" --no-schema-constraint -o "$W/test21.jsonl"
  $REASON chase-sql pairs "$W/test21.jsonl" --data assets/chase_sql/world-test --per-question 16 \
    -o assets/chase_sql/selector-test-pairs.jsonl
  $REASON --quiet chase-sql run --data assets/chase_sql/world-test --llm "$GEN" --selector self-consistency \
    --per-generator 21 --fix-attempts 0 --seed 0 --cache-dir "$W/idx" -o assets/chase_sql/pools-test21.jsonl
  $REASON chase-sql pairs assets/chase_sql/pools-test21.jsonl --data assets/chase_sql/world-test --per-question 16 \
    -o assets/chase_sql/selector-test-pairs-constrained.jsonl
fi
