"""`fetch_and_index`: a bounded GET, then the body indexed on the server by its content type."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ctx_cli.http import _httpx
from ctx_cli.sandbox import netguard

MAX_BYTES = 8 * 1024 * 1024  # the server's default request limit (CTX_MAX_BODY_BYTES)
TIMEOUT = 20.0  # seconds for the whole fetch
MAX_REDIRECTS = 5
TYPES = (
    ("text/html", "html"),
    ("application/xhtml", "html"),
    ("application/json", "json"),
    ("+json", "json"),
    ("text/markdown", "markdown"),
    ("text/x-markdown", "markdown"),
    ("text/plain", "text"),
)


class FetchError(Exception):
    pass


def index_type(content_type: str) -> str | None:
    """The /api/index type for a Content-Type; `auto` for other text, None for binary."""
    ctype = content_type.split(";", 1)[0].strip().lower()
    for needle, kind in TYPES:
        if needle in ctype:
            return kind
    if not ctype or ctype.startswith("text/") or ctype.endswith(("xml", "yaml", "javascript")):
        return "auto"
    return None


def fetch(
    url: str, *, allow_private: bool = False, max_bytes: int = MAX_BYTES, timeout: float = TIMEOUT
) -> tuple[str, str, str]:
    """The final URL, the body as text and the index type; FetchError or BlockedURL."""
    httpx = _httpx()
    deadline = time.monotonic() + timeout
    # An explicit transport: no proxy from the environment (a proxy would resolve the name
    # itself, past the check); SSL_CERT_FILE and the like still apply.
    with httpx.Client(
        transport=httpx.HTTPTransport(), timeout=httpx.Timeout(timeout), follow_redirects=False
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            addresses = netguard.check_url(url, allow_private=allow_private)
            try:
                with _pinned_get(client, url, addresses) as r:
                    if r.is_redirect and r.headers.get("location"):
                        url = str(httpx.URL(url).join(r.headers["location"]))
                        continue
                    if r.status_code >= 400:
                        raise FetchError(f"{url} answered HTTP {r.status_code}")
                    kind = index_type(r.headers.get("content-type", ""))
                    if kind is None:
                        raise FetchError(f"{url} is not text ({r.headers.get('content-type')})")
                    body = _read(r, max_bytes, url, deadline)
                    return url, body.decode(r.encoding or "utf-8", "replace"), kind
            except httpx.HTTPError as exc:
                raise FetchError(f"cannot fetch {url}: {exc}") from None
    raise FetchError(f"more than {MAX_REDIRECTS} redirects")


@contextmanager
def _pinned_get(client: Any, url: str, addresses: list[str]) -> Iterator[Any]:
    """GET `url` from the first of the checked `addresses` that accepts a connection (as
    socket.create_connection tries a name's addresses), never resolving the name again: the
    URL names the address, the Host header and, for https, the TLS server name (SNI and the
    certificate's check) stay the original host's."""
    original = _httpx().URL(url)
    host = original.raw_host.decode("ascii")
    headers = {"Accept": "text/*, application/json", "Host": original.netloc.decode("ascii")}
    extensions = {"sni_hostname": host} if original.scheme == "https" else {}
    failed: Exception = FetchError(f"{host} has no address to connect to")
    for address in addresses:
        request = client.build_request(
            "GET", original.copy_with(host=address), headers=headers, extensions=extensions
        )
        try:
            response = client.send(request, stream=True)
        except _httpx().ConnectError as exc:  # the next address, as a resolver's list is tried
            failed = exc
            continue
        try:
            yield response
        finally:
            response.close()
        return
    raise failed


def _read(response: Any, max_bytes: int, url: str, deadline: float) -> bytes:
    size = int(response.headers.get("content-length") or 0)
    if size > max_bytes:
        raise FetchError(f"{url} is {size:,} bytes, over the {max_bytes:,}-byte limit")
    data = bytearray()
    for chunk in response.iter_bytes():
        data += chunk
        if len(data) > max_bytes:
            raise FetchError(f"{url} is over the {max_bytes:,}-byte limit")
        if time.monotonic() > deadline:
            raise FetchError(f"{url} took longer than the fetch's time limit")
    return bytes(data)
