#!/usr/bin/env bash
# Fault test: avaedge in front of an origin that is killed mid-run and
# restarted; prints requests sent, 2xx, non-2xx and answers by source, and
# exits non-zero if a warmed cacheable route or a local-handler route failed
# during the outage. Loopback only, bounded in time and requests.
#   deploy/faultload.sh [duration]
set -euo pipefail
cd "$(dirname "$0")/.."
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/avaedge" ./cmd/avaedge
go run ./deploy/faultload -avaedge "$TMP/avaedge" -duration "${1:-12s}"
