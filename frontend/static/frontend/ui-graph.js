// The ego graph page: fetches the ego-graph operation's JSON and draws it with Cytoscape.js.
// Link classes as colours, node size by degree; a click on a block offers to open or centre.
(function () {
  "use strict";
  var COLOURS = {
    topical: "#6b7280", factual: "#2563eb", causal: "#dc2626", recurrent: "#16a34a",
    supersedes: "#9333ea", contradicts: "#ea580c"
  };
  var box = document.getElementById("graph");
  if (!box) { return; }
  var status = document.getElementById("graph-status");

  function elements(data) {
    var degree = {};
    data.edges.forEach(function (e) {
      degree[e.source] = (degree[e.source] || 0) + 1;
      degree[e.target] = (degree[e.target] || 0) + 1;
    });
    var nodes = data.nodes.map(function (n) {
      return { data: { id: n.id, label: n.title, degree: degree[n.id] || 0, root: n.id === data.root } };
    });
    var edges = data.edges.map(function (e) {
      return { data: { id: "l" + e.id, source: e.source, target: e.target,
        colour: COLOURS[e.link_class] || "#6b7280", confidence: e.confidence } };
    });
    return nodes.concat(edges);
  }

  // A chosen block offers two links (keyboard-reachable): open it, or centre the graph on it.
  function choose(node) {
    var id = encodeURIComponent(node.id());
    var chosen = document.getElementById("graph-chosen");
    chosen.textContent = "";
    var open = document.createElement("a");
    open.href = "/blocks/" + id;
    open.textContent = "Open \u201c" + node.data("label") + "\u201d";
    var centre = document.createElement("a");
    centre.href = "/graph/" + id + window.location.search;
    centre.textContent = "Centre the graph on it";
    centre.id = "graph-centre";
    chosen.append(open, " \u00b7 ", centre);
    centre.focus();
  }

  function draw(data) {
    var cy = cytoscape({
      container: box,
      elements: elements(data),
      layout: { name: data.nodes.length > 150 ? "concentric" : "cose", animate: false },
      style: [
        { selector: "node", style: {
          label: "data(label)", "font-size": 10, "text-wrap": "ellipsis", "text-max-width": 120,
          width: "mapData(degree, 0, 20, 12, 40)", height: "mapData(degree, 0, 20, 12, 40)",
          "background-color": "#3b82f6", color: "#52525b" } },
        { selector: "node[?root]", style: { "background-color": "#f59e0b", "border-width": 2 } },
        { selector: "edge", style: { width: 1.5, "line-color": "data(colour)",
          "target-arrow-color": "data(colour)", "target-arrow-shape": "triangle",
          "curve-style": "haystack" } }
      ]
    });
    cy.on("tap", "node", function (evt) { choose(evt.target); });
    window.ctxGraph = cy;  // for the browser tests: a node's position on the canvas
    box.dataset.drawn = String(data.nodes.length);
  }

  fetch(box.dataset.src, { credentials: "same-origin" })
    .then(function (r) { if (!r.ok) { throw new Error(String(r.status)); } return r.json(); })
    .then(draw)
    .catch(function (err) { status.textContent = "The graph could not load (" + err.message + ")."; });
})();
