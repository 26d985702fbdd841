#!/usr/bin/env bash
# Regenerates assets/geomrel/ and the measurements in its README (run from the repository root).
#   bash assets/geomrel/regenerate.sh examples     examples/items.jsonl, replay.jsonl, fixture
#   bash assets/geomrel/regenerate.sh classifier   training/test items, classifier/, classifier + MiniLM scores
#   bash assets/geomrel/regenerate.sh agreement    method A vs method B on 2,000 fresh items
#   bash assets/geomrel/regenerate.sh balanced     a classifier fine-tuned on items balanced over relations (resumable
#                                                  chunks; INIT=the model to start from: the README's runs started
#                                                  from the points-encoding classifier/ of commit 4318dc9)
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
BASIC_CHUNKS=15 DEPTH2_CHUNKS=14  # training chunks per shard: the shipped classifier's 6,000 + 2,800 items

if [[ $part == examples || $part == all ]]; then
  python $A/fixture/write_fixture.py $A/fixture/project-wording.jsonl
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
  # fresh test splits (seed 6000) and training chunks (seeds 7000+k and 8000+k, two shards in parallel: 200 basic
  # and 100 depth-2 items per chunk), all without the held-out templates; about 12 CPU-minutes, then 48 of training
  # (one thread) and 10 of the MiniLM baseline
  $R geomrel generate --level basic --n 150 --seed 6000 --exclude-templates $HOLD -o "$W/test-d1.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 150 --seed 6000 --exclude-templates $HOLD -o "$W/test-d2.jsonl"
  $R geomrel generate --level advanced --depth 3 --n 150 --seed 6000 --exclude-templates $HOLD -o "$W/test-d3.jsonl"
  $R geomrel generate --level basic --n 75 --seed 6000 --exclude-templates $OTHER -o "$W/heldout-d1.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 75 --seed 6000 --exclude-templates $OTHER -o "$W/heldout-d2.jsonl"
  cat "$W/test-d1.jsonl" "$W/test-d2.jsonl" > "$W/test-d12.jsonl"
  cat "$W/heldout-d1.jsonl" "$W/heldout-d2.jsonl" > "$W/heldout.jsonl"
  cat "$W/test-d12.jsonl" "$W/test-d3.jsonl" "$W/heldout.jsonl" > "$W/all-test.jsonl"
  mkdir -p "$W/train"
  shard() {
    for k in $(seq 0 $((BASIC_CHUNKS - 1))); do
      s=$((7000 + $1 * 1000 + k))
      $R geomrel generate --level basic --n 200 --seed $s --exclude-templates $HOLD -o "$W/train/b-$s.jsonl"
      if (( k < DEPTH2_CHUNKS )); then
        $R geomrel generate --level advanced --depth 2 --n 100 --seed $s --exclude-templates $HOLD \
          -o "$W/train/a-$s.jsonl"
      fi
    done
  }
  shard 0 & shard 1 & wait
  cat "$W"/train/[ab]-*.jsonl > "$W/train.jsonl"
  # the validation split (seed 6500) the run was chosen on
  $R geomrel generate --level basic --n 150 --seed 6500 --exclude-templates $HOLD -o "$W/val-d1.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 150 --seed 6500 --exclude-templates $HOLD -o "$W/val-d2.jsonl"
  cat "$W/val-d1.jsonl" "$W/val-d2.jsonl" > "$W/val-d12.jsonl"
  # 7 rewordings per item; any text asking a test or validation question (up to point letters, in either encoding)
  # is left out; the roles encoding, 12,000 steps in resumable chunks of 10 minutes (run until it says it is done;
  # about 48 minutes on one thread)
  while :; do
    $R geomrel train --data "$W/train.jsonl" --rephrasings 7 --exclude "$W/all-test.jsonl" --exclude "$W/val-d12.jsonl" \
      --encoding roles --steps 12000 --checkpoint "$W/classifier.pt" --minutes 10 --seed 0 --out $A/classifier
    python -c "import json, sys; sys.exit(not json.load(open(sys.argv[1]))['done'])" $A/classifier/training.json && break
  done
  # the MiniLM baseline embeds its 60k training texts once, for all three splits together
  $R geomrel classify "$W/all-test.jsonl" --model minilm --data "$W/train.jsonl" --rephrasings 7 --seed 0 \
    --exclude "$W/all-test.jsonl" -o "$W/minilm-preds.jsonl"
  for split in test-d12 test-d3 heldout; do
    $R geomrel classify "$W/$split.jsonl" --model $A/classifier \
      | $R geomrel eval - --gold "$W/$split.jsonl" -o "$W/eval-classifier-$split.json"
    python -c "import json,sys; ids={json.loads(l)['id'] for l in open(sys.argv[1])}; \
[sys.stdout.write(l) for l in open(sys.argv[2]) if json.loads(l)['id'] in ids]" "$W/$split.jsonl" "$W/minilm-preds.jsonl" \
      | $R geomrel eval - --gold "$W/$split.jsonl" -o "$W/eval-minilm-$split.json"
  done
  $R geomrel classify $A/examples/items.jsonl --model $A/classifier \
    | $R geomrel eval - --gold $A/examples/items.jsonl -o "$W/eval-classifier-examples.json"
fi

if [[ $part == balanced ]]; then
  # the fresh test split (seed 6000, as in `classifier`) and a validation split (seed 6500) for choosing
  for s in 6000 6500; do
    $R geomrel generate --level basic --n 150 --seed $s --exclude-templates $HOLD -o "$W/bal-d1-$s.jsonl"
    $R geomrel generate --level advanced --depth 2 --n 150 --seed $s --exclude-templates $HOLD -o "$W/bal-d2-$s.jsonl"
    cat "$W/bal-d1-$s.jsonl" "$W/bal-d2-$s.jsonl" > "$W/bal-d12-$s.jsonl"
  done
  # items drawn per relation within each domain, proven by the exact solver: forced perpendicular / parallel / equal /
  # supplementary / complementary (60 each, basic and depth 2; no basic item is a forced supplementary pair), line
  # intersecting / cannot (60 basic, 50 depth 2) and angle none / cannot (50 depth 2), and plain draws (600 basic,
  # 150 depth 2) for the rest: about 15 CPU-minutes
  SIGNED=line:perpendicular,line:parallel,angle:equal,angle:supplementary,angle:complementary
  $R geomrel generate --level basic --n 60 --seed 7100 --target $SIGNED --exclude-templates $HOLD -o "$W/bal-tb.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 60 --seed 7200 --target $SIGNED --exclude-templates $HOLD \
    -o "$W/bal-ta.jsonl"
  $R geomrel generate --level basic --n 60 --seed 7500 --target line:intersecting,line:cannot --exclude-templates $HOLD \
    -o "$W/bal-ub.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 50 --seed 7600 \
    --target line:intersecting,line:cannot,angle:none,angle:cannot --exclude-templates $HOLD -o "$W/bal-ua.jsonl"
  $R geomrel generate --level basic --n 300 --seed 7300 --exclude-templates $HOLD -o "$W/bal-pb.jsonl"
  $R geomrel generate --level basic --n 300 --seed 7700 --exclude-templates $HOLD -o "$W/bal-pb2.jsonl"
  $R geomrel generate --level advanced --depth 2 --n 150 --seed 7400 --exclude-templates $HOLD -o "$W/bal-pa.jsonl"
  # fine-tune the earlier classifier in resumable chunks of at most 10 minutes (run again until it says it is done)
  while :; do
    $R geomrel train --init "${INIT:-$A/classifier}" --data "$W/bal-tb.jsonl" --data "$W/bal-ta.jsonl" --data "$W/bal-pb.jsonl" \
      --data "$W/bal-pa.jsonl" --data "$W/bal-ub.jsonl" --data "$W/bal-ua.jsonl" --data "$W/bal-pb2.jsonl" \
      --rephrasings 3 --exclude "$W/bal-d12-6000.jsonl" --exclude "$W/bal-d12-6500.jsonl" --lr 3e-4 --steps 900 \
      --checkpoint "$W/bal.pt" --minutes 10 --seed 0 --out "$W/bal-model"
    python -c "import json, sys; sys.exit(not json.load(open(sys.argv[1]))['done'])" "$W/bal-model/training.json" && break
  done
  for s in 6000 6500; do
    $R geomrel classify "$W/bal-d12-$s.jsonl" --model "$W/bal-model" \
      | $R geomrel eval - --gold "$W/bal-d12-$s.jsonl" -o "$W/eval-bal-$s.json"
  done
fi

if [[ $part == agreement || $part == all ]]; then
  for level in basic advanced; do
    $R geomrel generate --level $level --n 1000 --seed 4242 -o "$W/agree-$level.jsonl"
    $R geomrel verify "$W/agree-$level.jsonl" -o "$W/verdict-$level.jsonl"
  done
fi

if [[ $part == agreement || $part == all ]]; then
  # the first 50 items of each level, shipped for the agreement test
  { head -50 "$W/agree-basic.jsonl"; head -50 "$W/agree-advanced.jsonl"; } > $A/examples/agreement-sample.jsonl
  python -m toolkit.geomrel.audit "$W/agree-basic.jsonl" "$W/verdict-basic.jsonl" \
    "$W/agree-advanced.jsonl" "$W/verdict-advanced.jsonl" > "$W/agreement.json"
fi
