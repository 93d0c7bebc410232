#!/usr/bin/env bash
# The bundle's MPI off the build machine: ddp_step on one rank (no mpirun, as gpu_check.sh runs
# it) inside a root that holds nothing but the bundle, its .debs unpacked as gpu_check.sh unpacks
# them, and the C runtime the bundle leaves to the GPU machine (libc, libstdc++, libgcc_s, zlib):
# no Open MPI installed system-wide, no ssh, no shell, no Debian. The GPU machine's image is not
# Debian; this is the harshest form of it (a chroot, not a distribution).
#   sudo tools/gpu/bare_root_mpi_check.sh BUNDLE_DIR
# Needs root (chroot, and bind mounts of /proc, /dev, /sys and /usr/local/cuda in a private mount
# namespace of its own: they vanish with it). It asserts that
#   1. ddp_step starts, trains one step on the CPU and writes its --json_out, in gpu_check.sh's
#      runtime environment (runtime_env: Open MPI relocated with OPAL_PREFIX, the isolated launcher);
#   2. the same without OMPI_MCA_plm=isolated fails to start (Open MPI's rsh launcher finds no
#      ssh): the check sees what it is for, and gpu_check.sh's setting is what makes it pass.
# Exit 0 with "PASS", else 1 with "FAIL: ...". tools/gpu/gpu_check_selftest.sh runs it in CI.
set -euo pipefail
BUNDLE="$(cd "${1:?usage: bare_root_mpi_check.sh BUNDLE_DIR}" && pwd)"
fail() { echo "bare_root_mpi_check: FAIL: $*" >&2; exit 1; }
(( $(id -u) == 0 )) || fail "needs root (chroot and bind mounts); run it with sudo"
for tool in chroot unshare mount findmnt dpkg; do
  command -v "$tool" > /dev/null || fail "needs $tool"
done
[[ -d /usr/local/cuda/lib64 ]] || fail "needs the CUDA toolkit's libraries in /usr/local/cuda/lib64 (ddp_step links cuBLAS and NCCL)"

root="$(mktemp -d /tmp/mlbench-bare-root.XXXXXX)"
cleanup() {
  # Never remove through a mount: the namespace's mounts are gone once its process ended, but
  # a bind mount of /dev or /proc left behind must stop the removal, not be emptied.
  if findmnt -rn -o TARGET | grep -q "^$root"; then
    echo "bare_root_mpi_check: $root still has mounts; left in place" >&2
  else
    rm -rf "$root"
  fi
}
trap cleanup EXIT

mkdir -p "$root"/{bin,proc,dev,sys,tmp/deps,usr/local/cuda,bundle}
tar -C "$root/bundle" -xzf "$BUNDLE/bin.tar.gz" bin/macro_ddp_step
mv "$root/bundle/bin/macro_ddp_step" "$root/bin/ddp_step"
cp -r "$BUNDLE/lib" "$root/bundle/lib"
for deb in "$BUNDLE"/debs/*.deb; do dpkg -x "$deb" "$root/tmp/deps"; done
[[ -x "$root/tmp/deps/usr/bin/orted" ]] || fail "the bundle's .debs hold no orted (openmpi-bin)"

# The C runtime only, copied from this machine: the libraries ddp_step, orted and Open MPI's
# plugins resolve (with the .debs first on the path) outside the unpacked .debs and CUDA, kept
# to the packages gpu_bundle.sh leaves to the GPU machine (libc6, libstdc++6, libgcc-s1, zlib1g,
# libzstd1, libcrypt1), by their sonames.
deps="$root/tmp/deps"
libpath="$deps/usr/lib/x86_64-linux-gnu:$deps/usr/lib/x86_64-linux-gnu/openblas-openmp:$deps/lib/x86_64-linux-gnu"
mapfile -t objects < <(echo "$root/bin/ddp_step"; echo "$deps/usr/bin/orted"; find "$deps" -name '*.so*' -type f)
while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.* | libdl.so.* | libm.so.* | libpthread.so.* | librt.so.* | libgcc_s.so.* | libstdc++.so.* | \
      libz.so.* | libzstd.so.* | libcrypt.so.* | ld-linux-x86-64.so.*)
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
      ;;
  esac
done < <(for o in "${objects[@]}"; do LD_LIBRARY_PATH="$libpath" ldd "$o" 2>/dev/null; done |
         awk '/=> \//{print $3} /^[[:space:]]*\/[^ ]*ld-linux/{print $1}' | sort -u)
[[ -e "$root/lib64/ld-linux-x86-64.so.2" ]] || fail "no dynamic loader copied into the root"

# gpu_check.sh's runtime environment, with the paths as the root sees them.
# shellcheck source=tools/gpu/gpu_check.sh
source "$BUNDLE/gpu_check.sh"
unset LD_LIBRARY_PATH
runtime_env /tmp/deps /usr/local/cuda/lib64 /bundle/lib
mapfile -t env_vars < <(env | grep -E '^(LD_LIBRARY_PATH|OPAL_PREFIX|OMPI_[A-Z_a-z]*)=' | sort)
unset LD_LIBRARY_PATH

in_root() {  # VAR=VALUE... -- ARGS...: ddp_step in the root, with exactly these variables
  local -a vars=()
  while [[ "$1" != "--" ]]; do vars+=("$1"); shift; done
  shift
  timeout -k 5 120 unshare --mount --propagation private bash -c '
    set -e
    r="$1"; shift
    mount --bind /proc "$r/proc"; mount --rbind /dev "$r/dev"; mount --rbind /sys "$r/sys"
    mount --bind -o ro /usr/local/cuda "$r/usr/local/cuda"
    exec "$@"' bash "$root" env -i PATH=/bin HOME=/tmp TMPDIR=/tmp "${vars[@]}" "$(command -v chroot)" "$root" /bin/ddp_step "$@"
}
args=(--device=cpu --preset=test-tiny --steps=1 --warmup_steps=0 --cpu_gemm=onednn --json_out=/tmp/ddp.json)

echo "== 1. ddp_step in the bare root, in gpu_check.sh's environment: ${env_vars[*]}"
set +e
in_root "${env_vars[@]}" -- "${args[@]}" > "$root/run1.log" 2>&1
rc=$?
set -e
tail -5 "$root/run1.log"
(( rc == 0 )) || { cat "$root/run1.log"; fail "ddp_step exited $rc in the bare root"; }
[[ -s "$root/tmp/ddp.json" ]] || fail "ddp_step wrote no --json_out in the bare root"
grep -q "per-rank figures" "$root/run1.log" || fail "ddp_step printed no per-rank figures"

echo "== 2. the same without the isolated launcher must fail to start"
rm -f "$root/tmp/ddp.json"
mapfile -t without < <(printf '%s\n' "${env_vars[@]}" | grep -v '^OMPI_MCA_plm=')
set +e
in_root "${without[@]}" -- "${args[@]}" > "$root/run2.log" 2>&1
rc=$?
set -e
(( rc != 0 )) || fail "ddp_step started without OMPI_MCA_plm=isolated: the check cannot see a missing launcher"
grep -q "agent-not-found\|Unable to start a daemon" "$root/run2.log" \
  || { tail -20 "$root/run2.log"; fail "the start failed (exit $rc), but not for the launcher"; }
echo "   failed as expected (exit $rc): $(grep -m1 -o 'agent-not-found\|Unable to start a daemon[^,]*' "$root/run2.log")"
echo "bare_root_mpi_check: PASS"
