"""Sealed-secret operations: values go in, only metadata ever comes out."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict

from ctx.errors import ValidationFailed
from ctx.ops.inputs import Input, ScopeList, Text
from ctx.principal import Principal

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


ScopeArg = Annotated[str | None, Text(100, required=False, description="The secret's scope.")]


class ListInput(Input):
    scopes: ScopeList = []
    scope: ScopeArg = None


def secrets_list(p: Principal, data: ListInput) -> dict[str, Any]:
    names = [*data.scopes, *([data.scope] if data.scope else [])]
    rows = selectors.secrets_for(p, names)
    return {"count": len(rows), "secrets": [metadata(s) for s in rows]}


class SecretInput(Input):
    name: Annotated[str, Field(description="The secret's name (checked by the service).")]
    scope: ScopeArg = None


def secret_get(p: Principal, data: SecretInput) -> dict[str, Any]:
    services.check_name(data.name)
    secret = selectors.get_secret_for(p, data.name, data.scope or None)
    return {"secret": {**metadata(secret), "referenced_by": selectors.references(secret)}}


def _value(value: Any) -> str:
    if not isinstance(value, str):
        raise ValidationFailed("'value' must be a non-empty string.", details={"field": "value"})
    return value


class SecretPutInput(SecretInput):
    # Never echoed, never in a schema example; bounds are checked by the service (TooLarge).
    value: Annotated[str, Field(json_schema_extra={"writeOnly": True})] = ""

    @classmethod
    def parse(cls, data: Any) -> SecretPutInput:
        if isinstance(data, dict):
            _value(data.get("value"))
        return super().parse(data)


def secret_put(p: Principal, data: SecretPutInput) -> dict[str, Any]:
    result = services.secret_put(
        principal=p, name=data.name, scope=data.scope or None, value=data.value
    )
    return {"action": result.action, "secret": metadata(result.secret)}


def secret_delete(p: Principal, data: SecretInput) -> dict[str, Any]:
    secret = services.secret_delete(principal=p, name=data.name, scope=data.scope or None)
    return {"action": "deleted", "name": secret.name, "scope": secret.scope.name}
