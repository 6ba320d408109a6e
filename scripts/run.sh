#!/usr/bin/env bash
# Installs what is missing, builds Release, and starts neardupd in the
# foreground on its embedded default: a local RocksDB directory
# (./neardup-data), gRPC on 127.0.0.1:50051, the HTTP/JSON API and web
# console on 127.0.0.1:8080, Prometheus metrics on 127.0.0.1:9464, without
# TLS (--plaintext, loopback only). Extra arguments go to neardupd (see
# neardupd --help).
# Stop it with Ctrl-C (graceful: in-flight calls finish, RocksDB closes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh Release -DNEARDUP_BUILD_BENCH=OFF
echo "== starting neardupd; try: build/release/client/neardup health"
echo "== HTTP/JSON API and web console: http://127.0.0.1:8080/ (docs/http.md)"
exec build/release/server/neardupd --data-dir ./neardup-data --plaintext \
  --http-listen 127.0.0.1:8080 "$@"
