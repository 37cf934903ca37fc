"""One way an HTTP endpoint calls an operation: parse the input model from the path, the query
string (GET, DELETE) or the JSON body (POST, PUT, PATCH), spend the key's rate-limit tokens in
the bucket the endpoint declares, run the operation, send its payload in the envelope.

Each endpoint declares its own bucket and cost here, next to its operation, instead of a table
of URLs in the throttle that parsed the body a second time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ctx import ratelimit
from ctx.api.common import body, ok, principal
from ctx.ops.inputs import Input
from ctx.principal import Principal

READ, WRITE = ratelimit.READ, ratelimit.WRITE
QUERY_STRING_METHODS = frozenset({"get", "delete"})


@dataclass(frozen=True)
class Op:
    """An endpoint method: the operation, its input model, the bucket it spends from."""

    operation: Callable[[Principal, Any], Mapping[str, Any]]
    model: type[Input]
    bucket: str = WRITE
    cost: Callable[[Any], int] = lambda data: 1
    status: Callable[[Mapping[str, Any]], int] = lambda payload: 200
    # Extra raw input the operation needs that the path or body does not carry.
    more: Callable[[Request], dict[str, Any]] = lambda request: {}


def created(payload: Mapping[str, Any]) -> int:
    return 201


def created_or_ok(payload: Mapping[str, Any]) -> int:
    return 201 if payload.get("action") == "created" else 200


def raw_input(
    request: Request, method: str, path: dict[str, Any], drop: tuple[str, ...] = ()
) -> dict[str, Any]:
    source = request.query_params.dict() if method in QUERY_STRING_METHODS else body(request)
    return {**{k: v for k, v in source.items() if k not in drop}, **path}


def handle(
    request: Request, method: str, op: Op, path: dict[str, Any], drop: tuple[str, ...] = ()
) -> Response:
    """Parse, spend, run, answer. `drop`: body keys that chose the operation (`action`)."""
    caller = principal(request)
    data = op.model.parse({**raw_input(request, method, path, drop), **op.more(request)})
    if ratelimit.enabled():
        ratelimit.take(caller, op.bucket, op.cost(data))  # raises the 429 envelope
    payload = op.operation(caller, data)
    return ok(payload, op.status(payload))


def endpoint(**methods: Op) -> Callable[..., Any]:
    """A view for the given methods (`get=Op(...)`, `post=Op(...)`)."""

    def bind(method: str, op: Op) -> Callable[..., Response]:
        def handler(self: APIView, request: Request, **path: Any) -> Response:
            return handle(request, method, op, path)

        return handler

    attrs: dict[str, Any] = {method: bind(method, op) for method, op in methods.items()}
    attrs["throttle_classes"] = []  # handle() spends the declared bucket itself
    view = type("OperationView", (APIView,), attrs)
    return view.as_view()  # type: ignore[attr-defined]
