#!/usr/bin/env bash
# The measured sweep of the shipped reader on worlds 1000-1002 (never trained on): the first 50 test
# questions per hop count (2, 3, 4) of each world, BM25. Steps (the three parts may run in parallel):
#   bash assets/rag/sweep.sh worlds DIR; bash assets/rag/sweep.sh rag|drag|iterdrag DIR; bash assets/rag/sweep.sh merge DIR OUT
set -euo pipefail
STEP=$1
DIR=$2
R="python -m cli --seed 0"
# READER: another reader directory to sweep (default: the shipped one)
LLM="hf:${READER:-assets/rag/reader}?device=cpu&batch_size=32"
ARGS=()
for s in 1000 1001 1002; do ARGS+=(--questions $DIR/w$s/claim.jsonl --index $DIR/w$s/idx --demos $DIR/w$s/demos.jsonl); done
BUDGETS=1k,2k,4k,8k
case $STEP in
  worlds)
    for s in 1000 1001 1002; do
      $R rag world --seed $s --out $DIR/w$s
      python -c "
import json
rows = [json.loads(x) for x in open('$DIR/w$s/test.jsonl')]
out = [r for h in (2, 3, 4) for r in [x for x in rows if x['hops'] == h][:50]]
open('$DIR/w$s/claim.jsonl', 'w').write(''.join(json.dumps(r) + '\n' for r in out))"
    done ;;
  rag) $R rag sweep "${ARGS[@]}" --llm "$LLM" --methods rag --grid "k=1,2,4,8,16" --budgets $BUDGETS \
         -o $DIR/part-rag.jsonl ;;
  drag) $R rag sweep "${ARGS[@]}" --llm "$LLM" --methods drag --grid "k=1,2,4,8;m=1,2" --no-anchors \
          --budgets $BUDGETS -o $DIR/part-drag.jsonl ;;
  iterdrag) $R rag sweep "${ARGS[@]}" --llm "$LLM" --methods iterdrag --grid "k=1,2,4;m=0;n=1,2,3,4" --no-anchors \
              --budgets $BUDGETS -o $DIR/part-iterdrag.jsonl ;;
  merge)
    OUT=$3
    cat $DIR/part-rag.jsonl $DIR/part-drag.jsonl $DIR/part-iterdrag.jsonl | grep '"rag.config"' > "$OUT"
    # nothing left to run: --resume appends the optima and the scaling fit over every configuration
    $R rag sweep "${ARGS[@]}" --llm "$LLM" --methods rag --grid "k=1" --budgets $BUDGETS --resume -o "$OUT" ;;
esac
