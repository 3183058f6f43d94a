// Step through a replay: one epoch shown at a time; Back/Forward, arrow keys, #eN links.
(function () {
  "use strict";
  var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
  var where = document.getElementById("where");
  if (!steps.length || !where) { return; }
  var current = steps.length - 1;
  function indexOf(hash) {
    for (var i = 0; i < steps.length; i++) {
      if ("#" + steps[i].id === hash) { return i; }
    }
    return -1;
  }
  function show(i, push) {
    current = Math.max(0, Math.min(steps.length - 1, i));
    for (var j = 0; j < steps.length; j++) { steps[j].hidden = j !== current; }
    where.textContent = "step " + (current + 1) + " of " + steps.length;
    document.body.setAttribute("data-step", steps[current].id);
    if (push && history.replaceState) { history.replaceState(null, "", "#" + steps[current].id); }
  }
  document.getElementById("first").addEventListener("click", function () { show(0, true); });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1, true); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1, true); });
  document.getElementById("last").addEventListener("click", function () { show(steps.length - 1, true); });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowLeft") { show(current - 1, true); }
    if (ev.key === "ArrowRight") { show(current + 1, true); }
  });
  window.addEventListener("hashchange", function () {
    var i = indexOf(location.hash);
    if (i >= 0) { show(i, false); }
  });
  var start = indexOf(location.hash);
  show(start >= 0 ? start : 0, false);
}());
