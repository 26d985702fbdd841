"""failgen.episode / aha.sample / aha.verdict: a filterable gallery of episodes with their judged samples."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from toolkit.view.model import Context, Family, Filter, Item, Rec, Section

YES, NO = "Yes", "No"


def label_of(text: Any) -> str | None:
    """'Yes' / 'No' from a label or an answer such as 'No, the gripper ...' (the word before the first comma)."""
    if not isinstance(text, str) or not text.strip():
        return None
    word = text.strip().split(",", 1)[0].split()[0].strip(".").lower()
    return YES if word == "yes" else NO if word == "no" else None


def gold_label(sample: dict | None, verdict: dict | None) -> str | None:
    if sample is not None:
        return label_of(sample.get("label")) or label_of(sample.get("answer"))
    return label_of((verdict or {}).get("reference"))


def judge(verdict: dict, sample: dict | None) -> dict[str, Any]:
    """A verdict with its gold label and whether it is right (None when there is no gold label)."""
    gold = gold_label(sample, verdict)
    said = label_of(verdict.get("label")) or label_of(verdict.get("raw"))
    right = None if gold is None else said == gold
    return {"record": verdict, "said": said, "gold": gold, "right": right}


def verdict_state(judged: list[dict]) -> str:
    if not any(j["right"] is not None for j in judged):
        return "none"
    return "wrong" if any(j["right"] is False for j in judged) else "correct"


def keyframe_grid(ep: dict, ctx: Context, rec: Rec) -> dict[str, Any]:
    """Rows = camera views, columns = keyframes, as failgen writes them (keyframe-major, views inside)."""
    frames = ep.get("frames") or []
    views = ep.get("views") or []
    names = ep.get("keyframe_names") or []
    urls = [ctx.media.url(f, ep, rec.base, rec.where) for f in frames]
    if views and len(frames) % len(views) == 0:
        cols = len(frames) // len(views)
        rows = [{"view": v, "cells": [{"url": urls[c * len(views) + i], "name": frames[c * len(views) + i]}
                                      for c in range(cols)]} for i, v in enumerate(views)]
    else:
        cols = len(frames)
        rows = [{"view": "", "cells": [{"url": u, "name": f} for u, f in zip(urls, frames, strict=True)]}]
    heads = [names[c] if c < len(names) else str(c) for c in range(cols)]
    return {"rows": rows, "heads": heads, "failed": ep.get("failed_keyframe")}


def sample_view(ctx: Context, rec: Rec | None, judged: list[dict]) -> dict[str, Any]:
    data = rec.data if rec is not None else judged[0]["record"]
    image = ctx.media.url(data.get("image"), data, rec.base, rec.where) if rec is not None else None
    return {"data": data, "image": image, "has_image": rec is not None and bool(data.get("image")),
            "gold_answer": data.get("answer") if rec is not None else data.get("reference"),
            "judged": judged, "state": verdict_state(judged)}


def build(ctx: Context, records: dict[str, list[Rec]]) -> list[Section]:
    episodes = records.get("failgen.episode", [])
    samples = records.get("aha.sample", [])
    verdicts = records.get("aha.verdict", [])
    sample_by_id = {str(r.data.get("sample_id")): r for r in samples}
    judged_by_sample: dict[str, list[dict]] = defaultdict(list)
    for v in verdicts:
        sid = str(v.data.get("sample_id"))
        s = sample_by_id.get(sid)
        judged_by_sample[sid].append(judge(v.data, s.data if s else None))
    episode_ids = {str(e.data.get("episode_id")) for e in episodes}

    def episode_of(data: dict) -> str:
        return str(data.get("episode_id") or str(data.get("sample_id", "")).rsplit("/", 1)[0])

    samples_by_episode: dict[str, list[dict]] = defaultdict(list)
    loose: list[dict] = []
    for sid in dict.fromkeys([*sample_by_id, *judged_by_sample]):
        rec = sample_by_id.get(sid)
        view = sample_view(ctx, rec, judged_by_sample.get(sid, []))
        target = samples_by_episode[episode_of(view["data"])] if episode_of(view["data"]) in episode_ids else loose
        target.append(view)

    items: list[Item] = []
    for e in episodes:
        ep = e.data
        eid = str(ep.get("episode_id"))
        its = sorted(samples_by_episode.get(eid, []), key=lambda s: s["data"].get("subtask_index", 0))
        judged = [j for s in its for j in s["judged"]]
        gif = ctx.media.url(ep.get("gif"), ep, e.base, e.where) if ep.get("gif") else None
        html = ctx.render("failgen_episode.html.j2", ep=ep, grid=keyframe_grid(ep, ctx, e), gif=gif,
                          has_gif=bool(ep.get("gif")), samples=its, state=verdict_state(judged))
        items.append(Item(html, {"task": str(ep.get("task", "")), "mode": str(ep.get("mode", "")),
                                 "verdict": verdict_state(judged)}))
    for s in loose:
        html = ctx.render("aha_sample_card.html.j2", s=s)
        items.append(Item(html, {"task": str(s["data"].get("task", "")), "mode": str(s["data"].get("mode", "")),
                                 "verdict": s["state"]}))
    filters = [Filter(attr, label, sorted({i.attrs[attr] for i in items}))
               for attr, label in (("task", "task"), ("mode", "mode"), ("verdict", "verdict"))]
    judged_all = [j for js in judged_by_sample.values() for j in js if j["right"] is not None]
    right = sum(j["right"] for j in judged_all)
    header = ctx.render("failgen_header.html.j2", episodes=len(episodes), samples=len(samples),
                        verdicts=len(verdicts), judged=len(judged_all), right=right)
    counts = {t: len(v) for t, v in records.items()}
    return [Section("failgen", "failures", counts, items, header=header, filters=filters)]


FAMILY = Family("failgen", "failures", ("failgen.episode", "aha.sample", "aha.verdict"), build)
