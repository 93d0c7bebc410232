// The train-step flags shared by //macro:gpt_step and //macro:ddp_step (defined once in
// step_flags.cc), read into RawStepFlags. A binary's own flags live in its main file.
#ifndef MACRO_STEP_FLAGS_H_
#define MACRO_STEP_FLAGS_H_

#include "macro/step_options.h"

namespace macro {

// Source file of the shared flags, for a --help that lists them.
constexpr char kStepFlagsFile[] = "macro/step_flags.cc";

// The parsed values of the shared flags (call after absl::ParseCommandLine).
RawStepFlags ReadStepFlags();

}  // namespace macro

#endif  // MACRO_STEP_FLAGS_H_
