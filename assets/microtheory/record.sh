#!/usr/bin/env bash
# Regenerates the shipped data, store, theory and the LLM replay from the deterministic stand-in.
# Run from the repository root:  bash assets/microtheory/record.sh
set -euo pipefail
A=assets/microtheory
PY=${PYTHON:-python}
R="$PY -m cli"
LLM=py:toolkit.microtheory.standin:complete
rm -f $A/replay.jsonl
$PY $A/make_data.py
$R microtheory store -q $A/qa.jsonl --split train --llm $LLM --record $A/replay.jsonl -o $A/store.jsonl
$R microtheory distill --store $A/store.jsonl -k 24 --llm $LLM --record $A/replay.jsonl -o $A/theory.jsonl
$R microtheory coverage -t $A/theory.jsonl -q $A/qa.jsonl --split test --p 0.5 --sizes 5,10,20,40 \
  --llm $LLM --record $A/replay.jsonl -o $A/coverage.jsonl
$R microtheory ground -c $A/corpus.jsonl -q $A/qa.jsonl --split test -t $A/theory.jsonl \
  --llm $LLM --record $A/replay.jsonl -o $A/ground.jsonl
