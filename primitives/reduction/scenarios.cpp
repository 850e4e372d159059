#include "primitives/reduction/scenarios.h"

#include <random>
#include <stdexcept>

#include "primitives/reduction/reference.h"

namespace srt::reduction {

Scenario scenarioFromString(const std::string& name) {
  if (const std::optional<Scenario> s = enumFromString<Scenario>(name)) return *s;
  throw std::invalid_argument("unknown segment scenario '" + name + "' (" +
                              enumChoiceList<Scenario>() + ")");
}

std::vector<uint32_t> ownersFromOffsets(const std::vector<uint32_t>& offsets) {
  std::vector<uint32_t> owners(offsets.empty() ? 0 : offsets.back());
  for (size_t s = 0; s + 1 < offsets.size(); ++s)
    for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) owners[i] = uint32_t(s);
  return owners;
}

std::vector<uint32_t> offsetsFromOwners(const std::vector<uint32_t>& owners, uint32_t numSegments) {
  std::vector<uint32_t> offsets(size_t(numSegments) + 1, 0);
  for (size_t i = 0; i < owners.size(); ++i) {
    if (owners[i] >= numSegments || (i > 0 && owners[i] < owners[i - 1]))
      throw std::invalid_argument(
          "offsetsFromOwners: owners[" + std::to_string(i) + "] = " + std::to_string(owners[i]) +
          " is out of order or not below numSegments " + std::to_string(numSegments));
    ++offsets[owners[i] + 1];
  }
  for (size_t s = 0; s < numSegments; ++s) offsets[s + 1] += offsets[s];
  return offsets;
}

Segments makeSegments(Scenario s, uint32_t count, uint32_t size, uint64_t seed) {
  if (s == Scenario::Fixed && size == 0)
    throw std::invalid_argument("makeSegments: fixed segment size must be >= 1");
  std::mt19937_64 rng(seed);
  Segments seg;
  seg.offsets.push_back(0);
  uint32_t at = 0;
  if (s == Scenario::WithEmpty) seg.offsets.push_back(0);  // an empty first segment
  while (at < count || (s == Scenario::OneSegment && seg.offsets.size() == 1)) {
    uint32_t len = 0;
    switch (s) {
      case Scenario::OneSegment:
        len = count;
        break;
      case Scenario::Random10To50:
        len = 10 + uint32_t(rng() % 41);
        break;
      case Scenario::Fixed:
        len = size;
        break;
      case Scenario::WithEmpty:
        len = (rng() % 3 == 0) ? 0 : 1 + uint32_t(rng() % 5);
        break;
    }
    at = uint32_t(std::min<uint64_t>(uint64_t(at) + len, count));
    seg.offsets.push_back(at);
  }
  if (s == Scenario::WithEmpty) seg.offsets.push_back(count);  // an empty last segment
  seg.owners = ownersFromOffsets(seg.offsets);
  return seg;
}

}  // namespace srt::reduction
