// As-you-type results under the search box: the lexical arms only (/search/suggest, JSON),
// a moment after typing stops. Enter still runs the whole query pipeline (the form's submit).
(function () {
  "use strict";
  var box = document.getElementById("q");
  var out = document.getElementById("suggest");
  if (!box || !out) { return; }
  var form = box.form;
  var timer = null;
  var asked = 0;

  function params() {
    var data = new URLSearchParams();
    ["q", "scope", "category", "type", "tags"].forEach(function (name) {
      var field = form.elements.namedItem(name);
      if (field && field.value) { data.set(name, field.value); }
    });
    return data;
  }

  function show(answer, turn) {
    if (turn !== asked) { return; }  // an older answer arriving late
    var list = document.createElement("ul");
    answer.results.forEach(function (r) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = "/blocks/" + encodeURIComponent(r.id);
      link.textContent = r.title;
      var where = document.createElement("span");
      where.className = "meta";
      where.textContent = " " + r.scope;
      item.append(link, where);
      list.append(item);
    });
    var count = document.createElement("p");
    count.className = "meta";
    count.textContent = answer.results.length + " quick match" +
      (answer.results.length === 1 ? "" : "es") + " for \u201c" + answer.query + "\u201d (Enter searches fully)";
    out.replaceChildren(count, list);
  }

  function ask() {
    var turn = ++asked;
    if (box.value.trim().length < 2) { out.replaceChildren(); return; }
    fetch("/search/suggest?" + params().toString(), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { query: box.value, results: [] }; })
      .then(function (answer) { show(answer, turn); })
      .catch(function () { /* typing goes on; the full search still works */ });
  }

  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(ask, 200);
  });
})();
