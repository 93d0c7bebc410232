"""The rule shapes most packages repeat, with the project's defaults filled in.

  mlb_cc_library(name = "stats", deps = [...])   # srcs stats.cc, hdrs stats.h, copts COPTS
  mlb_cc_headers(name = "batch")                  # hdrs batch.h only
  mlb_cc_binary(name = "gate", deps = [...])      # srcs gate.cc, copts COPTS
  mlb_cc_test(name = "stats_test")                # size small, srcs stats_test.cc,
                                                  # deps :stats (unless given) and gtest_main
  mlb_sh_test(name = "devices_test", tools = [":devices"])
      # size small, srcs devices_test.sh, run with the path of each tool as its arguments

Every C++ target compiles with COPTS; `copts` adds flags after them, `openmp = True` compiles
and links with OpenMP (OPENMP_COPTS right after COPTS, OPENMP_LINKOPTS). Any other attribute
given explicitly wins (e.g. extra srcs, size = "medium").
"""

load("//tools/bazel:copts.bzl", "COPTS", "OPENMP_COPTS", "OPENMP_LINKOPTS")

def _copts(copts, openmp):
    return COPTS + (OPENMP_COPTS if openmp else []) + copts

def _linkopts(linkopts, openmp):
    return (OPENMP_LINKOPTS if openmp else []) + linkopts

def mlb_cc_library(name, srcs = None, hdrs = None, copts = [], linkopts = [], openmp = False, **kwargs):
    native.cc_library(
        name = name,
        srcs = [name + ".cc"] if srcs == None else srcs,
        hdrs = [name + ".h"] if hdrs == None else hdrs,
        copts = _copts(copts, openmp),
        linkopts = _linkopts(linkopts, openmp),
        **kwargs
    )

def mlb_cc_headers(name, hdrs = None, **kwargs):
    """A header-only library: nothing to compile, so no copts."""
    native.cc_library(
        name = name,
        hdrs = [name + ".h"] if hdrs == None else hdrs,
        **kwargs
    )

def mlb_cc_binary(name, srcs = None, copts = [], **kwargs):
    native.cc_binary(
        name = name,
        srcs = [name + ".cc"] if srcs == None else srcs,
        copts = _copts(copts, False),
        **kwargs
    )

def mlb_cc_test(name, srcs = None, deps = None, size = "small", copts = [], linkopts = [], openmp = False, **kwargs):
    if deps == None:
        if not name.endswith("_test"):
            fail("mlb_cc_test %s: give deps (only NAME_test defaults to deps = [\":NAME\"])" % name)
        deps = [":" + name[:-len("_test")]]
    native.cc_test(
        name = name,
        size = size,
        srcs = [name + ".cc"] if srcs == None else srcs,
        copts = _copts(copts, openmp),
        linkopts = _linkopts(linkopts, openmp),
        deps = deps + ["@com_google_googletest//:gtest_main"],
        **kwargs
    )

def mlb_sh_test(name, tools, size = "small", **kwargs):
    """NAME.sh run with `$(location TOOL)` of each of `tools`, in order, as its arguments."""
    native.sh_test(
        name = name,
        size = size,
        srcs = [name + ".sh"],
        args = ["$(location %s)" % tool for tool in tools],
        data = tools,
        **kwargs
    )

def public_aliases(actuals):
    """One public alias a name: {"gate": "//tools/gate"} makes :gate, which users run."""
    for name, actual in actuals.items():
        native.alias(
            name = name,
            actual = actual,
            visibility = ["//visibility:public"],
        )
