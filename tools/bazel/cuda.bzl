"""cuda_library: compiles .cu files with nvcc into a library that plain cc_binary and cc_test
targets link.

  cuda_library(
      name = "foo_cuda",
      srcs = ["foo_cuda.cu"],      # compiled by nvcc, one object each (default: NAME.cu)
      hdrs = ["foo.h"],            # host-visible headers, exported to dependents
      deps = [":foo"],             # cc_library / cuda_library deps: their headers and flags
      copts = [],                  # extra nvcc flags
      host_srcs = ["foo_host.cu"], # .cu files with no device code (below)
      host_copts = ["-O1"],        # extra flags for host_srcs only
  )

host_srcs are .cu files with no device code at all (no __global__ or __device__ definition, no
<<<...>>> launch): host code that calls the CUDA, cuBLAS or cuDNN host APIs. nvcc hands them
straight to the host compiler (`-x c++`) with the toolkit's headers on the path, skipping the
device passes (cudafe++, cicc and ptxas for every architecture), which for a file that includes a
large header set (cudnn-frontend) are a large part of the compile. They get the host flags of
srcs (-O3 in opt builds, unless host_copts has an -O of its own), copts, then host_copts.

Architectures: sm_90 SASS plus compute_90 PTX by default. Choose others from the command line
or .bazelrc with `--define=cuda_archs=80,90` (comma-separated compute capabilities; SASS for
each, PTX for the last). A change to any header of the target or of its deps rebuilds the
objects that may include it. Where no CUDA toolkit was found, the target is incompatible and
skipped by `bazel build //...`.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@local_cuda//:defs.bzl", "CUDA_ENABLED", "CUDNN_ENABLED", "NVCC", "NVIDIA_DRIVER_FOUND")
load("//tools/bazel:defs.bzl", "mlb_cc_library")

DEFAULT_CUDA_ARCHS = "90"

def _gencode_flags(archs):
    flags = []
    archs = [a.strip() for a in archs.split(",") if a.strip()]
    if not archs:
        fail("--define=cuda_archs must name at least one compute capability, e.g. 90")
    for a in archs:
        if not a.isdigit():
            fail("--define=cuda_archs: '%s' is not a compute capability like 80 or 90" % a)
        flags.append("-gencode=arch=compute_%s,code=sm_%s" % (a, a))
    last = archs[-1]
    flags.append("-gencode=arch=compute_%s,code=compute_%s" % (last, last))
    return flags

def _cuda_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    dep_infos = [d[CcInfo] for d in ctx.attr.deps]
    dep_cc = cc_common.merge_cc_infos(cc_infos = dep_infos)
    dep_ctx = dep_cc.compilation_context

    own_hdrs = ctx.files.hdrs + [f for f in ctx.files.srcs if f.extension in ["cuh", "h"]]
    header_inputs = depset(own_hdrs, transitive = [dep_ctx.headers])

    opt = ctx.var.get("COMPILATION_MODE", "fastbuild") == "opt"
    archs = ctx.var.get("cuda_archs", DEFAULT_CUDA_ARCHS)
    # Flags for host and device sources alike: language, host optimisation, includes, defines.
    base = [
        "-std=c++17",
        "-Xcompiler=-fPIC",
        "-ccbin=" + cc_toolchain.compiler_executable,
        "-I.",
        "-I" + ctx.bin_dir.path,
        "-I" + ctx.genfiles_dir.path,
    ]
    if opt:
        base.append("-DNDEBUG")
    for inc in dep_ctx.includes.to_list() + dep_ctx.quote_includes.to_list():
        base.append("-I" + inc)
    for inc in dep_ctx.system_includes.to_list():
        base += ["-isystem", inc]
    for d in dep_ctx.defines.to_list():
        base.append("-D" + d)

    # nvcc's -O is the host compiler's (device code is optimised fully either way); an -O in
    # host_copts replaces it for host_srcs.
    host_opt = ["-O3" if opt else "-O1"]
    device = host_opt + ["-lineinfo", "--expt-relaxed-constexpr"] + _gencode_flags(archs)
    host_only = ["-x", "c++"] + ([] if [f for f in ctx.attr.host_copts if f.startswith("-O")] else host_opt)

    # (source, the flags after base, mnemonic) for every object.
    compiles = [(f, device + ctx.attr.copts, "NvccCompile") for f in ctx.files.srcs if f.extension == "cu"]
    compiles += [(f, host_only + ctx.attr.copts + ctx.attr.host_copts, "NvccHostCompile") for f in ctx.files.host_srcs]
    objects = []
    for src, flags, mnemonic in compiles:
        obj = ctx.actions.declare_file("_objs/%s/%s.o" % (ctx.label.name, src.basename[:-3]))
        ctx.actions.run(
            executable = NVCC,
            arguments = base + flags + ["-c", src.path, "-o", obj.path],
            inputs = depset([src], transitive = [header_inputs]),
            outputs = [obj],
            mnemonic = mnemonic,
            progress_message = "nvcc %s%s" % (src.short_path, " (host only)" if mnemonic == "NvccHostCompile" else ""),
            use_default_shell_env = True,
        )
        objects.append(obj)

    archive = ctx.actions.declare_file("lib%s.a" % ctx.label.name)
    ctx.actions.run(
        executable = cc_toolchain.ar_executable,
        arguments = ["rcs", archive.path] + [o.path for o in objects],
        inputs = objects,
        outputs = [archive],
        mnemonic = "NvccArchive",
        use_default_shell_env = True,
    )
    library = cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        static_library = archive,
        alwayslink = True,
    )
    own = CcInfo(
        compilation_context = cc_common.create_compilation_context(headers = depset(ctx.files.hdrs)),
        linking_context = cc_common.create_linking_context(
            linker_inputs = depset([cc_common.create_linker_input(
                owner = ctx.label,
                libraries = depset([library]),
            )]),
        ),
    )
    return [
        DefaultInfo(files = depset([archive])),
        cc_common.merge_cc_infos(cc_infos = [own] + dep_infos),
    ]

_cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu", ".cuh", ".h"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "host_srcs": attr.label_list(allow_files = [".cu"]),
        "host_copts": attr.string_list(),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

# What a CUDA-only target puts in target_compatible_with.
CUDA_COMPATIBLE = [] if CUDA_ENABLED else ["@platforms//:incompatible"]

def cuda_library(name, srcs = None, hdrs = [], deps = [], copts = [], host_srcs = [], **kwargs):
    """nvcc-compiled library, linked with cudart; skipped where no CUDA toolkit exists.
    srcs default to NAME.cu (none where host_srcs are given)."""
    _cuda_library(
        name = name,
        srcs = ([] if host_srcs else [name + ".cu"]) if srcs == None else srcs,
        host_srcs = host_srcs,
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:cudart"],
        copts = copts,
        target_compatible_with = kwargs.pop("target_compatible_with", []) + CUDA_COMPATIBLE,
        **kwargs
    )

def if_cuda(with_cuda, without_cuda = []):
    """Picks a value by whether the CUDA toolkit was found (e.g. a real or a stub backend)."""
    return with_cuda if CUDA_ENABLED else without_cuda

def if_cuda_model(with_model, without_model = []):
    """Picks a value by whether the binaries link the CUDA model (gpt_step, ddp_step, gpt_decode):
    with the toolkit, by default where an NVIDIA driver was found (NVIDIA_DRIVER_FOUND in
    cuda_configure.bzl), or as --define=cuda_model=on|off says. Without a driver the model's CUDA
    code (about half of gpt_step's first build on 2 cores) would only be linked to say "no CUDA
    device"; `bazel build //...` still compiles all of it, and the tests that link it always
    (cuda_model_test) use if_cuda. Returns a select(): use it in attribute values only."""
    if not CUDA_ENABLED:
        return without_model
    return select({
        "//tools/bazel:cuda_model_on": with_model,
        "//tools/bazel:cuda_model_off": without_model,
        "//conditions:default": with_model if NVIDIA_DRIVER_FOUND else without_model,
    })

def cuda_model_absent_defines():
    """local_defines for a *_none.cc stub: MLBENCH_CUDA_ABSENT=1 where the build has no CUDA
    toolkit, 2 where it has one but no NVIDIA driver was found when Bazel configured the
    workspace, 3 where --define=cuda_model=off left the model out (stub_reason.h words each)."""
    if not CUDA_ENABLED:
        return ["MLBENCH_CUDA_ABSENT=1"]
    return select({
        "//tools/bazel:cuda_model_on": [],
        "//tools/bazel:cuda_model_off": ["MLBENCH_CUDA_ABSENT=3"],
        "//conditions:default": [] if NVIDIA_DRIVER_FOUND else ["MLBENCH_CUDA_ABSENT=2"],
    })

def if_cudnn(with_cudnn, without_cudnn = []):
    """Picks a value by whether the toolkit has cuDNN's headers (cudnn.h): the real cuDNN attention
    or its stub. The library itself is opened at run time."""
    return with_cudnn if CUDNN_ENABLED else without_cudnn

def cuda_or_stub_library(name, srcs = [], deps = [], kernel_deps = [], deps_if_cuda = [], host_only = False, **kwargs):
    """NAME (hdrs NAME.h): the nvcc-compiled kernels where the CUDA toolkit exists, a stub elsewhere.

      cuda_or_stub_library(name = "copy_cuda", kernel_deps = ["//micro/common:cuda_util"])

    With the toolkit NAME links the private cuda_library NAME_cuda (NAME_kernels where NAME
    already ends in _cuda), compiled from NAME_cuda.cu (NAME.cu) with kernel_deps; without it
    NAME compiles NAME_none.cc, which says the binary was built without the CUDA toolkit. srcs and
    deps are NAME's in both builds; deps_if_cuda are NAME's with the toolkit only. host_only = True
    where the .cu has no device code (host API calls only): it is then one of cuda_library's
    host_srcs, compiled without the device passes. Any other attribute (visibility, ...) is NAME's.
    """
    base = name if name.endswith("_cuda") else name + "_cuda"
    kernels = name + "_kernels" if name.endswith("_cuda") else base
    hdrs = [name + ".h"]
    cuda_library(
        name = kernels,
        srcs = [] if host_only else [base + ".cu"],
        host_srcs = [base + ".cu"] if host_only else [],
        hdrs = hdrs,
        visibility = ["//visibility:private"],
        deps = kernel_deps,
    )
    mlb_cc_library(
        name = name,
        srcs = srcs + if_cuda([], [name + "_none.cc"]),
        hdrs = hdrs,
        deps = deps + if_cuda([":" + kernels] + deps_if_cuda),
        **kwargs
    )

def cuda_and_emu_library(name, srcs = None, hdrs = None, deps = [], cuda_deps = [], emu_deps = [], **kwargs):
    """One host library built twice: NAME over the GPU build (cuda_deps; only where the CUDA
    toolkit exists) and NAME_emu over the emulated one (emu_deps; runs anywhere), both from
    srcs (NAME.cc) and hdrs (NAME.h) with deps."""
    srcs = [name + ".cc"] if srcs == None else srcs
    hdrs = [name + ".h"] if hdrs == None else hdrs
    mlb_cc_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        target_compatible_with = CUDA_COMPATIBLE,
        deps = deps + cuda_deps,
        **kwargs
    )
    mlb_cc_library(
        name = name + "_emu",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + emu_deps,
        **kwargs
    )

def cuda_headers(name, **kwargs):
    """NAME.cuh, included by .cu files only: textual (no compiler takes it alone)."""
    native.cc_library(
        name = name,
        textual_hdrs = [name + ".cuh"],
        **kwargs
    )
