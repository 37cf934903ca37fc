"""The Celery app: Redis broker, tasks discovered from the apps, beat schedule in settings."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")

app = Celery("ctx")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
