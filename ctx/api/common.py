"""What every DRF view of ctx shares: the caller, the JSON body, the success envelope."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from ctx import validation as v
from ctx.principal import Principal


def principal(request: Request) -> Principal:
    user = request.user
    assert isinstance(user, Principal)  # the default permission class guarantees it
    return user


def body(request: Request) -> dict[str, Any]:
    return v.require_object(request.data)


def ok(payload: Mapping[str, Any], status: int = 200) -> Response:
    return Response({"success": True, **payload}, status=status)
