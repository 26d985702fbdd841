"""The built site in a real headless Chromium: it renders, filters, expands trees, and asks for nothing remote.

Skipped (with the reason) only where no Chromium, chromedriver or selenium is installed; `make sysdeps`
installs Chromium, and CI sets REASON_REQUIRE_BROWSER=1 so that a missing browser fails instead.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'reason-toolkit[dev]')"
    if not CHROMIUM or not DRIVER:
        return "no Chromium/chromedriver on PATH (make sysdeps installs Debian's chromium and chromium-driver)"
    return None


MISSING = _missing()
if MISSING and os.environ.get("REASON_REQUIRE_BROWSER"):
    raise RuntimeError(f"REASON_REQUIRE_BROWSER is set but {MISSING}")
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1400", "--no-first-run", "--disable-extensions"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=opts, service=Service(DRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def open_page(browser, out: Path, name: str):
    browser.get((out / name).as_uri())
    return browser


def requested_urls(browser) -> list[str]:
    urls = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def visible_items(browser) -> list:
    return [e for e in browser.find_elements("css selector", ".items > .item") if e.is_displayed()]


def test_index_lists_every_type(browser, site):
    out, summary = site
    open_page(browser, out, "index.html")
    listed = {row.get_attribute("data-type") for row in browser.find_elements("css selector", "tr[data-type]")}
    assert listed == set(summary.by_type)


def test_gallery_filter_hides_non_matching_items(browser, site):
    from selenium.webdriver.support.ui import Select

    out, _ = site
    open_page(browser, out, "failgen.html")
    assert len(visible_items(browser)) == 3
    Select(browser.find_element("css selector", "select[data-filter=verdict]")).select_by_value("wrong")
    shown = visible_items(browser)
    assert [e.get_attribute("data-mode") for e in shown] == ["grasp"]
    assert browser.find_element("id", "shown").text == "1 of 3 shown on this page"
    Select(browser.find_element("css selector", "select[data-filter=mode]")).select_by_value("slip")
    assert visible_items(browser) == []
    Select(browser.find_element("css selector", "select[data-filter=verdict]")).select_by_value("")
    assert [e.get_attribute("data-mode") for e in visible_items(browser)] == ["slip"]


def test_tree_node_expands_on_click(browser, site):
    out, _ = site
    open_page(browser, out, "swe.html")
    closed = [d for d in browser.find_elements("css selector", "details.node:not([open])")
              if d.find_elements("css selector", "details.node")]
    assert closed, "every node with children is open; nothing to expand"
    node = closed[0]
    child = node.find_elements("css selector", "details.node")[0]
    assert not child.is_displayed()
    node.find_element("css selector", "summary").click()
    assert node.get_attribute("open") is not None and child.is_displayed()


def test_every_page_renders_offline_without_console_errors(browser, site, tmp_path):
    out, _ = site
    shots = Path(os.environ.get("REASON_VIEW_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    browser.get_log("browser"), browser.get_log("performance")  # drop what earlier tests left
    pages = sorted(p.name for p in out.glob("*.html"))
    for name in pages:
        open_page(browser, out, name)
        # the stylesheet and the script loaded under the page's strict CSP
        nav = browser.find_element("css selector", "nav.top")
        assert nav.value_of_css_property("background-color") == "rgba(36, 41, 47, 1)", name
        if browser.find_elements("id", "filters"):
            assert "shown on this page" in browser.find_element("id", "shown").text, name
        assert browser.save_screenshot(str(shots / f"{name}.png")), name
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == [], (name, errors)
        remote = [u for u in requested_urls(browser) if not u.startswith(("file://", "data:"))]
        assert remote == [], (name, remote)
        assert (shots / f"{name}.png").stat().st_size > 5000
    assert len(pages) >= 9


def test_filters_count_over_all_pages_and_are_kept_on_the_next_page(browser, record_files, tmp_path):
    from selenium.webdriver.support.ui import Select

    from toolkit.view import build_site

    out = tmp_path / "paged"
    build_site([str(record_files[k]) for k in ("episodes", "samples", "verdicts")], out, page_size=1)
    index = json.loads((out / "failgen.index.json").read_text())
    wrong_page = next(p for p, v in index["items"] if v["verdict"] == "wrong")
    first = 1 if wrong_page == 0 else 0  # open a page that does not hold the wrong verdict
    open_page(browser, out, index["pages"][first])
    Select(browser.find_element("css selector", "select[data-filter=verdict]")).select_by_value("wrong")
    assert visible_items(browser) == []
    summary = browser.find_element("id", "shown-all").text
    assert summary.startswith("1 of 3 match on all 3 page(s); pages with matches:")
    assert f"{wrong_page + 1} (1)" in summary
    browser.find_element("css selector", "#shown-all a").click()
    assert browser.current_url.endswith(index["pages"][wrong_page] + "#verdict=wrong")
    assert Select(browser.find_element("css selector", "select[data-filter=verdict]")).first_selected_option \
        .get_attribute("value") == "wrong"
    assert [e.get_attribute("data-mode") for e in visible_items(browser)] == ["grasp"]
    pager = browser.find_elements("css selector", "nav.pager a")
    assert pager and all(a.get_attribute("href").endswith("#verdict=wrong") for a in pager)
    pager[0].click()  # the pager keeps the filter too
    assert Select(browser.find_element("css selector", "select[data-filter=verdict]")).first_selected_option \
        .get_attribute("value") == "wrong"
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
