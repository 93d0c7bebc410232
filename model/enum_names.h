// An enum's values and their names as one table, so that the name of a value, the value of a
// name (a flag's parser) and the list of allowed names in its error message cannot disagree:
//   constexpr EnumName<Color> kColors[] = {{Color::kRed, "red"}, {Color::kBlue, "blue"}};
//   NameOf(kColors, Color::kRed) == "red";   ValueOf(kColors, "blue") == Color::kBlue;
//   JoinNames(kColors) == "red, blue".
// Header-only, host-only; the model and model/cuda parse their flags with it.
#ifndef MODEL_ENUM_NAMES_H_
#define MODEL_ENUM_NAMES_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace model {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

// The name of `value`; "?" for a value the table lacks.
template <typename E, size_t N>
const char* NameOf(const EnumName<E> (&table)[N], E value) {
  for (const EnumName<E>& e : table) {
    if (e.value == value) return e.name;
  }
  return "?";
}

// The value named `name`; nullopt for any other text.
template <typename E, size_t N>
std::optional<E> ValueOf(const EnumName<E> (&table)[N], std::string_view name) {
  for (const EnumName<E>& e : table) {
    if (name == e.name) return e.value;
  }
  return std::nullopt;
}

// The names in table order, joined by `separator`: "onednn, openblas".
template <typename E, size_t N>
std::string JoinNames(const EnumName<E> (&table)[N], std::string_view separator = ", ") {
  std::string out;
  for (const EnumName<E>& e : table) {
    if (!out.empty()) out += separator;
    out += e.name;
  }
  return out;
}

}  // namespace model

#endif  // MODEL_ENUM_NAMES_H_
