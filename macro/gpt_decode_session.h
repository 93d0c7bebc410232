// One gpt_decode session: the parameters (the training model's for --seed), the decoder of the
// chosen device for each batch case, the peak FLOP/s and the memory bandwidth it is measured
// against, and the timing of generations. ComputeDecodeFigures turns a case's timed generations
// into the reported figures with accounting's formulas (accounting/decode_cost.h, mfu.h).
#ifndef MACRO_GPT_DECODE_SESSION_H_
#define MACRO_GPT_DECODE_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "accounting/decode_cost.h"
#include "accounting/disturbed.h"
#include "accounting/peaks.h"
#include "macro/rank_peak.h"
#include "macro/gpt_decode_options.h"
#include "measure/stream.h"
#include "model/gpt_decoder.h"

namespace macro {

// One generation's times (host clock; Greedy waits for the device, so each time covers the
// work): the prefill of P tokens per stream and its greedy pick, then each of the G decode steps
// (Step + Greedy: one new token per stream).
struct Generation {
  double prefill_s = 0;
  std::vector<double> step_s;
  std::vector<int32_t> tokens;  // (B, G) the tokens generated, stream-major
  bool finite = true;           // the last logits were all finite
  // The read roof of this generation's minutes: the better of the probes right before and right
  // after it (bytes/s; 0: not probed, the bandwidth is a --ceilings file's or a GPU's).
  double read_roof = 0;
};

// Random prompt tokens (B, P) in [0, vocab) from `seed` (the same for every case).
std::vector<int32_t> DecodePrompt(const model::GptConfig& config, int B, int P, uint64_t seed);

// Reset, Prefill + Greedy, then G x (Step(previous pick) + Greedy).
absl::StatusOr<Generation> RunGeneration(model::GptDecoder* decoder, absl::Span<const int32_t> prompt, int P,
                                         int G);

// What a case reports.
struct DecodeFigures {
  int batch = 0, prompt = 0, generate = 0, generations = 0;
  double decode_s = 0, prefill_s = 0;          // summed over the generations
  double decode_tokens_per_s = 0;              // B * G * n / decode_s (new tokens only)
  double prefill_tokens_per_s = 0;             // B * P * n / prefill_s
  double step_ms_median = 0, step_ms_p90 = 0;  // time per token (one per stream) of a step
  accounting::DecodeCost cost;                 // one generation's G steps (decode_cost.h)
  double bytes_per_token = 0;                  // cost.bytes_per_token()
  double weight_bytes_per_token = 0, kv_bytes_per_token = 0;
  double flops_per_token = 0;
  double bandwidth = 0;             // bytes/s the bound divides the reads by (the read roof on the CPU)
  double write_bandwidth = 0;       // bytes/s the cache writes are counted at; 0: not counted
  double kv_write_bytes_per_token = 0;
  double bound_tokens_per_s = 0;    // all streams: DecodeBoundTokensPerSecond
  double bound_fraction = 0;        // decode_tokens_per_s / bound; with read_roof probes, the
                                    // median of each generation's tokens/s over its own bound
  int roof_probes = 0;              // generations with a read_roof probe (all or none)
  double bound_fraction_min = 0, bound_fraction_max = 0;  // over the generations, with probes
  double achieved_bytes_per_s = 0;  // bytes_per_token * decode_tokens_per_s
  double peak_flops = 0;
  double mfu = 0;  // flops_per_token * tokens/s / peak
};

// The bound of `cost` at the read roof, with the cache's writes at the write roof where there is
// one (write_roof > 0; else they are not counted): accounting::DecodeBoundTokensPerSecond.
absl::StatusOr<double> DecodeBound(const accounting::DecodeCost& cost, double read_roof, double write_roof);

// A CPU run's note when the weights a step reads (weight_bytes_per_step) are under 4x the
// last-level cache (llc_bytes as the OS reports it; <= 0 unknown: no note), STREAM's rule for a
// cache-resident figure: part of them may stay in the cache from one token to the next, so the
// DRAM bound can be passed. "" otherwise. On the Intel Xeon (AMX) VM (480 MiB reported), gpt2's
// int8 weights (132 MB a step) read 57-59 GB/s from a 128 MiB array against 30-35 from 256 MiB-1
// GiB, and int8 decode reached 99% of the bound, some generations 100-102%.
std::string WeightsInCacheNote(double weight_bytes_per_step, int64_t llc_bytes);

// The p-th percentile (0..100) of v by linear interpolation between order statistics (numpy's
// default); v non-empty.
double Percentile(std::vector<double> v, double p);

// weights: the weights' storage (a bytes-per-parameter figure, or accounting::DecodeWeights::Int8()).
// Errors: no generations, a generation with another number of steps than G, non-positive
// times, bandwidth or peak <= 0. write_bandwidth: the cache writes' roof (0: writes not counted).
absl::StatusOr<DecodeFigures> ComputeDecodeFigures(const model::GptConfig& config, accounting::DecodeWeights weights,
                                                   double bytes_per_kv, int batch, int prompt, int generate,
                                                   const std::vector<Generation>& generations,
                                                   double bandwidth, double peak_flops, double write_bandwidth = 0);

class DecodeSession {
 public:
  // Sets the threads and the GEMM library (CPU), initialises the parameters from o.step.seed,
  // and chooses the peak (macro/rank_peak.h) and the bandwidth: on the CPU the STREAM copy
  // bandwidth of --ceilings or measured now, with the run's threads; on CUDA --ceilings or the
  // datasheet.
  static absl::StatusOr<std::unique_ptr<DecodeSession>> Create(const DecodeOptions& o);

  // The decoder for `batch` streams (replacing the previous one: one at a time in memory).
  absl::StatusOr<model::GptDecoder*> Decoder(int batch);

  const DecodeOptions& options() const { return o_; }
  const std::string& device_name() const { return device_name_; }
  const accounting::Peak& peak() const { return peak_; }  // flops_per_s and the rule's source
  // After a case's timed generations: the FMA peak probed again when it was measured at start-up
  // (rank_peak.h ProbeAgain); peak() becomes the best probe, probes() holds both. The bandwidth
  // is not probed again (its exceed check still applies: accounting/disturbed.h).
  absl::Status ProbePeakAgain();
  const accounting::PeakProbes& probes() const { return probes_; }
  // CPU, --cpu_gemm=auto: the prompt's GEMM shapes with each backend's rate and the choice
  // (model/gemm_chooser.h; a decode step's few rows run the matrix-vector form, no GEMM).
  const std::vector<std::string>& gemm_choices() const { return gemm_choices_; }
  double bandwidth() const { return bandwidth_; }
  // The roof the KV cache's writes are counted at (the write_nt roof on the CPU); 0: not counted.
  double write_bandwidth() const { return write_bandwidth_; }
  // On the CPU with the roofs measured at start-up: the read roof probed again before the first
  // timed generation and after each (about 15 ms, outside their time), so each generation is held
  // to the bandwidth of its own minutes; nullptr with a --ceilings file's roofs (the user's figure) or on CUDA.
  micro::ReadRoofProbe* read_probe() const { return read_probe_.get(); }
  const std::string& bandwidth_source() const { return bandwidth_source_; }
  double bytes_per_param() const { return bytes_per_param_; }  // weights' storage (int8: 1, scales apart)
  // The weights' storage as the decode bytes count it (accounting/decode_cost.h): on the CPU the
  // decoder's int8 (with scales) or bf16 copy of the matmul weights, the rest fp32; else
  // bytes_per_param() for every weight.
  accounting::DecodeWeights decode_weights() const {
    if (o_.weights == model::WeightFormat::kInt8) return accounting::DecodeWeights::Int8();
    if (o_.weights == model::WeightFormat::kBf16 && o_.step.device == "cpu") {
      return accounting::DecodeWeights::Bf16WeightOnly();
    }
    return accounting::DecodeWeights(bytes_per_param_);
  }
  double bytes_per_kv() const { return bytes_per_kv_; }  // the cache's: fp32 on the CPU, the dtype's on CUDA
  int64_t num_params() const { return static_cast<int64_t>(params_.size()); }

 private:
  DecodeSession() = default;
  DecodeOptions o_;
  std::vector<float> params_;
  std::unique_ptr<model::GptDecoder> decoder_;
  std::string device_name_;
  accounting::Peak peak_;
  RankPeak run_peak_;  // the start-up choice
  accounting::PeakProbes probes_;
  double bandwidth_ = 0;
  double write_bandwidth_ = 0;
  std::unique_ptr<micro::ReadRoofProbe> read_probe_;
  std::string bandwidth_source_;
  std::vector<std::string> gemm_choices_;
  double bytes_per_param_ = 4;
  double bytes_per_kv_ = 4;
};

}  // namespace macro

#endif  // MACRO_GPT_DECODE_SESSION_H_
