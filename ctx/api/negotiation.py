"""Content negotiation for every DRF view (REST_FRAMEWORK's DEFAULT_CONTENT_NEGOTIATION_CLASS).

Its own module: DRF imports it while `rest_framework.views` is still loading, so it must not
import the views.
"""

from __future__ import annotations

from collections.abc import Iterable

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer

from ctx.errors import ValidationFailed


class Negotiation(DefaultContentNegotiation):
    """DRF's, except that an unknown `?format=` is the client's mistake (400 naming the
    field), not DRF's bare Http404 that reached the envelope as a 500."""

    def filter_renderers(
        self,
        renderers: Iterable[BaseRenderer],
        format: str,  # noqa: A002 (DRF's name)
    ) -> list[BaseRenderer]:
        renderers = list(renderers)
        chosen = [r for r in renderers if r.format == format]
        if not chosen:
            known = ", ".join(dict.fromkeys(str(r.format) for r in renderers))
            raise ValidationFailed(
                f"'format' must be one of: {known}.", details={"field": "format"}
            )
        return chosen
