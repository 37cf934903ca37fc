"""The request gate's order, through its ASGI interface: with every slot taken, a store
waiting behind reads is served before them; reads keep their order; a request that waited
past the limit answers 503."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Any

from ctx.gate import RequestGate


def request(method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "headers": []}


async def receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


class App:
    """Answers each request once the test lets it finish; records the order it ran in."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.go: dict[str, asyncio.Event] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        name = f"{scope['method']} {scope['path']}"
        self.ran.append(name)
        await self.go.setdefault(name, asyncio.Event()).wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


async def call(gate: RequestGate, method: str, path: str) -> int:
    statuses: list[int] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await gate(request(method, path), receive, send)
    return statuses[0]


def finish(app: App, name: str) -> None:
    app.go.setdefault(name, asyncio.Event()).set()


def test_a_waiting_store_runs_before_waiting_reads() -> None:
    async def scenario() -> list[str]:
        app = App()
        gate = RequestGate(app, slots=1, longest=30)  # type: ignore[arg-type]
        running = asyncio.create_task(call(gate, "POST", "/api/query"))
        await asyncio.sleep(0.01)
        queued = [
            asyncio.create_task(call(gate, method, path))
            for method, path in [
                ("POST", "/api/search"),
                ("GET", "/api/blocks"),
                ("POST", "/api/store"),
                ("POST", "/api/store/batch"),
            ]
        ]
        await asyncio.sleep(0.01)
        for name in ["POST /api/query", "POST /api/store", "POST /api/store/batch"]:
            finish(app, name)
            await asyncio.sleep(0.01)
        finish(app, "POST /api/search")
        finish(app, "GET /api/blocks")
        assert await asyncio.gather(running, *queued) == [200] * 5
        return app.ran

    assert asyncio.run(scenario()) == [
        "POST /api/query",
        "POST /api/store",
        "POST /api/store/batch",
        "POST /api/search",
        "GET /api/blocks",
    ]


def test_a_request_that_waits_too_long_answers_503_in_the_envelope() -> None:
    async def scenario() -> tuple[int, int]:
        app = App()
        gate = RequestGate(app, slots=1, longest=0.05)  # type: ignore[arg-type]
        running = asyncio.create_task(call(gate, "POST", "/api/query"))
        await asyncio.sleep(0.01)
        waited = await call(gate, "POST", "/api/store")
        finish(app, "POST /api/query")
        return await running, waited

    assert asyncio.run(scenario()) == (200, 503)


def test_the_503_names_the_reason() -> None:
    bodies: list[bytes] = []

    async def scenario() -> None:
        app = App()
        gate = RequestGate(app, slots=1, longest=0.05)  # type: ignore[arg-type]
        running = asyncio.create_task(call(gate, "POST", "/api/query"))
        await asyncio.sleep(0.01)

        async def send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.body":
                bodies.append(message["body"])

        await gate(request("POST", "/api/search"), receive, send)
        finish(app, "POST /api/query")
        await running

    asyncio.run(scenario())
    error = json.loads(bodies[0])["error"]
    assert error["code"] == "service_unavailable" and "busy" in error["message"]


def test_reads_leave_a_slot_for_stores() -> None:
    """Two slots: one read runs, the next read waits although a slot is free, and a store
    arriving after it runs at once in the slot kept for stores."""

    async def scenario() -> list[str]:
        app = App()
        gate = RequestGate(app, slots=2, longest=30)  # type: ignore[arg-type]
        first_read = asyncio.create_task(call(gate, "POST", "/api/query"))
        await asyncio.sleep(0.01)
        second_read = asyncio.create_task(call(gate, "POST", "/api/search"))
        await asyncio.sleep(0.01)
        store = asyncio.create_task(call(gate, "POST", "/api/store"))
        await asyncio.sleep(0.01)
        running = list(app.ran)
        for name in ["POST /api/store", "POST /api/query", "POST /api/search"]:
            finish(app, name)
        assert await asyncio.gather(first_read, second_read, store) == [200] * 3
        return running

    assert asyncio.run(scenario()) == ["POST /api/query", "POST /api/store"]
