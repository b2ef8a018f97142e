#!/usr/bin/env bash
# Runs courier-demo against Courier's local httpbin-style test server (127.0.0.1, a free port),
# then stops the server. Exit status: the demo's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="$(mktemp)"
python3 Tests/CourierTests/Fixtures/test_server.py --port 0 --no-stdin-watch > "$out" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$out"' EXIT
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$out" | head -n 1)"
    [[ -n "$port" ]] && break
    sleep 0.1
done
[[ -n "$port" ]] || { echo "demo-against-server: the test server did not start" >&2; cat "$out" >&2; exit 1; }
swift run courier-demo --base-url "http://127.0.0.1:$port" "$@"
