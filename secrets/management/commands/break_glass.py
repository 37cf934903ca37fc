"""Break-glass: an operator on the server's machine reads what the API never returns.

`secret NAME [SCOPE]` opens a row from the database. `secret --stdin` opens a row piped in as
JSON (from `export NAME [SCOPE]`, or psql) with nothing but the key in the environment: it never
touches the database, so it works while the database or the server cannot start. Every use is
audited: a SecretAudit row where a database is involved, and always a WARNING log line (on
stderr) that names the secret but never holds its value. Only the value goes to stdout.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ... import crypto


class Command(BaseCommand):
    help = "Print a secret's value (audited), export a sealed row, or reset settings overrides."
    # System checks query the database; the --stdin mode must run without one.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        secret = sub.add_parser("secret", help="print the plaintext of a secret")
        secret.add_argument("name", nargs="?", help="the secret's name (read from stdin: --stdin)")
        secret.add_argument("scope", nargs="?", help="tenant/scope, or a scope name")
        secret.add_argument(
            "--stdin",
            action="store_true",
            help="open a sealed row piped in as JSON; needs only CTX_SECRETS_KEY(_PREV)",
        )
        export = sub.add_parser("export", help="print a sealed row as JSON (for --stdin)")
        export.add_argument("name")
        export.add_argument("scope", nargs="?")
        reset = sub.add_parser("reset-settings", help="drop database settings overrides")
        reset.add_argument("key", nargs="?", help="one setting (default: all)")

    def handle(self, *args: Any, **opts: Any) -> None:
        action = opts["action"]
        try:
            if action == "secret" and opts["stdin"]:
                self._print(self._open_stdin(opts["name"], opts["scope"]))
            elif action == "secret":
                self._print(self._open_db(opts["name"], opts["scope"]))
            elif action == "export":
                self._export(opts["name"], opts["scope"])
            else:
                self._reset_settings(opts["key"])
        except (LookupError, ValueError, crypto.KeyConfigError, crypto.OpenFailed) as exc:
            raise CommandError(str(exc)) from None

    def _print(self, value: str) -> None:
        self.stdout.write(value + "\n", ending="")  # exactly the value and one newline

    def _open_stdin(self, name: str | None, scope: str | None) -> str:
        from ...services import operator  # --stdin runs without a database

        try:
            doc = json.loads(sys.stdin.read())
        except ValueError:
            raise ValueError("stdin does not hold JSON (see `break_glass export`)") from None
        keyring = crypto.keyring_from(os.environ)  # the environment only: no settings, no DB
        got_scope, got_name, value = crypto.open_export(doc, keyring)
        if (name and name != got_name) or (scope and scope != got_scope):
            raise ValueError(f"the piped row is '{got_name}' in '{got_scope}'")
        logging.getLogger("ctx.secrets").warning(
            "break-glass: secret %s in %s opened from stdin by %s (no database audit row)",
            got_name,
            got_scope,
            operator(),
        )
        return value

    def _open_db(self, name: str | None, scope: str | None) -> str:
        from ... import services  # --stdin runs without a database

        if not name:
            raise CommandError("NAME is required (or pipe a row with --stdin).")
        return services.secret_reveal(name=name, scope_ref=scope, actor=services.operator())

    def _export(self, name: str, scope: str | None) -> None:
        from ... import services  # --stdin runs without a database

        doc = services.secret_export(name=name, scope_ref=scope, actor=services.operator())
        self.stdout.write(json.dumps(doc))

    def _reset_settings(self, key: str | None) -> None:
        """Drop the database overrides of `key` (all when None): one SettingAudit row per
        override, and a SecretAudit row for the break-glass use itself."""
        from ctx.errors import NotFound  # --stdin runs without a database
        from ctx.overrides.services import settings_reset  # --stdin runs without a database

        from ... import services  # --stdin runs without a database
        from ...models import AuditAction  # --stdin runs without a database

        actor = services.operator()
        try:
            count = settings_reset(key=key, actor=actor)
        except NotFound:
            raise CommandError(f"Unknown setting: {key}") from None
        services.audit(AuditAction.RESET_SETTINGS, name=(key or "")[:100], scope="", actor=actor)
        what = f"of {key}" if key else "of every setting"
        self.stdout.write(
            f"Removed {count} database override(s) {what}; defaults and the environment apply."
        )
