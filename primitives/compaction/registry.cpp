#include <stdexcept>

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

std::unique_ptr<Compactor> Registry::create(std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.info.name == name) return e.factory();
  std::string list;
  for (const Entry& e : entries_) list += (list.empty() ? "" : ", ") + e.info.name;
  throw std::invalid_argument("unknown compaction primitive '" + std::string(name) +
                              "' (registered: " + list + ")");
}

}  // namespace srt::compaction
