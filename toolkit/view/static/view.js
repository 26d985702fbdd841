// Filters: each <select data-filter="ATTR"> hides the .item elements whose data-ATTR differs from its value.
"use strict";
(function () {
  function apply() {
    var selects = document.querySelectorAll("select[data-filter]");
    var items = document.querySelectorAll(".items > .item");
    var shown = 0;
    items.forEach(function (item) {
      var keep = true;
      selects.forEach(function (s) {
        if (s.value !== "" && item.getAttribute("data-" + s.dataset.filter) !== s.value) { keep = false; }
      });
      item.hidden = !keep;
      if (keep) { shown += 1; }
    });
    var counter = document.getElementById("shown");
    if (counter) { counter.textContent = shown + " of " + items.length + " shown on this page"; }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("filters");
    if (!form) { return; }
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    apply();
  });
})();
