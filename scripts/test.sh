#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#  1. Release build (gcc): the whole suite via ctest.
#  2. Sanitize build (clang, ASan + UBSan) of core: its tests, then a short
#     deterministic libFuzzer run over canonicalize + tokenize + streaming.
#  3. Tsan build (clang, ThreadSanitizer): the concurrent index tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

echo "== Release build and tests"
scripts/build.sh Release -DNEARDUP_BUILD_BENCH=ON
ctest --test-dir build/release --output-on-failure -j 2

echo "== Sanitizer build (ASan+UBSan) of core, tests and fuzz smoke"
CC=clang CXX=clang++ scripts/build.sh Sanitize -DNEARDUP_CORE_ONLY=ON \
  -DNEARDUP_BUILD_FUZZ=ON -DNEARDUP_BUILD_BENCH=OFF
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/sanitize --output-on-failure -j 2

echo "== ThreadSanitizer build: index tests"
CC=clang CXX=clang++ scripts/build.sh Tsan -DNEARDUP_CORE_ONLY=ON \
  -DNEARDUP_BUILD_BENCH=OFF
TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build/tsan -L index \
  --output-on-failure -j 2
