"""The JSON body parser: DRF's, with JSON nested too deep for the decoder answered as bad
input. Python's decoder recurses per level and raises RecursionError past ~1,000 levels,
which DRF does not catch (a 500); any legitimate body is far shallower (ctx.validation
refuses more than MAX_DEPTH levels once parsed)."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
