from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ctx import services
from ctx.errors import CtxError
from ctx.models import ApiKey, Sensitivity, Tenant


class Command(BaseCommand):
    help = "Create, list or revoke API keys."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create")
        create.add_argument("--tenant", help="the tenant (default: the one --home belongs to)")
        create.add_argument("--name", default="key")
        create.add_argument("--home", required=True, help="home scope (readable and writable)")
        create.add_argument("--read", nargs="*", default=[], help="extra readable scopes")
        create.add_argument(
            "--write",
            nargs="*",
            default=None,
            help="writable scopes (default: the home scope; none: read-only)",
        )
        create.add_argument(
            "--read-only", action="store_true", help="writes nothing (the same as a bare --write)"
        )
        create.add_argument("--admin", action="store_true")
        create.add_argument("--role", default="member", choices=["owner", "admin", "member"])
        create.add_argument(
            "--max-sensitivity",
            default=Sensitivity.PERSONAL,
            choices=Sensitivity.values,
            help="the highest block level it reads in clear (default personal: credentials "
            "come back as [redacted:credentials])",
        )
        lst = sub.add_parser("list")
        lst.add_argument("--tenant")
        revoke = sub.add_parser("revoke")
        revoke.add_argument("prefix")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            getattr(self, f"_{opts['action']}")(opts)
        except CtxError as exc:
            raise CommandError(exc.message) from None
        except Tenant.DoesNotExist:
            raise CommandError(f"No tenant named '{opts.get('tenant')}'.") from None

    def _create(self, opts: dict[str, Any]) -> None:
        # A scope is named `<tenant>:<name>`, so the home scope names the tenant.
        opts["tenant"] = opts["tenant"] or opts["home"].partition(":")[0]
        tenant = Tenant.objects.get(name=opts["tenant"])
        key, raw = services.key_create(
            tenant=tenant,
            name=opts["name"],
            home=opts["home"],
            read=opts["read"],
            write=[] if opts["read_only"] else opts["write"],
            is_admin=opts["admin"],
            role=opts["role"],
            max_sensitivity=opts["max_sensitivity"],
        )
        self.stderr.write(
            f"created API key '{key.name}' (ctx_{key.prefix}_…) in tenant {tenant.name}, "
            f"role {key.role}, home {key.home_scope.name}, {_scopes(key)}, "
            f"reads up to {key.max_sensitivity}. "
            "It is shown once; store it now:"
        )
        self.stdout.write(raw)

    def _list(self, opts: dict[str, Any]) -> None:
        keys = (
            ApiKey.objects.select_related("tenant", "home_scope")
            .prefetch_related("read_scopes", "write_scopes")
            .order_by("created_at")
        )
        if opts["tenant"]:
            keys = keys.filter(tenant__name=opts["tenant"])
        for k in keys:
            state = "active" if k.active else "revoked"
            used = k.last_used_at.isoformat() if k.last_used_at else "never"
            admin = " admin" if k.is_admin else ""
            self.stdout.write(
                f"ctx_{k.prefix}_…  {k.tenant.name:<16} {k.name:<20} "
                f"home={k.home_scope.name} {k.role}{admin} {state} used={used} {_scopes(k)} "
                f"max={k.max_sensitivity}"
            )

    def _revoke(self, opts: dict[str, Any]) -> None:
        prefix = opts["prefix"].removeprefix("ctx_").split("_")[0]
        key = services.key_revoke(tenant=None, prefix=prefix)
        self.stdout.write(f"revoked {key.name} (ctx_{key.prefix}_…)")


def _scopes(key: ApiKey) -> str:
    """`reads=a,b writes=a` (`writes=-` for a read-only key); a key reads its home scope and
    every scope it writes besides its extra read scopes."""
    writes = {s.name for s in key.write_scopes.all()}
    reads = {key.home_scope.name, *writes, *(s.name for s in key.read_scopes.all())}
    return f"reads={','.join(sorted(reads))} writes={','.join(sorted(writes)) or '-'}"
