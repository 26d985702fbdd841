#!/usr/bin/env bash
# Regenerates assets/geomrel/ and the measurements in its README (run from the repository root).
#   bash assets/geomrel/regenerate.sh examples     examples/items.jsonl, replay.jsonl, fixture
#   bash assets/geomrel/regenerate.sh classifier   training/test items, classifier/, classifier + MiniLM scores
#   bash assets/geomrel/regenerate.sh agreement    method A vs method B on 2,000 fresh items
# Work files go to ${WORK:-runs/geomrel}; nothing there is shipped.
set -euo pipefail
R="python -m cli"
A=assets/geomrel
W=${WORK:-runs/geomrel}
mkdir -p "$W"
part=${1:-all}
# classifier templates: every shape but rhombus and trapezoid, which are held out
HOLD=rhombus,trapezoid
OTHER=triangle,right_triangle,isosceles,equilateral,parallelogram,rectangle,square

if [[ $part == examples || $part == all ]]; then
  python $A/fixture/write_fixture.py $A/fixture/official-style.jsonl
  $R geomrel generate --level basic --n 100 --seed 11 -o "$W/ex-basic.jsonl"
  $R geomrel generate --level advanced --n 100 --seed 11 -o "$W/ex-adv.jsonl"
  mkdir -p $A/examples
  cat "$W/ex-basic.jsonl" "$W/ex-adv.jsonl" > $A/examples/items.jsonl
  # the README pipeline's items, answered by the rule-based stand-in and recorded (pipeline demo)
  rm -f $A/replay.jsonl
  $R geomrel generate --level advanced --n 50 --seed 3 \
    | $R geomrel ask - --llm py:toolkit.geomrel.standin:respond --prompt geocot --record $A/replay.jsonl > /dev/null
fi

if [[ $part == classifier || $part == all ]]; then
  # depth-1 training items: the agreement run's basic items (seed 4242) without the held-out templates
  [[ -f "$W/agree-basic.jsonl" ]] || $R geomrel generate --level basic --n 1000 --seed 4242 -o "$W/agree-basic.jsonl"
  python -c "import json,sys; [sys.stdout.write(l) for l in open(sys.argv[1]) if not {'rhombus','trapezoid'} & set(json.loads(l)['templates'])]" \
    "$W/agree-basic.jsonl" > "$W/train-d1.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 400 --seed 5000 --exclude-templates $HOLD -o "$W/train-d2.jsonl"
  $R geomrel generate --level basic --n 60 --seed 6000 --exclude-templates $HOLD -o "$W/test-d1.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 60 --seed 6000 --exclude-templates $HOLD -o "$W/test-d2.jsonl"
  $R geomrel generate --level advanced --depth 3 --n 60 --seed 6000 --exclude-templates $HOLD -o "$W/test-d3.jsonl"
  $R geomrel generate --level basic --n 40 --seed 6000 --exclude-templates $OTHER -o "$W/heldout-d1.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 40 --seed 6000 --exclude-templates $OTHER -o "$W/heldout-d2.jsonl"
  cat "$W/test-d1.jsonl" "$W/test-d2.jsonl" > "$W/test-d12.jsonl"
  cat "$W/heldout-d1.jsonl" "$W/heldout-d2.jsonl" > "$W/heldout.jsonl"
  $R geomrel train --data "$W/train-d1.jsonl" --data "$W/train-d2.jsonl" --out $A/classifier --minutes 6 --seed 0
  for split in test-d12 test-d3 heldout; do
    $R geomrel classify "$W/$split.jsonl" --model $A/classifier \
      | $R geomrel eval - --gold "$W/$split.jsonl" -o "$W/eval-classifier-$split.json"
    $R geomrel classify "$W/$split.jsonl" --model minilm --data "$W/train-d1.jsonl" --data "$W/train-d2.jsonl" \
      | $R geomrel eval - --gold "$W/$split.jsonl" -o "$W/eval-minilm-$split.json"
  done
  $R geomrel classify $A/examples/items.jsonl --model $A/classifier \
    | $R geomrel eval - --gold $A/examples/items.jsonl -o "$W/eval-classifier-examples.json"
fi

if [[ $part == agreement || $part == all ]]; then
  for level in basic advanced; do
    $R geomrel generate --level $level --n 1000 --seed 4242 -o "$W/agree-$level.jsonl"
    $R geomrel verify "$W/agree-$level.jsonl" -o "$W/verdict-$level.jsonl"
  done
fi

if [[ $part == agreement || $part == all ]]; then
  python -m toolkit.geomrel.audit "$W/agree-basic.jsonl" "$W/verdict-basic.jsonl" \
    "$W/agree-advanced.jsonl" "$W/verdict-advanced.jsonl" > "$W/agreement.json"
fi
