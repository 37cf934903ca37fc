#!/usr/bin/env bash
# Debian's Chromium for the browser tests: Playwright drives /usr/bin/chromium and downloads no
# browser of its own (no browser download is possible on these machines). `make test` calls
# this; `make run` never does (the server needs no browser). Does nothing when it is installed.
set -euo pipefail
chromium=/usr/bin/chromium
if [ -x "$chromium" ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: $chromium is missing and there is no apt-get here;" \
    "install Chromium so that $chromium exists, then run make test again." >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-chromium: $chromium is missing; installing it needs root and there is no sudo." \
    "Run 'apt-get install chromium' as root, then make test again." >&2
  exit 1
fi
echo "install-chromium: installing Debian's chromium for the browser tests" >&2
"${as_root[@]}" apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
"$chromium" --version
