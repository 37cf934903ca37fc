"""One error envelope for every interface: {"success": false, "error": {"code", "message"}}.

Services raise the typed errors below; one exception handler turns them (and DRF's own) into the
envelope. Views never build error bodies. MCP maps the same codes.
"""

from __future__ import annotations

import logging
import time
from enum import StrEnum
from typing import Any

import psycopg
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response

log = logging.getLogger("ctx.errors")


class ErrorCode(StrEnum):
    BAD_REQUEST = "bad_request"
    INVALID_JSON = "invalid_json"
    VALIDATION_ERROR = "validation_error"
    UNKNOWN_ACTION = "unknown_action"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    CONFLICT = "conflict"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    RATE_LIMITED = "rate_limited"
    INTERNAL_ERROR = "internal_error"
    UNAVAILABLE = "service_unavailable"
    SENSITIVITY_BLOCKED = "sensitivity_blocked"


STATUS = {
    ErrorCode.BAD_REQUEST: 400,
    ErrorCode.INVALID_JSON: 400,
    ErrorCode.VALIDATION_ERROR: 400,
    ErrorCode.UNKNOWN_ACTION: 400,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.CONFLICT: 409,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: 415,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.INTERNAL_ERROR: 500,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.SENSITIVITY_BLOCKED: 422,
}

# Fixed messages where the body must not depend on what exists (tenant isolation).
NOT_FOUND_MESSAGE = "Block not found."
FORBIDDEN_SCOPE_MESSAGE = "This key cannot write to that scope."
FORBIDDEN_READ_MESSAGE = "This key cannot read that scope."


class CtxError(Exception):
    code: ErrorCode = ErrorCode.BAD_REQUEST

    def __init__(
        self, message: str, *, code: ErrorCode | None = None, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details

    @property
    def status(self) -> int:
        return STATUS[self.code]

    def envelope(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": str(self.code), "message": self.message}
        if self.details:
            error["details"] = self.details
        return {"success": False, "error": error}


class ValidationFailed(CtxError):
    code = ErrorCode.VALIDATION_ERROR


class NotFound(CtxError):
    code = ErrorCode.NOT_FOUND

    def __init__(self, message: str = NOT_FOUND_MESSAGE) -> None:
        super().__init__(message)


class Forbidden(CtxError):
    code = ErrorCode.FORBIDDEN


class TooLarge(CtxError):
    code = ErrorCode.PAYLOAD_TOO_LARGE


class Conflict(CtxError):
    code = ErrorCode.CONFLICT


class Unavailable(CtxError):
    code = ErrorCode.UNAVAILABLE


DATABASE_RETRY_AFTER = 2  # seconds a client waits before retrying while the database is away
# Django's wrappers and psycopg's own (the pool raises PoolTimeout, a psycopg OperationalError,
# when no connection frees up within CTX_DB_POOL_TIMEOUT).
_DATABASE_AWAY = (
    OperationalError,
    InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
)


_database_away_at = 0.0  # when a request last found the database unavailable (monotonic)


def database_away_at() -> float:
    """When a request of this process last found the database unavailable (ctx.gate)."""
    return _database_away_at


def database_unavailable(exc: BaseException | None) -> Unavailable | None:
    """The 503 for a database that is down, restarting or has no pooled connection free;
    None for any other error. Such errors are transient: the client should retry, and an
    operator should not read them as a bug (500)."""
    global _database_away_at
    if not isinstance(exc, _DATABASE_AWAY):
        return None
    _database_away_at = time.monotonic()
    return Unavailable(
        "The database is unavailable; retry shortly.",
        details={"retry_after": DATABASE_RETRY_AFTER},
    )


class SensitivityBlocked(CtxError):
    """Content above a provider's trust level was about to be sent to it; nothing was sent
    (ctx.trust.ensure_trusted). The message names levels and the provider, never content."""

    code = ErrorCode.SENSITIVITY_BLOCKED


JSON_CONTENT_TYPE = "Content-Type: application/json"

_DRF_MAP: list[tuple[type[Exception], ErrorCode]] = [
    (drf.ParseError, ErrorCode.INVALID_JSON),
    (drf.NotAuthenticated, ErrorCode.UNAUTHORIZED),
    (drf.AuthenticationFailed, ErrorCode.UNAUTHORIZED),
    (drf.PermissionDenied, ErrorCode.FORBIDDEN),
    (drf.NotFound, ErrorCode.NOT_FOUND),
    (drf.MethodNotAllowed, ErrorCode.METHOD_NOT_ALLOWED),
    (drf.UnsupportedMediaType, ErrorCode.UNSUPPORTED_MEDIA_TYPE),
    (drf.Throttled, ErrorCode.RATE_LIMITED),
    (drf.ValidationError, ErrorCode.VALIDATION_ERROR),
]


def _from_drf(exc: drf.APIException) -> CtxError:
    code = next((c for cls, c in _DRF_MAP if isinstance(exc, cls)), ErrorCode.BAD_REQUEST)
    if code is ErrorCode.INVALID_JSON:
        return CtxError("Request body is not valid JSON.", code=code)
    if code is ErrorCode.UNAUTHORIZED:
        return CtxError("A valid API key is required.", code=code)
    detail = exc.detail if isinstance(exc.detail, str) else None
    message = str(detail or exc.default_detail)
    if code is ErrorCode.UNSUPPORTED_MEDIA_TYPE:  # every body the API parses is JSON
        message += f" Send the body as JSON with {JSON_CONTENT_TYPE}."
    return CtxError(message, code=code)


def _too_big() -> TooLarge:
    """Django refuses a body over DATA_UPLOAD_MAX_MEMORY_SIZE while DRF parses it; that is the
    client's doing (413), not an internal error."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return TooLarge(f"The request body is larger than {limit} bytes.")


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's hook: every failure becomes the envelope with its status."""
    if isinstance(exc, CtxError):
        err = exc
    elif isinstance(exc, RequestDataTooBig):  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE: was a 500
        err = _too_big()
    elif isinstance(exc, drf.APIException):
        err = _from_drf(exc)
    elif (away := database_unavailable(exc)) is not None:
        log.warning("database unavailable: %s", str(exc).strip().splitlines()[0:1])
        err = away
    else:
        log.exception("unhandled error in %s", context.get("view").__class__.__name__)
        err = CtxError("Internal error.", code=ErrorCode.INTERNAL_ERROR)
    response = Response(err.envelope(), status=err.status)
    if err.code is ErrorCode.UNAUTHORIZED:
        response["WWW-Authenticate"] = 'Bearer realm="ctx"'
    retry_after = (err.details or {}).get("retry_after")
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    for name, value in getattr(err, "headers", {}).items():  # e.g. X-RateLimit-* on a 429
        response[name] = value
    return response


def error_response(err: CtxError) -> JsonResponse:
    """The envelope for plain Django views (404/500 handlers, health)."""
    return JsonResponse(err.envelope(), status=err.status)
