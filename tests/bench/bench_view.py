"""`reason view` on 10,000 aha samples with their verdicts: build time (goal < 30 s), pages, and how fast the
browser opens and filters one 200-item page. Writes bench-results/view.json.

The samples are the 16 shipped ones in assets/aha/examples (real FailGen grids), repeated under fresh ids
with a verdict each (every tenth flipped), so the images are real and the build copies each one once.
"""

from __future__ import annotations

import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "assets" / "aha" / "examples"
N = 10_000
GOAL_S = 30.0


def make_inputs(folder: Path) -> list[Path]:
    base = [json.loads(line) for line in (EXAMPLES / "samples.jsonl").read_text().splitlines() if line.strip()]
    rng = random.Random(0)
    samples, verdicts = [], []
    for i in range(N):
        s = dict(base[i % len(base)])
        s.update(sample_id=f"{s['episode_id']}-r{i}/{s['subtask_index']}", episode_id=f"{s['episode_id']}-r{i}",
                 image=str(EXAMPLES / s["image"]), dir=None)
        samples.append(s)
        raw = s["answer"] if rng.random() >= 0.1 else ("No, it failed." if s["label"] == "Yes" else "Yes")
        verdicts.append({"type": "aha.verdict", "schema": 1, "sample_id": s["sample_id"], "label": raw.split(",")[0],
                         "raw": raw, "reference": s["answer"], "model": "bench"})
    paths = [folder / "samples.jsonl", folder / "verdicts.jsonl"]
    for path, recs in zip(paths, (samples, verdicts), strict=True):
        path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return paths


def browser_timing(page: Path) -> dict | None:
    """Seconds to load one page and to apply a filter in headless Chromium (None without a browser)."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.support.ui import Select
    except ImportError:
        return None
    if not chromium or not driver_path:
        return None
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(options=opts, service=Service(driver_path))
    try:
        start = time.perf_counter()
        driver.get(page.as_uri())
        load = time.perf_counter() - start
        start = time.perf_counter()
        Select(driver.find_element("css selector", "select[data-filter=verdict]")).select_by_value("wrong")
        shown = driver.find_element("id", "shown").text
        filt = time.perf_counter() - start
        return {"page_load_s": round(load, 3), "filter_s": round(filt, 3), "after_filter": shown}
    finally:
        driver.quit()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = make_inputs(folder)
        cmd = [sys.executable, "-m", "cli", "--quiet", "view", *map(str, files), "--out", str(folder / "site")]
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT),
                                                                                "PATH": "/usr/bin:/bin"})
        wall = time.perf_counter() - start
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
        if res.returncode != 0:
            raise SystemExit(res.stderr)
        summary = json.loads(res.stdout)
        page = folder / "site" / "failgen.html"
        figures = {"samples": N, "verdicts": N, "build_wall_s": round(wall, 2), "build_cpu_s": round(cpu, 2),
                   "goal_s": GOAL_S,
                   "goal_ratio": round(wall / GOAL_S, 3), "records_per_s": round(2 * N / wall),
                   "pages": summary["pages"], "page_kib": round(page.stat().st_size / 1024, 1),
                   "media_files": len(list((folder / "site" / "media").iterdir())),
                   "browser": browser_timing(page)}
    print(f"reason view: {2 * N} records ({N} samples + {N} verdicts) -> {figures['pages']} pages in {wall:.2f} s "
          f"(goal < {GOAL_S:.0f} s, ratio {wall / GOAL_S:.3f}; {cpu:.2f} s of CPU); "
          f"{figures['records_per_s']} records/s; "
          f"one 200-item page is {figures['page_kib']} KiB; {figures['media_files']} images copied once each")
    if figures["browser"]:
        b = figures["browser"]
        print(f"Chromium: page load {b['page_load_s']:.3f} s, verdict filter {b['filter_s']:.3f} s "
              f"({b['after_filter']})")
    else:
        print("Chromium: not installed, page timing skipped")
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "view.json").write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
