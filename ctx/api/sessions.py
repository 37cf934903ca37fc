"""The conversations API: import (a job), jobs, sessions, session search, knowledge writes, the
hook event log and its resume snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctx import knobs
from ctx.api.routing import READ, Op, endpoint
from ingest import operations as ops


def accepted(payload: Mapping[str, Any]) -> int:
    return 202


def stored(payload: Mapping[str, Any]) -> int:
    return 200 if payload.get("action") == "rejected" else 201


def _windows(data: ops.ImportInput) -> int:
    """An import costs about the windows it writes: one per stride of messages."""
    messages = sum(len(s.messages) for s in data.sessions)
    return max(1, messages // int(knobs.value("CTX_SESSION_WINDOW_STRIDE")))


import_ = endpoint(post=Op(ops.import_sessions, ops.ImportInput, cost=_windows, status=accepted))
job = endpoint(get=Op(ops.job_get, ops.JobInput, bucket=READ))
sessions = endpoint(get=Op(ops.sessions_list, ops.SessionsInput, bucket=READ))
session = endpoint(
    get=Op(ops.session_get, ops.DetailInput, bucket=READ),
    delete=Op(ops.session_delete, ops.SessionInput),
)
search = endpoint(post=Op(ops.sessions_search, ops.SearchInput, bucket=READ))
events = endpoint(post=Op(ops.events_record, ops.EventsInput))
snapshot = endpoint(
    get=Op(
        ops.session_snapshot,
        ops.SnapshotInput,
        bucket=READ,
        text=lambda payload: str(payload["markdown"]),
    )
)
decision = endpoint(post=Op(ops.save_decision, ops.DecisionInput, status=stored))
error_solution = endpoint(post=Op(ops.save_error_solution, ops.ErrorSolutionInput, status=stored))
insight = endpoint(post=Op(ops.save_insight, ops.InsightInput, status=stored))
