#!/usr/bin/env bash
# Regenerates every file in assets/metacausal/ (run from the repository root). The protocol is the long part:
# about 4 CPU-seconds per problem, 400 problems; it appends as it goes, so rerun to continue.
set -euo pipefail
R="python -m cli"
A=assets/metacausal
$R metacausal simulate agents --seed 3 --csv $A/agents-demo.csv -o /tmp/agents-demo.jsonl
$R metacausal infer --data /tmp/agents-demo.jsonl --select bic --seed 0 -o /tmp/agents-fit.jsonl
$R metacausal graph --fit /tmp/agents-fit.jsonl --smooth 15 --png $A/agents-graph.png -o $A/agents-graph.jsonl
$R metacausal regions --system stress --runs 20 --seed 7 --png $A/stress-regions.png -o $A/stress-regions.jsonl
$R metacausal protocol --k 1,2,3,4 --problems 100 --select ad,ad-min,bic,icl,ad+bic --workers 2 --resume \
  -o $A/protocol.jsonl
$R metacausal report $A/protocol.jsonl --markdown --official $A/official-results.json \
  --png $A/protocol-confusion.png > $A/protocol-report.md
# fresh problems (seeds 30000..30024 for every K): the figures the README leads with
$R metacausal protocol --k 1,2,3,4 --problems 25 --first-seed 30000 --select ad,ad-min,bic,icl,ad+bic --workers 2 \
  --resume -o $A/protocol-fresh.jsonl
$R metacausal report $A/protocol-fresh.jsonl --markdown --png $A/protocol-fresh-confusion.png \
  > $A/protocol-fresh-report.md
