#!/usr/bin/env bash
# Scale-out check: three avaedge replicas on loopback share a 3-node Redis
# Cluster; shows shared cache hits, one cluster-wide quota, and no failed
# request while a Redis node restarts. Exits non-zero otherwise.
#   deploy/scaleout.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server redis-tools >/dev/null
fi
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/avaedge" ./cmd/avaedge
go run ./deploy/scaleout -avaedge "$TMP/avaedge"
