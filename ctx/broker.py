"""Task messages leave on a background thread: no request waits for the broker.

A write enqueues its follow-up tasks (embedding, dream runs, digests) after it committed.
Publishing them inside the request made every store wait for Redis: a paused Redis hung the
request (the publish had no socket timeout), the request kept its pooled database connection,
the pool ran out and every endpoint failed. `send` only appends the message to a bounded
in-process queue; one thread per process publishes it with socket timeouts and keeps what it
could not publish for the next attempt, so a broker that comes back gets the backlog at once.

What is lost anyway (a full queue, messages older than MAX_AGE, a process that exits, a Redis
that lost its queue) is caught up by beat: the periodic backfill embeds every block without a
vector, and dream's feed fans out due cycles and overdue digests. After an outage the first
successful publish also sends one backfill: a Redis that was restarted lost the messages no
worker had taken yet (an embedding published just before it died), and waiting for beat's next
round left such a block without a vector for up to a minute.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("ctx.broker")

LIMIT = 10_000  # queued messages per process; an embedding message carries up to 128 ids
MAX_AGE = 600.0  # seconds a message may wait; the backfill has long caught up by then
SOCKET_TIMEOUT = 2.0  # a broker that does not answer within this is down for the publisher
BACKOFF = (0.5, 5.0)  # first and longest wait between attempts while the broker is down
BACKFILL = "retrieval.backfill"


@dataclass(frozen=True)
class Message:
    task: str
    args: tuple[Any, ...] = ()
    countdown: float | None = None
    queued_at: float = field(default_factory=time.monotonic)


class Publisher:
    """The process's queue of outgoing task messages and the thread that sends them."""

    def __init__(self) -> None:
        self._queue: deque[Message] = deque()
        self._cond = threading.Condition()
        self._pid = 0
        self._busy = False  # the thread holds messages it is sending
        self._dropped = 0
        self._connection: Any = None

    def send(self, message: Message) -> None:
        with self._cond:
            self._ensure_thread()
            if len(self._queue) >= LIMIT:
                self._queue.popleft()
                self._drop(1, "the queue is full")
            self._queue.append(message)
            self._cond.notify()

    def flush(self, timeout: float) -> bool:
        """Wait until every queued message was sent (or given up); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    def pending(self) -> int:
        with self._cond:
            return len(self._queue)

    def _ensure_thread(self) -> None:
        # A forked child (a Celery pool process) inherits the queue but not the thread.
        if self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self._queue.clear()
        self._busy = False
        self._connection = None
        threading.Thread(target=self._run, name="ctx-broker", daemon=True).start()

    def _drop(self, count: int, why: str) -> None:
        self._dropped += count
        log.warning("dropped %d task message(s): %s; the backfill catches up", count, why)

    def _run(self) -> None:
        outage: float | None = None  # when publishing started to fail
        wait = BACKOFF[0]
        while True:
            batch = self._take()
            sent = self._publish(batch)
            with self._cond:
                self._queue.extendleft(reversed(batch[sent:]))  # unsent go back to the front
                self._busy = False
                self._cond.notify_all()
            if sent == len(batch):
                if outage is not None:
                    self._recovered(outage)
                outage, wait = None, BACKOFF[0]
                continue
            if outage is None:
                outage = time.monotonic()
                log.warning("broker unreachable: %d task message(s) wait", len(batch) - sent)
            time.sleep(wait)
            wait = min(BACKOFF[1], wait * 2)

    def _take(self) -> list[Message]:
        with self._cond:
            while not self._queue:
                self._cond.wait()
            batch = list(self._queue)
            self._queue.clear()
            self._busy = True
        now = time.monotonic()
        fresh = [m for m in batch if now - m.queued_at <= MAX_AGE]
        if len(fresh) < len(batch):
            self._drop(len(batch) - len(fresh), f"older than {MAX_AGE:.0f} s")
        return fresh

    def _recovered(self, outage: float) -> None:
        log.warning("broker reachable again after %.1f s", time.monotonic() - outage)
        self._dropped = 0
        self._publish([Message(BACKFILL)])

    def _publish(self, batch: list[Message]) -> int:
        """Send messages in order; return how many were sent before the first failure."""
        from ctx.celery import app

        for sent, message in enumerate(batch):
            try:
                if self._connection is None:
                    self._connection = _connection(app)
                app.send_task(
                    message.task,
                    args=list(message.args),
                    countdown=message.countdown,
                    connection=self._connection,
                    ignore_result=True,  # nothing reads results; and no subscribe per message
                    retry=False,
                )
            except Exception:
                log.debug("publish of %s failed", message.task, exc_info=True)
                self._close()
                return sent
        return len(batch)

    def _close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):  # a broken connection may fail to close
                self._connection.close()
            self._connection = None


def _connection(app: Any) -> Any:
    """A broker connection of the publisher's own, whose socket operations time out."""
    options = {"socket_timeout": SOCKET_TIMEOUT, "socket_connect_timeout": SOCKET_TIMEOUT}
    return app.connection_for_write(transport_options=options)


_publisher = Publisher()


def send(task: str, args: tuple[Any, ...] = (), *, countdown: float | None = None) -> None:
    """Queue a task message by name; it is published on the process's broker thread."""
    _publisher.send(Message(task, args, countdown))


def publish(task: str, args: tuple[Any, ...] = ()) -> None:
    """Publish one message now, in the caller's thread, on a connection whose socket operations
    time out: for a caller with a fallback of its own when the broker does not take the message
    (a paused Redis raises after SOCKET_TIMEOUT instead of holding the caller)."""
    from ctx.celery import app

    with _connection(app) as conn:
        app.send_task(task, args=list(args), connection=conn, ignore_result=True, retry=False)


def flush(timeout: float = 10.0) -> bool:
    """Wait until this process's queued messages were published (tests, shutdown)."""
    return _publisher.flush(timeout)
