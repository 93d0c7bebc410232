#!/usr/bin/env bash
# Bazel's workspace status (--workspace_status_command in .bazelrc): the commit every binary
# records in its run context (sysinfo/build_info.h). STABLE_ keys rebuild what reads them when
# they change, so a binary never reports another revision's commit.
# "+dirty" when tracked files differ from the commit; "unknown" outside a git checkout.
commit="$(git rev-parse HEAD 2>/dev/null || true)"
if [[ -z "$commit" ]]; then
  echo "STABLE_MLBENCH_COMMIT unknown"
  exit 0
fi
if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  commit="$commit+dirty"
fi
echo "STABLE_MLBENCH_COMMIT $commit"
