from __future__ import annotations

import pytest

from tests.conftest import Api

pytestmark = pytest.mark.django_db


def test_it_answers_anonymously_without_internals() -> None:
    status, body = Api(None).get("/health")
    assert status == 200 and body == {"status": "ok"}


def test_it_answers_unknown_paths_with_the_envelope() -> None:
    status, body = Api(None).get("/api/nope")
    assert status == 404 and body["error"]["code"] == "not_found" and body["success"] is False


def test_it_answers_wrong_methods_with_the_envelope() -> None:
    status, body = Api("ctx_x").get("/api/store")
    assert status in (401, 405) and body["success"] is False
