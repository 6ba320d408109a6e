#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#  1. Release build (gcc): the whole suite via ctest.
#  2. Sanitize build (clang, ASan + UBSan) of everything: the whole suite
#     but the deploy checks, with short deterministic libFuzzer runs over
#     canonicalize + tokenize + streaming and over the dataset readers.
#  3. Tsan build (clang, ThreadSanitizer): the tests labelled tsan (the
#     concurrent index, storage and server tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

echo "== Release build and tests"
scripts/build.sh Release -DNEARDUP_BUILD_BENCH=ON
ctest --test-dir build/release --output-on-failure -j 2

# Sanitizer reports must be symbolized: TSan's suppressions match function
# names, and an unsymbolized frame matches nothing (a suppressed race in
# inlined gRPC code then fails the run). Fail loudly instead.
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
if [ ! -x "$symbolizer" ]; then
  echo "test.sh: $symbolizer is missing (Debian package llvm-14);" \
    "sanitizer reports would be unsymbolized" >&2
  exit 1
fi
export ASAN_SYMBOLIZER_PATH="$symbolizer"

echo "== Sanitizer build (ASan+UBSan) of everything: the whole suite and the fuzz smokes"
# Every test binary runs instrumented, the end-to-end ones against an
# instrumented neardupd. Left out, by label: deploy (YAML, dashboard and
# rule checks; the binaries they start are the ones the e2e tests cover).
sanitize_start=$SECONDS
CC=clang CXX=clang++ scripts/build.sh Sanitize -DNEARDUP_CORE_ONLY=OFF \
  -DNEARDUP_BUILD_FUZZ=ON -DNEARDUP_BUILD_BENCH=OFF
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp" \
  ctest --test-dir build/sanitize --output-on-failure -j 2 -LE deploy
echo "ASan+UBSan build and tests: $((SECONDS - sanitize_start)) s"


echo "== ThreadSanitizer build: the tests labelled tsan"
# The concurrent index, storage and server tests: each declares TSAN in its
# CMakeLists (neardup_add_test), which puts it in target neardup_tsan_tests
# and label tsan. tests/tsan.supp silences races inside Debian's
# uninstrumented RocksDB, gRPC and Abseil, never in our code.
CC=clang CXX=clang++ cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=Tsan \
  -DNEARDUP_BUILD_BENCH=OFF >/dev/null
ninja -C build/tsan -j "${JOBS:-2}" neardup_tsan_tests
export TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp external_symbolizer_path=$symbolizer"
ctest --test-dir build/tsan -L tsan --output-on-failure -j 2
