#!/usr/bin/env bash
# Configures and builds one build type into build/<type>.
#   scripts/build.sh [Release|Debug|Sanitize] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
type="${1:-Release}"
shift || true
dir="build/$(echo "$type" | tr '[:upper:]' '[:lower:]')"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
ninja -C "$dir" -j "${JOBS:-2}"
