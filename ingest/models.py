"""Conversations: where they came from (Source), the sessions and their messages, the windows
that are stored as `transcript` blocks, and the import jobs. Every row lives in one scope."""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from ctx.models import ApiKey, Block, Scope, ScopedQuerySet

ROLES = ("user", "assistant", "tool", "system")
# What a session event may be, in the order of ingest.events.PRIORITY (a test compares them).
EVENT_KINDS = (
    "rule",
    "decision",
    "task",
    "error",
    "user_prompt",
    "file_edit",
    "git",
    "subagent",
    "file_read",
    "compact",
    "session",
)
TOOL_RE = r"^[a-z0-9][a-z0-9._-]{0,31}$"


class Source(models.Model):
    """A file (or database, or export) on one machine that sessions were read from, with the
    cursor the client reported after its last upload (byte offset, row ids, content hash)."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    tool = models.CharField(max_length=32)
    machine = models.CharField(max_length=200, blank=True)
    path = models.CharField(max_length=1000)
    cursor = models.JSONField(default=dict, blank=True)
    last_import_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "tool", "machine", "path"], name="source_scope_tool_path_uniq"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tool}:{self.machine}:{self.path}"


class Session(models.Model):
    """One conversation of one tool. (scope, tool, external id) is unique: the same session
    uploaded from two machines is one row. `deleted_at` marks a tombstone: its messages and
    windows are gone, and an import skips it unless asked to restore it."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    tool = models.CharField(max_length=32)
    external_id = models.CharField(max_length=200)
    title = models.CharField(max_length=500, blank=True)
    project_root = models.CharField(max_length=1000, blank=True)
    git_branch = models.CharField(max_length=200, blank=True)
    git_commit = models.CharField(max_length=64, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    last_activity_at = models.DateTimeField(null=True, blank=True)
    message_count = models.PositiveIntegerField(default=0)
    parent_external_id = models.CharField(max_length=200, blank=True)
    is_sidechain = models.BooleanField(default=False)
    meta = models.JSONField(default=dict, blank=True)
    # The last user prompt, cut short: what `recent_sessions` shows to resume from.
    preview = models.CharField(max_length=300, blank=True)
    source = models.ForeignKey(
        Source, null=True, blank=True, on_delete=models.SET_NULL, related_name="sessions"
    )
    deleted_at = models.DateTimeField(null=True, blank=True)
    # The hook event log (SessionEvent): the last sequence number given, and how many events
    # the per-session cap has dropped so far.
    event_seq = models.PositiveIntegerField(default=0)
    events_dropped = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "tool", "external_id"], name="session_scope_tool_extid_uniq"
            ),
            models.CheckConstraint(condition=Q(tool__regex=TOOL_RE), name="session_tool_valid"),
            models.CheckConstraint(condition=~Q(external_id=""), name="session_extid_nonempty"),
        ]
        indexes = [
            # recent_sessions: the newest live sessions of the caller's scopes.
            models.Index(
                "scope",
                models.F("last_activity_at").desc(nulls_last=True),
                "id",
                condition=Q(deleted_at__isnull=True),
                name="session_scope_recent",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tool}:{self.external_id}"


class Message(models.Model):
    """One message of a session, its text already scrubbed of credentials (`redacted` names
    what was replaced, never the value)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="messages")
    # The session's scope, copied (a session never changes scope) so the policy tests it
    # directly, as for the blocks' windows (docs/rls.md).
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    index = models.PositiveIntegerField()
    role = models.CharField(max_length=16)
    text = models.TextField(blank=True)
    tool_calls = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    timestamp = models.DateTimeField(null=True, blank=True)
    external_id = models.CharField(max_length=200, blank=True)
    flags = ArrayField(models.CharField(max_length=32), default=list, blank=True)
    redacted = ArrayField(models.CharField(max_length=40), default=list, blank=True)
    content_hash = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "index"], name="message_session_index_uniq"),
            models.CheckConstraint(condition=Q(role__in=ROLES), name="message_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.index}"


class Window(models.Model):
    """A run of consecutive messages of a session, stored as one `transcript` block."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="windows")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    first_index = models.PositiveIntegerField()
    last_index = models.PositiveIntegerField()
    block = models.OneToOneField(Block, on_delete=models.CASCADE, related_name="session_window")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["session", "first_index", "last_index"], name="window_session_range_uniq"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}[{self.first_index}-{self.last_index}]"


class ImportJob(models.Model):
    """One uploaded batch, processed by a worker in one transaction. The batch is kept (already
    scrubbed) only until it was processed; `result` holds the counts per session."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    key = models.ForeignKey(ApiKey, null=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    payload = models.JSONField(null=True, blank=True)
    sessions = models.PositiveIntegerField(default=0)
    messages = models.PositiveIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "done", "failed"]),
                name="importjob_status_valid",
            ),
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="importjob_status")]

    def __str__(self) -> str:
        return f"import {self.id} ({self.status})"


class SessionEvent(models.Model):
    """One thing that happened in a live session, recorded by a hook (`ctx hook record`): a
    prompt, a file read or edited, a task list, a decision, an error, a git command, a
    subagent. Its text and data are already scrubbed of credentials. The resume snapshot is
    built from these (ingest.snapshot); they are searchable through the session's event
    blocks (ingest.eventlog)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="events")
    # The session's scope, copied as for messages: the policy tests it directly.
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    seq = models.PositiveIntegerField()  # 1, 2, … per session, in the order recorded
    kind = models.CharField(max_length=16)
    priority = models.PositiveSmallIntegerField()  # fixed per kind (ingest.events.PRIORITY)
    text = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField()
    content_hash = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["session", "seq"], name="sessionevent_session_seq_uniq"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=EVENT_KINDS), name="sessionevent_kind_valid"
            ),
        ]
        indexes = [
            # The cap drops the lowest priority, oldest first.
            models.Index(fields=["session", "priority", "seq"], name="sessionevent_drop_order"),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}!{self.seq} {self.kind}"
