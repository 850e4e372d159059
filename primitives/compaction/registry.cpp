#include <stdexcept>

#include "primitives/compaction/adaptive/adaptive_compactor.h"
#include "primitives/compaction/compaction.h"

namespace srt::compaction {

const char* toString(Device d) {
  switch (d) {
    case Device::Cpu: return "cpu";
    case Device::Cuda: return "cuda";
    case Device::Gl: return "opengl";
    case Device::Any: return "any";
  }
  return "?";
}

bool Info::accepts_(MemorySpace m) const {
  for (MemorySpace a : accepts)
    if (a == m) return true;
  return false;
}

void validate(const Request& r) {
  if (r.count > 0 && !r.keep) throw std::invalid_argument("compaction: keep flags are null");
  if (!r.numKept) throw std::invalid_argument("compaction: numKept is null");
  if (r.numFields < 0 || r.numFields > kMaxFields)
    throw std::invalid_argument("compaction: " + std::to_string(r.numFields) +
                                " fields (at most " + std::to_string(kMaxFields) + ")");
  for (int f = 0; f < r.numFields; ++f) {
    const Field& field = r.fields[f];
    if (field.bytes == 0 || field.bytes % 4 != 0 || field.bytes > kMaxFieldBytes)
      throw std::invalid_argument("compaction: field " + std::to_string(f) + " has " +
                                  std::to_string(field.bytes) +
                                  "-byte elements (a multiple of 4 up to 256 is needed)");
    if (r.count > 0 && (!field.src || !field.dst))
      throw std::invalid_argument("compaction: field " + std::to_string(f) + " has a null pointer");
  }
}

Registry& Registry::global() {
  static Registry* registry = [] {
    auto* r = new Registry;
    registerCpuCompactors(*r);
    registerCudaCompactors(*r);
    registerGlCompactors(*r);
    registerAdaptiveCompactors(*r);  // last: "auto" picks among the others
    return r;
  }();
  return *registry;
}

void Registry::add(Info info, Factory factory) {
  if (find(info.name)) throw std::logic_error("compaction primitive registered twice: " + info.name);
  entries_.push_back({std::move(info), std::move(factory)});
}

const Info* Registry::find(std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.info.name == name) return &e.info;
  return nullptr;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.info.name);
  return out;
}

std::string_view Registry::nameOf(std::string_view spec) {
  return spec.substr(0, spec.find(':'));
}

std::unique_ptr<Compactor> Registry::create(std::string_view spec) const {
  const std::string_view name = nameOf(spec);
  const std::string_view options =
      name.size() < spec.size() ? spec.substr(name.size() + 1) : std::string_view();
  for (const Entry& e : entries_)
    if (e.info.name == name) {
      OptionReader reader(std::string(name), options);
      auto compactor = e.factory(reader);
      reader.finish();
      return compactor;
    }
  std::string list;
  for (const Entry& e : entries_) list += (list.empty() ? "" : ", ") + e.info.name;
  throw std::invalid_argument("unknown compaction primitive '" + std::string(name) +
                              "' (registered: " + list + ")");
}

OptionReader::OptionReader(std::string primitive, std::string_view text)
    : primitive_(std::move(primitive)) {
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw std::invalid_argument("compaction '" + primitive_ + "': option '" + std::string(item) +
                                  "' is not of the form key=value");
    values_.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
}

std::string OptionReader::get(const std::string& key, const std::string& fallback) {
  known_.push_back(key);
  for (const auto& [k, v] : values_)
    if (k == key) return v;
  return fallback;
}

int OptionReader::getInt(const std::string& key, int fallback) {
  const std::string v = get(key, std::to_string(fallback));
  try {
    size_t used = 0;
    const int x = std::stoi(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
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
