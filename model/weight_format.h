// The storage of a decoder's Linear weights (the matrices every decode step reads once): fp32 as
// trained; bf16, a copy made once at load; int8, weight-only, symmetric per output channel
// (a row of a (OC, C) weight: q = round(w / s), s = max|w| / 127, fp32 scales), quantised once
// at load (gpt-fast's and llama.cpp's Q8 idea). The embeddings, norms, attention and the KV
// cache keep their own precision whatever the format.
#ifndef MODEL_WEIGHT_FORMAT_H_
#define MODEL_WEIGHT_FORMAT_H_

#include "model/enum_names.h"

namespace model {

enum class WeightFormat { kFp32, kBf16, kInt8 };

inline constexpr EnumName<WeightFormat> kWeightFormats[] = {
    {WeightFormat::kFp32, "fp32"}, {WeightFormat::kBf16, "bf16"}, {WeightFormat::kInt8, "int8"}};

inline const char* WeightFormatName(WeightFormat f) { return NameOf(kWeightFormats, f); }

}  // namespace model

#endif  // MODEL_WEIGHT_FORMAT_H_
