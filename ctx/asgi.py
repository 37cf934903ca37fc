"""The ASGI entry point served by uvicorn (`uvicorn ctx.asgi:app`)."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ctx.settings")
django_app = get_asgi_application()


async def app(scope: dict, receive: object, send: object) -> None:
    if scope["type"] == "lifespan":
        # Django's handler rejects lifespan; acknowledge it so uvicorn starts cleanly.
        await _lifespan(receive, send)
        return
    await django_app(scope, receive, send)  # type: ignore[arg-type]


async def _lifespan(receive: object, send: object) -> None:
    while True:
        message = await receive()  # type: ignore[operator]
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})  # type: ignore[operator]
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})  # type: ignore[operator]
            return
