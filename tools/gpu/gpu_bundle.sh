#!/usr/bin/env bash
# Builds the GPU-relevant binaries and tests HERE (where Bazel is) and packs them, stripped and
# gzip'd (bin.tar.gz), with the runtime .debs they need, into one ignored folder (default .gpu/) that
# tools/gpu/gpu_check.sh runs on a GPU machine without Bazel (README, "On a GPU machine without Bazel").
# The bundle is refused over 60 MiB, and when it and the working tree (what a device call carries
# besides it: tracked files and untracked ones git does not ignore) come to more than 57 MiB of the
# 64 a call may carry (GPU_BUNDLE_TRAVEL_LIMIT_MB sets the figure; tools/gpu/gpu_check_selftest.sh
# checks that the refusal happens).
#
#   tools/gpu/gpu_bundle.sh [DIR]                 build and pack into DIR (default .gpu)
#   tools/gpu/gpu_bundle.sh --reuse-build DIR     the same from the workspace's own build (-march=
#                                             native): for tools/gpu/gpu_check_selftest.sh here only
#   tools/gpu/gpu_bundle.sh --check-travel DIR    only the size check below, for a bundle made before
#
# Host code is built with --config=portable (x86-64-v3, not -march=native) in a separate Bazel
# output base, so the bundle runs on another CPU and does not disturb the normal build cache.
# --reuse-build skips both (minutes of compiling less): its binaries run on this CPU only.
# Both link the CUDA model into gpt_step, ddp_step and gpt_decode (--define=cuda_model=on): this
# machine may have no NVIDIA driver, where the default leaves the model out (tools/bazel/cuda.bzl).
# The CUDA libraries are not packed (cuBLAS alone is hundreds of MB, cuDNN more): gpu_check.sh uses
# the GPU machine's own. Only libcudart (small) travels as a fallback. cuDNN is opened at run time
# (model/cuda/attention_cudnn.h), so no binary needs it to start; a bundle holding any libcudnn is
# refused below.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
LIMIT_MB=60
TRAVEL_LIMIT_MB="${GPU_BUNDLE_TRAVEL_LIMIT_MB:-57}"
if ! [[ "$TRAVEL_LIMIT_MB" =~ ^[1-9][0-9]*$ ]]; then
  echo "gpu_bundle: GPU_BUNDLE_TRAVEL_LIMIT_MB=$TRAVEL_LIMIT_MB is invalid: a whole number of MiB >= 1" >&2; exit 2
fi
# What a device call carries: the working tree (tracked files, and untracked ones git does not
# ignore) plus the bundle DIR, at most 64 MiB; TRAVEL_LIMIT_MB keeps a margin. Sets travel_mb;
# non-zero, saying why, when they are over it.
check_travel_size() {  # DIR
  local tree_bytes bundle_bytes
  tree_bytes=$( { git ls-files -z; git ls-files -z --others --exclude-standard; } \
    | xargs -0 -r stat -c %s -- 2>/dev/null | awk '{s += $1} END {print s + 0}')
  bundle_bytes=$(du -sb "$1" | cut -f1)
  travel_mb=$(( (tree_bytes + bundle_bytes + 1048575) / 1048576 ))
  if (( travel_mb > TRAVEL_LIMIT_MB )); then
    echo "gpu_bundle: the bundle ($(( bundle_bytes >> 20 )) MiB) and the working tree ($(( tree_bytes >> 20 )) MiB)" \
      "come to ${travel_mb} MiB, over the ${TRAVEL_LIMIT_MB} MiB a device call may carry here (64 MiB at most," \
      "with margin)" >&2
    return 1
  fi
}
# --check-travel DIR: only that check, for a bundle made before (the self-test's).
if [[ "${1:-}" == "--check-travel" ]]; then
  check_travel_size "${2:?usage: gpu_bundle.sh --check-travel DIR}" || exit 1
  echo "gpu_bundle: $2 and the working tree come to ${travel_mb} MiB of the ${TRAVEL_LIMIT_MB} allowed"
  exit 0
fi
REUSE=0
if [[ "${1:-}" == "--reuse-build" ]]; then REUSE=1; shift; fi
DEST="${1:-.gpu}"

# Binaries and tests that matter on a GPU, as bin/NAME=LABEL (gpu_check.sh runs them by NAME).
# A target that does not exist (yet) is left out with a note.
WANTED=(
  tools_devices=//tools/devices:devices
  tools_bazel_testdata_cuda_rule_test=//tools/bazel/testdata:cuda_rule_test
  micro_matmul=//micro/matmul:matmul
  micro_elementwise=//micro/elementwise:elementwise
  micro_ceilings=//micro/ceilings:ceilings
  macro_gpt_step=//macro:gpt_step
  macro_gpt_decode=//macro:gpt_decode
  macro_ddp_step=//macro:ddp_step
)
# CUDA tests of the model, whatever they are called: those that link the CUDA runtime (the host-
# only and emulator tests run here, under bazel test).
MODEL_CUDA_TESTS=$(bazel query 'kind("cc_test", rdeps(//model/cuda/..., @local_cuda//:cudart))' 2>/dev/null || true)

TARGETS=()
declare -A OUT_NAME=()
for t in $MODEL_CUDA_TESTS; do
  rel="${t#//}"; WANTED+=("$(echo "${rel%%:*}_${rel##*:}" | tr '/' '_')=$t")
done
for w in "${WANTED[@]}"; do
  t="${w#*=}"
  if bazel query "$t" >/dev/null 2>&1; then TARGETS+=("$t"); OUT_NAME[$t]="${w%%=*}"; else echo "gpu_bundle: $t does not exist, left out"; fi
done
if (( REUSE )); then
  echo "gpu_bundle: building ${#TARGETS[@]} targets in the workspace's own build (this CPU only)"
  BAZEL=(bazel)
  FLAGS=(-c opt --dynamic_mode=off --define=cuda_model=on)
else
  echo "gpu_bundle: building ${#TARGETS[@]} targets (portable host code, sm_90 + PTX)"
  # Its own output base, in this user's cache (never a shared folder such as /tmp), private.
  if [[ "${XDG_CACHE_HOME:-}" == /* ]]; then cache_root="$XDG_CACHE_HOME"
  elif [[ "${HOME:-}" == /* ]]; then cache_root="$HOME/.cache"
  else echo "gpu_bundle: error: no cache folder: XDG_CACHE_HOME and HOME are unset or relative; set one" >&2; exit 2
  fi
  output_base="$cache_root/mlbench_gpu_bundle"
  mkdir -p "$cache_root" && mkdir -p -m 700 "$output_base"
  if [[ "$(stat -c %u "$output_base")" != "$(id -u)" ]] || (( 0$(stat -c %a "$output_base") & 022 )); then
    echo "gpu_bundle: error: $output_base is not ours or is writable by group or others (owner uid" \
      "$(stat -c %u "$output_base"), mode $(stat -c %a "$output_base")); remove it or chmod go-w it" >&2
    exit 2
  fi
  BAZEL=(bazel --output_base="$output_base")
  FLAGS=(-c opt --config=portable --dynamic_mode=off --define=cuda_model=on)
fi
"${BAZEL[@]}" build "${FLAGS[@]}" --symlink_prefix=/ "${TARGETS[@]}"  # no bazel-* links
BIN="$("${BAZEL[@]}" info "${FLAGS[@]}" bazel-bin 2>/dev/null)"

TMP="${DEST}.tmp.$$"
# Folders an earlier, killed run left ("<dest>.tmp.<pid>" of a process that is gone).
for old in "${DEST}".tmp.*; do
  pid="${old##*.tmp.}"
  if [[ -d "$old" && "$pid" =~ ^[0-9]+$ && ! -e "/proc/$pid" ]]; then rm -rf "$old"; fi
done
rm -rf "$TMP"; mkdir -p "$TMP/bin" "$TMP/debs" "$TMP/lib" "$TMP/data"
for t in "${TARGETS[@]}"; do
  rel="${t#//}"; pkg="${rel%%:*}"; name="${rel##*:}"
  out="${OUT_NAME[$t]}"
  cp "$BIN/$pkg/$name" "$TMP/bin/$out"
  chmod u+w "$TMP/bin/$out"
  strip --strip-unneeded "$TMP/bin/$out"
  # The stub's reason (model/cuda/cuda_absent.h) in a binary means it links no CUDA model.
  if grep -q "this build links no CUDA model" "$TMP/bin/$out"; then
    echo "gpu_bundle: $t links no CUDA model (--define=cuda_model=on did not reach it); bundle refused" >&2
    rm -rf "$TMP"; exit 1
  fi
done
# Test data the CUDA tests read (fixtures), if any.
for d in model/testdata; do
  [[ -d "$d" ]] && mkdir -p "$TMP/data/$d" && cp -r "$d"/. "$TMP/data/$d/"
done

# Runtime .debs: every shared library the binaries load that a Debian package owns, except the
# C/C++ runtime the GPU machine has anyway. CUDA libraries are found there, not carried. Google
# Benchmark is built from source and linked statically (third_party/benchmark.BUILD): no
# libbenchmark .deb travels.
declare -A PKGS=() OWNER=()
# owner LIB: the package that owns LIB (or its link target), once per library (dpkg -S is slow).
owner() {
  local lib="$1" real o
  if [[ -z "${OWNER[$lib]+x}" ]]; then
    real="$(readlink -f "$lib")"
    o="$(dpkg -S "$real" 2>/dev/null | head -1 | cut -d: -f1 || true)"
    [[ -z "$o" ]] && o="$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1 || true)"
    OWNER[$lib]="$o"
  fi
  echo "${OWNER[$lib]}"
}
add_owner() {
  local o
  o="$(owner "$1")"
  [[ -z "$o" ]] && return 0
  case "$o" in libc6|libstdc++6|libgcc-s1|libcrypt1|libzstd1|zlib1g) return 0 ;; esac
  PKGS["$o"]=1
}
while read -r lib; do
  [[ -z "$lib" || ! -e "$lib" ]] && continue
  add_owner "$lib"
done < <(for f in "$TMP"/bin/*; do ldd "$f" | awk '/=> \//{print $3}'; done | sort -u)
# MPI: a singleton rank (ddp_step without mpirun) starts OpenMPI's orted and loads its plugins,
# none of which ldd of our binaries shows: carry openmpi-bin and whatever the plugins load.
if [[ -n "${PKGS[libopenmpi3]:-}" ]]; then
  PKGS[openmpi-bin]=1
  PKGS[openmpi-common]=1  # its help texts: an MPI error reads as itself, not "Sorry! ... help file"
  while read -r lib; do
    [[ -z "$lib" || ! -e "$lib" ]] && continue
    add_owner "$lib"
  done < <(for f in $(dpkg -L libopenmpi3 openmpi-bin | grep -E '\.so$|/bin/orte|/bin/orted$'); do
             [[ -f "$f" ]] && ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'; done | sort -u)
fi
(cd "$TMP/debs" && apt-get download "${!PKGS[@]}" >/dev/null)
cp -L /usr/local/cuda/lib64/libcudart.so.13 "$TMP/lib/" 2>/dev/null || true
cp tools/gpu/gpu_check.sh "$TMP/gpu_check.sh"
cp tools/gpu/gpu_check_args.sh "$TMP/gpu_check_args.sh"

{
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "targets: ${TARGETS[*]}"
  echo "debs: ${!PKGS[*]}"
} > "$TMP/MANIFEST.txt"

# cuDNN stays on the GPU machine: no libcudnn file, nor a .deb of cuDNN, in the bundle.
if cudnn_files="$(cd "$TMP" && find . \( -name 'libcudnn*' -o -name '*cudnn*.deb' \) -print)" && [[ -n "$cudnn_files" ]]; then
  echo "gpu_bundle: cuDNN must not travel in the bundle (gpu_check.sh finds the GPU machine's): $cudnn_files" >&2
  exit 1
fi

# The binaries travel as one gzip'd tar (stripped, they still share most of their code: about a
# third of the size); gpu_check.sh unpacks it next to itself before anything runs.
tar -C "$TMP" -czf "$TMP/bin.tar.gz" bin && rm -rf "$TMP/bin"

size_mb=$(du -sm "$TMP" | cut -f1)
if (( size_mb > LIMIT_MB )); then
  echo "gpu_bundle: $TMP is ${size_mb} MiB, over the ${LIMIT_MB} MiB limit; not installed" >&2
  du -sh "$TMP"/*/* | sort -h | tail >&2
  exit 1
fi
if ! check_travel_size "$TMP"; then rm -rf "$TMP"; exit 1; fi
rm -rf "$DEST"; mv "$TMP" "$DEST"
echo "gpu_bundle: $DEST ready, ${size_mb} MiB (with the working tree: ${travel_mb} MiB of the ${TRAVEL_LIMIT_MB} allowed)"; cat "$DEST/MANIFEST.txt"
echo "gpu_bundle: on the GPU machine run: bash $DEST/gpu_check.sh \$OUT"
