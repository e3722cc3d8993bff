#!/usr/bin/env bash
# Installs every Debian package the build and the tests need. Idempotent: skips apt-get when all
# packages are present. Python packages go into a venv (scripts/make-venv.sh), never system-wide.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config clang-14 libclang-rt-14-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libjemalloc-dev liblz4-dev libxxhash-dev zlib1g-dev libre2-dev libnuma-dev
  libzstd-dev libedit-dev libcivetweb-dev
  libflatbuffers-dev flatbuffers-compiler  # Arrow IPC metadata (coordinator/formats/arrow_format.fbs)
  libsnappy-dev libbrotli-dev  # Parquet input's page codecs (coordinator/formats/parquet_compression.h)
  prometheus-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev prometheus
  libssl-dev libcrypt-dev openssl etcd-server etcd-client
  python3 python3-venv python3-pip shellcheck ccache
  tzdata  # /usr/share/zoneinfo: DateTime('tz') conversions (core/time_zone.h)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
