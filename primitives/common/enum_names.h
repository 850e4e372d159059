// One name table per enum: value <-> name for parsing, printing, --help choices and JSON, so no
// enum needs a hand-written switch. An enum opts in with a constexpr function beside it, found
// by argument-dependent lookup:
//   enum class Schedule { Regenerate, Waves };
//   constexpr EnumNames<Schedule, 2> enumNames(Schedule) {
//     return {{{{Schedule::Regenerate, "regenerate"}, {Schedule::Waves, "waves"}}}};
//   }
// Then toString(Schedule::Waves) is "waves", parseEnum<Schedule>("waves", "--schedule") is
// Schedule::Waves, and enumChoices<Schedule>() is {"regenerate", "waves"}.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace srt {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

template <typename E, size_t N>
struct EnumNames {
  std::array<EnumName<E>, N> entries;
};

// The table of E (SFINAE: only enums that have one).
template <typename E, typename Table = decltype(enumNames(E{}))>
constexpr Table enumTable() {
  return enumNames(E{});
}

// The name of `value`; "?" for a value outside the table (a cast from a bad integer).
template <typename E, typename = decltype(enumNames(E{}))>
const char* toString(E value) {
  for (const auto& e : enumTable<E>().entries)
    if (e.value == value) return e.name;
  return "?";
}

template <typename E>
std::optional<E> enumFromString(std::string_view name) {
  for (const auto& e : enumTable<E>().entries)
    if (name == e.name) return e.value;
  return std::nullopt;
}

template <typename E>
std::vector<std::string> enumChoices() {
  std::vector<std::string> out;
  for (const auto& e : enumTable<E>().entries) out.push_back(e.name);
  return out;
}

// "path or whitted", "auto, standard or persistent": the choices for a message.
template <typename E>
std::string enumChoiceList() {
  const std::vector<std::string> names = enumChoices<E>();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// Throws std::invalid_argument "<what> must be path or whitted (got 'x')".
template <typename E>
E parseEnum(std::string_view name, std::string_view what) {
  if (const std::optional<E> v = enumFromString<E>(name)) return *v;
  throw std::invalid_argument(std::string(what) + " must be " + enumChoiceList<E>() + " (got '" +
                              std::string(name) + "')");
}

}  // namespace srt
