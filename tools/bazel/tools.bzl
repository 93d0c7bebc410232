"""The command-line tools users run, by name -> the target that builds each: both //:NAME and
//tools:NAME are public aliases of them (the root BUILD.bazel, tools/BUILD.bazel)."""

# Who sees a tool's binary: the two packages that alias it, and the bad-inputs test that runs it.
TOOL_VISIBILITY = [
    "//:__pkg__",
    "//tools/bad_inputs:__pkg__",
    "//tools:__pkg__",
]

TOOLS = {
    "bench": "//tools/bench",
    "cluster": "//tools/cluster",
    "devices": "//tools/devices",
    "estimate": "//tools/estimate",
    "gate": "//tools/gate",
    "history": "//tools/history",
    "make_tokens": "//model/data:make_tokens",
    "report": "//tools/report",
    "sweep": "//tools/sweep",
}
