"""What every DRF view of ctx shares: the caller, the JSON body, the success envelope."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response

from ctx import validation as v
from ctx.errors import TooLarge
from ctx.principal import Principal


def principal(request: Request) -> Principal:
    user = request.user
    assert isinstance(user, Principal)  # the default permission class guarantees it
    return user


def body(request: Request) -> dict[str, Any]:
    return v.require_object(request.data)


def large_body(request: Request, limit: int) -> dict[str, Any]:
    """The JSON body of an endpoint allowed more than the server's body limit (the ASGI guard
    let it through up to `limit`, ctx.guards.BodyLimit). Read here: DRF parses JSON from
    Django's `request.body`, whose own check (DATA_UPLOAD_MAX_MEMORY_SIZE, the server's limit
    for every other path) would refuse it. Parsed by DRF's own JSON parser, so errors are the
    same as everywhere; anything but a JSON body takes the usual way."""
    django = request._request
    length = int(request.META.get("CONTENT_LENGTH") or 0)
    parsers = list(request.parsers or [])
    parser = request.negotiator.select_parser(request, parsers) if request.negotiator else None
    started = getattr(django, "_read_started", True)  # Django's: the body was read already
    if started or length == 0 or not isinstance(parser, JSONParser):
        return body(request)
    if length > limit:
        raise TooLarge(f"The request body is larger than {limit} bytes.")
    raw = django.read(limit + 1)
    if len(raw) > limit:  # a body longer than it said
        raise TooLarge(f"The request body is larger than {limit} bytes.")
    context = {"request": request, **({"encoding": django.encoding} if django.encoding else {})}
    return v.require_object(parser.parse(io.BytesIO(raw), request.content_type, context))


def ok(payload: Mapping[str, Any], status: int = 200) -> Response:
    return Response({"success": True, **payload}, status=status)
