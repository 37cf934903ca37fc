"""At most as many requests of a web worker run at once as its pool has connections.

Under ASGI every request runs on a thread of its own and holds a pooled connection from its
first statement to its end. With 50 clients, 25 requests per worker shared one core and six
connections: each ran many times slower while it held its connection, and the others waited
for the pool until they answered 503 after CTX_DB_POOL_TIMEOUT (measured: about half the
answers). The gate lets `slots` requests run and keeps the others waiting in the event loop,
where they hold neither a thread nor a connection, first come first served, except for stores:
a waiting store goes before every waiting read, and reads hold at most all slots but one, so a
store finds one at once unless other stores hold them. A write is cheap and is what a client
must not wait for (50 clients, 40 % stores: store p95 2.7 s when stores queued behind queries
and searches; 0.84 to 1.42 s with the priority alone; 0.96 s with the slot kept). In a closed loop
of clients this cannot starve the reads: the clients that store are the ones that read next,
and stores alone never fill the server.

A waiting request answers 503 `service_unavailable` instead of running
- at once, when a request that ran meanwhile found the database unavailable (the others need
  not queue to hear the same: ctx.errors.database_unavailable),
- after CTX_REQUEST_QUEUE_SECONDS in the queue (the running requests are stuck, or the
  server has more clients than it can serve).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from enum import Enum

from ctx.errors import CtxError, ErrorCode, database_away_at
from ctx.guards import ASGIApp, Message, Receive, Scope, Send, respond

RETRY_AFTER = 2
STORES = frozenset({"/api/store", "/api/store/batch"})  # they go before waiting reads


class Turn(Enum):
    GRANTED = "granted"
    BUSY = "busy"  # waited too long
    AWAY = "away"  # a request that ran meanwhile found the database unavailable


class Slots:
    """A counting semaphore with a bounded wait and two queues: `first` (stores), then the
    rest, each first come first served. Reads hold at most all slots but `reserved`, so a
    store finds a slot at once unless other stores hold them."""

    def __init__(self, slots: int, longest: float, reserved: int = 1) -> None:
        self.free = slots
        self.longest = longest
        self.reads_max = max(1, slots - reserved)
        self.reads = 0  # slots held by reads
        self.first: deque[asyncio.Future[Turn]] = deque()
        self.waiters: deque[asyncio.Future[Turn]] = deque()

    def _may_take(self, first: bool) -> bool:
        return self.free > 0 and (first or self.reads < self.reads_max)

    def _take(self, first: bool) -> None:
        self.free -= 1
        self.reads += 0 if first else 1

    async def acquire(self, *, first: bool = False) -> Turn:
        queued = self.first or (self.waiters and not first)
        if self._may_take(first) and not queued:
            self._take(first)
            return Turn.GRANTED
        turn: asyncio.Future[Turn] = asyncio.get_running_loop().create_future()
        (self.first if first else self.waiters).append(turn)
        try:
            return await asyncio.wait_for(asyncio.shield(turn), self.longest)
        except TimeoutError:
            return Turn.GRANTED if self._leave(turn) else Turn.BUSY
        except asyncio.CancelledError:  # the client went away while it waited
            if self._leave(turn):
                self.release(first=first)  # the slot handed to us goes on to the next one
            raise

    def _leave(self, turn: asyncio.Future[Turn]) -> bool:
        """Leave the queue; True when a slot had been handed to us meanwhile."""
        if turn.done():
            return not turn.cancelled() and turn.result() is Turn.GRANTED
        for queue in (self.first, self.waiters):
            if turn in queue:
                queue.remove(turn)
        turn.cancel()
        return False

    def release(self, *, first: bool = False) -> None:
        self.free += 1
        self.reads -= 0 if first else 1
        self._hand_out()

    def _hand_out(self) -> None:
        """Free slots pass straight to the next in line: a store, else a read if reads may
        take one more."""
        while self.free > 0:
            turn, first = self._next()
            if turn is None:
                return
            self._take(first)
            turn.set_result(Turn.GRANTED)

    def _next(self) -> tuple[asyncio.Future[Turn] | None, bool]:
        for queue, first in ((self.first, True), (self.waiters, False)):
            if not first and self.reads >= self.reads_max:
                break
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    return turn, first
        return None, False

    def database_away(self) -> None:
        """Everyone waiting answers 503 now, as the request that just found it out did."""
        for queue in (self.first, self.waiters):
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(Turn.AWAY)


class RequestGate:
    """ASGI middleware: HTTP requests run `slots` at a time (see the module's docstring)."""

    def __init__(self, app: ASGIApp, slots: int, longest: float) -> None:
        self.app = app
        self.slots = Slots(slots, longest)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        first = scope["method"] == "POST" and scope["path"] in STORES
        turn = await self.slots.acquire(first=first)
        if turn is not Turn.GRANTED:
            message = "The server is busy" if turn is Turn.BUSY else "The database is unavailable"
            err = CtxError(f"{message}; retry shortly.", code=ErrorCode.UNAVAILABLE)
            return await respond(send, err, {"retry-after": str(RETRY_AFTER)})

        started = time.monotonic()

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and database_away_at() >= started:
                self.slots.database_away()
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            self.slots.release(first=first)
