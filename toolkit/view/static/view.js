// Filters: each <select data-filter="ATTR"> hides the .item elements whose data-ATTR differs from its value.
// With the family's index (SLUG.index.js: every item's values and page) the counts cover all pages, the
// pages holding matches are linked, and the choice travels in the URL's #fragment to the other pages.
"use strict";
(function () {
  function chosen(selects) {
    var out = {};
    selects.forEach(function (s) { if (s.value !== "") { out[s.dataset.filter] = s.value; } });
    return out;
  }
  function fragment(choice) {
    var parts = Object.keys(choice).sort().map(function (k) {
      return encodeURIComponent(k) + "=" + encodeURIComponent(choice[k]);
    });
    return parts.length ? "#" + parts.join("&") : "";
  }
  function fromFragment() {
    var out = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2) { out[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1]); }
    });
    return out;
  }
  function matches(values, choice) {
    return Object.keys(choice).every(function (k) { return values[k] === choice[k]; });
  }
  function apply() {
    var selects = document.querySelectorAll("select[data-filter]");
    var items = document.querySelectorAll(".items > .item");
    var choice = chosen(selects);
    var shown = 0;
    items.forEach(function (item) {
      var keep = Object.keys(choice).every(function (k) { return item.getAttribute("data-" + k) === choice[k]; });
      item.hidden = !keep;
      if (keep) { shown += 1; }
    });
    var counter = document.getElementById("shown");
    if (counter) { counter.textContent = shown + " of " + items.length + " shown on this page"; }
    var hash = fragment(choice);
    if (history.replaceState) { history.replaceState(null, "", hash || location.pathname); }
    var index = window.REASON_INDEX;
    var all = document.getElementById("shown-all");
    if (!index || !all) { return; }
    var total = 0;
    var pages = {};
    index.items.forEach(function (entry) {
      if (matches(entry[1], choice)) { total += 1; pages[entry[0]] = (pages[entry[0]] || 0) + 1; }
    });
    all.textContent = total + " of " + index.items.length + " match on all " + index.pages.length + " page(s)";
    var here = Number(document.getElementById("filters").dataset.page);
    var linked = Object.keys(pages).map(Number).sort(function (a, b) { return a - b; });
    if (linked.length && index.pages.length > 1) {
      all.appendChild(document.createTextNode("; pages with matches: "));
      linked.forEach(function (p) {
        var el = p === here ? document.createElement("strong") : document.createElement("a");
        if (p !== here) { el.href = index.pages[p] + hash; }
        el.textContent = (p + 1) + " (" + pages[p] + ")";
        all.appendChild(el);
      });
    }
    // the pager keeps the filters
    document.querySelectorAll("nav.pager a").forEach(function (a) {
      a.href = a.getAttribute("href").split("#")[0] + hash;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("filters");
    if (!form) { return; }
    var given = fromFragment();
    form.querySelectorAll("select[data-filter]").forEach(function (s) {
      var v = given[s.dataset.filter];
      if (v !== undefined && Array.prototype.some.call(s.options, function (o) { return o.value === v; })) {
        s.value = v;
      }
    });
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    apply();
  });
})();
