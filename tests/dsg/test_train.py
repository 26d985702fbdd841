"""Training on questions grouped by image: each image encoded once per step, node types drawn round-robin."""

import json
from collections import Counter

from toolkit.core.records import read_records
from toolkit.dsg.data import read_primitives
from toolkit.dsg.train import examples_from, grouped_plan


def test_questions_sharing_an_image_give_the_loss_of_separate_copies(split, tiny_dsg_vlm):
    import torch

    from toolkit.core.vlm import load_vlm
    from toolkit.core.vlm_train import collate, forward
    from toolkit.dsg.train import Encoder

    vlm = load_vlm(tiny_dsg_vlm, device="cpu")
    rows = examples_from(read_primitives(split / "primitives.jsonl"), None)[:20]
    encoder = Encoder(vlm)  # one pixel tensor per image, shared by its questions
    items = [encoder.encode(r) for r in rows]
    shared = collate(items, 0)
    assert shared["pixel_values"].shape[0] == len({r["image"] for r in rows}) < len(rows)
    assert [rows[0]["image"] == r["image"] for r in rows] == (shared["image_index"] == 0).tolist()
    copies = collate([dict(it, pixel_values=it["pixel_values"].clone()) for it in items], 0)
    assert "image_index" not in copies and copies["pixel_values"].shape[0] == len(rows)
    with torch.no_grad():
        assert abs(float(forward(vlm.model, shared).loss) - float(forward(vlm.model, copies).loss)) < 1e-5


def test_grouped_plan_asks_every_node_type_and_keeps_abstract_questions(split):
    items = list(read_records(split / "items.jsonl"))
    for it in items:
        it["image"] = str(split / it["image"])
    rows = examples_from(read_primitives(split / "primitives.jsonl"), items)
    plan = grouped_plan(rows, images_per_batch=5, per_image=6, seed=0)
    batches = plan(0)
    assert len(batches) == 3  # 12 images, 5 per step
    assert all(len({rows[i]["image"] for i in b}) <= 5 for b in batches)
    picked = [i for b in batches for i in b]
    assert len(picked) == len(set(picked))
    per_image = Counter(rows[i]["image"] for i in picked)
    assert max(per_image.values()) == 6
    # every abstract question is kept; each maze image gets its entry, exit and layout, not only walls
    assert {i for i, r in enumerate(rows) if r.get("abstract")} <= set(picked)
    maze = Counter(rows[i]["kind"] for i in picked if rows[i]["concept"] == "maze")
    assert maze["entry"] == maze["exit"] == maze["layout"] == 4
    assert plan(0) == batches and plan(1) != batches


def test_train_groups_by_image_and_logs_node_accuracy_next_to_the_majority_rate(cli, split, tiny_dsg_vlm, tmp_path):
    out = tmp_path / "m"
    code, stdout, err = cli("dsg", "train", "--data", str(split / "primitives.jsonl"), "--model", str(tiny_dsg_vlm),
                            "--out", str(out), "--images-per-batch", "4", "--per-image", "5", "--epochs", "1",
                            "--eval-every", "2", "--seed", "0")
    assert code == 0, err
    summary = json.loads(stdout.strip().splitlines()[-1])
    assert summary["steps"] == 3  # 11 training images (one held out), 4 per step
    log = [r for r in read_records(out / "train_log.jsonl") if "val_accuracy" in r]
    assert [r["step"] for r in log] == [2, 3]
    assert set(log[-1]["val_accuracy"]) == set(log[-1]["majority_rate"])
    kinds = {r["kind"] for r in examples_from(read_primitives(split / "primitives.jsonl"), None)}
    assert log[-1]["val_accuracy"] and set(log[-1]["val_accuracy"]) <= kinds
