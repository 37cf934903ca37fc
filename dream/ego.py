"""The ego graph of a block: its neighbourhood, hop by hop, as compact nodes and edges.

The walk, hop by hop from the focus block:
- each frontier node keeps its `per_node_cap` links with the highest `raw_confidence` (ties:
  link id), counting only links that pass every filter and whose other end is visible: live
  (not archived), not a system-meta block, in a scope the caller can read. The link's own
  scope is checked too. Visibility is part of every leg's SQL, so a block behind an
  unreadable, archived or system-meta bridge is never reached;
- `min_confidence` and `link_class` narrow the links, `category`, `created_after` and
  `created_before` the neighbours; the focus block is always shown, filters or not;
- `supersedes` links are shown but never traversed: their other end appears (one hop further)
  when it is a neighbour of a node the walk expands, but the walk goes on from it only if a
  traversable link reaches it too;
- at most `limit` nodes: a closer hop wins, then the higher confidence of the links that
  reached the node, then the id. With the budget full, the next hop still runs: it adds no
  node, but brings the links among the nodes already in;
- at most `edge_limit` edges, strongest (`confidence`) first, then link id.

Nodes carry their visible degree (links to visible blocks, any class and confidence), counted
up to DEGREE_SHOWN: 201 means "more than 200" (clients show "200+").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from ctx.principal import Principal
from ctx.selectors import get_block_for

MAX_HOPS = 3
MAX_PER_NODE = 100
MAX_NODES = 5000
MAX_EDGES = 20_000
DEGREE_SHOWN = 201  # a visible degree above 200 is reported as 201 ("200+")
SUPERSEDES = "supersedes"
# The order of an edge's fields in the payload's `edges` tuples.
EDGE_FIELDS = ("source", "target", "link_class", "confidence", "pinned", "origin", "id")

# The neighbour end of a link is visible: the one check, used by every leg and the degree.
_VISIBLE = "NOT {b}.archived AND {b}.type <> 'system-meta' AND {b}.scope_id = ANY(%(scopes)s)"

# One leg per frontier node (LATERAL): both directions as two index scans ordered by
# raw_confidence (link_source_raw, link_target_raw), merged, visibility and filters checked per
# row, stopped after `cap` rows. A hub's thousands of links are not all read.
_LEG_SIDE = """
    SELECT l.id, l.source_id, l.target_id, l.{other} AS other, l.link_class, l.confidence,
           l.raw_confidence, l.pinned, l.origin
    FROM dream_link l
    WHERE l.{near} = f.id AND l.scope_id = ANY(%(scopes)s) AND l.confidence >= %(min)s
      AND (cardinality(%(classes)s::text[]) = 0 OR l.link_class = ANY(%(classes)s::text[]))
"""
_LEG = f"""
SELECT f.id::text, e.id, e.source_id::text, e.target_id::text, e.other::text, e.link_class,
       e.confidence, e.pinned, e.origin
FROM unnest(%(frontier)s::uuid[]) AS f(id)
CROSS JOIN LATERAL (
    SELECT x.* FROM (
        ({_LEG_SIDE.format(near="source_id", other="target_id")}
         ORDER BY l.raw_confidence DESC, l.id)
        UNION ALL
        ({_LEG_SIDE.format(near="target_id", other="source_id")}
         ORDER BY l.raw_confidence DESC, l.id)
    ) x
    JOIN ctx_block b ON b.id = x.other AND {_VISIBLE.format(b="b")}
    WHERE b.id = %(focus)s::uuid OR (
        (cardinality(%(categories)s::text[]) = 0 OR b.category = ANY(%(categories)s::text[]))
        AND (%(after)s::timestamptz IS NULL OR b.created_at >= %(after)s::timestamptz)
        AND (%(before)s::timestamptz IS NULL OR b.created_at < %(before)s::timestamptz))
    ORDER BY x.raw_confidence DESC, x.id
    LIMIT %(cap)s
) e
"""  # noqa: S608 - constants only

_DEGREE_SIDE = f"""
    SELECT 1 FROM dream_link l JOIN ctx_block o ON o.id = l.{{other}} AND {_VISIBLE.format(b="o")}
    WHERE l.{{near}} = b.id AND l.scope_id = ANY(%(scopes)s)
"""  # noqa: S608 - constants only
_NODES = f"""
SELECT b.id::text, b.title, b.category, s.name, b.type, b.lifecycle, b.quality, b.created_at,
    (SELECT count(*) FROM (
        {_DEGREE_SIDE.format(near="source_id", other="target_id")}
        UNION ALL
        {_DEGREE_SIDE.format(near="target_id", other="source_id")}
        LIMIT %(degree)s) c)
FROM ctx_block b JOIN ctx_scope s ON s.id = b.scope_id
WHERE b.id = ANY(%(ids)s::uuid[])
"""  # noqa: S608 - constants only


@dataclass(frozen=True)
class EgoParams:
    block: str
    hops: int = 1
    per_node_cap: int = 25
    limit: int = 500
    edge_limit: int = 2000
    min_confidence: float = 0.0
    link_classes: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    created_after: datetime | None = None
    created_before: datetime | None = None


@dataclass(frozen=True)
class _Link:
    id: int
    source: str
    target: str
    other: str
    link_class: str
    confidence: float
    pinned: bool
    origin: str


@dataclass
class _Walk:
    """What the walk found so far: shown nodes (hop, best confidence), the nodes reached
    through traversable links, the links the legs kept."""

    focus: str
    shown: dict[str, tuple[int, float]]
    reached: set[str]
    links: dict[int, _Link]
    truncated: bool = False


def ego_graph(principal: Principal, params: EgoParams) -> dict[str, Any]:
    """The payload: `root`, `nodes` (focus first, then the truncation order), `edges` as
    tuples of EDGE_FIELDS with node positions, `edge_fields`, `truncated`. Missing and
    unreadable focus blocks are one 404."""
    focus = str(get_block_for(principal, params.block).pk)
    scopes = sorted(principal.read_scope_ids)
    walk = _Walk(focus, {focus: (0, 1.0)}, {focus}, {})
    frontier = [focus]
    for hop in range(1, params.hops + 1):
        if not frontier:
            break
        legs = _leg(frontier, scopes, params, focus)
        frontier = _step(walk, hop, legs, params.limit)
    order = sorted(walk.shown, key=lambda n: (walk.shown[n][0], -walk.shown[n][1], n))
    position = {node: i for i, node in enumerate(order)}
    kept = [x for x in walk.links.values() if x.source in position and x.target in position]
    kept.sort(key=lambda x: (-x.confidence, x.id))
    return {
        "root": focus,
        "nodes": _nodes(order, walk.shown, scopes),
        "edges": [_edge(x, position) for x in kept[: params.edge_limit]],
        "edge_fields": list(EDGE_FIELDS),
        "truncated": walk.truncated or len(kept) > params.edge_limit,
    }


def _step(walk: _Walk, hop: int, legs: list[_Link], limit: int) -> list[str]:
    """Take one hop's legs into the walk; return the next frontier (new nodes reached through
    a traversable link that fit the budget)."""
    new: dict[str, float] = {}
    ahead: list[str] = []
    for link in legs:
        walk.links.setdefault(link.id, link)
        other = link.other
        if other not in walk.shown:
            new[other] = max(new.get(other, 0.0), link.confidence)
        if link.link_class != SUPERSEDES and other not in walk.reached:
            walk.reached.add(other)
            ahead.append(other)
    room = max(0, limit - len(walk.shown))
    ranked = sorted(new.items(), key=lambda item: (-item[1], item[0]))
    walk.truncated = walk.truncated or len(ranked) > room
    for node, confidence in ranked[:room]:
        walk.shown[node] = (hop, confidence)
    return [node for node in ahead if node in walk.shown]


def _leg(frontier: list[str], scopes: list[int], params: EgoParams, focus: str) -> list[_Link]:
    with connection.cursor() as cur:
        cur.execute(
            _LEG,
            {
                "frontier": frontier,
                "scopes": scopes,
                "focus": focus,
                "min": params.min_confidence,
                "classes": list(params.link_classes),
                "categories": list(params.categories),
                "after": params.created_after,
                "before": params.created_before,
                "cap": params.per_node_cap,
            },
        )
        rows = cur.fetchall()
    return [_Link(r[1], r[2], r[3], r[4], r[5], float(r[6]), r[7], r[8]) for r in rows]


def _edge(link: _Link, position: dict[str, int]) -> list[Any]:
    return [
        position[link.source],
        position[link.target],
        link.link_class,
        round(link.confidence, 4),
        link.pinned,
        link.origin,
        link.id,
    ]


def _nodes(
    order: list[str], shown: dict[str, tuple[int, float]], scopes: list[int]
) -> list[dict[str, Any]]:
    with connection.cursor() as cur:
        cur.execute(_NODES, {"ids": order, "scopes": scopes, "degree": DEGREE_SHOWN})
        rows = {r[0]: r for r in cur.fetchall()}
    return [_node(rows[node], shown[node][0]) for node in order]


def _node(row: tuple[Any, ...], hop: int) -> dict[str, Any]:
    return {
        "id": row[0],
        "title": row[1],
        "category": row[2],
        "scope": row[3],
        "type": row[4],
        "lifecycle": row[5],
        "quality": round(row[6], 3),
        "created_at": row[7].isoformat(),
        "hop": hop,
        "degree": int(row[8]),
    }
