# Sourced by the gate experiments (false_alarm_experiment.sh, gate_detection_experiment.sh),
# from the folder they cd to (tools/).
#
# snapshot_binaries OUT: builds bench, gate and the test fixture fake_bench, empties OUT (leaving
# OUT/baselines), and copies the binaries (symlinks resolved) with bench's runfiles into
# OUT/snapshot, so that rebuilds in this checkout during the experiment cannot change the code
# under test. Sets SNAP (the snapshot) and BIN (bazel-bin), and the environment bench and gate
# expect outside `bazel run`.
snapshot_binaries() {
  local out="$1"
  bazel build //tools:bench //tools:gate //tools/bench:testdata/fake_bench >/dev/null 2>&1
  rm -rf "$out"
  mkdir -p "$out/baselines"
  export BUILD_WORKSPACE_DIRECTORY="$PWD" BUILD_WORKING_DIRECTORY="$PWD"
  unset RUNFILES_DIR
  SNAP="$out/snapshot"
  mkdir -p "$SNAP"
  BIN="$(bazel info bazel-bin 2>/dev/null)"  # not the bazel-bin link: another config may own it
  cp -L "$BIN/tools/bench/bench" "$BIN/tools/gate/gate" "$BIN/tools/bench/testdata/fake_bench" "$SNAP/"
  cp -rL "$BIN/tools/bench/bench.runfiles" "$SNAP/bench.runfiles"
}
