// Why a binary has no CUDA model, in the words of its *_none.cc stubs. MLBENCH_CUDA_ABSENT is
// set per target by cuda.bzl's cuda_model_absent_defines(): 1 no CUDA toolkit in the build, 2 a
// toolkit but no NVIDIA driver on the machine that configured the workspace (the default leaves
// the model out there: its first build is then half as long), 3 --define=cuda_model=off.
#ifndef MLBENCH_MODEL_CUDA_CUDA_ABSENT_H_
#define MLBENCH_MODEL_CUDA_CUDA_ABSENT_H_

namespace model {

inline const char* CudaAbsentReason() {
#if !defined(MLBENCH_CUDA_ABSENT) || MLBENCH_CUDA_ABSENT == 1
  return "no CUDA device: built without the CUDA toolkit (none found at CUDA_PATH or /usr/local/cuda)";
#elif MLBENCH_CUDA_ABSENT == 2
  return "this build links no CUDA model: no NVIDIA driver was found when Bazel configured the "
         "workspace (/proc/driver/nvidia/version, /dev/nvidiactl). After installing one, run "
         "`bazel sync --configure`; or build with --define=cuda_model=on";
#else
  return "this build links no CUDA model: it was built with --define=cuda_model=off "
         "(--define=cuda_model=on links it)";
#endif
}

}  // namespace model

#endif  // MLBENCH_MODEL_CUDA_CUDA_ABSENT_H_
