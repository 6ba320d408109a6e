#!/usr/bin/env bash
# Installs every Debian package neardup needs to build, test and run.
# Idempotent and non-interactive: does nothing when all are present.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
  # core
  libicu-dev libxxhash-dev libabsl-dev
  # storage
  librocksdb-dev libprotobuf-dev protobuf-compiler
  # server and client: gRPC, metrics, logs, config files
  libgrpc++-dev protobuf-compiler-grpc prometheus-cpp-dev libspdlog-dev
  libfmt-dev libyaml-cpp-dev
  # Python client test (stubs generated from the proto)
  python3-grpcio python3-grpc-tools
  # CLI and benchmarks
  libcli11-dev libsimdjson-dev libbenchmark-dev
  # tests
  libgtest-dev libgmock-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
