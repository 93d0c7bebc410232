// Builds the model for a run on the chosen device: the CPU reference or the CUDA model.
// The code after this call is the same for both (model::GptModel).
#ifndef MACRO_MAKE_MODEL_H_
#define MACRO_MAKE_MODEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "macro/step_options.h"
#include "model/gpt_model.h"

namespace macro {

// `device_name` receives the CUDA device's name (for the datasheet peak) or the CPU model.
absl::StatusOr<std::unique_ptr<model::GptModel>> MakeModel(const StepOptions& o,
                                                           std::string* device_name);

}  // namespace macro

#endif  // MACRO_MAKE_MODEL_H_
