#!/usr/bin/env bash
# bazel run //macro:ddp_step_mpirun -- -np N [ddp_step flags]: runs ddp_step under mpirun.
# Root needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (set here when root).
set -euo pipefail
bin=$(readlink -f "$1"); shift
np=1
if [ "${1:-}" = "-np" ]; then np=$2; shift 2; fi
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
cd "${BUILD_WORKING_DIRECTORY:-.}"
exec mpirun -np "$np" --oversubscribe "$bin" "$@"
