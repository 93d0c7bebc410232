#!/usr/bin/env bash
# ddp_step under mpirun with 2 CPU ranks:
#  1. ddp_equivalence_test_main: one DDP step = one single-rank step over the combined batch,
#     parameters identical on both ranks (also with gradient accumulation).
#  2. ddp_step (when given): prints the per-rank table; a config that differs across ranks is an
#     error on every rank; a rank that dies ends the job with an error within the timeout.
# Args: EQUIVALENCE_BINARY [DDP_STEP_BINARY]
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
equiv=$(readlink -f "$1")
step=${2:+$(readlink -f "$2")}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== equivalence: 2 ranks vs 1 rank over the combined batch"
timeout 120 mpirun -np 2 --oversubscribe "$equiv" > "$tmp/equiv.log" 2>&1 || { cat "$tmp/equiv.log"; fail "equivalence test"; }
cat "$tmp/equiv.log"
[ "$(grep -c '\[  PASSED  \] 3 tests' "$tmp/equiv.log")" = 2 ] || fail "both ranks must pass 3 tests"

[ -n "$step" ] || exit 0
