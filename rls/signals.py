"""Wiring: every new connection gets the context; request boundaries start empty."""

from __future__ import annotations

from typing import Any

from celery import signals
from django.core.signals import request_finished, request_started
from django.db.backends.signals import connection_created

from rls import context


def _on_connection_created(sender: Any, connection: Any, **kwargs: Any) -> None:
    if connection.vendor == "postgresql":
        context.arm(connection)


def _on_request_boundary(sender: Any, **kwargs: Any) -> None:
    # A thread (WSGI, the test client) serves many requests: none inherits the last one's.
    context.clear()


def _on_system_process(**kwargs: Any) -> None:
    context.enter_system_process()


def connect() -> None:

    connection_created.connect(_on_connection_created, dispatch_uid="rls_connection_created")
    request_started.connect(_on_request_boundary, dispatch_uid="rls_request_started")
    request_finished.connect(_on_request_boundary, dispatch_uid="rls_request_finished")


def connect_celery() -> None:
    """Workers and beat run every tenant's background work: the system context."""

    signals.worker_init.connect(_on_system_process, weak=False)
    signals.worker_process_init.connect(_on_system_process, weak=False)
    signals.beat_init.connect(_on_system_process, weak=False)
