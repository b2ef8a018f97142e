#!/usr/bin/env bash
# Runs Courier's local httpbin-style test server by hand (127.0.0.1 only), e.g. for
#   swift run courier-demo --base-url http://127.0.0.1:8080
# Usage: scripts/test-server.sh [port]   (default 8080; 0 picks a free port)
# Stop it with Ctrl-C. The first line printed is "PORT <n>".
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
port="${1:-8080}"
exec python3 "$here/../Tests/CourierTests/Fixtures/test_server.py" --port "$port" --no-stdin-watch
