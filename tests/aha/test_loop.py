import pytest

from toolkit.aha.loop import LoopConfig, backup_to, injection_plan, run_loop
from toolkit.aha.prompt import make_question


def test_backup_goes_to_the_grasp_before_a_failed_place():
    subtasks = ["pick up the red cube", "place the red cube on the blue cube", "push the green cube"]
    assert backup_to(subtasks, 1) == 0
    assert backup_to(subtasks, 0) == 0
    assert backup_to(subtasks, 2) == 2


def test_loop_same_plan_both_ways_and_feedback_recovers_an_injected_slip():
    calls = []

    def always_yes(image, question, subtask):
        calls.append((image.size, question))
        return "Yes"

    cfg = LoopConfig(task="pick-place", episodes=1, seed=1, inject_rate=0.5, max_retries=2, image_size=64)
    records = list(run_loop(cfg, always_yes, make_question, oracle=True))
    assert [r["type"] for r in records] == ["aha.loop"] * 3 + ["aha.loop_summary"]
    none, yes, oracle, summary = records
    assert none["injected"] == yes["injected"] == oracle["injected"] and none["injected"]
    # a detector that never says "No" changes nothing; the ground-truth detector retries and recovers
    assert not none["success"] and not yes["success"] and yes["retries"] == 0
    assert oracle["success"] and oracle["retries"] >= 1
    failed = [e["subtask"] for e in oracle["events"] if not e["truth"]]
    assert failed and oracle["events"][-1]["truth"]
    assert calls and all(q == make_question(s) for (_, q), s in zip(calls, yes["subtasks"], strict=False))
    assert summary["success_without_feedback"] == 0.0 and summary["success_with_oracle"] == 1.0
    assert summary["gain_points"] == 0.0


def test_a_detector_that_always_says_no_is_bounded_by_max_retries():
    from toolkit.failgen import TaskEnv

    cfg = LoopConfig(task="pick-place", episodes=1, seed=2, inject_rate=0.0, max_retries=1, image_size=64)
    records = list(run_loop(cfg, lambda image, q, s: "No, it failed", make_question))
    detector = records[1]
    assert detector["retries"] == 2  # one retry per sub-task
    with TaskEnv("pick-place", seed=2, image_size=32, render=False) as env:
        assert injection_plan(env, 0.0, 2) == {}


def test_gain_interval_resamples_scenes():
    from toolkit.aha.loop import bootstrap_gain_ci

    assert bootstrap_gain_ci([(False, True)] * 8) == [100.0, 100.0]
    lo, hi = bootstrap_gain_ci([(False, True)] * 4 + [(True, True)] * 4, seed=3)
    assert 0.0 <= lo < 50.0 < hi <= 100.0
    assert bootstrap_gain_ci([(False, True), (True, False)] * 8, seed=1) == \
        bootstrap_gain_ci([(False, True), (True, False)] * 8, seed=1)
    assert bootstrap_gain_ci([]) is None


def test_overlap_with_training_scenes_is_named_or_allowed(tmp_path):
    from toolkit.aha.loop import FIRST_SEED, training_scene_overlap
    from toolkit.aha.scenes import read_scenes, write_scenes
    from toolkit.core.errors import InputError

    write_scenes(tmp_path, [("stack", 5), ("stack", 6), ("push", 7)], [("stack", 9)])
    assert read_scenes(tmp_path) == {("stack", 5), ("stack", 6), ("push", 7), ("stack", 9)}
    cfg = LoopConfig(task="stack", episodes=5, seed=6)
    with pytest.raises(InputError, match=r"scenes \(stack, 6\), \(stack, 9\) \(2 of 5\)"):
        training_scene_overlap(cfg, [tmp_path])
    assert training_scene_overlap(cfg, [tmp_path], allow=True) == [("stack", 6), ("stack", 9)]
    assert training_scene_overlap(LoopConfig(task="push", episodes=5, seed=8), [tmp_path]) == []
    from toolkit.aha import DEFAULT_MODEL

    shipped = read_scenes(DEFAULT_MODEL)
    assert ("stack", 100) in shipped and not any(s >= FIRST_SEED for _, s in shipped)


def test_eval_counts_samples_of_training_scenes(tmp_path):
    from toolkit.aha.evaluate import Row, training_overlap
    from toolkit.aha.scenes import scene_of, write_scenes

    write_scenes(tmp_path, [("stack", 0)], [("push", 3)])
    rows = [Row(f"s{i}", "stack", "nominal", "q", "Yes", "Yes", scene, str(tmp_path)) for i, scene in
            enumerate([scene_of("stack", 0), scene_of("", None, "push-s3-slip"), scene_of("stack", 7), None])]
    assert rows[1].scene == ("push", 3)
    assert training_overlap(rows) == {"samples": 2, "of": 4, "scenes": 2, "first": [["push", 3], ["stack", 0]]}
    foreign = [Row("a", "stack", "nominal", "q", "Yes", "Yes", ("stack", 0), "openai:gpt-4o@http://x")]
    assert training_overlap(foreign) is None  # no model directory that records its scenes
