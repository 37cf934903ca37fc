"""schemathesis over every operation of the OpenAPI schema (`GET /api/schema`), in process
through Django's WSGI application: whatever it sends, the server never answers 5xx, and every
refusal is the one error envelope (docs/api.md, "Errors").

Bounded and repeatable: a few examples per operation, derandomized (the same cases on every
run). The caller is a tenant owner with a few stored blocks, so reads find something."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.conftest import Cast, make_cast

pytestmark = pytest.mark.django_db

EXAMPLES = 8


def _schema() -> Any:
    """What `GET /api/schema` serves, generated here (collection needs no database); the
    cases are sent to Django's WSGI application in this thread."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    loaded = schemathesis.openapi.from_dict(json.loads(OpenApiJsonRenderer().render(generated)))
    loaded.app = _wsgi
    return loaded


_handler: list[Any] = []


def _wsgi(environ: dict[str, Any], start_response: Any) -> Any:
    """Django's WSGI application, made on the first request: once the test database is in
    place (a handler made at collection holds a connection to the wrong one)."""
    if not _handler:
        _handler.append(get_wsgi_application())
    return _handler[0](environ, start_response)


@pytest.fixture
def in_process(owner: Cast) -> Iterator[Cast]:
    """Requests run inside the test's transaction: the request signals would otherwise close
    the connection that holds it. Django's test client does the same, and connects them again
    after each of its requests: so after the owner's stores."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield owner
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture
def owner(db: Any, settings: Any) -> Cast:
    # a master key, as `make run` makes one: without it a secret's PUT is a 503 by design
    settings.CTX = {**settings.CTX, "CTX_SECRETS_KEY": "a1" * 32, "CTX_SECRETS_KEY_FILE": ""}
    cast = make_cast()
    for i in range(3):
        cast.owner.store(title=f"note {i}", content=f"The deploy moved to Friday, step {i}.")
    return cast


def envelope(response: Any) -> None:
    """A refusal (4xx) is `{"success": false, "error": {"code", "message"}}`."""
    if response.status_code < 400:
        return
    body = json.loads(response.content)
    assert body["success"] is False, body
    assert isinstance(body["error"]["code"], str) and body["error"]["message"], body


schema = _schema()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_input_makes_the_server_fail(case: Any, in_process: Cast) -> None:
    response = case.call(headers={"X-Context-Key": in_process.owner.key})
    case.validate_response(response, checks=[not_a_server_error])
    envelope(response)
