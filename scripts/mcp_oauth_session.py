#!/usr/bin/env python
"""Run an OAuth + MCP session against a running ctx server and print a transcript.

    .venv/bin/python scripts/mcp_oauth_session.py http://127.0.0.1:8000 ctx_xxxxxxxx_...

Registers a client (DCR), signs in on the consent page with the API key, exchanges the code
(PKCE S256, resource = <base>/mcp), then initializes, lists the tools, stores a block and
queries it: the same steps claude.ai's connector and Claude Code take.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

from tests.support.oauth_session import Transcript, run_session


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url", help="the server's origin, e.g. http://127.0.0.1:8000")
    parser.add_argument("api_key", help="a ctx API key to sign in with on the consent page")
    parser.add_argument("--mode", default="legacy", choices=["legacy", "auto"])
    args = parser.parse_args()
    transcript = Transcript(echo=print)
    try:
        asyncio.run(run_session(args.base_url, args.api_key, transcript, mode=args.mode))
    except Exception as exc:  # a transcript ends with the reason, not a traceback
        print(f"failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
