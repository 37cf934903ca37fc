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

  // Nodes carry their visible degree (201 means "more than 200"); edges are tuples of
  // node positions: [source, target, link_class, confidence, pinned, origin, id].
  function elements(data) {
    var nodes = data.nodes.map(function (n) {
      var shown = n.degree > 200 ? "200+" : String(n.degree);
      return { data: { id: n.id, label: n.title, degree: Math.min(n.degree, 20),
        degreeText: shown, root: n.id === data.root } };
    });
    var edges = data.edges.map(function (e) {
      return { data: { id: "l" + e[6], source: data.nodes[e[0]].id, target: data.nodes[e[1]].id,
        colour: COLOURS[e[2]] || "#6b7280", confidence: e[3] } };
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
    var links = document.createElement("span");
    links.className = "meta";
    links.textContent = node.data("degreeText") + " links";
    chosen.append(open, " (", links, ") \u00b7 ", centre);
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
