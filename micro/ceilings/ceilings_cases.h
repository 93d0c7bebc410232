// The cases of //micro:ceilings, which measure the ceilings the other benchmarks divide by:
//   BM_Ceiling/cpu/fma/<avx2|avx512>            register-resident FMA loop, all threads
//   BM_Ceiling/cpu/bf16/<avx512_bf16|amx_bf16>  register-resident bf16 dot-product loop
//                                               (VDPBF16PS, or AMX's TDPBF16PS), all threads
//   BM_Ceiling/cpu/stream_copy/bytes:<B>        STREAM copy, arrays of B bytes (>= 4x LLC)
//   BM_Ceiling/cpu/stream_triad/bytes:<B>       STREAM triad
//   BM_Ceiling/cpu/memory_roofs/bytes:<B>       the DRAM roof of every kind of traffic (read,
//                                               write_nt, copy, triad, in_place;
//                                               accounting/memory_roofs.h), the five kernels
//                                               interleaved in each iteration on 3 arrays of B
//                                               bytes; counters <kind>_bytes/s (best) and
//                                               <kind>_spread ((best - median) / best)
//   BM_Ceiling/cpu/cache_sweep                  the working-set sweep of the five kinds
//                                               (measure/cache_sweep.h): the cache levels found
//                                               from the read curve's knees, each with every
//                                               kind's roof (counters level<i>_capacity_bytes,
//                                               level<i>_<kind>_bytes/s); one iteration
//   BM_Ceiling/cpu/gemm/<library>/<NN|NT|TN>/M:<m>/N:<n>/K:<k>[/bias]
//                                               a GEMM of gpt_step's default CPU train step
//                                               (GPT-2 124M, B=4, T=64; quick: test-tiny),
//                                               run as the model runs it, per library
//   BM_Ceiling/cuda/copy_d2d/bytes:<B>          cudaMemcpy device to device
//   BM_Ceiling/cuda/gemm/<dtype>/M:<m>/K:<k>/N:<n>  a large cuBLAS GEMM (fp32, tf32, bf16, fp16)
// Every iteration is one trial; the ceiling is the best trial (CeilingRecorder keeps it),
// the counters show the mean and the best. pct_of_peak compares with a declared CPU peak
// (cores x lanes x 2 FMA units x 2 x the clock /proc/cpuinfo reports) or the GPU datasheet,
// as the label says: a sanity check of the measurement, not a target.
#ifndef MICRO_CEILINGS_CEILINGS_CASES_H_
#define MICRO_CEILINGS_CEILINGS_CASES_H_

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/ceilings.h"
#include "measure/bf16_peak.h"
#include "measure/fma_peak.h"
#include "measure/stream.h"
#include "micro/common/bench_common.h"
#include "micro/common/cuda_case.h"

namespace micro {

// Best trial of each measurement, filled in as the cases run.
class CeilingRecorder {
 public:
  void RecordFma(const FmaPeakResult& r);
  // The CPU file's peak_flops["bf16"] is the faster loop's best trial.
  void RecordBf16(const Bf16PeakResult& r);
  void RecordStream(bool triad, int64_t elements, double bytes_per_s);
  // The memory roofs case's trials so far (StreamArrays::Result).
  void RecordMemoryRoofs(const StreamResult& r);
  // The cache levels of the working-set sweep (written to the file's cache_levels).
  void RecordCacheLevels(const std::vector<accounting::CacheLevel>& levels, const std::string& method);
  void RecordCudaCopy(const std::string& device, int64_t bytes, double bytes_per_s);
  void RecordCudaGemm(const std::string& device, const std::string& dtype, int64_t size, double flops_per_s);
  // key: model::StepGemm::Key; written to the CPU ceilings' gemm_flops_per_s.
  void RecordCpuGemm(const std::string& key, double flops_per_s);

  // The best FMA trial so far, as a peak (the GEMM cases' pct_of_peak divides by it).
  absl::StatusOr<accounting::Peak> CpuFmaPeak() const;
  bool HasCpu() const;   // an FMA result and a STREAM copy result
  bool HasCuda() const;  // a device copy and at least one GEMM
  // Errors say which measurement is missing (e.g. the filter excluded it).
  absl::StatusOr<accounting::Ceilings> CpuCeilings() const;
  absl::StatusOr<accounting::Ceilings> CudaCeilings() const;

 private:
  mutable std::mutex mu_;
  std::optional<FmaPeakResult> avx2_, avx512_;
  std::optional<Bf16PeakResult> bf16_;
  StreamResult stream_;
  int stream_trials_ = 0;
  std::optional<StreamResult> roofs_;
  std::vector<accounting::CacheLevel> cache_levels_;
  std::string cache_method_;
  std::string device_;
  int64_t copy_bytes_ = 0;
  double copy_bytes_per_s_ = 0;
  int copy_trials_ = 0;
  std::map<std::string, double> gemm_flops_;
  int64_t gemm_size_ = 0;
  std::map<std::string, double> cpu_gemm_flops_;
};

// Registers every case (the CUDA ones only where a CUDA device is usable: cuda_case.h); returns
// their names (without the /manual_time suffix) and the CUDA cases left out.
RegisteredCases RegisterCeilingsBenchmarks(SizeSet sizes, CeilingRecorder* recorder);

// Writes what the run measured: CPU ceilings to --ceilings_out, GPU ceilings to
// --cuda_ceilings_out; when no CPU case ran and --cuda_ceilings_out is empty, the GPU ceilings
// go to --ceilings_out. Errors name the file and what is missing.
absl::Status WriteRecordedCeilings(const CeilingRecorder& recorder, const MicroFlags& flags);

}  // namespace micro

#endif  // MICRO_CEILINGS_CEILINGS_CASES_H_
