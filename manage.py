#!/usr/bin/env python
"""Django's command-line utility; starts the embedded services when no URLs are set."""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
    from ctx.launcher import attach_embedded

    handles = attach_embedded()
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    finally:
        if handles is not None:
            handles.stop()


if __name__ == "__main__":
    main()
