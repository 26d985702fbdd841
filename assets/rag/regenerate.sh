#!/usr/bin/env bash
# Regenerate every file of assets/rag (run from the repository root). CPU: hours of training + the sweep.
set -euo pipefail
R="python -m cli --seed 0"
A=assets/rag
$R rag world --seed 1000 --out $A/world-1000
# the shipped reader (reader/): marked query terms, warm-started from the previous reader (reader/ at commit d6740bf,
# which came from train.py of commit 7735093: `rag train --out R --minutes 50 --chunk-minutes 10` and `--resume`
# chunks, stopped after 3,478 optimizer steps; README: "Reader training")
P=$(mktemp -d)
for f in config.json generation_config.json model.safetensors tokenizer.json tokenizer_config.json training_log.json; do
  git show d6740bf:$A/reader/$f > $P/$f
done
M="rag train --out $A/reader --steps 2400 --chunk-minutes 9 --mark --curriculum subject --init-from $P"
$R $M
until python -c "import json,sys; sys.exit(not json.load(open('$A/reader/training_log.json'))['complete'])"; do
  $R $M --resume
done
# The current recipe (documents in random order, a step budget), from scratch on training worlds 0-99, in chunks:
$R rag train --out $A/reader-training --steps 6000 --chunk-minutes 10
until python -c "import json,sys; sys.exit(not json.load(open('$A/reader-training/training_log.json'))['complete'])"; do
  $R rag train --out $A/reader-training --steps 6000 --chunk-minutes 10 --resume
done
# the stand-in demo questions and replay (pipeline demo, not a model result)
python - <<'PY'
import json
rows = [json.loads(line) for line in open("assets/rag/world-1000/test.jsonl")]
out = [r for h in (1, 2, 3, 4) for r in [x for x in rows if x["hops"] == h][:2]]
open("assets/rag/demo-questions.jsonl", "w").write("".join(json.dumps(r) + "\n" for r in out))
PY
rm -f $A/replay-demo.jsonl
$R rag run --method iterdrag -k 2 -n 3 --questions $A/demo-questions.jsonl --index $A/world-1000/idx \
  --llm py:toolkit.rag.standin:reader --record $A/replay-demo.jsonl > /dev/null
$R rag sweep --questions $A/demo-questions.jsonl --index $A/world-1000/idx --demos $A/world-1000/demos.jsonl \
  --llm py:toolkit.rag.standin:reader --grid "k=1,2;n=1,3" --methods iterdrag --budgets 1k,4k \
  --record $A/replay-demo.jsonl > /dev/null
# the measured sweep: worlds 1000-1002, the first 50 test questions per hop count (2, 3, 4) of each
W=$(mktemp -d)
bash $A/sweep.sh worlds $W
for part in rag drag iterdrag; do bash $A/sweep.sh $part $W; done
bash $A/sweep.sh merge $W $A/sweep-1000.jsonl
# refused (exit 2) while fewer than 7 configurations have 0 < Acc < 1 (the case for the earlier 10-minute reader)
$R rag fit --sweep $A/sweep-1000.jsonl --fit-on split:0.5 -o $A/cam.json || echo "no cam.json: see README.md"
$R rag claims --sweep $A/sweep-1000.jsonl -o $A/claims.jsonl
