// Per-op timing for --profile. Every op of a model is bracketed by Begin(name) / End() (or a
// ScopedOp); a device provides the timer: the CPU uses HostOpTimer (steady_clock, correct because
// CPU ops are synchronous), the CUDA model a timer built on events. Scopes may nest ("forward"
// around "forward/layernorm"); totals are kept per name in first-seen order.
#ifndef MODEL_OP_TIMER_H_
#define MODEL_OP_TIMER_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace model {

struct OpTime {
  std::string op;
  double seconds = 0;  // summed over calls
  int64_t calls = 0;
};

class OpTimer {
 public:
  virtual ~OpTimer() = default;
  virtual void Begin(std::string_view op) = 0;
  virtual void End() = 0;  // closes the innermost open Begin
  // Totals per op name since the last Reset (a device timer synchronises first).
  virtual std::vector<OpTime> Totals() = 0;
  virtual void Reset() = 0;
};

// Begin on construction, End on destruction; does nothing when timer is null.
class ScopedOp {
 public:
  ScopedOp(OpTimer* timer, std::string_view op) : timer_(timer) {
    if (timer_ != nullptr) timer_->Begin(op);
  }
  ~ScopedOp() {
    if (timer_ != nullptr) timer_->End();
  }
  ScopedOp(const ScopedOp&) = delete;
  ScopedOp& operator=(const ScopedOp&) = delete;

 private:
  OpTimer* timer_;
};

// Host steady_clock timer for synchronous (CPU) ops. Not thread-safe: one per model.
class HostOpTimer : public OpTimer {
 public:
  void Begin(std::string_view op) override;
  void End() override;
  std::vector<OpTime> Totals() override { return totals_; }
  void Reset() override;

 private:
  struct Open {
    size_t index;
    std::chrono::steady_clock::time_point start;
  };
  std::vector<OpTime> totals_;
  std::vector<Open> open_;
};

}  // namespace model

#endif  // MODEL_OP_TIMER_H_
