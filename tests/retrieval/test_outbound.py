"""ctx.outbound against a real local HTTP server that misbehaves on purpose."""

from __future__ import annotations

import logging
import time

import pytest

from ctx import outbound
from ctx.outbound import OutboundError, post_json
from tests.fake_http import Behaviour, FakeServer, Reply, dead_url, json_reply

KEY = "sk-test-0123456789abcdef"


def first_then(first: Reply, then: Reply) -> Behaviour:
    return lambda seen, number: first if number == 1 else then


def test_it_returns_the_parsed_json() -> None:
    with FakeServer(json_reply({"ok": [1, 2]})) as server:
        result = post_json(server.url + "/x", {"q": "é"}, timeout=5)
    assert result.status == 200
    assert result.json == {"ok": [1, 2]}
    assert result.elapsed_ms > 0
    assert server.seen[0].body == {"q": "é"}
    assert server.seen[0].headers["content-type"] == "application/json"


def test_it_retries_once_when_the_connection_is_reset_before_an_answer() -> None:
    behaviour = first_then(Reply(reset=True), Reply(json={"ok": True}))
    with FakeServer(behaviour) as server:
        result = post_json(server.url, {"n": 1}, timeout=5)
    assert result.json == {"ok": True}
    assert len(server.seen) == 2
    assert server.seen[1].body == {"n": 1}


def test_it_gives_up_after_exactly_one_retry() -> None:
    with (
        FakeServer(lambda seen, n: Reply(reset=True)) as server,
        pytest.raises(OutboundError) as err,
    ):
        post_json(server.url, {}, timeout=5)
    assert err.value.kind == "transport"
    assert len(server.seen) == 2


def test_it_does_not_retry_once_bytes_of_the_answer_came_back() -> None:
    with (
        FakeServer(lambda seen, n: Reply(json={"x": "y" * 500}, reset_mid_body=True)) as server,
        pytest.raises(OutboundError) as err,
    ):
        post_json(server.url, {}, timeout=5)
    assert err.value.kind == "transport"
    assert len(server.seen) == 1


def test_it_reports_a_refused_connection_as_transport() -> None:
    with pytest.raises(OutboundError) as err:
        post_json(dead_url(), {}, timeout=2)
    assert err.value.kind == "transport"


def test_it_honours_the_timeout_and_does_not_retry_after_it() -> None:
    with FakeServer(lambda seen, n: Reply(json={}, delay=2.0)) as server:
        started = time.monotonic()
        with pytest.raises(OutboundError) as err:
            post_json(server.url, {}, timeout=0.3)
        waited = time.monotonic() - started
        time.sleep(0.1)  # a retry would have arrived by now
    assert err.value.kind == "timeout"
    assert waited < 1.0
    assert len(server.seen) == 1


def test_it_bounds_a_body_that_trickles_in() -> None:
    # Each byte comes well within the read timeout; the whole body does not.
    with FakeServer(lambda seen, n: Reply(json={"x": "y" * 40}, trickle=0.05)) as server:
        started = time.monotonic()
        with pytest.raises(OutboundError) as err:
            post_json(server.url, {}, timeout=0.5)
    assert err.value.kind == "timeout"
    assert time.monotonic() - started < 1.5


def test_it_does_not_retry_an_error_status() -> None:
    with (
        FakeServer(json_reply({"error": "boom"}, status=500)) as server,
        pytest.raises(OutboundError) as err,
    ):
        post_json(server.url, {}, timeout=5)
    assert err.value.kind == "http_status"
    assert err.value.status == 500
    assert "boom" in str(err.value)
    assert len(server.seen) == 1


def test_it_reports_a_body_that_is_not_json() -> None:
    with (
        FakeServer(lambda seen, n: Reply(raw=b"<html>oops</html>")) as server,
        pytest.raises(OutboundError) as err,
    ):
        post_json(server.url, {}, timeout=5)
    assert err.value.kind == "bad_json"
    assert err.value.status == 200


def _failures(url: str) -> list[OutboundError]:
    errors = []
    for timeout in (5.0, 0.3):
        try:
            post_json(url + f"/call?key={KEY}", {}, headers=_auth(), timeout=timeout)
        except OutboundError as exc:
            errors.append(exc)
    return errors


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {KEY}", "x-api-key": KEY}


def test_it_never_logs_an_api_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="ctx")
    replies = {
        1: Reply(reset=True),  # a retry, logged
        2: Reply(status=401, json={"error": f"Incorrect API key provided: {KEY}"}),
        3: Reply(json={}, delay=1.0),  # a timeout, logged
    }
    with FakeServer(lambda seen, n: replies.get(n, Reply(json={"ok": 1}))) as server:
        errors = _failures(server.url)
        post_json(server.url + f"/call?key={KEY}", {}, headers=_auth(), timeout=5)
    assert [e.kind for e in errors] == ["http_status", "timeout"]
    assert server.seen[0].headers["authorization"] == f"Bearer {KEY}"  # it was sent
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    assert "retrying once" in logged and "http_status" in logged  # the records exist
    assert KEY not in logged
    assert all(KEY not in str(e) and KEY not in e.url for e in errors)


def test_it_keeps_the_path_and_drops_credentials_from_urls() -> None:
    assert outbound.redact_url("https://u:p@h:8443/v1/x?key=s#f") == "https://h:8443/v1/x"


def test_it_joins_v1_paths_whether_or_not_the_base_ends_in_v1() -> None:
    assert outbound.v1_url("http://h/", "embeddings") == "http://h/v1/embeddings"
    assert outbound.v1_url("http://h/v1", "embeddings") == "http://h/v1/embeddings"
