#!/usr/bin/env bash
# The measured sweep of the shipped reader on worlds 1000-1002 (never trained on): the first 50 test
# questions per hop count (2, 3, 4) of each world, BM25. Usage: bash assets/rag/sweep.sh OUT.jsonl
set -euo pipefail
OUT=${1:-assets/rag/sweep-1000.jsonl}
R="python -m cli --seed 0"
LLM="hf:assets/rag/reader?device=cpu&batch_size=32"
T=$(mktemp -d)
Q=() ; I=() ; D=()
for s in 1000 1001 1002; do
  $R rag world --seed $s --out $T/w$s
  python -c "
import json, sys
rows = [json.loads(x) for x in open('$T/w$s/test.jsonl')]
out = [r for h in (2, 3, 4) for r in [x for x in rows if x['hops'] == h][:50]]
open('$T/w$s/claim.jsonl', 'w').write(''.join(json.dumps(r) + '\n' for r in out))"
  Q+=(--questions $T/w$s/claim.jsonl) ; I+=(--index $T/w$s/idx) ; D+=(--demos $T/w$s/demos.jsonl)
done
$R rag sweep "${Q[@]}" "${I[@]}" "${D[@]}" --llm "$LLM" --methods rag,drag --grid "k=1,2,4,8,16;m=0,1,2" \
  --budgets 1k,2k,4k,8k -o $T/a.jsonl
$R rag sweep "${Q[@]}" "${I[@]}" "${D[@]}" --llm "$LLM" --methods iterdrag --grid "k=1,2,4,8;m=0;n=1,2,3,4" \
  --no-anchors --budgets 1k,2k,4k,8k -o $T/b.jsonl
cat $T/a.jsonl $T/b.jsonl | grep '"rag.config"' > "$OUT"
# nothing left to run: --resume only appends the optima and the scaling fit over every configuration
$R rag sweep "${Q[@]}" "${I[@]}" "${D[@]}" --llm "$LLM" --methods rag --grid "k=1" --budgets 1k,2k,4k,8k \
  --resume -o "$OUT"
rm -rf "$T"
