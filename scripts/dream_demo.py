#!/usr/bin/env python
"""Dream Mode against a running ctx server (`make run`), with a readable transcript.

    .venv/bin/python scripts/dream_demo.py http://127.0.0.1:8000 ctx_xxxxxxxx_...

Stores a few realistic notes through POST /api/store and then only watches: the server's
Celery worker embeds them, beat feeds the dream queue, the worker claims blocks and links them.
The script lists the links, asks /api/query when we deploy, stores an update ("Deploy day
(updated)": we now deploy on Thursdays instead of Tuesdays), waits until it supersedes the old
note and asks again. With a server-admin key (the bootstrap key) it works in a fresh tenant
and deletes it at the end (--keep keeps it); with another key, in that key's home scope.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

QUESTION = "When do we deploy to production?"
UPDATE = (
    "ops",
    "Deploy day (updated)",
    "We now deploy on Thursdays instead of Tuesdays, so QA gets two more days.",
    None,
)
# (category, title, content, source time): notes with a date were written back then.
NOTES: list[tuple[str, str, str, str | None]] = [
    ("ops", "Deploy day", "We deploy to production every Tuesday after the standup.", None),
    ("ops", "Rollback procedure",
     "If a deploy breaks production, run make rollback and post in the on-call channel.",
     "2025-01-20T09:00:00Z"),
    ("ops", "Staging environment",
     "Staging mirrors production; every release sits on staging one day before the deploy.",
     "2025-02-03T09:00:00Z"),
    ("incidents", "Redis memory full",
     "On March 3 the Redis cache on prod-cache-1 ran out of memory; the eviction policy was "
     "noeviction.", "2025-03-03T08:00:00Z"),
    ("incidents", "Checkout outage",
     "Checkout was down for 40 minutes on March 3 because the Redis cache on prod-cache-1 was "
     "full and sessions could not be written.", "2025-03-04T09:00:00Z"),
    ("incidents", "Redis eviction policy",
     "After the checkout outage we set maxmemory-policy to allkeys-lru on prod-cache-1.",
     "2025-03-05T09:00:00Z"),
    ("meetings", "Weekly team standup 2025-03-03",
     "Anna finished the billing export; Ben is still on the login bug.", "2025-03-03T10:00:00Z"),
    ("meetings", "Weekly team standup 2025-03-10",
     "Ben fixed the login bug; Anna started on invoice reminders.", "2025-03-10T10:00:00Z"),
    ("projects", "Atlas kickoff",
     "Project Atlas kicked off with Globex; Maria Lopez from Globex is the product owner.",
     "2025-01-08T09:00:00Z"),
    ("projects", "Atlas budget",
     "The Atlas budget is 120k EUR for 2025, approved by Maria Lopez at Globex.",
     "2025-01-22T09:00:00Z"),
    ("personal", "Favourite coffee", "I drink oat milk flat whites, no sugar.",
     "2025-01-05T09:00:00Z"),
    ("personal", "Favourite coffee (updated)",
     "I switched to black filter coffee; no more oat milk.", "2025-03-01T09:00:00Z"),
    ("health", "Dentist appointment",
     "Dr. Keller, April 12 at 9:00, Bahnhofstrasse 5; bring the insurance card.",
     "2025-03-25T09:00:00Z"),
    ("admin", "Tax return 2024",
     "The tax return is due July 31; the accountant needs the bank statements.",
     "2025-02-20T09:00:00Z"),
]  # fmt: skip


@dataclass
class Demo:
    http: httpx.Client
    scope: str
    started: float = field(default_factory=time.monotonic)
    ids: dict[str, str] = field(default_factory=dict)  # block id → title

    def say(self, text: str) -> None:
        print(f"[{time.monotonic() - self.started:6.1f}s] {text}", flush=True)

    def call(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        resp = self.http.request(method, path, **kw)
        if resp.status_code >= 400:
            raise SystemExit(f"{method} {path} answered {resp.status_code}: {resp.text}")
        body: dict[str, Any] = resp.json()
        return body

    def store(self, note: tuple[str, str, str, str | None]) -> str:
        category, title, content, when = note
        body: dict[str, Any] = {"category": category, "title": title, "content": content}
        body |= {"scope": self.scope} | ({"source_time": when} if when else {})
        block_id = str(self.call("POST", "/api/store", json=body)["id"])
        self.ids[block_id] = title
        return block_id

    def stats(self) -> dict[str, Any]:
        return self.call("GET", "/api/dream/stats", params={"scope": self.scope})

    def links(self) -> dict[int, dict[str, Any]]:
        """Every link around the stored notes, from their ego graphs."""
        found: dict[int, dict[str, Any]] = {}
        for block_id in self.ids:
            graph = self.call("GET", "/api/graph/ego", params={"block": block_id, "hops": 1})
            nodes, fields = graph["nodes"], graph["edge_fields"]
            for row in graph["edges"]:  # node positions: the ids back in
                edge = dict(zip(fields, row, strict=True))
                edge["source"], edge["target"] = nodes[row[0]]["id"], nodes[row[1]]["id"]
                found[edge["id"]] = edge
        return found

    def ask(self, question: str) -> list[str]:
        body = self.call("POST", "/api/query", json={"query": question, "limit": 5})
        titles = [str(s["title"]) for s in body["sources"]]
        print(f"\n  Q: {question}")
        for i, title in enumerate(titles, start=1):
            print(f"     {i}. {title}")
        print()
        return titles


def wait_dreamt(demo: Demo, timeout: float) -> None:
    """Until every note is embedded and dreamt and the link count holds still."""
    deadline, last, steady = time.monotonic() + timeout, "", 0
    while time.monotonic() < deadline:
        s = demo.stats()
        q, total = s["queue"], s["links"]["total"]
        busy = q["never_dreamed"] + q["awaiting_embedding"] + q["pickable_now"] + q["claimed"]
        line = (
            f"awaiting embedding {q['awaiting_embedding']}, never dreamt {q['never_dreamed']}, "
            f"due {q['pickable_now']}, claimed {q['claimed']}, cycles {q['cycles']}, "
            f"links {total}"
        )
        if line != last:
            demo.say(line)
            last, steady = line, 0
        steady += 1
        if busy == 0 and total and steady >= 3:
            return
        time.sleep(1)
    raise SystemExit(f"gave up after {timeout:.0f} s: is the worker running (make run)?")


def show_links(demo: Demo) -> dict[int, dict[str, Any]]:
    found = demo.links()
    width = max(len(t) for t in demo.ids.values())
    for edge in sorted(found.values(), key=lambda e: (e["link_class"], -e["confidence"])):
        src, dst = demo.ids.get(edge["source"], "?"), demo.ids.get(edge["target"], "?")
        print(f"     {src:>{width}}  --{edge['link_class']} {edge['confidence']:.2f}-->  {dst}")
    return found


def wait_superseded(demo: Demo, new_id: str, old_id: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for edge in demo.links().values():
            if (edge["source"], edge["target"], edge["link_class"]) == (
                new_id,
                old_id,
                "supersedes",
            ):
                return edge
        time.sleep(1)
    raise SystemExit(f"no supersedes link after {timeout:.0f} s")


def setup(http: httpx.Client, keep: bool) -> tuple[str, str | None, httpx.Client]:
    """(scope, tenant to delete at the end, client of the key that stores)."""
    me = http.get("/api/whoami").json()
    if not me.get("is_admin"):
        print(f"- not a server-admin key: notes go to {me['home_scope']}, nothing is deleted")
        return str(me["home_scope"]), None, http
    name = f"dream-demo-{uuid.uuid4().hex[:6]}"
    resp = http.post("/api/admin/tenants", json={"name": name})
    if resp.status_code != 201:
        raise SystemExit(f"could not create tenant {name}: {resp.text}")
    owner = httpx.Client(
        base_url=str(http.base_url),
        headers={"X-Context-Key": resp.json()["owner_key"]},
        timeout=http.timeout,
    )
    print(f"- tenant {name} created for the demo" + (" (kept)" if keep else ""))
    return f"{name}:main", (None if keep else name), owner


def run(url: str, key: str, *, timeout: float, keep: bool) -> None:
    admin = httpx.Client(base_url=url, headers={"X-Context-Key": key}, timeout=120)
    print(f"ctx Dream Mode demo against {url}")
    scope, tenant, http = setup(admin, keep)
    demo = Demo(http=http, scope=scope)
    mode = demo.call("GET", "/api/dream/mode")["mode"]
    print(f"- dream mode: {mode}; deterministic typing unless the server has an LLM configured")
    try:
        story(demo, timeout)
    finally:
        if tenant:
            admin.delete(f"/api/admin/tenants/{tenant}")
            print(f"- tenant {tenant} deleted")


def story(demo: Demo, timeout: float) -> None:
    ids = [demo.store(note) for note in NOTES]
    demo.say(f"stored {len(ids)} notes in {demo.scope}; from here on the script only watches")
    wait_dreamt(demo, timeout)
    demo.say("every note embedded and dreamt; the links:")
    show_links(demo)
    demo.ask(QUESTION)
    new_id = demo.store(UPDATE)
    demo.say(f'stored "{UPDATE[1]}": {UPDATE[2]}')
    edge = wait_superseded(demo, new_id, ids[0], timeout)
    old = demo.call("POST", "/api/manage", json={"action": "get", "id": ids[0]})
    demo.say(
        f'"{UPDATE[1]}" --supersedes {edge["confidence"]:.2f}--> "{NOTES[0][1]}"; '
        f"the old note is now lifecycle={old['block']['lifecycle']}"
    )
    answer = demo.ask(QUESTION)
    gone = NOTES[0][1] not in answer
    demo.say(f'"{NOTES[0][1]}" ' + ("no longer answers" if gone else "STILL answers (!)"))
    demo.ask("What was the deploy day before?")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url", help="the server's origin, e.g. http://127.0.0.1:8000")
    parser.add_argument("api_key", help="the bootstrap admin key `make run` printed")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds per wait")
    parser.add_argument("--keep", action="store_true", help="keep the demo tenant")
    args = parser.parse_args()
    run(args.base_url.rstrip("/"), args.api_key, timeout=args.timeout, keep=args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
