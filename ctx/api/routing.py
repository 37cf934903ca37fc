"""One way an HTTP endpoint calls an operation: parse the input model from the path, the query
string (GET, DELETE) or the JSON body (POST, PUT, PATCH), spend the key's rate-limit tokens in
the bucket the endpoint declares, run the operation, send its payload in the envelope.

Each endpoint declares its own bucket and cost here, next to its operation, instead of a table
of URLs in the throttle that parsed the body a second time.

Two answers besides the JSON envelope, each declared on the `Op`: `text` renders the payload as
text/plain for a client that asks for it (`Accept: text/plain` or `?format=text`), `body` is a
fixed raw answer (bytes and their content type) instead of the envelope. Errors always answer
with the JSON envelope. `public=True` endpoints need no key and spend no bucket (the caller is
None); their operations must show only what anyone may see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO, Any

from django.http import FileResponse, HttpResponse
from django.http.response import HttpResponseBase
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from ctx import ratelimit
from ctx.api.common import body, large_body, ok, principal
from ctx.errors import CtxError, ErrorCode
from ctx.ops.inputs import Input

READ, WRITE = ratelimit.READ, ratelimit.WRITE
QUERY_STRING_METHODS = frozenset({"get", "delete"})


@dataclass(frozen=True)
class Op:
    """An endpoint method: the operation, its input model, the bucket it spends from."""

    # Principal | None: a public endpoint's operation gets None (its own signature says so).
    operation: Callable[[Any, Any], Mapping[str, Any]]
    model: type[Input]
    bucket: str = WRITE
    cost: Callable[[Any], int] = lambda data: 1
    status: Callable[[Mapping[str, Any]], int] = lambda payload: 200
    # Extra raw input the operation needs that the path or body does not carry.
    more: Callable[[Request], dict[str, Any]] = lambda request: {}
    # The payload as text/plain, when the client asks for text (content negotiation).
    text: Callable[[Any], str] | None = None
    # A raw answer (bytes, content type) instead of the envelope.
    body: Callable[[Any], tuple[bytes, str]] | None = None
    # A file sent as an attachment, streamed: (open binary file, content type, file name);
    # None for a payload that carries no file (then the envelope answers).
    file: Callable[[Any], tuple[IO[bytes], str, str] | None] | None = None
    # The input field that takes the request's body as bytes (an upload), instead of JSON.
    raw_body: str | None = None
    # The raw input built from the request itself (a multipart form, or bytes and the query
    # string), instead of the JSON body: an upload with fields beside its bytes.
    upload: Callable[[Request], dict[str, Any]] | None = None
    # A JSON body allowed above the server's body limit, up to this many bytes (the same
    # allowance as the ASGI guard's for the path).
    body_limit: Callable[[], int] | None = None


class PlainTextRenderer(BaseRenderer):
    """text/plain for endpoints whose Op renders text; an error keeps the JSON envelope."""

    media_type = "text/plain"
    format = "text"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if isinstance(data, str):
            return data.encode("utf-8")
        response = (renderer_context or {}).get("response")
        if response is not None:  # the error envelope: JSON, labelled as such
            response["Content-Type"] = "application/json"
        return JSONRenderer().render(data)


def created(payload: Mapping[str, Any]) -> int:
    return 201


def created_or_ok(payload: Mapping[str, Any]) -> int:
    return 201 if payload.get("action") == "created" else 200


def raw_input(
    request: Request, method: str, path: dict[str, Any], drop: tuple[str, ...] = ()
) -> dict[str, Any]:
    source = request.query_params.dict() if method in QUERY_STRING_METHODS else body(request)
    return {**{k: v for k, v in source.items() if k not in drop}, **path}


def _input(
    request: Request, method: str, op: Op, path: dict[str, Any], drop: tuple[str, ...]
) -> dict[str, Any]:
    if op.raw_body is not None:  # an upload: the bytes as they came (the size limit applies)
        return {op.raw_body: request.body, **path}
    if op.upload is not None:
        return {**op.upload(request), **path}
    if op.body_limit is not None and method not in QUERY_STRING_METHODS:
        source = large_body(request, op.body_limit())
        return {**{k: v for k, v in source.items() if k not in drop}, **path}
    return raw_input(request, method, path, drop)


def handle(
    request: Request,
    method: str,
    op: Op,
    path: dict[str, Any],
    drop: tuple[str, ...] = (),
    *,
    public: bool = False,
) -> Response | HttpResponseBase:
    """Parse, spend, run, answer. `drop`: body keys that chose the operation (`action`)."""
    caller = None if public else principal(request)
    data = op.model.parse({**_input(request, method, op, path, drop), **op.more(request)})
    if caller is not None and ratelimit.enabled():
        ratelimit.take(caller, op.bucket, op.cost(data))  # raises the 429 envelope
    payload = op.operation(caller, data)
    return answer(request, op, payload)


def answer(request: Request, op: Op, payload: Mapping[str, Any]) -> Response | HttpResponseBase:
    """The envelope, or the Op's text, raw body or file."""
    sent = op.file(payload) if op.file is not None else None
    if sent is not None:
        handle, content_type, name = sent
        response = FileResponse(handle, as_attachment=True, filename=name)
        response["Content-Type"] = content_type
        response["X-Content-Type-Options"] = "nosniff"  # the browser keeps the type we sniffed
        return response
    if op.body is not None:
        content, content_type = op.body(payload)
        return HttpResponse(content, status=op.status(payload), content_type=content_type)
    renderer = getattr(request, "accepted_renderer", None)
    if op.text is not None and isinstance(renderer, PlainTextRenderer):
        return Response(op.text(payload), status=op.status(payload))
    return ok(payload, op.status(payload))


def endpoint(*, public: bool = False, **methods: Op) -> Callable[..., Any]:
    """A view for the given methods (`get=Op(...)`, `post=Op(...)`); `public`: no key."""

    def bind(method: str, op: Op) -> Callable[..., Response | HttpResponseBase]:
        # `?format=text` chose the renderer (DRF's URL format override): not an input field,
        # which the operation would refuse as unknown.
        drop = (str(api_settings.URL_FORMAT_OVERRIDE),) if op.text is not None else ()

        def handler(self: APIView, request: Request, **path: Any) -> Response | HttpResponseBase:
            return handle(request, method, op, path, drop, public=public)

        return handler

    attrs: dict[str, Any] = {method: bind(method, op) for method, op in methods.items()}
    attrs["throttle_classes"] = []  # handle() spends the declared bucket itself
    attrs["ops"] = dict(methods)  # read by the OpenAPI schema (ctx/api/schema.py)
    if any(op.text is not None for op in methods.values()):
        attrs["renderer_classes"] = [JSONRenderer, PlainTextRenderer]
    if any(op.upload is not None for op in methods.values()):
        # A multipart form's files go to temporary files past 2.5 MB, not into memory; a raw
        # body is read by the Op's own `upload` (request.data is never touched for it).
        attrs["parser_classes"] = [MultiPartParser]
    if public:
        attrs["authentication_classes"] = []
        attrs["permission_classes"] = [AllowAny]
    view = type("OperationView", (APIView,), attrs)
    return view.as_view()  # type: ignore[attr-defined]


def action_view(actions: Mapping[str, Op]) -> type[APIView]:
    """A POST endpoint whose body's `action` chooses the operation (`/api/manage`,
    `/api/blob/manage`); an unknown action is 400 `unknown_action` naming the known ones."""

    class ActionView(APIView):
        throttle_classes: list[Any] = []  # each action spends its own bucket (handle)
        ops_by_action = actions  # one request body per action in the OpenAPI schema

        def post(self, request: Request) -> Response | HttpResponseBase:
            action = body(request).get("action")
            op = actions.get(action) if isinstance(action, str) else None
            if op is None:
                raise CtxError(
                    f"Unknown action; use one of: {', '.join(actions)}.",
                    code=ErrorCode.UNKNOWN_ACTION,
                )
            return handle(request, "post", op, {}, drop=("action",))

    return ActionView
