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
