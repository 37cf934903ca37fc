"""The write-only secrets API: values go in, only metadata ever comes out."""

from __future__ import annotations

from typing import Any, TypedDict

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ctx import validation as v
from ctx.api.common import body as _body
from ctx.api.common import ok
from ctx.api.common import principal as _principal
from ctx.errors import ValidationFailed

from . import selectors, services
from .models import Secret


class SecretMetadata(TypedDict):
    name: str
    scope: str
    key_version: str
    created_by: str
    created_at: str
    rotated_by: str | None
    rotated_at: str | None


def metadata(secret: Secret) -> SecretMetadata:
    """Everything about a secret except its value and ciphertext."""
    return {
        "name": secret.name,
        "scope": secret.scope.name,
        "key_version": secret.key_version,
        "created_by": secret.created_by,
        "created_at": secret.created_at.isoformat(),
        "rotated_by": secret.rotated_by or None,
        "rotated_at": secret.rotated_at.isoformat() if secret.rotated_at else None,
    }


def _scope_param(data: Any) -> str | None:
    return v.string(data, "scope", max_len=100, required=False) or None


def _value(data: dict[str, Any]) -> str:
    value = data.get("value")
    if not isinstance(value, str):
        raise ValidationFailed("'value' must be a non-empty string.", details={"field": "value"})
    return value


class SecretListView(APIView):
    def get(self, request: Request) -> Response:
        params = request.query_params.dict()
        rows = selectors.secrets_for(_principal(request), v.scope_names(params))
        return ok({"count": len(rows), "secrets": [metadata(s) for s in rows]})


class SecretView(APIView):
    def get(self, request: Request, name: str) -> Response:
        services.check_name(name)
        secret = selectors.get_secret_for(
            _principal(request), name, _scope_param(request.query_params.dict())
        )
        return ok({"secret": {**metadata(secret), "referenced_by": selectors.references(secret)}})

    def put(self, request: Request, name: str) -> Response:
        data = _body(request)
        result = services.secret_put(
            principal=_principal(request), name=name, scope=_scope_param(data), value=_value(data)
        )
        status = 201 if result.action == "created" else 200
        return ok({"action": result.action, "secret": metadata(result.secret)}, status)

    def delete(self, request: Request, name: str) -> Response:
        secret = services.secret_delete(
            principal=_principal(request),
            name=name,
            scope=_scope_param(request.query_params.dict()),
        )
        return ok({"action": "deleted", "name": secret.name, "scope": secret.scope.name})
