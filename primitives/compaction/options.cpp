// A primitive's options: their descriptions (OptionSpec), the values a spec gives them
// (OptionValues, read without making the primitive) and the reader factories take them from.
#include <stdexcept>

#include "primitives/compaction/compaction.h"

namespace srt::compaction {
namespace {

bool parseInt(const std::string& v, int* out) {
  try {
    size_t used = 0;
    const int x = std::stoi(v, &used);
    if (used != v.size()) return false;
    *out = x;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// "k=v,k=v" as pairs; `who` names the primitive in the error for an item that is not k=v.
// A bare key ("auto:fresh") stands for key=1; `bare`, when given, says which items were bare
// (only flags may be).
std::vector<std::pair<std::string, std::string>> splitOptions(const std::string& who,
                                                              std::string_view text,
                                                              std::vector<bool>* bare = nullptr) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const size_t eq = item.find('=');
    if (eq == 0 || item.empty())
      throw std::invalid_argument(who + ": option '" + std::string(item) +
                                  "' is not of the form key=value");
    if (bare) bare->push_back(eq == std::string_view::npos);
    if (eq == std::string_view::npos)
      out.emplace_back(std::string(item), "1");
    else
      out.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return out;
}

}  // namespace

OptionSpec intOption(std::string key, int fallback, int min, int max, int step) {
  std::string accepted = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (step > 1)
    accepted = "a multiple of " + std::to_string(step) + " in [" + std::to_string(min) + ", " +
               std::to_string(max) + "]";
  return {std::move(key), std::to_string(fallback), accepted, [=](const std::string& v) {
            int x = 0;
            return parseInt(v, &x) && x >= min && x <= max && x % step == 0;
          }};
}

OptionSpec powerOfTwoOption(std::string key, int fallback, int min, int max) {
  return {std::move(key), std::to_string(fallback),
          "a power of two in [" + std::to_string(min) + ", " + std::to_string(max) + "]",
          [=](const std::string& v) {
            int x = 0;
            return parseInt(v, &x) && x >= min && x <= max && (x & (x - 1)) == 0;
          }};
}

OptionSpec choiceOption(std::string key, std::string fallback, std::vector<std::string> choices) {
  std::string accepted;
  for (size_t i = 0; i < choices.size(); ++i)
    accepted += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return {std::move(key), std::move(fallback), accepted, [choices](const std::string& v) {
            for (const std::string& c : choices)
              if (v == c) return true;
            return false;
          }};
}

OptionSpec flagOption(std::string key, bool fallback) {
  return choiceOption(std::move(key), fallback ? "1" : "0", {"0", "1"});
}

OptionValues OptionValues::read(const std::string& who, const std::vector<OptionSpec>& specs,
                                std::string_view text) {
  OptionValues values;
  std::vector<bool> bare;
  const auto items = splitOptions(who, text, &bare);
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& [key, value] = items[i];
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& d : specs) spec = d.key == key ? &d : spec;
    const bool flag = spec && spec->accepts("0") && spec->accepts("1") && !spec->accepts("2");
    if (bare[i] && !flag)
      throw std::invalid_argument(who + ": option '" + key + "' is not of the form key=value");
    if (!spec) {
      std::string keys;
      for (const OptionSpec& d : specs) keys += (keys.empty() ? "" : ", ") + d.key;
      throw std::invalid_argument(
          who + " has no option '" + key + "'" +
          (keys.empty() ? " (it takes none)" : " (it takes: " + keys + ")"));
    }
    if (values.given(key)) throw std::invalid_argument(who + ": option " + key + " is given twice");
    if (!spec->accepts(value))
      throw std::invalid_argument(who + ": " + key + "=" + value + " is not " + spec->accepted);
    values.values_.emplace_back(key, value);
    values.given_.push_back(key);
  }
  for (const OptionSpec& d : specs)
    if (!values.given(d.key)) values.values_.emplace_back(d.key, d.fallback);
  return values;
}

const std::string& OptionValues::get(const std::string& key) const {
  for (const auto& [k, v] : values_)
    if (k == key) return v;
  throw std::logic_error("compaction option '" + key + "' is not described");
}

int OptionValues::getInt(const std::string& key) const {
  int x = 0;
  if (!parseInt(get(key), &x))
    throw std::logic_error("compaction option " + key + "=" + get(key) + " is not an integer");
  return x;
}

bool OptionValues::given(const std::string& key) const {
  for (const std::string& k : given_)
    if (k == key) return true;
  return false;
}

OptionReader::OptionReader(std::string primitive, std::string_view text)
    : primitive_(std::move(primitive)),
      values_(splitOptions("compaction '" + primitive_ + "'", text)) {}

std::string OptionReader::get(const std::string& key, const std::string& fallback) {
  known_.push_back(key);
  for (const auto& [k, v] : values_)
    if (k == key) return v;
  return fallback;
}

int OptionReader::getInt(const std::string& key, int fallback) {
  const std::string v = get(key, std::to_string(fallback));
  int x = 0;
  if (parseInt(v, &x)) return x;
  throw std::invalid_argument("compaction '" + primitive_ + "': option " + key + "=" + v +
                              " is not an integer");
}

void OptionReader::finish() const {
  for (const auto& [k, v] : values_) {
    bool ok = false;
    for (const std::string& known : known_) ok |= known == k;
    if (ok) continue;
    std::string list;
    for (const std::string& known : known_) list += (list.empty() ? "" : ", ") + known;
    throw std::invalid_argument("compaction '" + primitive_ + "' has no option '" + k + "'" +
                                (list.empty() ? " (it takes none)" : " (it takes: " + list + ")"));
  }
}

}  // namespace srt::compaction
