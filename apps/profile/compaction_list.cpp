#include "apps/profile/compaction_list.h"

#include <algorithm>
#include <stdexcept>

#include "primitives/compaction/compaction.h"
#include "renderer/wavefront/integrator.h"

namespace srt::profile {

std::vector<std::string> parseCompactionList(const std::string& text, const Backend& backend) {
  std::vector<std::string> pieces;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string piece =
        text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (piece.empty())
      throw std::invalid_argument("--compaction: empty name in the list '" + text + "'");
    const bool option =
        piece.find('=') != std::string::npos && piece.find(':') == std::string::npos;
    if (option && !pieces.empty() && pieces.back().find(':') != std::string::npos)
      pieces.back() += "," + piece;
    else
      pieces.push_back(piece);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }

  const auto& registry = compaction::Registry::global();
  compaction::Needs needs;
  needs.memory = backend.memory();
  std::vector<std::string> specs;
  const auto add = [&specs](const std::string& spec) {
    if (std::find(specs.begin(), specs.end(), spec) == specs.end()) specs.push_back(spec);
  };
  for (const std::string& piece : pieces) {
    if (piece == "all") {
      for (const std::string& name : registry.namesMatching(needs)) add(name);
    } else {
      registry.check(piece, needs);  // names, options and memory, without making it
      add(piece);
    }
  }
  add("none");
  return specs;
}

}  // namespace srt::profile
