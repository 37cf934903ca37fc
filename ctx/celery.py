"""The Celery app: Redis broker, tasks discovered from the apps, beat schedule in settings."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")

app = Celery("ctx")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Workers and beat serve every tenant: they run in the row-level-security system context.
from rls.signals import connect_celery  # noqa: E402

connect_celery()

# A task's writes are recorded as the `task` channel's in block versions (ctx/channel.py).
from celery.signals import task_postrun, task_prerun  # noqa: E402

from ctx import channel  # noqa: E402

task_prerun.connect(channel.task_started, weak=False)
task_postrun.connect(channel.task_finished, weak=False)

# `make run` prints the bootstrap key once every worker and beat said it is ready
# (ctx/runtime/ready.py).
from celery.signals import beat_init, worker_ready  # noqa: E402

from ctx.runtime import ready  # noqa: E402

worker_ready.connect(ready.announce, weak=False)
beat_init.connect(ready.announce, weak=False)

# Each pool process starts with the parent's loaded apps: kept out of full collections
# (ctx/runtime/heap.py).
from celery.signals import worker_process_init  # noqa: E402

from ctx.runtime import heap  # noqa: E402

worker_process_init.connect(heap.freeze, weak=False)
