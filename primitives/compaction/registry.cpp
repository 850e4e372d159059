#include <stdexcept>

#include "primitives/common/name_list.h"
#include "primitives/compaction/adaptive/adaptive_compactor.h"
#include "primitives/compaction/compaction.h"

namespace srt::compaction {

bool Info::accepts_(MemorySpace m) const {
  for (MemorySpace a : accepts)
    if (a == m) return true;
  return false;
}

std::string Info::summary() const {
  std::string out = description;
  if (options.empty()) return out;
  std::string list;
  for (const OptionSpec& o : options)
    list += (list.empty() ? "" : "; ") + o.key + "=" + o.fallback + ": " + o.accepted;
  return out + " [" + list + "]";
}

std::string Needs::unmet(const Info& i) const {
  if (device && i.device != *device)
    return std::string("runs on ") + toString(i.device) + ", not " + toString(*device);
  if (memory && !i.accepts_(*memory))
    return std::string("runs on ") + toString(i.device) + " and cannot take streams in " +
           toString(*memory) + " memory";
  if (compacts && !i.compacts) return "does not compact (dead lanes stay in the stream)";
  if (ordered && !i.ordered) return "is unordered (survivors may change order)";
  if (direct && i.picks) return "picks among the other primitives";
  if (!gl && i.usesGl()) return "runs OpenGL passes, and no OpenGL 4.5 context is at hand";
  return {};
}

void validate(const Request& r) {
  if (r.count > 0 && !r.keep) throw std::invalid_argument("compaction: keep flags are null");
  if (!r.numKept) throw std::invalid_argument("compaction: numKept is null");
  if (r.numFields < 0 || r.numFields > kMaxFields)
    throw std::invalid_argument("compaction: " + std::to_string(r.numFields) + " fields (at most " +
                                std::to_string(kMaxFields) + ")");
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

void Registry::add(Info info, Factory factory, std::vector<OptionSpec> options) {
  if (find(info.name))
    throw std::logic_error("compaction primitive registered twice: " + info.name);
  if (!options.empty()) info.options = std::move(options);
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

std::vector<const Info*> Registry::matching(const Needs& needs) const {
  std::vector<const Info*> out;
  for (const Entry& e : entries_)
    if (needs.unmet(e.info).empty()) out.push_back(&e.info);
  return out;
}

std::vector<std::string> Registry::namesMatching(const Needs& needs) const {
  std::vector<std::string> out;
  for (const Info* i : matching(needs)) out.push_back(i->name);
  return out;
}

std::string_view Registry::nameOf(std::string_view spec) {
  return spec.substr(0, spec.find(':'));
}

Info Registry::check(std::string_view spec, const Needs& needs) const {
  const std::string prefix = needs.what.empty() ? "" : needs.what + ": ";
  const std::string name(nameOf(spec));
  const Info* found = find(name);
  if (!found)
    throw std::invalid_argument(prefix + "unknown compaction primitive '" + name +
                                "' (registered: " + commaList(names()) + ")");
  Info info = *found;
  const std::string_view text =
      name.size() < spec.size() ? spec.substr(name.size() + 1) : std::string_view();
  const std::string who = prefix + "compaction '" + name + "'";
  const OptionValues values = OptionValues::read(who, info.options, text);
  if (info.resolve) {
    try {
      info.resolve(info, values);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(prefix + e.what());
    }
  }
  const std::string unmet = needs.unmet(info);
  if (unmet.empty()) return info;
  const std::vector<std::string> fit = namesMatching(needs);
  const std::string list = fit.empty() ? "none is registered" : commaList(fit);
  if (!needs.kind.empty())
    throw std::invalid_argument(prefix + "'" + name + "' is not " + needs.kind +
                                "; use one of: " + list);
  throw std::invalid_argument(prefix + "'" + name + "' " + unmet +
                              "; primitives that can: " + list);
}

std::unique_ptr<Compactor> Registry::create(std::string_view spec) const {
  Needs any;
  any.what.clear();  // messages name the primitive alone
  check(spec, any);
  const std::string_view name = nameOf(spec);
  const std::string_view options =
      name.size() < spec.size() ? spec.substr(name.size() + 1) : std::string_view();
  for (const Entry& e : entries_) {
    if (e.info.name != name) continue;
    OptionReader reader(std::string(name), options);
    auto compactor = e.factory(reader);
    reader.finish();
    for (const std::string& key : reader.keysRead()) {
      bool described = false;
      for (const OptionSpec& d : e.info.options) described |= d.key == key;
      if (!described)
        throw std::logic_error("compaction '" + e.info.name + "' reads option '" + key +
                               "', which its registration does not describe");
    }
    return compactor;
  }
  throw std::logic_error("compaction '" + std::string(name) + "' vanished from the registry");
}

}  // namespace srt::compaction
