"""`GET /api/schema`: the OpenAPI schema, generated from the operations' input models."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.test import Client
from drf_spectacular.validation import validate_schema

from ctx.api.urls import urlpatterns

pytestmark = pytest.mark.django_db


def _schema() -> dict[str, Any]:
    resp = Client().get("/api/schema")  # no key: it describes the API, it holds no data
    assert resp.status_code == 200, resp.content
    loaded: dict[str, Any] = yaml.safe_load(resp.content)
    return loaded


def test_it_describes_every_api_route_and_is_valid_openapi() -> None:
    schema = _schema()
    validate_schema(schema)  # raises on a schema that is not valid OpenAPI 3.1
    routes = {
        "/" + str(p.pattern).replace("<str:", "{").replace("<path:", "{").replace(">", "}")
        for p in urlpatterns
    } - {"/api/schema"}
    assert routes == set(schema["paths"])


def test_a_body_is_the_operations_input_model_with_its_bounds() -> None:
    store = _schema()["paths"]["/api/store"]["post"]
    body = store["requestBody"]["content"]["application/json"]["schema"]
    assert set(body["required"]) == {"category", "title", "content"}
    assert body["properties"]["content"]["maxLength"] == 51200
    assert body["additionalProperties"] is False  # an unknown field is refused
    assert {"201", "200", "400", "413"} <= set(store["responses"])
    assert store["security"] == [{"ApiKey": []}]


def test_a_get_takes_its_inputs_as_query_parameters() -> None:
    listed = _schema()["paths"]["/api/blocks"]["get"]
    names = {p["name"] for p in listed["parameters"] if p["in"] == "query"}
    assert {"limit", "category"} <= names
