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
  libabsl-dev
  libopenblas-dev libopenblas0-openmp libopenblas-openmp-dev
  libdnnl-dev            # oneDNN 2.6: the CPU model's default GEMM (--cpu_gemm=onednn)
  libopenmpi-dev openmpi-bin
  iproute2 procps        # //tools:cluster: ip netns, tc tbf (hosts as namespaces); pgrep in its test
  nlohmann-json3-dev     # JSON: benchmark output, ceilings, baselines
  libsqlite3-dev         # tools/history: the benchmark history database
  libpng-dev             # tools/report's browser test: decoding the screenshots
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

# cuDNN's C++ frontend (header-only; NVIDIA's cudnn-frontend, the graph API llm.c's cudnn_att.cpp
# uses): ONE pinned version, unpacked from its PyPI wheel's include/ into CUDNN_FE_DIR, which the
# WORKSPACE reads (@cudnn_frontend, third_party/cudnn_frontend.BUILD). The build never fetches.
# 1.19.0 is NVIDIA's recommended frontend for cuDNN 9.19; the wheel is fixed by tag and sha256.
CUDNN_FE_VERSION=1.19.0
CUDNN_FE_DIR=/opt/cudnn-frontend
CUDNN_FE_WHEEL="nvidia_cudnn_frontend-${CUDNN_FE_VERSION}-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
CUDNN_FE_SHA256=735c62e35b88943b83bbf03e364aa62d1cfa36f204a28b206163008a89cecbf6
cudnn_fe_present() {
  [[ -f "$CUDNN_FE_DIR/include/cudnn_frontend.h" && "$(cat "$CUDNN_FE_DIR/VERSION" 2>/dev/null)" == "$CUDNN_FE_VERSION" ]]
}

# Google Benchmark: built from source inside the workspace (third_party/benchmark.BUILD), with
# the project's -c opt (NDEBUG), so no binary prints "Library was built as DEBUG" (Debian's
# libbenchmark-dev is built without NDEBUG). ONE pinned version, 1.7.1 (the one the docs and code
# are written against), from Debian's source package: its orig tarball is upstream's v1.7.1 tag
# archive, byte for byte. (PyPI's google-benchmark sdists up to 1.8.3 hold only the Python
# bindings' setup.py, no C++ sources.) apt-get source runs against a private deb-src list, so the
# system's apt configuration is untouched; src/, include/ and LICENSE are unpacked into GBENCH_DIR,
# which the WORKSPACE reads (@com_google_benchmark). The build never fetches.
GBENCH_VERSION=1.7.1
GBENCH_DIR=/opt/google-benchmark
GBENCH_TARBALL="benchmark_${GBENCH_VERSION}.orig.tar.gz"
GBENCH_SHA256=6430e4092653380d9dc4ccb45a1e2dc9259d581f4866dc0759713126056bc1d7
gbench_present() {
  [[ -f "$GBENCH_DIR/include/benchmark/benchmark.h" && -f "$GBENCH_DIR/src/benchmark.cc" &&
     "$(cat "$GBENCH_DIR/VERSION" 2>/dev/null)" == "$GBENCH_VERSION" ]]
}

if [[ "${1:-}" == "--check" ]]; then
  bad=0
  if ((${#missing[@]})); then echo "setup: missing packages: ${missing[*]}"; bad=1;
  else echo "setup: all ${#PACKAGES[@]} packages present"; fi
  if cudnn_fe_present; then echo "setup: cudnn-frontend $CUDNN_FE_VERSION in $CUDNN_FE_DIR";
  else echo "setup: missing cudnn-frontend $CUDNN_FE_VERSION headers in $CUDNN_FE_DIR"; bad=1; fi
  if gbench_present; then echo "setup: google-benchmark $GBENCH_VERSION sources in $GBENCH_DIR";
  else echo "setup: missing google-benchmark $GBENCH_VERSION sources in $GBENCH_DIR"; bad=1; fi
  exit "$bad"
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

# The cuDNN frontend headers (see CUDNN_FE_VERSION above): downloaded with pip (no install),
# checked against the pinned sha256, include/ unpacked to a temporary folder, then renamed.
install_cudnn_frontend() {
  if cudnn_fe_present; then echo "setup: cudnn-frontend $CUDNN_FE_VERSION already in $CUDNN_FE_DIR"; return 0; fi
  if ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
    echo "setup: installing python3-pip (to download the cudnn-frontend wheel)"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-pip
  fi
  local tmp
  tmp="$(mktemp -d)"
  /usr/bin/python3 -m pip download --quiet "nvidia-cudnn-frontend==$CUDNN_FE_VERSION" --no-deps \
    --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 \
    --platform manylinux_2_28_x86_64 -d "$tmp"
  if ! echo "$CUDNN_FE_SHA256  $tmp/$CUDNN_FE_WHEEL" | sha256sum --check --status; then
    echo "setup: $CUDNN_FE_WHEEL is missing or its sha256 is not $CUDNN_FE_SHA256" >&2
    rm -rf "$tmp"; return 1
  fi
  /usr/bin/python3 - "$tmp/$CUDNN_FE_WHEEL" "$tmp/unpacked" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as whl:
    members = [m for m in whl.namelist() if m.startswith("include/")]
    if not any(m == "include/cudnn_frontend.h" for m in members):
        sys.exit("setup: the wheel has no include/cudnn_frontend.h")
    whl.extractall(sys.argv[2], members)
PY
  echo "$CUDNN_FE_VERSION" > "$tmp/unpacked/VERSION"
  $SUDO rm -rf "$CUDNN_FE_DIR.tmp.$$"
  $SUDO cp -r "$tmp/unpacked" "$CUDNN_FE_DIR.tmp.$$"
  $SUDO chmod -R a+rX "$CUDNN_FE_DIR.tmp.$$"
  $SUDO rm -rf "$CUDNN_FE_DIR"
  $SUDO mv "$CUDNN_FE_DIR.tmp.$$" "$CUDNN_FE_DIR"
  rm -rf "$tmp"
  echo "setup: cudnn-frontend $CUDNN_FE_VERSION headers in $CUDNN_FE_DIR"
}
install_cudnn_frontend

# Google Benchmark's sources (see GBENCH_VERSION above): the orig tarball of Debian's source
# package, downloaded by apt-get source (no dpkg-source, no build) through a deb-src list of its
# own in a temporary folder, checked against the pinned sha256, unpacked there, then renamed.
# debian_source_lists LIST SOURCES: the machine's own Debian archive entries (one-line ones from
# /etc/apt/sources.list and sources.list.d/*.list, deb822 stanzas from sources.list.d/*.sources,
# those whose URI ends in /debian), rewritten as deb-src, into a one-line LIST and a deb822
# SOURCES file: the sources come from the mirror this machine already uses.
debian_source_lists() {
  python3 - "$1" "$2" <<'PY'
import glob, re, sys
lines, stanzas = [], []
for f in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    try:
        for l in open(f):
            m = re.match(r"deb\s+((?:\[[^]]*\]\s+)?\S+/debian/?\s+.*)", l.strip())
            if m: lines.append("deb-src " + m.group(1))
    except OSError:
        pass
for f in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for st in re.split(r"\n\s*\n", open(f).read()):
        fields = dict(re.findall(r"^([A-Za-z-]+):[ \t]*(.*)$", st, re.M))
        if "deb" in fields.get("Types", "").split() and any(re.search(r"/debian/?$", u) for u in fields.get("URIs", "").split()):
            stanzas.append("\n".join(f"{k}: {'deb-src' if k == 'Types' else v}" for k, v in fields.items()))
if not lines and not stanzas:
    sys.exit("setup: no Debian archive entry (URI ending in /debian) in /etc/apt: cannot fetch sources")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
open(sys.argv[2], "w").write("\n\n".join(stanzas) + "\n")
PY
}

install_google_benchmark() {
  if gbench_present; then echo "setup: google-benchmark $GBENCH_VERSION already in $GBENCH_DIR"; return 0; fi
  local tmp apt_opts
  tmp="$(mktemp -d)"
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/dl" "$tmp/parts"
  debian_source_lists "$tmp/sources.list" "$tmp/parts/debian-src.sources"
  apt_opts=(-q -o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=$tmp/parts"
            -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o APT::Sandbox::User=root)
  $SUDO apt-get "${apt_opts[@]}" update >/dev/null
  (cd "$tmp/dl" && $SUDO apt-get "${apt_opts[@]}" source --download-only "benchmark=${GBENCH_VERSION}-1" >/dev/null)
  if ! echo "$GBENCH_SHA256  $tmp/dl/$GBENCH_TARBALL" | sha256sum --check --status; then
    echo "setup: $GBENCH_TARBALL is missing or its sha256 is not $GBENCH_SHA256" >&2
    $SUDO rm -rf "$tmp"; return 1
  fi
  mkdir -p "$tmp/unpacked"
  tar -xzf "$tmp/dl/$GBENCH_TARBALL" -C "$tmp/unpacked" --strip-components=1 \
    "benchmark-$GBENCH_VERSION/src" "benchmark-$GBENCH_VERSION/include" "benchmark-$GBENCH_VERSION/LICENSE"
  echo "$GBENCH_VERSION" > "$tmp/unpacked/VERSION"
  $SUDO rm -rf "$GBENCH_DIR.tmp.$$"
  $SUDO cp -r "$tmp/unpacked" "$GBENCH_DIR.tmp.$$"
  $SUDO chmod -R a+rX "$GBENCH_DIR.tmp.$$"
  $SUDO rm -rf "$GBENCH_DIR"
  $SUDO mv "$GBENCH_DIR.tmp.$$" "$GBENCH_DIR"
  $SUDO rm -rf "$tmp"
  echo "setup: google-benchmark $GBENCH_VERSION sources in $GBENCH_DIR"
}
install_google_benchmark

# machine.bazelrc (ignored by git; .bazelrc imports it): flags that suit this machine only.
# Bazel's sandbox builds a tree of symlinks for every action; on the VM's disk that took about a
# tenth of a cold build's action time, in RAM (tmpfs) almost none (a cold gpt_step build on 2
# cores: 82.6 s against 69.1 s). Only where /dev/shm is a tmpfs with room to spare: a container's
# default 64 MiB /dev/shm would fail large link actions.
write_machine_bazelrc() {
  local rc tmp shm_kib
  rc="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/machine.bazelrc"
  tmp="$rc.tmp.$$"
  {
    echo "# Written by tools/setup.sh for this machine; rerun it rather than editing (ignored by git)."
    shm_kib=$(df -k --output=avail /dev/shm 2>/dev/null | tail -1 | tr -d ' ' || true)
    if [[ "$(stat -f -c %T /dev/shm 2>/dev/null || true)" == "tmpfs" && "${shm_kib:-0}" =~ ^[0-9]+$ \
          && "${shm_kib:-0}" -ge $((4 * 1024 * 1024)) ]]; then
      echo "# /dev/shm is a tmpfs with $((shm_kib / 1024 / 1024)) GiB free: the sandboxes' symlink trees go there."
      echo "build --sandbox_base=/dev/shm"
    else
      echo "# /dev/shm is not a tmpfs with 4 GiB free: the sandboxes stay in the output base."
    fi
  } > "$tmp"
  mv -f "$tmp" "$rc"
  echo "setup: machine.bazelrc: $(grep -v '^#' "$rc" | tr '\n' ' ' | sed 's/ *$//' || true)"
}
write_machine_bazelrc

echo "setup: bazel: $(bazel --version 2>/dev/null || echo 'not found')"
if [[ -d /usr/local/cuda || -n "${CUDA_PATH:-}" ]]; then
  echo "setup: CUDA toolkit: ${CUDA_PATH:-/usr/local/cuda} (CUDA targets will build)"
  if [[ -e /proc/driver/nvidia/version || -e /dev/nvidiactl ]]; then
    echo "setup: NVIDIA driver found: gpt_step, ddp_step and gpt_decode link the CUDA model"
  else
    echo "setup: no NVIDIA driver: gpt_step, ddp_step and gpt_decode link no CUDA model (a quicker first"
    echo "       build); \`bazel build //...\` still compiles it; --define=cuda_model=on links it anyway"
  fi
else
  echo "setup: no CUDA toolkit found: CUDA targets will be skipped"
fi
echo "setup: done"
