"""CoM synthesis: an LLM writes steps for a question; executing them builds a tree; root-to-found paths are
the positive chains.

A GROUNDING with k boxes makes k children (each binds its variable to one box), except when the variable
feeds COUNTING, which takes the whole set. Node ids are `plevel,pindex--level,index` as in the CoM data.

Found rules. Ours: OCR when 1 - lev/maxlen >= 0.5 against the answer; COUNTING when it equals the answer in
digits or words; CALCULATE within 1e-6 relative; a final `None` step only if an ancestor was found.
Official (`trust_final=True` plus `rules="official"`): OCR when the normalized *distance* is >= 0.5 (the
inverted test of the released code), the OCR text overwritten with the answer, and every final step found.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from toolkit.cogcom.manip import Value, Workspace
from toolkit.cogcom.metrics import first_number, normalize, similarity
from toolkit.cogcom.runtime import value_text
from toolkit.cogcom.steps import Step, parse_steps, variables_in
from toolkit.core.assets import asset_path
from toolkit.core.errors import InputError

DEMOS = asset_path("cogcom/demos.json")
ROLE = ("You are a visual reasoning teacher. Break a question about an image into a chain of manipulations "
        "that a program can execute.")
MANIPULATION_LIST = ("Manipulations (Name(Input)->Return): GROUNDING(a phrase)->boxes, OCR(an image or a region)->"
                     "text, CROP_AND_ZOOMIN(a box, x)->new_image, COUNTING(boxes)->number, CALCULATE(an expression)->"
                     "number, LINE(points)->image.")
FORMAT = ("Answer in the format: Step 1: (Manipulation(input)->`variable`, Description); Step 2: (...); ... "
          "A step without a manipulation is written (None, Description). Put variables in backticks.")


def synth_prompt(question: str, demos: list[dict], shots: int) -> list[dict]:
    shown = "\n\n".join(f"Question: {d['question']}\n{d['steps']}" for d in demos[:shots])
    text = f"{ROLE}\n{MANIPULATION_LIST}\n{FORMAT}\n\nDemonstrations:\n{shown}\n\nQuestion: {question}\n"
    return [{"role": "user", "content": text}]


@dataclass
class Rules:
    official_ocr: bool = False
    trust_final: bool = False


def _number_words(n: float) -> set[str]:
    from num2words import num2words

    if n != int(n):
        return {normalize(str(n))}
    return {normalize(str(int(n))), normalize(num2words(int(n)))}


def is_found(name: str, value: Value | None, answer: str, rules: Rules) -> bool:
    if value is None:
        return False
    if name == "OCR":
        distance = 1.0 - similarity(str(value.data), answer)
        return distance >= 0.5 if rules.official_ocr else distance <= 0.5
    if name == "COUNTING":
        return normalize(answer) in _number_words(float(value.data))
    if name == "CALCULATE":
        gold = first_number(answer)
        return gold is not None and abs(float(value.data) - gold) <= 1e-6 * max(1.0, abs(gold))
    return False


def _branch_var(steps: list[Step], i: int, var: str) -> bool:
    """Split a grounding's boxes into children unless the next step that uses them is COUNTING."""
    for later in steps[i + 1:]:
        if later.call and any(var in a for a in later.call.args):
            return later.call.name != "COUNTING"
    return True


def build_tree(steps: list[Step], ws: Workspace, answer: str, rules: Rules) -> dict[str, dict]:
    nodes: dict[str, dict] = {}
    counters: dict[int, int] = {}

    def add(level: int, parent: str, data: dict) -> str:
        index = counters.get(level, 0)
        counters[level] = index + 1
        nodes[f"{parent}--{level},{index}"] = data
        return f"{level},{index}"

    def visit(i: int, parent: str, branch: Workspace, ancestor_found: bool, evidence: str | None) -> None:
        if i >= len(steps):
            return
        step = steps[i]
        base = {"k": step.k, "desc": step.description, "func": None, "param": None, "variables": {},
                "onbox": None, "return": None, "found": False, "error": step.error or None, "evidence": evidence}
        if step.call is None:
            final = i == len(steps) - 1
            base["found"] = final and (rules.trust_final or ancestor_found)
            here = add(i, parent, base)
            visit(i + 1, here, branch, ancestor_found, evidence)
            return
        call = step.call
        base.update(func=call.name, param=call.args)
        try:
            value = branch.run(call, f"step {step.k}")
        except InputError as exc:
            add(i, parent, {**base, "error": str(exc)})
            return
        if value.kind == "boxes" and call.var and len(value.data) > 1 and _branch_var(steps, i, call.var):
            for box in value.data:
                child = branch.fork()
                child.values[call.var] = Value("boxes", [box], value.image)
                text = value_text(child.values[call.var], child)
                here = add(i, parent, {**base, "return": text, "variables": {call.var: text}, "onbox": box,
                                       "on": value.image})
                visit(i + 1, here, child, ancestor_found, evidence)
            return
        text = value_text(value, branch)
        found = is_found(call.name, value, answer, rules)
        shown = answer if (found and call.name == "OCR" and rules.official_ocr) else text
        if call.var:
            base["variables"] = {call.var: shown}
        if value.kind == "boxes" and value.data:
            base["onbox"], base["on"] = value.data[0], value.image
        if value.kind == "image" and value.data:  # how to redo the crop when exporting
            base["crop"] = {**value.data, "image": value.image}
        here = add(i, parent, {**base, "return": shown, "found": found, "evidence": text if found else evidence})
        visit(i + 1, here, branch, ancestor_found or found, text if found else evidence)

    visit(0, "-1,0", ws, False, None)
    return nodes


def find_paths(nodes: dict[str, dict]) -> list[list[str]]:
    """Every root-to-found path (a path ends at each found node), in depth-first order."""
    children: dict[str, list[str]] = {}
    for key in nodes:
        parent, _ = key.split("--")
        children.setdefault(parent, []).append(key)
    paths: list[list[str]] = []

    def dfs(key: str, path: list[str]) -> None:
        path = path + [key]
        if nodes[key]["found"]:
            paths.append(path)
        for child in children.get(key.split("--")[1], []):
            dfs(child, path)

    for root in children.get("-1,0", []):
        dfs(root, [])
    return paths


def path_correct(nodes: dict[str, dict], path: list[str], answer: str) -> bool:
    """Re-executed evidence of the path's last node (the tool's own output, never the overwritten text) = gold."""
    evidence = nodes[path[-1]].get("evidence")
    return evidence is not None and normalize(evidence) == normalize(answer)


def _memo(fn):
    """The same perception on the same pixels once per item (three rule sets walk the same tree)."""
    cache: dict = {}

    def call(image, *args):
        key = (hashlib.sha1(image.tobytes()).hexdigest(), image.size, args)
        if key not in cache:
            cache[key] = fn(image, *args)
        return cache[key]

    return call


def maximal(paths: list[list[str]]) -> list[int]:
    """Indices of the paths that are not a prefix of another positive path (one training chain per branch)."""
    return [i for i, p in enumerate(paths) if not any(len(q) > len(p) and q[:len(p)] == p for q in paths)]


def synth_item(item: dict, image, llm, demos: list[dict], shots: int, grounder, reader, budget: int,
               rules: Rules) -> dict:
    plan = llm.complete(synth_prompt(item["question"], demos, shots), max_tokens=512).text
    steps = parse_steps(plan)
    grounder, reader = _memo(grounder), _memo(reader)
    trees = {}
    for name, r in (("chosen", rules), ("ours", Rules()), ("official", Rules(official_ocr=True, trust_final=True))):
        nodes = build_tree(steps, Workspace(image, grounder, reader, budget), item["answer"], r)
        paths = find_paths(nodes)
        trees[name] = (nodes, paths, [path_correct(nodes, p, item["answer"]) for p in paths])
    nodes, paths, correct = trees["chosen"]
    return {"id": item["id"], "question": item["question"], "answer": item["answer"], "plan": plan,
            "variables": sorted({v for s in steps for v in variables_in(s.description)}),
            "nodes": nodes, "paths": paths, "paths_correct": correct, "yield": bool(paths),
            "rules": {name: {"paths": len(p), "correct": sum(c), "yield": bool(p)}
                      for name, (_, p, c) in trees.items() if name != "chosen"}}


def pick_demos(demos: list[dict], shots: int, seed: int) -> list[dict]:
    return random.Random(seed).sample(demos, min(shots, len(demos)))


def summarize(trees: list[dict]) -> dict:
    """Yield (share of questions with a positive path) and precision (share of positive paths whose re-executed
    evidence equals the answer), for the chosen rules and for ours and the official ones."""
    def block(paths: list[int], correct: list[int]) -> dict:
        total = sum(paths)
        return {"yield": sum(1 for p in paths if p) / max(1, len(paths)), "paths": total,
                "precision": sum(correct) / total if total else 0.0}

    chosen = block([len(t["paths"]) for t in trees], [sum(t["paths_correct"]) for t in trees])
    by_rules = {name: block([t["rules"][name]["paths"] for t in trees], [t["rules"][name]["correct"] for t in trees])
                for name in ("ours", "official")}
    return {"n": len(trees), **chosen, **by_rules}
