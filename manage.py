#!/usr/bin/env python
"""Django's command-line utility; starts the embedded services when no URLs are set."""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
    from ctx.runtime.launcher import attach_embedded

    # Break-glass from stdin must work while the database is down: it needs the key only.
    offline = "break_glass" in sys.argv and "--stdin" in sys.argv
    handles = None if offline else attach_embedded()
    from django.core.management import execute_from_command_line

    if sys.argv[1:2] != ["runserver"]:  # commands are not request-driven: every tenant
        from rls.context import enter_system_process

        enter_system_process()

    try:
        execute_from_command_line(sys.argv)
    except BrokenPipeError:
        # The reader went away (`manage.py config | head`): no traceback for that. Python's
        # advice: point stdout at /dev/null so the flush at exit cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    finally:
        if handles is not None:
            handles.stop()


if __name__ == "__main__":
    main()
