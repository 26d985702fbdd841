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

# --- Models trained here (`bash assets/chase_sql/regenerate.sh models`; about 70 minutes on 2 busy cores, one
# thread; the shipped generator was trained with two threads and no other job). Training and selector-pool worlds
# use the train split (invented or fixed train names); the shipped test world and the selector's test world use the
# test split's names (none in common with training) and their own seeds.
if [ "${1:-}" = "models" ]; then
  export OMP_NUM_THREADS=1
  W=${WORLDS:-$(mktemp -d)}
  # the generator's training world: names invented per database (English words or syllable strings, never a test
  # or validation name), so the model has to copy names from its prompt instead of learning them by heart
  $REASON chase-sql world --seed 31 --dbs 250 --split train --names random --questions-per-db 10 --out "$W/train"
  $REASON chase-sql world --seed 13 --dbs 150 --split train --questions-per-db 10 --out "$W/train-pools"
  rm -rf assets/chase_sql/world-test
  $REASON chase-sql world --seed 101 --dbs 10 --split test --questions-per-db 10 --out assets/chase_sql/world-test
  $REASON chase-sql world --seed 103 --dbs 60 --split test --questions-per-db 10 --out "$W/test-sel"
  rm -rf assets/chase_sql/generator assets/chase_sql/selector
  $REASON --seed 0 chase-sql train-generator "$W/train" --out assets/chase_sql/generator --minutes 25 --seed 0 \
    --schema compact --copy-head
  # The selector's trunk: the earlier plain generator (no copy head, full schemas, the train split's fixed names),
  # which the shipped selector was fine-tuned from.
  $REASON chase-sql world --seed 11 --dbs 80 --split train --questions-per-db 10 --out "$W/train-fixed"
  $REASON --seed 0 chase-sql train-generator "$W/train-fixed" --out "$W/selector-base" --minutes 27 --seed 0
  # Selector pools: the prompt-only stand-in's candidates.
  STANDIN=py:toolkit.chase_sql.standin:complete
  $REASON --quiet chase-sql run --data "$W/train-pools" --llm $STANDIN --selector self-consistency \
    --per-generator 7 --seed 0 --cache-dir "$W/idx" -o "$W/pools.jsonl"
  $REASON chase-sql train-selector "$W/pools.jsonl" --data "$W/train-pools" --split dev \
    --model "$W/selector-base" --classifier --minutes 5 --per-question 16 --batch-size 16 --seed 0 \
    --out assets/chase_sql/selector
  rm -f assets/chase_sql/selector/chat_template.jinja
  $REASON --quiet chase-sql run --data "$W/test-sel" --llm $STANDIN --selector self-consistency --per-generator 7 \
    --seed 0 --cache-dir "$W/idx" -o "$W/test-sel.jsonl"
  $REASON chase-sql pairs "$W/test-sel.jsonl" --data "$W/test-sel" --per-question 16 \
    -o assets/chase_sql/selector-test-pairs.jsonl
fi
