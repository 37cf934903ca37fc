"""A scripted MCP session over OAuth, as a connector would run it (no browser needed).

The `mcp` SDK's OAuthClientProvider does discovery, registration, PKCE and the token exchange;
`KeyConsent` plays the person on the consent page (types the API key, presses Approve) and hands
the code back. Used by scripts/mcp_oauth_session.py and the live-server tests. Django-free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from mcp_types import CallToolResult, TextContent

# Never listened on: KeyConsent reads the code from the redirect's Location header.
REDIRECT_URI = "http://127.0.0.1:8976/callback"


class _FormFields(HTMLParser):
    """The name/value pairs of the hidden inputs on the consent page."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "input" and found.get("type") == "hidden" and found.get("name"):
            self.fields[str(found["name"])] = found.get("value") or ""


def form_fields(html: str) -> dict[str, str]:
    parser = _FormFields()
    parser.feed(html)
    return parser.fields


@dataclass
class MemoryStorage:
    """TokenStorage in memory: one session, nothing written to disk."""

    tokens: OAuthToken | None = None
    client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclass
class KeyConsent:
    """Approves the consent page with a ctx API key, as a person would in a browser."""

    api_key: str
    http: httpx2.AsyncClient  # keeps the CSRF cookie between the GET and the POST
    approve: bool = True
    result: AuthorizationCodeResult | None = None
    seen: dict[str, str] = field(default_factory=dict)

    async def redirect(self, url: str) -> None:
        page = await self.http.get(url)
        page.raise_for_status()
        data = form_fields(page.text)
        self.seen = {"authorize_url": url, "page": page.text}
        data["api_key"] = self.api_key
        data["allow" if self.approve else "deny"] = "Authorize" if self.approve else "1"
        answer = await self.http.post(url, data=data, headers={"Referer": url})
        if answer.status_code != 302:
            raise RuntimeError(f"consent was not accepted (HTTP {answer.status_code})")
        query = parse_qs(urlsplit(answer.headers["location"]).query)
        if "code" not in query:
            raise RuntimeError(f"no code in the redirect: {query.get('error')}")
        self.result = AuthorizationCodeResult(
            code=query["code"][0], state=_one(query, "state"), iss=_one(query, "iss")
        )

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None, "redirect() runs first"
        return self.result


def _one(query: dict[str, list[str]], name: str) -> str | None:
    return query[name][0] if name in query else None


def client_metadata(name: str = "ctx session script") -> OAuthClientMetadata:
    return OAuthClientMetadata(
        client_name=name,
        redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
        scope="mcp",
    )


def oauth_provider(
    mcp_url: str, consent: KeyConsent, storage: MemoryStorage
) -> OAuthClientProvider:
    return OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=client_metadata(),
        storage=storage,
        redirect_handler=consent.redirect,
        callback_handler=consent.callback,
    )


def text_of(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


@dataclass
class Transcript:
    lines: list[str] = field(default_factory=list)
    echo: Callable[[str], Any] | None = None

    def say(self, line: str) -> None:
        self.lines.append(line)
        if self.echo is not None:
            self.echo(line)


async def run_session(
    base_url: str, api_key: str, transcript: Transcript, mode: str = "legacy"
) -> MemoryStorage:
    """OAuth sign-in with `api_key`, then initialize, list tools, store and query."""
    mcp_url = base_url.rstrip("/") + "/mcp"
    storage = MemoryStorage()
    async with httpx2.AsyncClient(timeout=30, follow_redirects=False) as browser:
        consent = KeyConsent(api_key, browser)
        auth = oauth_provider(mcp_url, consent, storage)
        async with httpx2.AsyncClient(auth=auth, timeout=120) as http:
            transport = streamable_http_client(mcp_url, http_client=http)
            async with Client(transport, mode=mode) as client:
                await _exchange(client, transcript, storage)
    return storage


async def _exchange(client: Client, transcript: Transcript, storage: MemoryStorage) -> None:
    info = storage.client_info
    transcript.say(f"registered client: {info.client_id if info else '?'}")
    transcript.say(f"signed in; token scope: {storage.tokens.scope if storage.tokens else '?'}")
    transcript.say(f"protocol: {client.protocol_version}")
    listed = await client.list_tools()
    transcript.say("tools: " + ", ".join(t.name for t in listed.tools))
    stored = await client.call_tool(
        "store",
        {
            "category": "notes",
            "title": "MCP session check",
            "content": "The ctx MCP endpoint answered an OAuth-authenticated session.",
        },
    )
    transcript.say("store -> " + text_of(stored))
    answer = await client.call_tool("query", {"query": "MCP endpoint OAuth session", "limit": 3})
    transcript.say("query ->\n" + text_of(answer))
