// The seeded request load (serve_load.h).
#include "macro/serve_load.h"

#include <cmath>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "model/data/rng.h"

namespace macro {

std::string LengthRange::ToString() const { return lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, ":", hi); }

absl::StatusOr<LengthRange> ParseLengthRange(absl::string_view text, absl::string_view flag, int max) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", text, ": ", why, "; give A:B with 1 <= A <= B <= ",
                                                   max, " (inclusive), or one number"));
  };
  const size_t colon = text.find(':');
  LengthRange r;
  const absl::string_view a = text.substr(0, colon);
  const absl::string_view b = colon == absl::string_view::npos ? a : text.substr(colon + 1);
  if (!absl::SimpleAtoi(a, &r.lo) || !absl::SimpleAtoi(b, &r.hi)) return bad("not a length or a range of lengths");
  if (r.lo < 1) return bad(absl::StrCat(r.lo, " is below 1"));
  if (r.hi > max) return bad(absl::StrCat(r.hi, " is above ", max));
  if (r.lo > r.hi) return bad(absl::StrCat(r.lo, " > ", r.hi));
  return r;
}

absl::StatusOr<double> ParseRate(absl::string_view text, absl::string_view flag) {
  if (text == "inf") return std::numeric_limits<double>::infinity();
  double r = 0;
  if (!absl::SimpleAtod(text, &r) || !std::isfinite(r) || !(r > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", text,
                                                   ": not a rate; give requests/s > 0, or inf (all at t = 0)"));
  }
  return r;
}

std::string RateName(double rate) { return std::isinf(rate) ? "inf" : absl::StrFormat("%g", rate); }

ServeLoad MakeServeLoad(int n, double rate, LengthRange prompt, LengthRange output, int vocab, uint64_t seed) {
  // Three streams: arrivals, lengths, tokens.
  model::Rng arrivals(model::MixSeed(seed, 0x5E27E, 1)), lengths(model::MixSeed(seed, 0x5E27E, 2)),
      tokens(model::MixSeed(seed, 0x5E27E, 3));
  ServeLoad load;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    const double gap = -std::log1p(-arrivals.Uniform01());  // exponential, mean 1
    t += gap;
    ServeRequest r;
    r.id = i;
    r.arrival_s = std::isinf(rate) ? 0 : t / rate;
    r.prompt = prompt.lo + static_cast<int>(lengths.UniformInt(static_cast<uint64_t>(prompt.hi - prompt.lo + 1)));
    r.output = output.lo + static_cast<int>(lengths.UniformInt(static_cast<uint64_t>(output.hi - output.lo + 1)));
    std::vector<int32_t> p(static_cast<size_t>(r.prompt));
    for (int32_t& x : p) x = static_cast<int32_t>(tokens.UniformInt(static_cast<uint64_t>(vocab)));
    load.requests.push_back(r);
    load.prompts.push_back(std::move(p));
  }
  return load;
}

}  // namespace macro
