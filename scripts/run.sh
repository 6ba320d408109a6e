#!/usr/bin/env bash
# Installs what is missing, builds Release, and runs neardup on the sample
# documents. (Once neardupd exists this starts the server instead.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh Release
bin=build/release/client/neardup
a=docs/samples/article_a.txt
b=docs/samples/article_b.txt
echo "== canonical form of $a (first 200 bytes)"
"$bin" canonicalize "$a" | head -c 200; echo
echo "== MinHash signature (H=128, 5-word shingles), as JSON (first 300 bytes)"
"$bin" fingerprint "$a" --format json | head -c 300; echo " ..."
echo "== SimHash"
"$bin" fingerprint "$a" --algo simhash
echo "== compare $a $b"
"$bin" compare "$a" "$b"
