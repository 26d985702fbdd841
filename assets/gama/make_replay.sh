#!/usr/bin/env bash
# Regenerates assets/gama/replay.jsonl (LLM exchanges) and assets/gama/expected.jsonl (the results of
# that run) by playing every game with two LLM seats answered by the deterministic rule-based
# stand-in toolkit/gama/standin.py (not a language model) and recording each exchange.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
rm -f assets/gama/replay.jsonl assets/gama/expected.jsonl
PYTHONPATH=$PWD "$PY" -m cli gama bench --players "llm*2,equilibrium" --n-players 4 --rounds 3 --runs 1 \
  --seed 0 --no-rounds --llm py:toolkit.gama.standin:respond --record assets/gama/replay.jsonl \
  --out assets/gama/expected.jsonl
