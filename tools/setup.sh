#!/usr/bin/env bash
# Makes a fresh Debian 12 machine ready to build, test and run this project.
# Idempotent: safe to run twice. Works as root or through sudo.
#   bash tools/setup.sh            install everything the build needs
#   bash tools/setup.sh --check    only report what is missing (exit 1 if anything is)
set -euo pipefail

PACKAGES=(
  bazel-bootstrap        # Bazel 4.2.3, WORKSPACE mode, offline
  bazel-rules-java       # local rules_java for offline Bazel 4.2
  bazel-platforms        # @platforms with //:incompatible (CUDA-less skip switch)
  build-essential
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libabsl-dev
  libopenblas-dev libopenblas0-openmp libopenblas-openmp-dev
  libdnnl-dev            # oneDNN 2.6: the CPU model's default GEMM (--cpu_gemm=onednn)
  libopenmpi-dev openmpi-bin
  nlohmann-json3-dev     # JSON: benchmark output, ceilings, baselines
  python3
  clang libclang-rt-14-dev  # fuzz/: clang 14 with libFuzzer, ASan and UBSan runtimes
  chromium               # tools/report: its browser test renders the page headless (122 MB download)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ "${1:-}" == "--check" ]]; then
  if ((${#missing[@]})); then echo "setup: missing packages: ${missing[*]}"; exit 1; fi
  echo "setup: all ${#PACKAGES[@]} packages present"; exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "setup: not root and no sudo; run as root" >&2; exit 1; fi
fi

if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} package(s): ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#PACKAGES[@]} packages already installed"
fi

# OpenBLAS: the CPU model runs its own OpenMP loops; the OpenMP build of OpenBLAS shares
# that thread pool instead of fighting it (two pools on 2 cores oversubscribe them). Make it
# the system libopenblas.
for alt in libblas.so.3-x86_64-linux-gnu liblapack.so.3-x86_64-linux-gnu; do :; done
if [[ -e /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0 ]]; then
  $SUDO update-alternatives --set libopenblas.so.0-x86_64-linux-gnu \
    /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0 >/dev/null 2>&1 || true
  $SUDO update-alternatives --set libopenblas.so-x86_64-linux-gnu \
    /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so >/dev/null 2>&1 || true
fi

echo "setup: bazel: $(bazel --version 2>/dev/null || echo 'not found')"
if [[ -d /usr/local/cuda || -n "${CUDA_PATH:-}" ]]; then
  echo "setup: CUDA toolkit: ${CUDA_PATH:-/usr/local/cuda} (CUDA targets will build)"
else
  echo "setup: no CUDA toolkit found: CUDA targets will be skipped"
fi
echo "setup: done"
