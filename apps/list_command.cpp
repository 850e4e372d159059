// `streamrt list`: the compaction primitives, segmented reductions and built-in scenes a user can
// name, from their registries.
#include <cstdio>
#include <string>

#include "apps/command.h"
#include "primitives/compaction/compaction.h"
#include "primitives/reduction/reduction.h"
#include "renderer/accel/gpu/segmented_boxes.h"
#include "scenes/loader.h"

namespace srt {
namespace {

int runList() {
  std::printf("Compaction primitives (--compaction NAME[:key=value,...]):\n");
  std::printf("  %-22s %-8s %-10s %s\n", "name", "runs on", "ordering", "description");
  for (const auto& e : compaction::Registry::global().entries()) {
    const auto& i = e.info;
    std::printf("  %-22s %-8s %-10s %s\n", i.name.c_str(), compaction::toString(i.device),
                !i.compacts ? "-" : (i.ordered ? "ordered" : "unordered"), i.summary().c_str());
  }
  std::printf("\nSegmented reductions (--segreduce NAME, the GPU kd-tree build's node bounds):\n");
  for (const reduction::Info& i : gpuKdSegmentedReductions())
    std::printf("  %-22s %-19s %s\n", i.name.c_str(),
                i.commutativeOnly ? "commutative only" : "any associative op",
                i.description.c_str());
  std::printf("\nBuilt-in scenes:\n");
  for (const std::string& name : builtinSceneNames()) std::printf("  %s\n", name.c_str());
  return 0;
}

}  // namespace

Command addListCommand(CLI::App& app) {
  CLI::App* list = app.add_subcommand("list", "List compaction primitives and built-in scenes");
  return {list, runList};
}

}  // namespace srt
