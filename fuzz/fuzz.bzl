"""fuzz_target: one libFuzzer target and the test that replays its seed corpus."""

load("//tools/bazel:copts.bzl", "COPTS")

def fuzz_target(name, srcs, deps):
    """Declares `name` (a fuzzer binary) and `name`_seeds_test.

    With --config=fuzz (clang, libFuzzer, ASan; fuzz/run_all.sh) `name` is a libFuzzer binary.
    Otherwise (gcc, the plain build) it is linked with replay_main, which runs the target once
    over each file it is given: the seeds test replays fuzz/corpus/<name>/ in every
    `bazel test //...`, so the target keeps compiling and every seed keeps passing.
    """
    driver = select({
        "//fuzz:libfuzzer": [],
        "//conditions:default": ["//fuzz:replay_main"],
    })
    native.cc_binary(
        name = name,
        srcs = srcs,
        copts = COPTS,
        linkopts = select({
            "//fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + ["//fuzz:fuzz_util"] + driver,
    )
    native.cc_test(
        name = name + "_seeds_test",
        size = "small",
        srcs = srcs,
        copts = COPTS,
        args = ["fuzz/corpus/" + name],
        data = native.glob(["corpus/" + name + "/**"]),
        deps = deps + ["//fuzz:fuzz_util", "//fuzz:replay_main"],
    )
