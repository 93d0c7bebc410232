"""The two rule shapes most packages repeat, with the project's defaults filled in.

  mlb_cc_library(name = "stats", deps = [...])   # srcs stats.cc, hdrs stats.h, copts COPTS
  mlb_cc_test(name = "stats_test", deps = [...])  # size small, srcs stats_test.cc, gtest_main

Any attribute given explicitly wins (e.g. extra srcs, size = "medium").
"""

load("//tools/bazel:copts.bzl", "COPTS")

def mlb_cc_library(name, srcs = None, hdrs = None, copts = COPTS, **kwargs):
    native.cc_library(
        name = name,
        srcs = [name + ".cc"] if srcs == None else srcs,
        hdrs = [name + ".h"] if hdrs == None else hdrs,
        copts = copts,
        **kwargs
    )

def mlb_cc_test(name, srcs = None, deps = [], size = "small", copts = COPTS, **kwargs):
    native.cc_test(
        name = name,
        size = size,
        srcs = [name + ".cc"] if srcs == None else srcs,
        copts = copts,
        deps = deps + ["@com_google_googletest//:gtest_main"],
        **kwargs
    )
